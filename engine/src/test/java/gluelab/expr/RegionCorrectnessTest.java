package gluelab.expr;

import gluelab.backend.cpu.CpuDevice;
import gluelab.expr.workbench.Examples;
import gluelab.expr.workbench.RegionCheck;
import gluelab.model.Presets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.function.BiFunction;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/** The catalogue's glue as expressions on the CPU: eager and fused, fwd and bwd, vs fp64 and finite differences. */
class RegionCorrectnessTest {
    static CpuDevice cpu;

    @BeforeAll static void open() { cpu = new CpuDevice(2); }

    @AfterAll static void close() { cpu.close(); }

    /** Small dims: every code path (several rows per chunk, broadcasting over heads) at test speed. */
    static Glue small() { return Glue.dims("T", 24, "D", 96, "H", 3, "HD", 32, "HD2", 16, "R", 16, "R2", 8, "NOPE", 16, "F", 80); }

    static Stream<Arguments> regions() {
        List<BiFunction<Glue, String, Region>> makers = List.of(Examples::rmsnorm, Examples::addRmsnorm, Examples::qnormRopeComplex,
                Examples::qnormRopeReal, Examples::swiglu, Examples::ropeCat, RegionCorrectnessTest::ropeInFp32);
        return Stream.of("bf16", "fp32").flatMap(dt -> makers.stream().map(m -> Arguments.of(m.apply(small(), dt), dt)));
    }

    /** As notebook 05 writes it: the fp32 table promotes the rotation, so the weight's gradient is summed in fp32 and stored narrower. */
    static Region ropeInFp32(Glue g, String dtype) {
        Expr q = g.input("q", dtype, "T", "H", "HD"), w = g.input("w", dtype, "HD"), freqs = g.data("freqs", "fp32", "T", "HD");
        Expr qn = q.mul(q.square().mean().add(g.param("eps", 1e-6)).rsqrt()).mul(w);
        return g.region("rope_fp32").out("out", qn.pairs().times(freqs.pairs()).cast(dtype));
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("regions")
    void eagerAndFusedMatchFp64(Region r, String dtype) {
        // bf16 fused: one rounding at the output, so within 1 ulp; fp32: fp32 arithmetic vs fp64. Eager rounds
        // every intermediate to its dtype (as PyTorch eager stores it), so it is allowed far more.
        double fused = dtype.equals("bf16") ? 1 : 64, eager = 256;
        for (RegionCheck.Result res : RegionCheck.check(cpu, r, fused, eager, 11)) {
            assertTrue(res.ok(), res.toString());
        }
    }

    /**
     * q-norm + RoPE at model dims and as many rows as the H200 check (llama-3-8b, 256 tokens): with
     * q-norm's result kept in fp32 inside the region, the one rounding is at the output, so bf16 stays
     * within 1 ulp over a million elements (it reached 2 when q-norm's result was rounded to bf16 before RoPE).
     */
    @org.junit.jupiter.api.Test
    void qnormRopeRoundsOnceAtModelDims() {
        Glue g = Glue.of(gluelab.model.Presets.LLAMA_3_8B, 256);
        for (Region r : List.of(Examples.qnormRopeComplex(g, "bf16"), Examples.qnormRopeReal(g, "bf16"))) {
            assertFalse(RegionCheck.roundsInside(r) || RegionCheck.roundsInside(r.backward()), r.name());
            for (RegionCheck.Result res : RegionCheck.check(cpu, r, 1, 256, 13)) {
                if (res.lowering().equals("fused")) assertTrue(res.ok(), res.toString());
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("regions")
    void gradientsMatchFiniteDifferences(Region r, String dtype) {
        for (RegionCheck.GradResult g : RegionCheck.gradients(r, 6, 5)) assertTrue(g.ok(), g.toString());
    }
}
