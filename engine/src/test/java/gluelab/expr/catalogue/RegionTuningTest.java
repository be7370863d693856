package gluelab.expr.catalogue;

import gluelab.device.KernelConfig;
import gluelab.device.OpInstance;
import gluelab.backend.cpu.CpuDevice;
import gluelab.expr.Glue;
import gluelab.expr.Region;
import gluelab.expr.cuda.LaunchConfig;
import gluelab.expr.workbench.Examples;
import gluelab.expr.lower.RowPlan;
import gluelab.model.Presets;
import gluelab.ops.Catalogue;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.progress.Progress;
import gluelab.tensor.DType;
import gluelab.tune.Tuner;
import gluelab.tune.Tuning;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Variant region's launch configurations as the autotuner's space (the GPU half: RegionGpuTest). */
class RegionTuningTest {
    @TempDir Path dir;

    @Test
    void everyCandidateSurvivesTheTunersConfigForm() {
        Glue g = Glue.of(Presets.LLAMA_3_8B, 64);
        int n = 0;
        for (Region f : List.of(Examples.rmsnorm(g, "bf16"), Examples.qnormRopeReal(g, "bf16"), Examples.swiglu(g, "bf16"))) {
            for (Region r : List.of(f, f.backward())) {
                for (LaunchConfig c : LaunchConfig.candidates(RowPlan.of(r))) {
                    KernelConfig k = RegionTuning.toKernel(c);
                    assertEquals(RegionTuning.KERNEL, k.kernel());
                    assertEquals(c, RegionTuning.toLaunch(k), k.id());
                    n++;
                }
            }
        }
        assertTrue(n > 100, "checked " + n);
        assertEquals(LaunchConfig.CPU, RegionTuning.toLaunch(RegionTuning.toKernel(LaunchConfig.CPU)));
    }

    /** On the CPU a region has one configuration (its loop): the region tuner exists and has nothing to tune, and the variant still runs. */
    @Test
    void onTheCpuTheRegionSpaceHasOneConfigAndNothingIsTuned() {
        try (CpuDevice cpu = new CpuDevice(2, dir)) {
            Tuner tuner = Tuner.forVariant(cpu, Variant.REGION, Tuner.Options.defaults()).orElseThrow();
            var op = Catalogue.parse("rmsnorm");
            OpInstance in = new OpInstance(op, op.shape(Presets.LLAMA_3_8B, 16, DType.BF16), Pass.FORWARD, Variant.REGION);
            assertFalse(tuner.tunable(in));
            var routing = Catalogue.parse("moe_routing");
            assertFalse(tuner.tunable(new OpInstance(routing, routing.shape(Presets.LLAMA_3_8B, 16, DType.BF16), Pass.FORWARD, Variant.REGION)), "no expression");
            assertTrue(Tuning.run(cpu, Presets.LLAMA_3_8B, List.of(op), List.of(Pass.FORWARD), List.of(16L), DType.BF16, List.of(Variant.REGION),
                    Tuner.Options.defaults(), Progress.NONE).isEmpty());
            assertTrue(new gluelab.check.Checker(cpu).check(op, in.shape(), Pass.FORWARD, Variant.REGION).passed());
        }
    }
}
