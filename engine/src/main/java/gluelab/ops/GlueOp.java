package gluelab.ops;

import gluelab.model.ModelSpec;
import gluelab.tensor.Fill;
import gluelab.tensor.Tensor;
import gluelab.tensor.TensorSpec;

import java.util.List;
import java.util.Map;

/**
 * One glue op of a transformer layer. It declares its tensors, the bytes it must move (its floor),
 * its FLOPs, and an fp64 reference. Devices supply the eager and fused implementations.
 */
public interface GlueOp {
    String name();

    /** The typed identity every registry is keyed by. */
    default OpId id() { return OpId.of(name()); }

    String summary();

    OpShape shape(ModelSpec spec, long tokens, gluelab.tensor.DType dtype);

    boolean supports(Pass pass);

    List<TensorSpec> inputs(OpShape shape, Pass pass);

    List<TensorSpec> outputs(OpShape shape, Pass pass);

    /** Arithmetic per pass, counting a multiply, add, compare or special function each as one. */
    long flops(OpShape shape, Pass pass);

    /** fp64 reference: input name to values in, output name to values out. */
    Map<String, double[]> reference(OpShape shape, Pass pass, Map<String, double[]> inputs);

    /** The floor: every input read once plus every output written once. */
    default Traffic traffic(OpShape shape, Pass pass) {
        long read = 0, written = 0;
        for (TensorSpec t : inputs(shape, pass)) read += t.bytes();
        for (TensorSpec t : outputs(shape, pass)) written += t.bytes();
        return new Traffic(read, written);
    }

    /** Fills inputs deterministically; ops override for inputs that must hold meaningful values. */
    default void fillInputs(OpShape shape, Pass pass, Map<String, Tensor> inputs, long seed) {
        long salt = 0;
        for (Tensor t : inputs.values()) Fill.uniform(t, seed + 7919 * salt++, -1, 1);
    }

    default void requireSupports(Pass pass) {
        if (!supports(pass)) throw new IllegalArgumentException(name() + " has no " + pass.id() + " pass in the catalogue");
    }
}
