package gluelab.backend.cuda;

import gluelab.device.Launch;
import gluelab.tensor.DType;
import gluelab.tensor.TensorSpec;

import java.util.ArrayList;
import java.util.List;

/** A CUDA launch as a list of kernels enqueued back to back, with the scratch buffers they use. */
final class CudaProgram implements Launch {
    private final CudaDevice device;
    private final List<KernelLaunch> kernels = new ArrayList<>();
    private final List<CudaBuffer> scratch = new ArrayList<>();

    CudaProgram(CudaDevice device) { this.device = device; }

    CudaBuffer scratch(String name, DType dtype, long... shape) {
        CudaBuffer b = (CudaBuffer) device.allocate(TensorSpec.of(name, dtype, shape));
        scratch.add(b);
        return b;
    }

    CudaProgram add(KernelLaunch k) {
        kernels.add(k);
        return this;
    }

    @Override public void run() {
        device.makeCurrent();
        for (KernelLaunch k : kernels) k.run(device.stream());
    }

    @Override public int kernels() { return kernels.size(); }

    @Override public long scratchBytes() {
        long sum = 0;
        for (CudaBuffer b : scratch) sum += b.spec().bytes();
        return sum;
    }

    @Override public void close() {
        scratch.forEach(CudaBuffer::close);
        scratch.clear();
    }
}
