package gluelab.backend.eager;

import gluelab.ops.OpRegistry;
import gluelab.ops.ScaleFixture;

/** The fixture op's eager chain: one primitive. */
public final class ScaleChainFixture implements EagerChains.Entries {
    @Override public void register(OpRegistry.Builder<EagerChains.Chain> r) {
        r.add(ScaleFixture.ID, new EagerChains.Chain() {
            @Override public <B> void build(gluelab.device.OpInstance in, java.util.Map<String, B> t, EagerOps<B> ops) {
                ops.unary(EagerOps.Unary.MUL_SCALAR, t.get("x"), t.get("y"), (float) in.shape().param("s"));
            }
        });
    }
}
