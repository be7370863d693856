package gluelab.backend.cpu;

import gluelab.device.*;
import gluelab.backend.eager.EagerChains;
import gluelab.ops.Variant;
import gluelab.tensor.DType;
import gluelab.tensor.Tensor;
import gluelab.tensor.TensorSpec;

import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;

/**
 * The embedded default device: off-heap memory, kernels multi-threaded over rows on its own
 * fork-join pool. Runs are synchronous, so the timer is the wall clock around them.
 */
public final class CpuDevice implements Device {
    private static final java.lang.foreign.ValueLayout.OfLong FLUSH_LAYOUT = java.lang.foreign.ValueLayout.JAVA_LONG;

    private final CpuParallel parallel;
    private final DeviceFacts facts;
    private Tensor flushBuffer;
    private long flushRound;

    private final java.nio.file.Path tuneDir;

    public CpuDevice(int threads) { this(threads, gluelab.files.Locations.cacheDir().resolve("tune")); }

    /** A CPU device that keeps its autotuning picks in {@code tuneDir}. */
    public CpuDevice(int threads, java.nio.file.Path tuneDir) {
        this.tuneDir = tuneDir;
        if (threads < 1) throw new IllegalArgumentException("CPU device needs at least one thread, got " + threads);
        this.parallel = new CpuParallel(threads);
        this.facts = CpuFacts.read(threads);
    }

    public CpuParallel parallel() { return parallel; }

    @Override public String id() { return "cpu"; }

    @Override public DeviceFacts facts() { return facts; }

    /**
     * Every floating dtype; no graphs; peak FLOP/s unknown (the calibrator measures it); calibration buffers 4x the LLC, at least
     * 256 MiB; one buffer placement (the CPU's rows are far noisier than a layout's bias, so rotating buys nothing there); the
     * kernels are Java, compiled by the JIT while they run.
     */
    @Override public gluelab.device.Capabilities capabilities() {
        return new gluelab.device.Capabilities(java.util.EnumSet.of(DType.BF16, DType.FP16, DType.FP32, DType.FP64), false, 0,
                Math.max(4 * facts.lastLevelCacheBytes(), 256L << 20), 1, true);
    }

    @Override public Buffer allocate(TensorSpec spec) { return new CpuBuffer(Tensor.allocate(spec)); }

    @Override public void upload(Tensor host, Buffer dst) { tensor(dst).copyFrom(host); }

    @Override public void download(Buffer src, Tensor host) { host.copyFrom(tensor(src)); }

    static Tensor tensor(Buffer b) {
        if (b instanceof CpuBuffer cb) return cb.tensor();
        throw new IllegalArgumentException("buffer " + b.spec() + " does not belong to the CPU device");
    }

    @Override public Launch prepare(OpInstance instance, Map<String, Buffer> args) {
        if (instance.variant() == Variant.REGION) return gluelab.device.ExpressionVariant.get().prepare(this, instance, args);
        return prepare(instance, args, instance.variant() == Variant.FUSED ? tuning().chosen(instance).orElse(null) : null);
    }

    /** A launch of the instance; a fused one in the given loop configuration (null: the op's loop has none). */
    Launch prepare(OpInstance instance, Map<String, Buffer> args, KernelConfig config) {
        Map<String, Tensor> tensors = new HashMap<>();
        instance.bind(args).forEach((name, buffer) -> tensors.put(name, tensor(buffer)));
        if (instance.variant() == Variant.EAGER) {
            Program program = new Program();
            EagerChains.build(instance, tensors, new CpuEagerOps(program, parallel));
            return program;
        }
        CpuKernels.OpKernels kernels = CpuKernels.forOp(instance.op());
        return config == null ? kernels.fused(instance, tensors, parallel) : kernels.fused(instance, tensors, parallel, config);
    }

    private CpuTuning tuning;

    synchronized CpuTuning tuning() {
        if (tuning == null) tuning = new CpuTuning(this, new ConfigPicks(tuneDir));
        return tuning;
    }

    @Override public java.util.Optional<Tunable> tunable() { return java.util.Optional.of(tuning()); }

    @Override public Launch copyKernel(Buffer src, Buffer dst) {
        Tensor a = tensor(src), b = tensor(dst);
        if (a.spec().bytes() != b.spec().bytes()) throw new IllegalArgumentException("copy needs buffers of equal size");
        long bytes = a.spec().bytes();
        return simple(() -> parallel.range(bytes, 1 << 20, (from, to) ->
                MemorySegment.copy(a.segment(), from, b.segment(), from, to - from)));
    }

    @Override public Launch triadKernel(Buffer a, Buffer b, Buffer c, float s) {
        Tensor ta = tensor(a), tb = tensor(b), tc = tensor(c);
        for (Tensor t : new Tensor[]{ta, tb, tc}) {
            if (t.dtype() != DType.FP32) throw new IllegalArgumentException("triad needs fp32 buffers, got " + t.spec());
        }
        return simple(() -> Primitives.blocks(parallel, ta.elements(), (start, len, x, y, z, unused) -> {
            tb.load(start, x, 0, len);
            tc.load(start, y, 0, len);
            for (int i = 0; i < len; i++) x[i] += s * y[i];
            ta.store(start, x, 0, len);
        }));
    }

    private static Launch simple(Runnable r) {
        return new Launch() {
            @Override public void run() { r.run(); }

            @Override public int kernels() { return 1; }

            @Override public long scratchBytes() { return 0; }
        };
    }

    @Override public DeviceTimer timer() {
        return new DeviceTimer() {
            private long start, stop;

            @Override public void start() { start = System.nanoTime(); }

            @Override public void stop() { stop = System.nanoTime(); }

            @Override public double elapsedSeconds() { return (stop - start) * 1e-9; }
        };
    }

    @Override public long flushBytes() { return Math.max(2 * facts.lastLevelCacheBytes(), 8L << 20); }

    @Override public synchronized void flushCache() {
        if (flushBuffer == null) {
            flushBuffer = Tensor.allocate(TensorSpec.of("flush", DType.I64, flushBytes() / 8));
        }
        long round = ++flushRound;
        Tensor buf = flushBuffer;
        parallel.range(buf.elements(), 1 << 14, (from, to) -> {
            MemorySegment seg = buf.segment();
            for (long i = from; i < to; i++) seg.setAtIndex(FLUSH_LAYOUT, i, round + i);
        });
    }

    @Override public void synchronize() {}

    @Override public long availableMemory() { return CpuFacts.memInfo("MemAvailable"); }

    @Override public synchronized void close() {
        if (flushBuffer != null) flushBuffer.close();
        parallel.close();
    }
}
