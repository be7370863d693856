package gluelab.rank;

import gluelab.ops.OpId;
import gluelab.ops.OpRegistry;
import gluelab.calibrate.Calibration;
import gluelab.floor.Floor;
import gluelab.model.ModelSpec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * Which glue ops one layer of a spec runs and how often, plus its GEMMs and attention at their
 * FLOP floors: the denominator of "share of the layer" when only the glue is measured.
 */
public record LayerRecipe(ModelSpec spec, Map<OpId, Integer> glueCounts) {
    /** How often one layer of a spec runs an op (0: not in this spec's layer). */
    @FunctionalInterface
    public interface Count extends ToIntFunction<ModelSpec> {}

    /** One file's counts (or declared skips), listed in {@code META-INF/services/gluelab.rank.LayerRecipe$Entries}. */
    public interface Entries extends OpRegistry.Entries<Count> {}

    /** The catalogue's own counts. */
    public static final class Builtin implements Entries {
        @Override public void register(OpRegistry.Builder<Count> r) {
            r.add(OpId.of("rmsnorm"), s -> 1)                          // attention input norm
                    .add(OpId.of("add_rmsnorm"), s -> 1)                      // residual add + FFN norm
                    .add(OpId.of("qnorm_rope_complex"), s -> 1)               // q norm + RoPE as the model file writes it
                    .skip(OpId.of("qnorm_rope_real"), "a layer runs RoPE in the complex form its model file writes; the real form is measured beside it, not counted twice")
                    .add(OpId.of("swiglu"), s -> s.isMoe() ? s.topK() : 1)
                    .add(OpId.of("moe_routing"), s -> s.isMoe() ? 1 : 0)
                    .add(OpId.of("cat"), s -> s.ropeHeadDim() < s.headDim() ? 1 : 0) // rope and no-rope parts of each head joined
                    .skip(OpId.of("cast"), "a layer's casts sit inside the ops around them; cast is measured on its own, not counted in the layer");
        }
    }

    private static final OpRegistry<Count> COUNTS = registry(LayerRecipe.class.getClassLoader());

    /** The layer recipe registry. */
    public static OpRegistry<Count> registry() { return COUNTS; }

    /** The counts listed in the service files {@code loader} sees. */
    public static OpRegistry<Count> registry(ClassLoader loader) { return OpRegistry.discover("layer recipe", Entries.class, loader); }

    public static LayerRecipe of(ModelSpec spec) {
        Map<OpId, Integer> c = new LinkedHashMap<>();
        COUNTS.entries().forEach((op, count) -> {
            int n = count.applyAsInt(spec);
            if (n > 0) c.put(op, n);
        });
        return new LayerRecipe(spec, c);
    }

    public int count(OpId op) { return glueCounts.getOrDefault(op, 0); }

    /** GEMM and attention floors of one layer's forward at {@code tokens}, bf16 operands. */
    public List<Floor> matmulFloors(long tokens, Calibration cal) {
        ModelSpec s = spec;
        long d = s.hidden(), qWidth = (long) s.heads() * s.headDim(), kvWidth = 2L * s.kvHeads() * s.headDim();
        List<Floor> out = new ArrayList<>();
        out.add(Floor.gemm("qkv_proj", tokens, qWidth + kvWidth, d, 2, cal));
        out.add(Floor.gemm("o_proj", tokens, d, qWidth, 2, cal));
        if (s.isMoe()) {
            out.add(Floor.gemm("router", tokens, s.experts(), d, 2, cal));
            out.add(Floor.gemm("experts_gate_up", tokens * s.topK(), 2L * s.swigluWidth(), d, 2, cal));
            out.add(Floor.gemm("experts_down", tokens * s.topK(), d, s.swigluWidth(), 2, cal));
        } else {
            out.add(Floor.gemm("gate_up_proj", tokens, 2L * s.ffn(), d, 2, cal));
            out.add(Floor.gemm("down_proj", tokens, d, s.ffn(), 2, cal));
        }
        // Causal attention: QK^T and PV over half the T x T scores.
        long attnFlops = 2L * 2 * tokens * tokens * qWidth / 2;
        out.add(new Floor("attention", gluelab.ops.Pass.FORWARD, tokens, 4L * tokens * qWidth * 2, attnFlops, cal.bandwidth(), cal.peakFlops()));
        return out;
    }

    /** Forward + backward matmul time at the floor: backward is twice the forward's FLOPs. */
    public double matmulMicros(long tokens, Calibration cal, boolean withBackward) {
        double sum = 0;
        for (Floor f : matmulFloors(tokens, cal)) sum += f.idealSeconds();
        return sum * 1e6 * (withBackward ? 3 : 1);
    }
}
