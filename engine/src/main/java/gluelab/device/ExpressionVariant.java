package gluelab.device;

import gluelab.ops.GlueOp;
import gluelab.ops.Pass;
import gluelab.ops.Skip;

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

    /** Why the op has no region for this pass, where its registry declares a reason. */
    default java.util.Optional<Skip> skip(GlueOp op, Pass pass) { return java.util.Optional.empty(); }

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

    /** Why variant region does not run on this op and pass here; empty where it runs. */
    static java.util.Optional<Skip> skipped(GlueOp op, Pass pass) {
        if (available(op, pass) || !op.supports(pass)) return java.util.Optional.empty();
        String subject = op.name() + " " + pass.id() + " region";
        if (Holder.FOUND == null) return java.util.Optional.of(new Skip(subject, "gluelab's expression packages (gluelab.expr) are not on the class path"));
        return java.util.Optional.of(Holder.FOUND.skip(op, pass).orElse(new Skip(subject, "the op has no expression")));
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
