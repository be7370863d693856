package gluelab.device.cuda;

import gluelab.device.Buffer;
import gluelab.tensor.TensorSpec;
import jcuda.driver.CUdeviceptr;

/** Device memory holding one tensor; unusable after its device's context was rebuilt. */
public final class CudaBuffer implements Buffer {
    private final CudaDevice device;
    private final TensorSpec spec;
    private final CUdeviceptr ptr;
    private final long generation;
    private boolean closed;

    CudaBuffer(CudaDevice device, TensorSpec spec, CUdeviceptr ptr, long generation) {
        this.device = device;
        this.spec = spec;
        this.ptr = ptr;
        this.generation = generation;
    }

    @Override public TensorSpec spec() { return spec; }

    CUdeviceptr ptr() {
        if (closed) throw new IllegalStateException("buffer " + spec + " is closed");
        if (generation != device.generation()) {
            throw new IllegalStateException("buffer " + spec + " was lost when the CUDA context was rebuilt after an error; allocate it again");
        }
        return ptr;
    }

    CudaDevice device() { return device; }

    @Override public void close() {
        if (closed) return;
        closed = true;
        device.free(ptr, generation, spec.bytes());
    }
}
