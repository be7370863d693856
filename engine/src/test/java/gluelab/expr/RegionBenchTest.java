package gluelab.expr;

import gluelab.calibrate.Calibration;
import gluelab.backend.cpu.CpuDevice;
import gluelab.expr.workbench.Examples;
import gluelab.expr.workbench.RegionBench;
import gluelab.expr.workbench.RegionSizing;
import gluelab.expr.workbench.Rewrites;
import gluelab.expr.lower.EagerTree;
import gluelab.expr.lower.RegionCost;
import gluelab.expr.run.Lowering;
import gluelab.ops.Pass;
import gluelab.timing.TimingConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Floors, eager trees, timing like a catalogue op, and region sizing on the CPU. */
class RegionBenchTest {
    static Glue g() { return Glue.dims("T", 32, "D", 64, "H", 2, "HD", 48, "HD2", 24, "R", 16, "R2", 8, "NOPE", 32, "F", 40, "K", 2); }

    static final Calibration CAL = Calibration.given("test", 10e9, 1e11);

    @Test
    void floorsComeFromInputsAndOutputs() {
        Region r = Examples.rmsnorm(g(), "bf16");
        RegionCost c = RegionCost.of(r);
        assertEquals(32 * 64 * 2 + 64 * 2, c.bytesRead(), "x and w read once");
        assertEquals(32 * 64 * 2, c.bytesWritten());
        RegionCost bwd = RegionCost.of(r.backward());
        assertEquals(2 * 32 * 64 * 2 + 64 * 2, bwd.bytesRead(), "x, dy and w");
        assertEquals(32 * 64 * 2 + 64 * 2, bwd.bytesWritten(), "dx and dw");
        assertTrue(c.flops() > 4L * 32 * 64);
    }

    @Test
    void eagerTreesCountKernelsAndMaterialisedBytes() {
        EagerTree complex = EagerTree.of(Examples.qnormRopeComplex(g(), "bf16"));
        EagerTree real = EagerTree.of(Examples.qnormRopeReal(g(), "bf16"));
        assertEquals(8, complex.kernelCount(), "square, mean, add eps, rsqrt, mul, mul w, complex mul, cast");
        assertTrue(real.kernelCount() > complex.kernelCount(), "halves RoPE is more primitives eagerly");
        assertTrue(complex.cost().bytes() > 4 * RegionCost.of(complex.source()).bytes(), "intermediates round-trip memory");
        for (EagerTree.Kernel k : complex.kernels()) assertEquals(1, k.region().outputs().size());
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void regionsAreTimedAgainstTheirFloor() {
        try (CpuDevice cpu = new CpuDevice(2)) {
            Region r = Examples.swiglu(g(), "bf16");
            RegionBench.Row fused = RegionBench.bench(cpu, CAL, r, Pass.FORWARD, Lowering.FUSED, TimingConfig.quick());
            RegionBench.Row eager = RegionBench.bench(cpu, CAL, r, Pass.FORWARD, Lowering.EAGER, TimingConfig.quick());
            assertEquals(1, fused.kernels());
            assertEquals(3, eager.kernels(), "silu, mul, cast");
            assertEquals(fused.floorBytes(), eager.floorBytes(), "the same math has the same floor");
            assertTrue(eager.movedBytes() > fused.movedBytes());
            assertEquals(RegionCost.of(r).bytes() / CAL.bandwidth() * 1e6, fused.idealUs(), 1e-9);
            assertTrue(fused.measuredUs() > 0 && fused.pctOfFloor() > 0);
            assertTrue(fused.candidate(32, 1, 1000).gapUs() >= 0);
        }
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void sizingShowsTheThreeChoicesWithSignatureCounts() {
        try (CpuDevice cpu = new CpuDevice(2)) {
            Glue g = g();
            List<RegionBench.Row> rows = RegionSizing.measure(cpu, CAL, Examples.qnorm(g, "bf16"), Examples.ropeCat(g, "bf16"), TimingConfig.quick());
            assertEquals(6, rows.size());
            RegionBench.Row eagerB = rows.get(0), ab = rows.get(1), c = rows.get(2);
            assertEquals(List.of(2, 1), List.of(ab.signatures(), c.signatures()));
            assertTrue(eagerB.signatures() > 2);
            assertEquals(c.floorBytes(), ab.floorBytes());
            assertTrue(ab.movedBytes() > c.movedBytes(), "A+B writes and reads qn");
            assertEquals(1, c.kernels());
            assertEquals("bwd", rows.get(5).pass());
            assertEquals(1, rows.get(5).kernels(), "on the CPU dw gathers inside the loop (a GPU adds zero and store kernels)");
        }
    }

    @Test
    void rewritesKeepTheirMeaning() {
        Glue g = g();
        for (Rewrites.Rewrite rw : Rewrites.all(g, "fp32")) {
            assertTrue(RegionCost.of(rw.after()).bytes() <= RegionCost.of(rw.before()).bytes(), rw.name());
        }
        // Folding the cat into the norm is the same function.
        Rewrites.Rewrite fold = Rewrites.foldCatIntoNorm(g, "fp32");
        var in = gluelab.expr.workbench.RegionCheck.randomInputs(fold.before(), 3);
        double[] a = gluelab.expr.eval.Reference.of(fold.before()).run(in).get("out"), b = gluelab.expr.eval.Reference.of(fold.after()).run(in).get("out");
        for (int i = 0; i < a.length; i++) assertEquals(a[i], b[i], 1e-6);
    }
}
