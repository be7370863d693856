package gluelab.device.cuda;

import gluelab.device.Buffer;
import gluelab.tensor.TensorSpec;
import jcuda.driver.CUdeviceptr;

/** Device memory holding one tensor. */
public final class CudaBuffer implements Buffer {
    private final CudaDevice device;
    private final TensorSpec spec;
    private final CUdeviceptr ptr;
    private boolean closed;

    CudaBuffer(CudaDevice device, TensorSpec spec, CUdeviceptr ptr) {
        this.device = device;
        this.spec = spec;
        this.ptr = ptr;
    }

    @Override public TensorSpec spec() { return spec; }

    CUdeviceptr ptr() {
        if (closed) throw new IllegalStateException("buffer " + spec + " is closed");
        return ptr;
    }

    CudaDevice device() { return device; }

    @Override public void close() {
        if (closed) return;
        closed = true;
        device.free(ptr);
    }
}
