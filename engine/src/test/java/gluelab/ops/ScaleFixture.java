package gluelab.ops;

import gluelab.model.ModelSpec;
import gluelab.tensor.DType;
import gluelab.tensor.TensorSpec;

import java.util.List;
import java.util.Map;

/**
 * A test fixture op, y = s * x over the hidden state (forward only). It is listed only in the
 * fixture's own service files ({@code src/test/op-fixture/META-INF/services}), which
 * {@code OpRegistriesTest} loads through its own class loader, so no other test sees it.
 */
public final class ScaleFixture implements GlueOp {
    public static final OpId ID = OpId.of("scale");

    @Override public String name() { return ID.name(); }

    @Override public String summary() { return "y = s * x (a test fixture)"; }

    @Override public OpShape shape(ModelSpec spec, long tokens, DType dtype) {
        return new OpShape(name(), Map.of("T", tokens, "D", (long) spec.hidden()), dtype, Map.of("s", 0.5));
    }

    @Override public boolean supports(Pass pass) { return pass == Pass.FORWARD; }

    @Override public List<TensorSpec> inputs(OpShape s, Pass pass) {
        requireSupports(pass);
        return List.of(TensorSpec.of("x", s.dtype(), s.tokens(), s.dim("D")));
    }

    @Override public List<TensorSpec> outputs(OpShape s, Pass pass) {
        requireSupports(pass);
        return List.of(TensorSpec.of("y", s.dtype(), s.tokens(), s.dim("D")));
    }

    @Override public long flops(OpShape s, Pass pass) { return s.tokens() * s.dim("D"); }

    @Override public Map<String, double[]> reference(OpShape s, Pass pass, Map<String, double[]> in) {
        double[] x = in.get("x"), y = new double[x.length];
        for (int i = 0; i < x.length; i++) y[i] = s.param("s") * x[i];
        return Map.of("y", y);
    }
}
