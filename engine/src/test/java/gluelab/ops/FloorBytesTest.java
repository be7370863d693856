package gluelab.ops;

import gluelab.model.Presets;
import gluelab.tensor.DType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Bytes each op must move, checked against the byte formulas of the H200 reference table (docs/methodology.md, Floors). */
class FloorBytesTest {
    static final long D = 4096, H = 32, HD = 128, F = 14336, E = 64, K = 8;

    static long bytes(String op, long t, Pass pass) {
        GlueOp o = Catalogue.parse(op);
        return o.traffic(o.shape(Presets.ANCHOR_H200, t, DType.BF16), pass).total();
    }

    @ParameterizedTest
    @ValueSource(longs = {2048, 8192, 32768})
    void forwardMatchesAnchorFormulas(long t) {
        assertEquals(2 * t * D * 2 + 2 * D, bytes("rmsnorm", t, Pass.FORWARD));
        assertEquals(4 * t * D * 2 + 2 * D, bytes("add_rmsnorm", t, Pass.FORWARD));
        // The anchors leave out the 128-wide q-norm weight (256 bytes); gluelab counts it.
        assertEquals(2 * t * H * HD * 2 + t * (HD / 2) * 8 + 2 * HD, bytes("qnorm_rope_complex", t, Pass.FORWARD));
        assertEquals(2 * t * H * HD * 2 + t * (HD / 2) * 8 + 2 * HD, bytes("qnorm_rope_real", t, Pass.FORWARD));
        assertEquals(3 * t * F * 2, bytes("swiglu", t, Pass.FORWARD));
        assertEquals(t * E * 2 + t * K * 12, bytes("moe_routing", t, Pass.FORWARD));
        assertEquals(2 * t * H * HD * 2, bytes("cat", t, Pass.FORWARD));
        assertEquals(t * D * (2 + 4), bytes("cast", t, Pass.FORWARD));
    }

    @ParameterizedTest
    @ValueSource(longs = {2048, 8192})
    void backwardCountsEveryInputAndGradOnce(long t) {
        // reads x, w, dy; writes dx, dw
        assertEquals(3 * t * D * 2 + 2 * D + 2 * D, bytes("rmsnorm", t, Pass.BACKWARD));
        // reads h, w, dy, dh; writes dx, dw
        assertEquals(4 * t * D * 2 + 2 * D + 2 * D, bytes("add_rmsnorm", t, Pass.BACKWARD));
        // reads q, w, freqs, dy; writes dq, dw
        assertEquals(3 * t * H * HD * 2 + 2 * HD + t * (HD / 2) * 8 + 2 * HD, bytes("qnorm_rope_complex", t, Pass.BACKWARD));
        // reads gate, up, dy; writes dgate, dup
        assertEquals(5 * t * F * 2, bytes("swiglu", t, Pass.BACKWARD));
    }

    @ParameterizedTest
    @ValueSource(longs = {2048, 8192, 32768})
    void idealTimesMatchTheAnchorTableAt4272GBs(long t) {
        double bw = 4272e9;
        double[] anchorsAt2048 = {7.9, 15.7, 41.2, 7.9};
        String[] ops = {"rmsnorm", "add_rmsnorm", "swiglu", "cat"};
        for (int i = 0; i < ops.length; i++) {
            double us = bytes(ops[i], t, Pass.FORWARD) / bw * 1e6;
            assertEquals(anchorsAt2048[i] * t / 2048, us, 0.06 * t / 2048 + 0.1, ops[i] + " at " + t);
        }
    }

    @org.junit.jupiter.api.Test
    void passesAnOpDoesNotHaveAreRejected() {
        var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> bytes("cat", 16, Pass.BACKWARD));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("cat has no bwd pass"));
    }

    @org.junit.jupiter.api.Test
    void unknownOpListsKnownNames() {
        var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Catalogue.parse("layernorm"));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("unknown op 'layernorm'"));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("rmsnorm"));
    }
}
