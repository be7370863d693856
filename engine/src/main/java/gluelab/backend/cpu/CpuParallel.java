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

    /** Runs body over [0, n) in about 4 chunks per thread, each at least {@code grain} long. */
    public void range(long n, long grain, Body body) {
        if (n <= 0) return;
        long chunks = Math.max(1, Math.min(threads * 4L, n / Math.max(1, grain)));
        if (chunks == 1) {
            body.run(0, n);
            return;
        }
        long size = (n + chunks - 1) / chunks;
        List<ForkJoinTask<?>> tasks = new ArrayList<>();
        for (long start = 0; start < n; start += size) {
            long from = start, to = Math.min(n, start + size);
            tasks.add(new RecursiveAction() {
                @Override protected void compute() { body.run(from, to); }
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

    @Override public void close() { pool.shutdownNow(); }
}
