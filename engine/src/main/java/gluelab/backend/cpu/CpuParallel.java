package gluelab.backend.cpu;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.RecursiveAction;

/** Splits index ranges over the CPU device's own thread pool. */
public final class CpuParallel implements AutoCloseable {
    /** Work on the half-open range [from, to). */
    @FunctionalInterface
    public interface Body {
        void run(long from, long to);
    }

    private final ForkJoinPool pool;
    private final int threads;

    public CpuParallel(int threads) {
        this.threads = threads;
        this.pool = new ForkJoinPool(threads);
    }

    public int threads() { return threads; }

    /**
     * Runs body over [0, n) in about 4 chunks per thread, each at least {@code grain} long. A chunk
     * runs in up to {@link #PIECES} consecutive pieces, and checks the caller's interrupt before
     * each: one step at 16k tokens takes seconds on a busy CPU, and an interrupted bench must not
     * wait for it to end.
     */
    public void range(long n, long grain, Body body) {
        if (n <= 0) return;
        Thread caller = Thread.currentThread();
        long chunks = Math.max(1, Math.min(threads * 4L, n / Math.max(1, grain)));
        if (chunks == 1) {
            stopIfInterrupted(caller);
            body.run(0, n);
            return;
        }
        long size = (n + chunks - 1) / chunks;
        // A chunk runs in pieces with the check between them: a chunk of a 16k-token step took 2.8 s on a loaded 2-core machine.
        long piece = Math.max(Math.max(1, grain), (size + PIECES - 1) / PIECES);
        List<ForkJoinTask<?>> tasks = new ArrayList<>();
        for (long start = 0; start < n; start += size) {
            long from = start, to = Math.min(n, start + size);
            tasks.add(new RecursiveAction() {
                @Override protected void compute() {
                    for (long p = from; p < to; p += piece) {
                        stopIfInterrupted(caller);
                        body.run(p, Math.min(to, p + piece));
                    }
                }
            });
        }
        if (ForkJoinTask.getPool() == pool) {
            ForkJoinTask.invokeAll(tasks);
        } else {
            pool.invoke(new RecursiveAction() {
                @Override protected void compute() { ForkJoinTask.invokeAll(tasks); }
            });
        }
    }

    /** Runs body over fixed chunks [i*size, ...) so per-chunk partial results do not depend on thread count. */
    public void chunks(long n, long size, Body body) {
        long count = (n + size - 1) / size;
        range(count, 1, (from, to) -> {
            for (long c = from; c < to; c++) body.run(c * size, Math.min(n, (c + 1) * size));
        });
    }

    /** Pieces a chunk is run in, at most, each at least {@code grain} long. */
    static final int PIECES = 16;

    private static void stopIfInterrupted(Thread caller) {
        if (caller.isInterrupted()) throw new java.util.concurrent.CancellationException("CPU work interrupted");
    }

    @Override public void close() { pool.shutdownNow(); }
}
