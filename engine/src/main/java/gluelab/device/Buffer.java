package gluelab.device;

import gluelab.tensor.TensorSpec;

/** Memory on a device holding one tensor. */
public interface Buffer extends AutoCloseable {
    TensorSpec spec();

    @Override void close();
}
