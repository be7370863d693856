package gluelab.backend.cuda;

import gluelab.timing.TimedLaunch;
import gluelab.backend.cuda.WorkerProtocol.Arg;
import gluelab.backend.cuda.WorkerProtocol.Reply;
import gluelab.backend.cuda.WorkerProtocol.Request;
import gluelab.backend.cuda.compile.CompileException;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUipcMem_flags;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The process in which analysts' own kernels run (see {@link KernelSandbox}): its own CUDA
 * context on the same GPU, the analyst's buffers mapped from gluelab's process through CUDA IPC.
 * A kernel fault poisons only this process's context: the worker replies "fault" and exits, and
 * gluelab starts a fresh one for the next call.
 */
public final class KernelWorker {
    private final CudaDevice device;
    private final Map<String, CUfunction> functions = new HashMap<>();
    private final Map<String, CUdeviceptr> mapped = new HashMap<>();

    private KernelWorker(CudaDevice device) { this.device = device; }

    /** args: the device ordinal. Requests on stdin, replies on stdout; anything else printed goes to stderr. */
    public static void main(String[] args) throws IOException {
        PrintStream replies = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        BufferedReader requests = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        KernelWorker worker;
        try {
            worker = new KernelWorker(new CudaDevice(Integer.parseInt(args[0])));
        } catch (RuntimeException | LinkageError e) {
            replies.println(WorkerProtocol.line(Reply.failed(WorkerProtocol.FAILED, "the kernel worker cannot open the GPU: " + e.getMessage(), null)));
            System.exit(1);
            return;
        }
        replies.println(WorkerProtocol.line(Reply.done()));
        for (String line; (line = requests.readLine()) != null; ) {
            Request r = WorkerProtocol.read(line, Request.class);
            if (WorkerProtocol.EXIT.equals(r.op())) break;
            Reply reply = worker.serve(r);
            replies.println(WorkerProtocol.line(reply));
            if (WorkerProtocol.FAULT.equals(reply.error())) {
                // The context is lost for good; ending the process releases it and the IPC mappings.
                System.exit(3);
            }
        }
        System.exit(0);
    }

    private Reply serve(Request r) {
        try {
            return switch (r.op()) {
                case WorkerProtocol.COMPILE -> compile(r);
                case WorkerProtocol.RUN -> {
                    CudaProgram p = program(r);
                    p.run();
                    device.synchronize();
                    yield Reply.done();
                }
                case WorkerProtocol.TIME -> {
                    TimedLaunch.Timed t = TimedLaunch.time(device, program(r), r.label(), r.bytes(), r.timing());
                    yield Reply.timed(t.normal(), t.graph());
                }
                case WorkerProtocol.RELEASE -> {
                    CUdeviceptr p = mapped.remove(r.handle());
                    if (p != null) JCudaDriver.cuIpcCloseMemHandle(p);
                    yield Reply.done();
                }
                default -> Reply.failed(WorkerProtocol.FAILED, "unknown request '" + r.op() + "'", null);
            };
        } catch (CompileException e) {
            return Reply.failed(WorkerProtocol.COMPILE_ERROR, e.getMessage(), e.log());
        } catch (RuntimeException e) {
            String message = String.valueOf(e.getMessage());
            boolean fault = device.fault() != null || CudaDevice.isStickyFault(message);
            return Reply.failed(fault ? WorkerProtocol.FAULT : WorkerProtocol.FAILED, device.fault() != null ? device.fault() : message, null);
        }
    }

    private Reply compile(Request r) {
        device.makeCurrent();
        int before = device.compileLog().size();
        byte[] cubin = device.cache().cubin(gluelab.backend.cuda.compile.SourceUnit.of(r.name() + ".cu", r.source()), device.facts().extras().get("arch"), CudaKernels.OPTIONS);
        var entry = device.compileLog().get(before);
        CUmodule module = new CUmodule();
        JCudaDriver.cuModuleLoadData(module, cubin);
        CUfunction f = new CUfunction();
        try {
            JCudaDriver.cuModuleGetFunction(f, module, r.name());
        } catch (jcuda.CudaException e) {
            JCudaDriver.cuModuleUnload(module);
            throw new IllegalArgumentException("the source compiled but has no extern \"C\" __global__ function named '" + r.name() + "'", e);
        }
        functions.put(r.kernel(), f);
        return Reply.compiled(entry.millis(), entry.origin());
    }

    private CudaProgram program(Request r) {
        CUfunction f = functions.get(r.kernel());
        if (f == null) throw new IllegalArgumentException("kernel " + r.kernel() + " is not compiled in this worker");
        device.makeCurrent();
        KernelLaunch.Args a = new KernelLaunch.Args();
        List<Arg> args = r.args() == null ? List.of() : r.args();
        for (Arg arg : args) {
            switch (arg.kind()) {
                case "buffer" -> a.ptr(mapped.computeIfAbsent(arg.handle(), h -> {
                    CUdeviceptr p = new CUdeviceptr();
                    JCudaDriver.cuIpcOpenMemHandle(p, CudaBuffer.handleOf(h), CUipcMem_flags.CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
                    return p;
                }));
                case "i64" -> a.i64(arg.integer());
                case "i32" -> a.i32((int) arg.integer());
                case "f32" -> a.f32((float) arg.real());
                case "f64" -> a.f64(arg.real());
                default -> throw new IllegalArgumentException("unknown argument kind " + arg.kind());
            }
        }
        return new CudaProgram(device).add(a.launchFunction(r.kernel(), f, r.grid(), r.block()));
    }
}
