package gluelab.backend.cuda;

import gluelab.timing.TimedLaunch;
import gluelab.backend.cuda.WorkerProtocol.Arg;
import gluelab.backend.cuda.WorkerProtocol.Reply;
import gluelab.backend.cuda.WorkerProtocol.Request;
import gluelab.backend.cuda.compile.CompileException;
import gluelab.timing.TimingConfig;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Runs analysts' own kernels in a worker process ({@link KernelWorker}) on the same GPU.
 *
 * <p>Why: a kernel fault (an illegal address, say) is sticky for the whole process on CUDA 12
 * and 13; no new context in that process works again. Catalogue kernels are gluelab's own and
 * tested, but a kernel typed into a notebook cell often faults while it is being written. In the
 * worker, a fault ends only the worker: gluelab reports it, starts a fresh worker on the next
 * call (recompiling from the compile cache), and the device, its buffers and the notebook go on.
 *
 * <p>The worker maps gluelab's buffers through CUDA IPC, so kernels read and write the same
 * memory, and it times kernels itself with the same harness (events, L2 flush, graph rows).
 * An interrupt (a notebook's stop button) while waiting for the worker ends the worker, which
 * also stops a kernel that never returns.
 */
final class KernelSandbox implements AutoCloseable {
    private static final Object DIED = new Object();

    private final CudaDevice device;
    private final Map<String, Request> sources = new LinkedHashMap<>();
    private final Set<String> compiledInWorker = new HashSet<>();
    private final Set<String> mappedInWorker = new HashSet<>();
    private Process process;
    private Writer toWorker;
    private BlockingQueue<Object> replies;
    private int started;

    KernelSandbox(CudaDevice device) { this.device = device; }

    /** Compiles a kernel in the worker; returns the compile reply (time and where the cubin came from). */
    synchronized Reply compile(String key, String name, String source) {
        Request r = Request.compile(key, name, source);
        Reply reply = call(r, name);
        sources.put(key, r);
        compiledInWorker.add(key);
        return reply;
    }

    /** One launch, run to completion. */
    synchronized void run(String key, String name, int grid, int block, List<Object> args) {
        device.synchronize();
        call(Request.run(key, grid, block, ready(key, name, args)), name);
    }

    /** The normal and graph measurements of a launch, timed in the worker. */
    synchronized TimedLaunch.Timed time(String key, String name, int grid, int block, List<Object> args, String label, long bytes,
                                            TimingConfig timing) {
        device.synchronize();
        Reply reply = call(Request.time(key, grid, block, ready(key, name, args), label, bytes, timing), name);
        return new TimedLaunch.Timed(reply.normal(), reply.graph());
    }

    /** Times the worker was started (1 once running; one more after each fault). */
    synchronized int workersStarted() { return started; }

    /** The worker unmaps a buffer before gluelab frees it. */
    synchronized void released(String handle) {
        if (process == null || !mappedInWorker.remove(handle)) return;
        try {
            call(Request.release(handle), "buffer release");
        } catch (RuntimeException e) {
            // The worker went away; its mappings went with it.
        }
    }

    /** The kernel compiled in the current worker (again, after a restart) and its arguments as messages. */
    private List<Arg> ready(String key, String name, List<Object> args) {
        if (!compiledInWorker.contains(key)) {
            Request source = sources.get(key);
            if (source == null) throw new IllegalStateException("kernel " + name + " was never compiled");
            call(source, name);
            compiledInWorker.add(key);
        }
        List<Arg> out = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            Arg a = Arg.of(args.get(i), i, name, device);
            if (a.handle() != null) mappedInWorker.add(a.handle());
            out.add(a);
        }
        return out;
    }

    private Reply call(Request request, String kernel) {
        if (process == null) start();
        Object got;
        try {
            toWorker.write(WorkerProtocol.line(request));
            toWorker.write('\n');
            toWorker.flush();
            got = await();
        } catch (IOException e) {
            got = DIED;
        }
        if (got == DIED) {
            int code = stop();
            throw new IllegalStateException("the kernel worker process ended unexpectedly (exit code " + code + ") while running " + kernel
                    + "; its error output is in gluelab's; the next call starts a new worker");
        }
        Reply reply = (Reply) got;
        if (reply.ok()) return reply;
        switch (reply.error()) {
            case WorkerProtocol.FAULT -> {
                stop();
                throw new KernelFaultException("kernel " + kernel + " faulted on " + device.id() + " (" + reply.message() + "). It ran in gluelab's "
                        + "kernel worker process, which was stopped; the device, its buffers and this session are unaffected, and the next "
                        + "call starts a fresh worker. Buffers the kernel wrote may hold partial results.");
            }
            case WorkerProtocol.COMPILE_ERROR -> throw new CompileException(kernel + ".cu", device.cache().compiler().id(), reply.log());
            default -> throw new IllegalArgumentException(kernel + ": " + reply.message());
        }
    }

    /** The next reply; the wait ends early if the worker dies or the caller is interrupted. */
    private Object await() {
        try {
            return replies.take();
        } catch (InterruptedException e) {
            stop();
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted: the kernel worker process was stopped (a running kernel with it)");
        }
    }

    private void start() {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("-Xmx1g");
        System.getProperties().forEach((k, v) -> {
            if (k.toString().startsWith("gluelab.")) command.add("-D" + k + "=" + v);
        });
        command.addAll(List.of("-cp", classPath(), KernelWorker.class.getName(), Integer.toString(device.facts().ordinal())));
        try {
            process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the kernel worker process (" + command.getFirst() + "): " + e.getMessage(), e);
        }
        started++;
        toWorker = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
        replies = queue;
        BufferedReader fromWorker = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        Thread reader = new Thread(() -> {
            try {
                for (String line; (line = fromWorker.readLine()) != null; ) queue.add(WorkerProtocol.read(line, Reply.class));
            } catch (IOException | RuntimeException e) {
                // Treated as the worker ending.
            }
            queue.add(DIED);
        }, "gluelab-kernel-worker-replies");
        reader.setDaemon(true);
        reader.start();
        Object ready = await();
        if (ready == DIED || !((Reply) ready).ok()) {
            int code = stop();
            throw new IllegalStateException(ready == DIED ? "the kernel worker process could not start (exit code " + code + ")"
                    : ((Reply) ready).message());
        }
    }

    /** This JVM's class path plus the jars of any class loader gluelab was loaded through (a test launcher's). */
    static String classPath() {
        Set<String> entries = new LinkedHashSet<>(List.of(System.getProperty("java.class.path").split(File.pathSeparator)));
        for (ClassLoader l = KernelWorker.class.getClassLoader(); l != null; l = l.getParent()) {
            if (!(l instanceof URLClassLoader u)) continue;
            for (URL url : u.getURLs()) {
                try {
                    if (url.getProtocol().equals("file")) entries.add(Path.of(url.toURI()).toString());
                } catch (URISyntaxException | IllegalArgumentException e) {
                    // Not a local path: the worker cannot use it anyway.
                }
            }
        }
        entries.removeIf(String::isBlank);
        return String.join(File.pathSeparator, entries);
    }

    /** Ends the worker; returns its exit code. */
    private int stop() {
        Process p = process;
        process = null;
        compiledInWorker.clear();
        mappedInWorker.clear();
        if (p == null) return -1;
        p.destroyForcibly();
        try {
            return p.waitFor(30, TimeUnit.SECONDS) ? p.exitValue() : -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    @Override public synchronized void close() {
        if (process == null) return;
        try {
            toWorker.write(WorkerProtocol.line(Request.exit()));
            toWorker.write('\n');
            toWorker.flush();
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (IOException | InterruptedException e) {
            // Ended forcibly below.
        }
        stop();
    }
}
