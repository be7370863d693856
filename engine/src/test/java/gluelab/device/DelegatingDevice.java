package gluelab.device;

import gluelab.tensor.Tensor;
import gluelab.tensor.TensorSpec;

import java.util.Map;

/**
 * A real device (the CPU in tests) passed through, for tests that change one thing about it:
 * its timer's validity (a throttled GPU) or its declared capabilities. Closing it leaves the
 * inner device open.
 */
public class DelegatingDevice implements Device {
    protected final Device inner;

    public DelegatingDevice(Device inner) { this.inner = inner; }

    @Override public String id() { return "test-" + inner.id(); }

    @Override public DeviceFacts facts() { return inner.facts(); }

    @Override public Capabilities capabilities() { return inner.capabilities(); }

    @Override public Buffer allocate(TensorSpec spec) { return inner.allocate(spec); }

    @Override public void upload(Tensor host, Buffer dst) { inner.upload(host, dst); }

    @Override public void download(Buffer src, Tensor host) { inner.download(src, host); }

    @Override public Launch prepare(OpInstance instance, Map<String, Buffer> args) { return inner.prepare(instance, args); }

    @Override public Launch copyKernel(Buffer src, Buffer dst) { return inner.copyKernel(src, dst); }

    @Override public Launch triadKernel(Buffer a, Buffer b, Buffer c, float s) { return inner.triadKernel(a, b, c, s); }

    @Override public DeviceTimer timer() { return inner.timer(); }

    @Override public void flushCache() { inner.flushCache(); }

    @Override public long flushBytes() { return inner.flushBytes(); }

    @Override public void synchronize() { inner.synchronize(); }

    @Override public long availableMemory() { return inner.availableMemory(); }

    @Override public void close() {}
}
