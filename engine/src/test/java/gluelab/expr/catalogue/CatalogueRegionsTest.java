package gluelab.expr.catalogue;

import gluelab.bench.BenchPlan;
import gluelab.bench.BenchRunner;
import gluelab.calibrate.Calibration;
import gluelab.check.Checker;
import gluelab.check.Correctness;
import gluelab.device.ExpressionVariant;
import gluelab.backend.cpu.CpuDevice;
import gluelab.model.ModelSpec;
import gluelab.model.Presets;
import gluelab.ops.Catalogue;
import gluelab.ops.GlueOp;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.progress.Progress;
import gluelab.record.Row;
import gluelab.tensor.DType;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The catalogue's ops as expressions (variant region) against the ops' own fp64 references, and timed by bench beside fused. */
class CatalogueRegionsTest {
    static CpuDevice device;

    @BeforeAll static void open() { device = new CpuDevice(2); }

    @AfterAll static void close() { device.close(); }

    @Test
    void everyExpressedOpMatchesItsReferenceInBothPasses() {
        // A small spec with odd sizes (the one CpuOpsVsReferenceTest uses).
        ModelSpec spec = new ModelSpec("small", null, "test", 96, 3, 3, 48, 32, 160, 96, 20, 4, "sigmoid", 1e-6, 10000, 2, List.of());
        int checked = 0;
        for (GlueOp op : Catalogue.all()) {
            for (Pass p : Pass.values()) {
                if (!ExpressionVariant.available(op, p)) continue;
                for (DType d : List.of(DType.BF16, DType.FP32)) {
                    Correctness c = new Checker(device).check(op, op.shape(spec, 37, d), p, Variant.REGION);
                    assertTrue(c.passed(), () -> "failed: " + c);
                    checked++;
                }
            }
        }
        // rmsnorm, add_rmsnorm, both q-norm + RoPE and SwiGLU fwd+bwd, cat and cast fwd; two dtypes.
        assertEquals(2 * 12, checked);
        assertFalse(ExpressionVariant.available(Catalogue.parse("moe_routing"), Pass.FORWARD));
    }

    @Test
    void benchTimesTheRegionBesideFusedAndSkipsOpsWithoutOne() {
        TimingConfig t = new TimingConfig(Mode.COLD, 0.0, new StopRule(3, 0, 0.5, 0.5, 10), 2);
        BenchPlan plan = new BenchPlan(Presets.LLAMA_3_8B, List.of(Catalogue.parse("rmsnorm"), Catalogue.parse("moe_routing")), List.of(16L),
                List.of(Variant.FUSED, Variant.REGION), List.of(Pass.FORWARD), DType.BF16, t, 8);
        List<String> notes = new java.util.ArrayList<>();
        var result = new BenchRunner(device, Calibration.given("t", 4e10, 1e12), notes::add).run(plan, Progress.NONE, r -> {});
        List<Row> rows = result.rows();
        assertEquals(List.of("rmsnorm fused", "rmsnorm region", "moe_routing fused"), rows.stream().map(r -> r.key().op() + " " + r.key().series()).toList());
        assertEquals(List.of(new gluelab.ops.Skip("moe_routing fwd region", "top-k is not an expression")), result.skipped());
        assertEquals(List.of("skipped moe_routing fwd region: top-k is not an expression"), notes);
        var notMeasured = result.notMeasured();
        assertEquals(1, notMeasured.rowCount());
        assertEquals("moe_routing fwd region", notMeasured.stringColumn("not measured").get(0));
        assertEquals("top-k is not an expression", notMeasured.stringColumn("reason").get(0));
        Row region = rows.get(1);
        assertTrue(region.measuredUs() > 0 && region.correctness() != null && region.correctness().passed(), region::toString);
    }
}
