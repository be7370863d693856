package gluelab.bench;

import gluelab.device.Capabilities;
import gluelab.device.DelegatingDevice;
import gluelab.backend.cpu.CpuDevice;
import gluelab.model.SpecRegistry;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.tensor.DType;
import gluelab.timing.Mode;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The typed plan: one set of defaults, every typed option checked by name, nothing-selected refused, capabilities first. */
class BenchPlanTest {
    static final SpecRegistry SPECS = SpecRegistry.presets();

    @Test
    void theBuilderHoldsTheDefaults() {
        BenchPlan p = BenchPlan.builder(SPECS).ops(List.of("rmsnorm")).build();
        assertEquals(BenchPlan.DEFAULT_MODEL, p.spec().name());
        assertEquals(List.of(2048L), p.tokens());
        assertEquals(List.of(Variant.EAGER, Variant.FUSED), p.variants());
        assertEquals(List.of(Pass.FORWARD), p.passes());
        assertEquals(DType.BF16, p.dtype());
        assertEquals(Mode.COLD, p.timing().mode());
        assertEquals(BenchPlan.DEFAULT_CHECK_TOKENS, p.checkTokens());
    }

    @Test
    void optionsAreParsedAndCheckedByName() {
        BenchPlan p = BenchPlan.builder(SPECS).ops(List.of("cat", "rmsnorm")).tokens("1k,2k").variants("fused,fused").passes("fwd,bwd")
                .mode("hot").stop(3.0, 0.0, 1.0).build();
        assertEquals(List.of(1024L, 2048L), p.tokens());
        assertEquals(List.of(Variant.FUSED), p.variants(), "repeats are dropped");
        assertEquals(Mode.HOT, p.timing().mode());
        assertEquals(0.01, p.timing().stop().maxNoise(), 1e-12);
        assertEquals(3.0, p.timing().stop().timeoutSeconds());
        assertEquals(6, p.groups().size(), "2 tokens x (cat fwd, rmsnorm fwd, rmsnorm bwd): cat has no bwd");
    }

    @Test
    void theDemosPlanTakesStopOverridesAndKeepsTheRestOfItsTiming() {
        BenchPlan demo = BenchPlan.demo(SPECS).tokens(List.of(2048L)).build();
        BenchPlan tenX = demo.withStop(5.0, 10 * demo.timing().stop().minSeconds(), null);
        assertEquals(0.2, tenX.timing().stop().minSeconds(), 1e-12);
        assertEquals(5.0, tenX.timing().stop().timeoutSeconds());
        assertEquals(demo.timing().stop().maxNoise(), tenX.timing().stop().maxNoise());
        assertEquals(demo.timing().warmupSeconds(), tenX.timing().warmupSeconds(), "the same warm-up: only the sampling is longer");
        assertEquals(demo.groups(), tenX.groups());
        assertEquals("0.2", tenX.parameters().get("minSeconds"));
        assertEquals("0.25", tenX.parameters().get("warmupMaxSeconds"));
        var e = assertThrows(IllegalArgumentException.class, () -> demo.withStop(null, -1.0, null));
        assertTrue(e.getMessage().startsWith("--min-time must be a finite number >= 0"), e.getMessage());
    }

    @Test
    void placementsAreTheDevicesUnlessNamedAndCheckedByOptionName() {
        BenchPlan p = BenchPlan.builder(SPECS).ops(List.of("rmsnorm")).build();
        assertEquals(BenchPlan.DEVICE_PLACEMENTS, p.placements());
        assertEquals("device", p.parameters().get("placements"));
        try (CpuDevice cpu = new CpuDevice(1)) {
            assertEquals(1, p.placements(cpu), "the CPU says 1");
            var eight = new DelegatingDevice(cpu) {
                @Override public Capabilities capabilities() { return new Capabilities(EnumSet.of(DType.BF16), true, 0, 256L << 20, 8); }
            };
            assertEquals(8, p.placements(eight));
            assertEquals(2, p.withPlacements(2).placements(eight));
            assertEquals("2", p.withPlacements(2).parameters(eight).get("placements"));
            assertEquals("8", p.parameters(eight).get("placements"));
        }
        BenchPlan hot = BenchPlan.builder(SPECS).ops(List.of("rmsnorm")).mode("hot").build();
        try (CpuDevice cpu = new CpuDevice(1)) {
            var eight = new DelegatingDevice(cpu) {
                @Override public Capabilities capabilities() { return new Capabilities(EnumSet.of(DType.BF16), true, 0, 256L << 20, 8); }
            };
            assertEquals(1, hot.placements(eight), "hot samples keep one placement");
        }
        var hotError = assertThrows(IllegalArgumentException.class, () -> hot.withPlacements(2));
        assertTrue(hotError.getMessage().startsWith("--placements 2 needs cold samples (--mode cold)"), hotError.getMessage());
        assertEquals(1, hot.withPlacements(1).placements());
        BenchPlan four = BenchPlan.builder(SPECS).ops(List.of("rmsnorm")).placements(4).build();
        assertEquals(4, four.placements());
        assertEquals(4, four.withStop(1.0, null, null).placements(), "stop overrides keep the placements");
        for (int bad : new int[]{0, -1, 65}) {
            var e = assertThrows(IllegalArgumentException.class, () -> BenchPlan.builder(SPECS).placements(bad));
            assertEquals("--placements must be 1..64 buffer placements (1 = one placement, no rotation), got " + bad, e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> four.withPlacements(bad));
        }
    }

    @Test
    void aPlanThatSelectsNothingSaysWhy() {
        var e = assertThrows(IllegalArgumentException.class, () -> BenchPlan.builder(SPECS).ops(List.of("cat", "cast")).passes("bwd").build());
        assertEquals("nothing to measure: passes [bwd] select no rows (cat has [fwd], cast has [fwd])", e.getMessage());
    }

    @Test
    void aDtypeTheDeviceLacksIsRefusedBeforeAnythingRuns() {
        try (CpuDevice cpu = new CpuDevice(1)) {
            var bf16Only = new DelegatingDevice(cpu) {
                @Override public Capabilities capabilities() { return new Capabilities(EnumSet.of(DType.BF16, DType.FP32), true, 0, 256L << 20, 1); }
            };
            BenchPlan fp16 = BenchPlan.builder(SPECS).ops(List.of("rmsnorm")).dtype("fp16").build();
            var e = assertThrows(IllegalArgumentException.class, () -> fp16.checkRuns(bf16Only));
            assertEquals("cannot measure fp16 here: test-cpu runs [bf16, fp32] activations, not fp16", e.getMessage());
            var run = assertThrows(IllegalArgumentException.class, () -> new BenchRunner(bf16Only, null).run(fp16, (t, d, n, x) -> {}, r -> {}));
            assertEquals(e.getMessage(), run.getMessage());
            BenchPlan.builder(SPECS).ops(List.of("rmsnorm")).dtype("fp16").build().checkRuns(cpu);
        }
    }
}
