package gluelab.backend.cuda;

import gluelab.device.*;
import gluelab.backend.cuda.KernelLaunch.Args;
import gluelab.backend.cuda.compile.CompileCache;
import gluelab.backend.cuda.compile.CudaCompiler;
import gluelab.backend.eager.EagerChains;
import gluelab.files.Locations;
import gluelab.ops.Variant;
import gluelab.tensor.DType;
import gluelab.tensor.Tensor;
import gluelab.tensor.TensorSpec;
import jcuda.CudaException;
import jcuda.Pointer;
import jcuda.driver.*;

import java.nio.ByteBuffer;
import java.util.*;

import static jcuda.driver.CUdevice_attribute.*;
import static jcuda.driver.JCudaDriver.*;

/**
 * An NVIDIA GPU through JCuda's driver API. Kernels come from the kernels module's CUDA files,
 * compiled for the device's own architecture through the compile cache. All work goes to one
 * non-blocking stream.
 *
 * <p>A kernel fault (illegal address, launch failure) is sticky for the whole process on CUDA 12
 * and 13: measured on the H200 host, even a new context after destroying the faulted one returns
 * CUDA_ERROR_ILLEGAL_ADDRESS. Analysts' own kernels, which fault while being written, therefore run
 * in a worker process ({@link KernelSandbox}) that is replaced after a fault. Should one of
 * gluelab's own kernels fault, the device reports it clearly, marks itself unusable, and every
 * later call says to restart the process instead of crashing or returning obscure errors.
 */
public final class CudaDevice implements Device {
    private static final long HOLD_TIMEOUT_NS = 5_000_000_000L;

    private final int ordinal;
    // Read first, so a bad GLUELAB_L2_FLUSH fails before a context or a compile worker exists.
    private final L2Flush flush = L2Flush.fromEnvironment();
    private final CUdevice device = new CUdevice();
    private final CUcontext context = new CUcontext();
    private final DeviceFacts facts;
    private final Optional<Nvml> nvml;
    private final CompileCache cache;
    private final int sms, maxSmClock;
    private CUstream stream;
    private CudaKernels kernels;
    private CUdeviceptr flushBuffer;
    private long flushWords;
    private Pointer holdFlagHost;
    private CUdeviceptr holdFlagDevice;
    private int flushRound;

    CudaDevice(int ordinal) {
        this.ordinal = ordinal;
        JCudaDriver.setExceptionsEnabled(true);
        cuInit(0);
        int[] count = new int[1];
        cuDeviceGetCount(count);
        if (ordinal >= count[0]) throw new IllegalArgumentException("device 'cuda:" + ordinal + "' does not exist; this machine has " + count[0] + " GPU(s)");
        cuDeviceGet(device, ordinal);
        // An owned context, not the primary one: after a sticky kernel fault it can be destroyed
        // and created anew, which a primary context does not allow.
        cuCtxCreate(context, 0, device);
        cuCtxSetCurrent(context);
        String[] busId = new String[1];
        cuDeviceGetPCIBusId(busId, 32, device);
        nvml = Nvml.open(busId[0]);
        sms = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
        maxSmClock = nvml.map(n -> n.maxClockMHz(Nvml.CLOCK_SM)).orElse(-1);
        String arch = "sm_" + attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) + attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
        cache = new CompileCache(Locations.cacheDir().resolve("cuda"), CudaCompiler.find());
        // A tuning is announced: its compile workers start now and come up while the rest of the device opens.
        int tuneThreads = gluelab.device.Devices.expectedTuningThreads();
        if (tuneThreads > 1 && CudaTuning.workersEnabled()) {
            earlyWorkers = gluelab.backend.cuda.compile.CompileWorkers.start(CudaTuning.workerJvm(), tuneThreads, arch, cache.compiler());
        }
        facts = readFacts(arch);
        setUpContextResources();
        kernels = new CudaKernels(cache, arch);
    }

    private int attribute(int attr) {
        int[] v = new int[1];
        cuDeviceGetAttribute(v, attr, device);
        return v[0];
    }

    private DeviceFacts readFacts(String arch) {
        byte[] name = new byte[256];
        cuDeviceGetName(name, name.length, device);
        long[] mem = new long[1];
        cuDeviceTotalMem(mem, device);
        int[] driver = new int[1];
        cuDriverGetVersion(driver);
        long memClockMHz = nvml.map(n -> (long) n.maxClockMHz(Nvml.CLOCK_MEM)).filter(v -> v > 0).orElse(attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) / 1000L);
        long busBits = nvml.map(n -> (long) n.memoryBusWidthBits()).filter(v -> v > 0).orElse((long) attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH));
        double theoretical = memClockMHz * 1e6 * 2 * busBits / 8.0;
        Map<String, String> extras = new LinkedHashMap<>();
        extras.put("arch", arch);
        extras.put("sms", Integer.toString(sms));
        extras.put("memory_clock_mhz", Long.toString(memClockMHz));
        extras.put("bus_width_bits", Long.toString(busBits));
        extras.put("max_sm_clock_mhz", Integer.toString(maxSmClock));
        extras.put("compiler", cache.compiler().id());
        extras.put("peak_bf16_flops", Double.toString(peakBf16Flops(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR))));
        extras.put("nvml", nvml.isPresent() ? "yes" : "no");
        extras.put("l2_flush_bytes", Long.toString(flush.bytes(attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE))));
        String nameText = new String(name).trim().replace("\0", "");
        return new DeviceFacts("cuda", nameText, ordinal, mem[0], attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), sms, theoretical,
                "CUDA driver " + driver[0] / 1000 + "." + (driver[0] % 1000) / 10, cache.compiler().id(), extras);
    }

    /** Stream, L2 flush buffer (2x L2 unless GLUELAB_L2_FLUSH says otherwise) and the host-mapped flag of the stream-holding kernel. */
    private void setUpContextResources() {
        stream = new CUstream();
        cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING);
        flushWords = flushBytes() / 4;
        flushBuffer = new CUdeviceptr();
        cuMemAlloc(flushBuffer, flushWords * 4);
        holdFlagHost = new Pointer();
        cuMemHostAlloc(holdFlagHost, 4, JCudaDriver.CU_MEMHOSTALLOC_DEVICEMAP);
        holdFlagDevice = new CUdeviceptr();
        cuMemHostGetDevicePointer(holdFlagDevice, holdFlagHost, 0);
    }

    /**
     * Dense bf16 tensor-core peak from SMs x max SM clock x FLOP per clock per SM (4096 on Hopper,
     * 2048 on Ampere, 1024 otherwise): a spec figure, not measured (gluelab has no GEMM of its own;
     * the anchors measured 690-731 TFLOP/s through cuBLAS on the H200 against 989 here).
     */
    private double peakBf16Flops(int major) {
        int perClock = major >= 9 ? 4096 : major == 8 ? 2048 : 1024;
        int clock = maxSmClock > 0 ? maxSmClock : attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000;
        return (double) sms * clock * 1e6 * perClock;
    }

    int sms() { return sms; }

    CUstream stream() { return stream; }

    CudaKernels kernels() { return kernels; }

    CompileCache cache() { return cache; }

    /** The compile cache's log: per lookup, where the cubin came from and how long it took. */
    public List<CompileCache.Entry> compileLog() { return cache.log(); }

    private volatile String fault;
    private KernelSandbox sandbox;

    /** The worker process that runs user kernels, started on first use. */
    synchronized KernelSandbox sandbox() {
        makeCurrent();
        if (sandbox == null) sandbox = new KernelSandbox(this);
        return sandbox;
    }

    /** A buffer the worker may have mapped is about to be freed. */
    synchronized void released(String ipcHandle) {
        if (sandbox != null) sandbox.released(ipcHandle);
    }

    /** The sticky fault this process's context took, or null. */
    String fault() { return fault; }

    /** True for the CUDA errors that poison a context for the life of its process. */
    static boolean isStickyFault(String message) {
        String m = String.valueOf(message);
        return m.contains("ILLEGAL_ADDRESS") || m.contains("LAUNCH_FAILED") || m.contains("ILLEGAL_INSTRUCTION")
                || m.contains("MISALIGNED_ADDRESS") || m.contains("HARDWARE_STACK_ERROR") || m.contains("ASSERT")
                || m.contains("INVALID_PC") || m.contains("INVALID_ADDRESS_SPACE");
    }

    void makeCurrent() {
        if (fault != null) {
            throw new IllegalStateException(id() + " is unusable after a kernel fault (" + fault + "); CUDA keeps such faults for the "
                    + "life of the process: restart gluelab (in a notebook, restart the kernel) and run again");
        }
        cuCtxSetCurrent(context);
    }

    int gridFor(long items, int block) { return (int) Math.max(1, Math.min((items + block - 1) / block, sms * 32L)); }

    static void checkRouting(long experts, long k) {
        if (experts > 32 * 16) throw new IllegalArgumentException("routing on the GPU supports up to 512 experts, got " + experts);
        if (k > 32) throw new IllegalArgumentException("routing on the GPU supports top-k up to 32, got " + k);
    }

    KernelLaunch columnSum(CudaBuffer partial, long parts, long n, CudaBuffer out) {
        return new Args().ptr(partial).i64(parts).i64(n).ptr(out).i32(CudaCodes.dtype(out.spec().dtype()))
                .launch2d(kernels, "column_sum", (int) ((n + 31) / 32), 32, 32);
    }

    /** Parts a slice of {@code column_sum_slices} sums: 32 lanes x 8 loads each. */
    private static final long SLICE_PARTS = 256;

    /**
     * The fused kernels' weight-gradient reduction: column sums of {@code partial} [parts, n] into
     * out. More than one slice of parts is first summed slice by slice across many blocks
     * (column_sum_slices), so a narrow, tall buffer (q-norm's [groups, 128]) is not left to n / 32
     * blocks with long loops; the slices then go through column_sum.
     */
    void columnSum(CudaProgram p, CudaBuffer partial, long parts, long n, CudaBuffer out) {
        if (parts <= SLICE_PARTS) {
            p.add(columnSum(partial, parts, n, out));
            return;
        }
        long slices = (parts + SLICE_PARTS - 1) / SLICE_PARTS, tiles = (n + 31) / 32;
        CudaBuffer sums = p.scratch("dw_slices", DType.FP32, slices, n);
        p.add(new Args().ptr(partial).i64(parts).i64(n).i64(SLICE_PARTS).ptr(sums).launch2d(kernels, "column_sum_slices", (int) (tiles * slices), 32, 32));
        p.add(columnSum(sums, slices, n, out));
    }

    /** Buffer placements a bench rotates a small group's direct launches through (see {@link #capabilities()}). */
    static final int PLACEMENTS = 8;

    @Override public String id() { return "cuda:" + ordinal; }

    @Override public DeviceFacts facts() { return facts; }

    @Override public gluelab.device.Capabilities capabilities() {
        // 4 GiB buffers (16x L2 where that is more), as the anchors' torch copy: a ~0.5 ms kernel still pays its start and tail.
        // 8 placements: a cold launch of data that fits in L2 takes a level per process from where its buffers land (H200: up
        // to 3-4% on 2k-token rows); rotating through 8 independent sets averages that layout out within one process.
        return new gluelab.device.Capabilities(java.util.EnumSet.of(gluelab.tensor.DType.BF16, gluelab.tensor.DType.FP32), true,
                Double.parseDouble(facts.extras().get("peak_bf16_flops")), Math.max(16 * facts.lastLevelCacheBytes(), 4L << 30), PLACEMENTS);
    }

    @Override public Buffer allocate(TensorSpec spec) {
        makeCurrent();
        long free = availableMemory();
        if (spec.bytes() > free) {
            throw new IllegalArgumentException(String.format("cannot allocate %s (%.2f GiB) on %s: only %.2f GiB free",
                    spec, spec.bytes() / 1073741824.0, id(), free / 1073741824.0));
        }
        CUdeviceptr p = new CUdeviceptr();
        try {
            cuMemAlloc(p, Math.max(1, spec.bytes()));
        } catch (CudaException e) {
            throw new IllegalArgumentException("cannot allocate " + spec + " on " + id() + ": " + e.getMessage(), e);
        }
        return new CudaBuffer(this, spec, p);
    }

    void free(CUdeviceptr p) {
        if (fault != null) return;
        makeCurrent();
        cuMemFree(p);
    }

    static CudaBuffer cuda(Buffer b) {
        if (b instanceof CudaBuffer c) return c;
        throw new IllegalArgumentException("buffer " + b.spec() + " does not belong to a CUDA device");
    }

    private static final long CHUNK = 1L << 30;

    @Override public void upload(Tensor host, Buffer dst) {
        CudaBuffer b = cuda(dst);
        check(host, b);
        makeCurrent();
        long bytes = host.spec().bytes();
        for (long off = 0; off < bytes; off += CHUNK) {
            long len = Math.min(CHUNK, bytes - off), at = off;
            ByteBuffer bb = host.segment().asSlice(off, len).asByteBuffer();
            guard(() -> cuMemcpyHtoD(b.ptr().withByteOffset(at), Pointer.to(bb), len));
        }
    }

    @Override public void download(Buffer src, Tensor host) {
        CudaBuffer b = cuda(src);
        check(host, b);
        makeCurrent();
        synchronize();
        long bytes = host.spec().bytes();
        for (long off = 0; off < bytes; off += CHUNK) {
            long len = Math.min(CHUNK, bytes - off), at = off;
            ByteBuffer bb = host.segment().asSlice(off, len).asByteBuffer();
            guard(() -> cuMemcpyDtoH(Pointer.to(bb), b.ptr().withByteOffset(at), len));
        }
    }

    private static void check(Tensor host, CudaBuffer b) {
        if (host.spec().bytes() != b.spec().bytes()) throw new IllegalArgumentException("cannot copy between " + host.spec() + " and " + b.spec());
    }

    @Override public Launch prepare(OpInstance instance, Map<String, Buffer> args) {
        if (instance.variant() == Variant.REGION) return gluelab.device.ExpressionVariant.get().prepare(this, instance, args);
        return prepare(instance, args, instance.variant() == Variant.FUSED ? tuning().chosen(instance).orElse(null) : null);
    }

    /** A launch of the instance; a fused one in the given kernel configuration (null: the op has none). */
    Launch prepare(OpInstance instance, Map<String, Buffer> args, KernelConfig config) {
        if (instance.shape().dtype() == gluelab.tensor.DType.FP16) {
            throw new IllegalArgumentException("the CUDA device runs bf16 and fp32 activations; fp16 is not supported yet");
        }
        Map<String, CudaBuffer> t = new HashMap<>();
        instance.bind(args).forEach((name, buffer) -> t.put(name, cuda(buffer)));
        makeCurrent();
        CudaProgram p = new CudaProgram(this);
        try {
            if (instance.variant() == Variant.EAGER) EagerChains.build(instance, t, new CudaEagerOps(p, this));
            else FusedKernels.build(instance, t, p, this, config);
        } catch (RuntimeException e) {
            p.close();
            throw e;
        }
        return p;
    }

    /** The calibration copy's forms in base.cu: name, threads per block, 16-byte vectors per thread. */
    private record CopyForm(String kernel, int threads, int vectors) {}

    private static final List<CopyForm> COPY_FORMS = List.of(new CopyForm("calib_copy", 256, 4), new CopyForm("calib_copy_256x8", 256, 8),
            new CopyForm("calib_copy_512x4", 512, 4), new CopyForm("calib_copy_128x8", 128, 8), new CopyForm("calib_copy_256x4_cs", 256, 4),
            new CopyForm("calib_copy_256x8_cs", 256, 8), new CopyForm("calib_copy_512x2_cs", 512, 2), new CopyForm("calib_copy_1024x2", 1024, 2));

    private Launch copy(CopyForm f, Buffer src, Buffer dst) {
        CudaBuffer a = cuda(src), b = cuda(dst);
        long n4 = a.spec().bytes() / 16, tile = (long) f.threads() * f.vectors();
        CudaProgram p = new CudaProgram(this);
        return p.add(new Args().ptr(a).ptr(b).i64(n4).launch(kernels, f.kernel(), (int) Math.min(Integer.MAX_VALUE, (n4 + tile - 1) / tile), f.threads()));
    }

    @Override public Launch copyKernel(Buffer src, Buffer dst) { return copy(COPY_FORMS.getFirst(), src, dst); }

    @Override public List<Launch> copyKernels(Buffer src, Buffer dst) {
        List<Launch> out = new ArrayList<>();
        for (CopyForm f : COPY_FORMS) out.add(copy(f, src, dst));
        out.add(driverCopy(src, dst));
        return out;
    }

    @Override public List<String> copyKernelNames() {
        List<String> out = new ArrayList<>();
        for (CopyForm f : COPY_FORMS) out.add(f.kernel());
        out.add(DRIVER_COPY);
        return out;
    }

    /** The driver's device-to-device copy: what torch's copy_ of contiguous tensors of one dtype runs (cudaMemcpyAsync). */
    static final String DRIVER_COPY = "cuMemcpyDtoDAsync";

    private Launch driverCopy(Buffer src, Buffer dst) {
        CudaBuffer a = cuda(src), b = cuda(dst);
        long bytes = Math.min(a.spec().bytes(), b.spec().bytes());
        return new Launch() {
            @Override public void run() {
                makeCurrent();
                cuMemcpyDtoDAsync(b.ptr(), a.ptr(), bytes, stream);
            }

            @Override public int kernels() { return 1; }

            @Override public long scratchBytes() { return 0; }
        };
    }

    private CudaTuning tuning;
    private gluelab.backend.cuda.compile.CompileWorkers earlyWorkers;

    synchronized CudaTuning tuning() {
        if (tuning == null) {
            tuning = new CudaTuning(this, new ConfigPicks(Locations.cacheDir().resolve("tune")), earlyWorkers);
            earlyWorkers = null;
        }
        return tuning;
    }

    @Override public Optional<Tunable> tunable() { return Optional.of(tuning()); }

    @Override public Launch triadKernel(Buffer a, Buffer b, Buffer c, float s) {
        long n4 = a.spec().bytes() / 16;
        CudaProgram p = new CudaProgram(this);
        return p.add(new Args().ptr(cuda(a)).ptr(cuda(b)).ptr(cuda(c)).f32(s).i64(n4).launch(kernels, "calib_triad", (int) Math.min(Integer.MAX_VALUE, (n4 + 1023) / 1024), 256));
    }

    @Override public Optional<Launch> graph(Launch launch, int repeats) { return Optional.of(new GraphLaunch(this, launch, repeats)); }

    @Override public DeviceTimer timer() { return new CudaTimer(this); }

    void holdStream() {
        holdFlagHost.getByteBuffer(0, 4).putInt(0, 0);
        new Args().ptr(holdFlagDevice).i64(HOLD_TIMEOUT_NS).launch(kernels, "hold_stream", 1, 1).run(stream);
    }

    void releaseStream() { holdFlagHost.getByteBuffer(0, 4).putInt(0, 1); }

    /** False when NVML shows the SM clock under 75% of its maximum (a throttled sample). */
    boolean clockOk() {
        if (nvml.isEmpty() || maxSmClock <= 0) return true;
        int now = nvml.get().clockMHz(Nvml.CLOCK_SM);
        return now < 0 || now >= 0.75 * maxSmClock;
    }

    @Override public long flushBytes() { return flush.bytes(facts.lastLevelCacheBytes()); }

    @Override public void flushCache() {
        makeCurrent();
        cuMemsetD32Async(flushBuffer, ++flushRound, flushWords, stream);
    }

    @Override public void synchronize() { guard(() -> cuStreamSynchronize(stream)); }

    @Override public long availableMemory() {
        makeCurrent();
        long[] free = new long[1], total = new long[1];
        cuMemGetInfo(free, total);
        return free[0];
    }

    @Override public Map<String, String> telemetry() {
        Map<String, String> m = new LinkedHashMap<>(nvml.map(Nvml::snapshot).orElse(Map.of("nvml", "unavailable")));
        int i = 0;
        for (CompileCache.Entry e : cache.log()) {
            m.put("compile." + i++, String.format("%s %s in %.1f ms (%d bytes, key %s)", e.sourceName(), e.origin(), e.millis(), e.cubinBytes(), e.key()));
        }
        return m;
    }

    /**
     * Runs a driver call; a kernel fault (illegal address, launch failure) is sticky and poisons the
     * process's context, so the device is marked unusable and the error reported clearly.
     */
    void guard(Runnable call) {
        try {
            call.run();
        } catch (CudaException e) {
            String m = String.valueOf(e.getMessage());
            if (isStickyFault(m)) {
                fault = m;
                throw new IllegalStateException("a kernel on " + id() + " faulted (" + m + "); CUDA keeps this fault for the life of "
                        + "the process, so " + id() + " is now unusable: restart gluelab (in a notebook, restart the kernel)", e);
            }
            throw new IllegalStateException("CUDA error on " + id() + ": " + m, e);
        }
    }

    @Override public void close() {
        synchronized (this) {
            if (sandbox != null) sandbox.close();
            sandbox = null;
            if (tuning != null) tuning.close();
            if (earlyWorkers != null) earlyWorkers.close();
        }
        try {
            if (fault != null) return;
            makeCurrent();
            cuStreamSynchronize(stream);
            cuMemFree(flushBuffer);
            cuMemFreeHost(holdFlagHost);
        } catch (CudaException ignored) {
            // Closing after a fault: the context is released below regardless.
        } finally {
            JCudaDriver.setExceptionsEnabled(false);
            cuCtxDestroy(context);
            JCudaDriver.setExceptionsEnabled(true);
        }
    }
}
