package gluelab.device;

import gluelab.tensor.Tensor;
import gluelab.tensor.TensorSpec;

import java.util.Map;

/**
 * Where ops run: the CPU (embedded default) or a GPU. The engine allocates buffers, copies data
 * in and out, prepares launches of catalogue ops and times them through this interface only.
 */
public interface Device extends AutoCloseable {
    /** Selector form: "cpu", "cuda:0". */
    String id();

    DeviceFacts facts();

    /** What this device can do: dtypes, graph replay, peak FLOP/s. */
    Capabilities capabilities();

    Buffer allocate(TensorSpec spec);

    void upload(Tensor host, Buffer dst);

    void download(Buffer src, Tensor host);

    /** Binds an op instance to buffers; args holds every input and output by name. */
    Launch prepare(OpInstance instance, Map<String, Buffer> args);

    /** A copy dst = src over whole buffers, for bandwidth calibration. */
    Launch copyKernel(Buffer src, Buffer dst);

    /** a = b + s * c over whole fp32 buffers, for bandwidth calibration. */
    Launch triadKernel(Buffer a, Buffer b, Buffer c, float s);

    DeviceTimer timer();

    /** Evicts the last-level cache (writes a buffer of at least twice its size). */
    void flushCache();

    /** The bytes one {@link #flushCache()} writes (a peer timing the same ops flushes as much). */
    long flushBytes();

    void synchronize();

    /** Bytes that can be allocated now, for checks before a plan allocates anything. */
    long availableMemory();

    /**
     * The launch captured {@code repeats} times into one replayable graph, where the device has
     * graphs (CUDA); empty elsewhere.
     */
    default java.util.Optional<Launch> graph(Launch launch, int repeats) { return java.util.Optional.empty(); }

    /** The device's tunable fused kernels (launch configurations, picks), where it has them. */
    default java.util.Optional<Tunable> tunable() { return java.util.Optional.empty(); }

    /**
     * Every form of the calibration copy the device has; calibration times each and keeps the
     * fastest, so floors divide by the best copy the device can do.
     */
    default java.util.List<Launch> copyKernels(Buffer src, Buffer dst) { return java.util.List.of(copyKernel(src, dst)); }

    /** The names of {@link #copyKernels}' forms, in the same order (calibration records which was fastest). */
    default java.util.List<String> copyKernelNames() { return java.util.List.of("copy"); }

    /** Clocks, throttle reasons and other processes on the device, where known. */
    default Map<String, String> telemetry() { return Map.of(); }

    @Override void close();
}
