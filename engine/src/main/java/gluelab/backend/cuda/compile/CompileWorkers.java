package gluelab.backend.cuda.compile;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A pool of compile worker processes ({@link CompileWorker}), used as a {@link CudaCompiler}: each
 * call borrows an idle worker, sends it the job and waits for the cubin, so N caller threads keep N
 * processes busy. NVRTC does not scale across threads of one process (a 31 ms compile takes about
 * 300 ms among 16 threads); in processes of their own it does.
 *
 * <p>{@link #start} returns at once and the processes start in the background, so their start-up
 * overlaps whatever the caller does next; a compile waits only for the first idle worker. A worker
 * that dies mid-job is replaced and the job tried once more on another; a second death is reported
 * as {@link WorkerDied}. Nothing is written here: the caller ({@link CompileCache}) stores the
 * cubin that comes back whole. When no worker can start, {@link #unavailable()} says why and
 * compiles throw {@link Unavailable}: the caller then compiles in process.
 */
public final class CompileWorkers implements CudaCompiler, AutoCloseable {
    /** The job's worker died, and so did the one that tried it again. */
    public static final class WorkerDied extends RuntimeException {
        WorkerDied(String message) { super(message); }
    }

    /** No worker process could start: the reason of the last one that tried. */
    public static final class Unavailable extends RuntimeException {
        Unavailable(String message) { super(message); }
    }

    private static final int ATTEMPTS = 2;
    private static final long START_TIMEOUT_S = 120;

    private final List<String> jvm;
    private final String arch, kind, expectedId;
    private final int size;
    private final BlockingQueue<Worker> idle = new LinkedBlockingQueue<>();
    private final List<Worker> all = new CopyOnWriteArrayList<>();
    private final AtomicInteger starting = new AtomicInteger(), alive = new AtomicInteger(), restarts = new AtomicInteger();
    private final AtomicLong jobIds = new AtomicLong();
    private final long startedAt = System.nanoTime();
    private volatile double readyAfterSeconds = Double.NaN;
    private volatile String failure;
    private volatile boolean closed;

    private CompileWorkers(List<String> jvm, int size, String arch, CudaCompiler local) {
        this.jvm = List.copyOf(jvm);
        this.size = size;
        this.arch = arch;
        this.kind = local instanceof NvccCompiler ? "nvcc" : "nvrtc";
        this.expectedId = local.id();
    }

    /**
     * Starts {@code size} workers in the background and returns at once. {@code jvm} is the command
     * that runs a Java main of gluelab's (java, flags, class path); the worker's main class and
     * arguments are added. Workers compile for {@code arch} with the same kind of compiler as
     * {@code local}, and must report the same compiler, or they are not used (the cache key names it).
     */
    public static CompileWorkers start(List<String> jvm, int size, String arch, CudaCompiler local) {
        if (size < 1) throw new IllegalArgumentException("a compile pool needs >= 1 worker, got " + size);
        CompileWorkers pool = new CompileWorkers(jvm, size, arch, local);
        for (int i = 0; i < size; i++) pool.launch();
        return pool;
    }

    /** The workers' compiler: the same as this process's, which the cache key names. */
    @Override public String id() { return expectedId; }

    /** How many processes the pool was asked for. */
    public int size() { return size; }

    /** Workers started and not dead. */
    public int alive() { return alive.get(); }

    /** Seconds from {@link #start} until every worker was ready (NaN while some are still starting or none started). */
    public double readyAfterSeconds() { return readyAfterSeconds; }

    /** Why no worker can be used, once every start has failed; empty while any worker is alive or starting. */
    public Optional<String> unavailable() {
        return alive.get() == 0 && starting.get() == 0 ? Optional.of(failure == null ? "the pool is closed" : failure) : Optional.empty();
    }

    /** Process ids of the live workers (tests kill one mid-job with these). */
    public List<Long> pids() { return all.stream().filter(w -> w.process.isAlive()).map(w -> w.process.pid()).toList(); }

    /** Waits until no worker is starting; true when at least one is ready. */
    public boolean awaitStarted(long timeout, TimeUnit unit) throws InterruptedException {
        long end = System.nanoTime() + unit.toNanos(timeout);
        while (starting.get() > 0 && System.nanoTime() < end) Thread.sleep(5);
        return alive.get() > 0;
    }

    @Override public byte[] compileCubin(SourceUnit source, String arch, List<String> options) {
        String sourceKey = source.digest(), sourceName = source.name();
        String died = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            Worker w = borrow();
            CompileProtocol.Result r;
            try {
                r = w.compile(new CompileProtocol.Job(jobIds.incrementAndGet(), sourceKey, w.sources.contains(sourceKey) ? null : source,
                        arch, options));
                w.sources.add(sourceKey);
            } catch (IOException e) {
                died = w.bury();
                continue;
            }
            idle.add(w);
            return switch (r.status()) {
                case CompileProtocol.OK -> r.cubin();
                case CompileProtocol.COMPILE_ERROR -> throw new CompileException(sourceName, expectedId, r.message());
                default -> throw new IllegalStateException("compile worker " + w.process.pid() + " failed on " + sourceName + ": " + r.message());
            };
        }
        throw new WorkerDied("the compile worker process died while compiling " + sourceName + " " + String.join(" ", options)
                + ", and again when the job was tried on another (" + died + ")");
    }

    private Worker borrow() {
        try {
            while (true) {
                Worker w = idle.poll(20, TimeUnit.MILLISECONDS);
                if (w != null) return w;
                Optional<String> why = unavailable();
                if (why.isPresent() || closed) throw new Unavailable(why.orElse("the compile pool is closed"));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.util.concurrent.CancellationException("interrupted while waiting for a compile worker");
        }
    }

    /** Starts one worker on a thread of its own; it joins the idle queue once it said hello. */
    private void launch() {
        starting.incrementAndGet();
        Thread t = new Thread(() -> {
            try {
                Worker w = Worker.start(this);
                if (closed) {
                    w.kill();
                    return;
                }
                all.add(w);
                alive.incrementAndGet();
                idle.add(w);
            } catch (IOException | RuntimeException e) {
                failure = e.getMessage();
            } finally {
                if (starting.decrementAndGet() == 0 && alive.get() == size && Double.isNaN(readyAfterSeconds)) {
                    readyAfterSeconds = (System.nanoTime() - startedAt) * 1e-9;
                }
            }
        }, "gluelab-compile-worker-start");
        t.setDaemon(true);
        t.start();
    }

    @Override public void close() {
        closed = true;
        for (Worker w : all) w.exit();
        all.clear();
        idle.clear();
    }

    /** One worker process; used by one thread at a time (it is in the idle queue or borrowed). */
    private static final class Worker {
        final CompileWorkers pool;
        final Process process;
        final DataOutputStream in;
        final DataInputStream out;
        final Set<String> sources = new HashSet<>();

        private Worker(CompileWorkers pool, Process process) {
            this.pool = pool;
            this.process = process;
            this.in = new DataOutputStream(new BufferedOutputStream(process.getOutputStream(), 1 << 16));
            this.out = new DataInputStream(new BufferedInputStream(process.getInputStream(), 1 << 16));
        }

        static Worker start(CompileWorkers pool) throws IOException {
            List<String> cmd = new ArrayList<>(pool.jvm);
            cmd.addAll(List.of(CompileWorker.class.getName(), pool.arch, pool.kind));
            Process p;
            try {
                p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            } catch (IOException e) {
                throw new IOException("cannot start a compile worker process (" + cmd.getFirst() + "): " + e.getMessage(), e);
            }
            Worker w = new Worker(pool, p);
            CompileProtocol.Hello hello;
            try {
                hello = readHello(w);
            } catch (IOException e) {
                int code = w.kill();
                throw new IOException("the compile worker process ended before it was ready (exit code " + code + ")", e);
            }
            if (!hello.ok()) {
                w.kill();
                throw new IOException(hello.text());
            }
            if (!hello.text().equals(pool.expectedId)) {
                w.kill();
                throw new IOException("the compile worker's compiler is " + hello.text() + ", this process's is " + pool.expectedId);
            }
            return w;
        }

        private static CompileProtocol.Hello readHello(Worker w) throws IOException {
            // A worker that hangs while starting is ended, so the pool does not wait for ever.
            Thread watchdog = Thread.ofVirtual().unstarted(() -> {
                try {
                    if (!w.process.waitFor(START_TIMEOUT_S, TimeUnit.SECONDS)) w.process.destroyForcibly();
                } catch (InterruptedException ignored) {
                    // Hello arrived.
                }
            });
            watchdog.start();
            try {
                return CompileProtocol.Hello.read(w.out);
            } finally {
                watchdog.interrupt();
            }
        }

        CompileProtocol.Result compile(CompileProtocol.Job job) throws IOException {
            job.write(in);
            return CompileProtocol.Result.read(out);
        }

        /** The worker died mid-job: forget it, start another in its place (a bounded number of times); returns how it ended. */
        String bury() {
            int code = kill();
            pool.all.remove(this);
            pool.alive.decrementAndGet();
            String how = "pid " + process.pid() + ", exit code " + code + (code == 137 || code == 9 ? ": killed" : "");
            pool.failure = "a compile worker died (" + how + ")";
            if (!pool.closed && pool.restarts.incrementAndGet() <= 2 * pool.size) pool.launch();
            return how;
        }

        int kill() {
            process.destroyForcibly();
            try {
                return process.waitFor(30, TimeUnit.SECONDS) ? process.exitValue() : -1;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
            }
        }

        void exit() {
            try {
                in.writeByte(CompileProtocol.EXIT);
                in.flush();
                if (process.waitFor(2, TimeUnit.SECONDS)) return;
            } catch (IOException | InterruptedException e) {
                // Ended forcibly below.
            }
            process.destroyForcibly();
        }
    }
}
