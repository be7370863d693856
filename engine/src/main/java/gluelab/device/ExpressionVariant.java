package gluelab.device;

import gluelab.ops.GlueOp;
import gluelab.ops.Pass;

import java.util.Map;
import java.util.ServiceLoader;

/**
 * Catalogue ops written as glue expressions, prepared as their generated fused region (variant
 * {@code region}). Implemented above the device layer ({@code gluelab.expr.catalogue}) and found
 * through {@link ServiceLoader}, so devices dispatch to it without importing it.
 */
public interface ExpressionVariant {
    /** Whether the op has an expression for this pass. */
    boolean supports(GlueOp op, Pass pass);

    /** A launch of the op's region over the catalogue's buffers (by the op's tensor names), in the autotuner's pick where one is stored. */
    Launch prepare(Device device, OpInstance instance, Map<String, Buffer> args);

    /** The regions' launch configurations on this device as the autotuner's space (empty: nothing to tune). */
    default java.util.Optional<Tunable> tunable(Device device) { return java.util.Optional.empty(); }

    /** The implementation on the class path. */
    static ExpressionVariant get() {
        return Holder.INSTANCE;
    }

    /** Whether the op runs as variant region on this class path (false when no implementation is present). */
    static boolean available(GlueOp op, Pass pass) {
        return Holder.FOUND != null && Holder.FOUND.supports(op, pass);
    }

    final class Holder {
        private static final ExpressionVariant FOUND = ServiceLoader.load(ExpressionVariant.class, ExpressionVariant.class.getClassLoader()).findFirst().orElse(null);
        private static final ExpressionVariant INSTANCE = FOUND != null ? FOUND : new ExpressionVariant() {
            @Override public boolean supports(GlueOp op, Pass pass) { return false; }

            @Override public Launch prepare(Device device, OpInstance instance, Map<String, Buffer> args) {
                throw new IllegalStateException("variant region needs gluelab's expression packages (gluelab.expr) on the class path");
            }
        };

        private Holder() {}
    }
}
