package gluelab.device;

import gluelab.ops.GlueOp;
import gluelab.ops.OpShape;
import gluelab.ops.Pass;
import gluelab.tensor.Tensor;
import gluelab.tensor.TensorSpec;

import java.util.LinkedHashMap;
import java.util.Map;

/** An op's buffers on a device: inputs filled deterministically and uploaded, outputs allocated. */
public final class OpBuffers {
    private OpBuffers() {}

    /**
     * Adds every input (filled from {@code seed}) and output of the op to {@code into}, as it goes,
     * so the caller can close whatever was allocated when a later allocation fails.
     */
    public static void allocate(Device device, GlueOp op, OpShape shape, Pass pass, long seed, Map<String, Buffer> into) {
        Map<String, Tensor> host = new LinkedHashMap<>();
        try {
            for (TensorSpec s : op.inputs(shape, pass)) host.put(s.name(), Tensor.allocate(s));
            op.fillInputs(shape, pass, host, seed);
            for (var e : host.entrySet()) {
                Buffer b = device.allocate(e.getValue().spec());
                into.put(e.getKey(), b);
                device.upload(e.getValue(), b);
            }
        } finally {
            host.values().forEach(Tensor::close);
        }
        for (TensorSpec s : op.outputs(shape, pass)) into.put(s.name(), device.allocate(s));
    }
}
