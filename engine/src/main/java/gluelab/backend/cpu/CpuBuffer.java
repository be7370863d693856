package gluelab.backend.cpu;

import gluelab.device.Buffer;
import gluelab.tensor.Tensor;
import gluelab.tensor.TensorSpec;

/** On the CPU a buffer is host memory. */
public record CpuBuffer(Tensor tensor) implements Buffer {
    @Override public TensorSpec spec() { return tensor.spec(); }

    @Override public void close() { tensor.close(); }
}
