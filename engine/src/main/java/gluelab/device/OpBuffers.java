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
        Map<String, Tensor> host = fillInputs(op, shape, pass, seed);
        try {
            allocate(device, op, shape, pass, host, into);
        } finally {
            host.values().forEach(Tensor::close);
        }
    }

    /** The op's inputs filled from {@code seed} on the host; the caller closes them. */
    public static Map<String, Tensor> fillInputs(GlueOp op, OpShape shape, Pass pass, long seed) {
        Map<String, Tensor> host = new LinkedHashMap<>();
        try {
            for (TensorSpec s : op.inputs(shape, pass)) host.put(s.name(), Tensor.allocate(s));
            op.fillInputs(shape, pass, host, seed);
            return host;
        } catch (RuntimeException | Error e) {
            host.values().forEach(Tensor::close);
            throw e;
        }
    }

    /**
     * Adds a device copy of every filled host input and a new buffer for every output to
     * {@code into}, as it goes (the caller closes what was allocated when a later allocation fails).
     */
    public static void allocate(Device device, GlueOp op, OpShape shape, Pass pass, Map<String, Tensor> inputs, Map<String, Buffer> into) {
        for (var e : inputs.entrySet()) {
            Buffer b = device.allocate(e.getValue().spec());
            into.put(e.getKey(), b);
            device.upload(e.getValue(), b);
        }
        for (TensorSpec s : op.outputs(shape, pass)) into.put(s.name(), device.allocate(s));
    }
}
