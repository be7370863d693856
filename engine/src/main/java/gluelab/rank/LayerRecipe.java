package gluelab.rank;

import gluelab.ops.OpId;
import gluelab.calibrate.Calibration;
import gluelab.floor.Floor;
import gluelab.model.ModelSpec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which glue ops one layer of a spec runs and how often, plus its GEMMs and attention at their
 * FLOP floors: the denominator of "share of the layer" when only the glue is measured.
 */
public record LayerRecipe(ModelSpec spec, Map<OpId, Integer> glueCounts) {
    public static LayerRecipe of(ModelSpec spec) {
        Map<OpId, Integer> c = new LinkedHashMap<>();
        c.put(OpId.of("rmsnorm"), 1);                      // attention input norm
        c.put(OpId.of("add_rmsnorm"), 1);                  // residual add + FFN norm
        c.put(OpId.of("qnorm_rope_complex"), 1);           // q norm + RoPE as the model file writes it
        c.put(OpId.of("swiglu"), spec.isMoe() ? spec.topK() : 1);
        if (spec.isMoe()) c.put(OpId.of("moe_routing"), 1);
        if (spec.ropeHeadDim() < spec.headDim()) c.put(OpId.of("cat"), 1); // rope and no-rope parts of each head joined
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
