package gluelab.backend.cuda.compile;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The main of a compile worker process ({@link CompileWorkers} starts them): {@code ARCH nvrtc|nvcc}.
 * Loads that compiler, compiles a tiny kernel so the first real job does not pay the compiler's
 * start-up, says hello, then compiles jobs from stdin until told to exit or stdin closes (the
 * parent ended). Each process has its own NVRTC, which does not scale across threads of one process.
 * Not a user command.
 */
public final class CompileWorker {
    static final String WARM_UP = "extern \"C\" __global__ void gluelab_compile_worker_warm_up(float* p) { p[threadIdx.x] += 1.0f; }\n";

    private CompileWorker() {}

    public static void main(String[] args) throws IOException {
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16));
        // Anything a library prints must not corrupt the replies.
        System.setOut(System.err);
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in, 1 << 16));
        long pid = ProcessHandle.current().pid();
        CudaCompiler compiler;
        try {
            if (args.length != 2) throw new IllegalArgumentException("usage: CompileWorker ARCH nvrtc|nvcc");
            compiler = switch (args[1]) {
                case "nvrtc" -> NvrtcCompiler.load();
                case "nvcc" -> NvccCompiler.find();
                default -> throw new IllegalArgumentException("unknown compiler kind '" + args[1] + "' (nvrtc or nvcc)");
            };
            compiler.compileCubin(SourceUnit.of("warm_up.cu", WARM_UP), args[0], List.of());
        } catch (RuntimeException | LinkageError e) {
            new CompileProtocol.Hello(false, "the compile worker cannot compile: " + e.getMessage(), pid).write(out);
            System.exit(1);
            return;
        }
        new CompileProtocol.Hello(true, compiler.id(), pid).write(out);
        Map<String, SourceUnit> sources = new HashMap<>();
        try {
            for (CompileProtocol.Job job; (job = CompileProtocol.Job.read(in)) != null; ) {
                if (job.source() != null) sources.put(job.sourceKey(), job.source());
                serve(compiler, job, sources.get(job.sourceKey())).write(out);
            }
        } catch (EOFException e) {
            // The parent ended: so does the worker.
        }
        System.exit(0);
    }

    private static CompileProtocol.Result serve(CudaCompiler compiler, CompileProtocol.Job job, SourceUnit source) {
        long t0 = System.nanoTime();
        if (source == null) {
            return CompileProtocol.Result.error(job.id(), CompileProtocol.FAILED, 0, "the worker was never sent the source " + job.sourceKey());
        }
        try {
            byte[] cubin = compiler.compileCubin(source, job.arch(), job.options());
            return CompileProtocol.Result.ok(job.id(), (System.nanoTime() - t0) / 1e6, cubin);
        } catch (CompileException e) {
            return CompileProtocol.Result.error(job.id(), CompileProtocol.COMPILE_ERROR, (System.nanoTime() - t0) / 1e6, e.log());
        } catch (RuntimeException e) {
            return CompileProtocol.Result.error(job.id(), CompileProtocol.FAILED, (System.nanoTime() - t0) / 1e6, String.valueOf(e.getMessage()));
        }
    }
}
