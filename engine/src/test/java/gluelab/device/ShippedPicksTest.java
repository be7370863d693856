package gluelab.device;

import gluelab.files.Json;
import gluelab.model.Presets;
import gluelab.ops.Catalogue;
import gluelab.ops.GlueOp;
import gluelab.ops.OpId;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.tensor.DType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.*;

class ShippedPicksTest {
    static ShippedPicks.Pick pick(long d, long t, String config) {
        return new ShippedPicks.Pick("rmsnorm", "fwd", "bf16", Map.of("D", d, "T", t), "n1", config, 10, "other", 11);
    }

    static final List<ShippedPicks.Pick> TUNED = List.of(pick(4096, 2048, "a"), pick(4096, 8192, "b"), pick(4096, 32768, "c"), pick(8192, 8192, "d"));

    static String nearest(long d, long t, List<String> valid) {
        return ShippedPicks.nearest(TUNED, "rmsnorm", "fwd", "bf16", Map.of("D", d, "T", t), valid).map(m -> m.pick().config() + (m.exact() ? "=" : "~"))
                .orElse("none");
    }

    @Test
    void theSameShapeIsExactAndAnUnseenOneTakesTheNearestOnALogScale() {
        List<String> all = List.of("a", "b", "c", "d");
        assertEquals("b=", nearest(4096, 8192, all));
        assertEquals("a~", nearest(4096, 3000, all), "3000 is nearer 2048 than 8192 in ratio");
        assertEquals("c~", nearest(4096, 16384, all), "16k is as far from 8k as from 32k (and from D=8192 at 8k): the tie goes to more tokens");
    }

    @Test
    void aTieGoesToMoreTokensAndAnInvalidConfigIsPassedOver() {
        // 16k: ln 2 from both 8k (b) and 32k (c): the larger tuned shape wins.
        assertEquals("c~", ShippedPicks.nearest(List.of(pick(4096, 8192, "b"), pick(4096, 32768, "c")), "rmsnorm", "fwd", "bf16",
                Map.of("D", 4096L, "T", 16384L), List.of("b", "c")).map(m -> m.pick().config() + "~").orElse("none"));
        assertEquals("a~", nearest(4096, 8192, List.of("a")), "b, c and d are not valid configs for this shape");
        assertEquals("d~", nearest(7168, 8192, List.of("a", "b", "c", "d")), "D=7168 is nearer 8192 than 4096");
        assertEquals("none", nearest(4096, 8192, List.of("z")));
        assertEquals(Optional.empty(), ShippedPicks.nearest(TUNED, "rmsnorm", "bwd", "bf16", Map.of("D", 4096L, "T", 8192L), List.of("a")), "another pass");
        assertEquals(Optional.empty(), ShippedPicks.nearest(TUNED, "rmsnorm", "fwd", "fp32", Map.of("D", 4096L, "T", 8192L), List.of("a")), "another dtype");
        assertEquals(Optional.empty(), ShippedPicks.nearest(TUNED, "rmsnorm", "fwd", "bf16", Map.of("D", 4096L, "T", 8192L, "H", 32L), List.of("a")),
                "other dim names");
    }

    static final Map<OpId, String> SOURCES = Map.of(OpId.of("rmsnorm"), "n1", OpId.of("qnorm_rope_real"), "q1");

    static ShippedPicks.File file(List<ShippedPicks.Pick> picks) {
        return new ShippedPicks.File(2, "sm_90", "nvrtc 13.0", "NVIDIA H200", "2026-12-02", "cmd", picks);
    }

    static ShippedPicks.Pick qnorm(String kernels) {
        return new ShippedPicks.Pick("qnorm_rope_real", "fwd", "bf16", Map.of("H", 32L, "HD", 128L, "T", 8192L), kernels, "q", 10, null, Double.NaN);
    }

    @Test
    void aFamilysPicksTunedOnOtherSourcesAreNotUsedTheOtherFamiliesStillAre() {
        List<ShippedPicks.Pick> picks = new java.util.ArrayList<>(TUNED);
        picks.add(qnorm("q0"));
        ShippedPicks s = ShippedPicks.of(file(picks), SOURCES);
        assertEquals(TUNED, s.file().orElseThrow().picks(), "the norm picks are still used");
        assertTrue(s.status().startsWith("4 shipped picks") && s.status().contains("1 picks of qnorm_rope_real not used")
                && s.status().contains("qnorm_rope_real kernels@q1"), s.status());
        assertEquals(Optional.empty(), ShippedPicks.of(file(picks), SOURCES).pick(
                new OpInstance(Catalogue.parse("qnorm_rope_real"), Catalogue.parse("qnorm_rope_real").shape(Presets.LLAMA_3_8B, 8192, DType.BF16),
                        Pass.FORWARD, Variant.FUSED), List.of(new KernelConfig("q", Map.of()))), "the changed family's pick is not taken");
        picks.set(picks.size() - 1, qnorm("q1"));
        assertEquals(5, ShippedPicks.of(file(picks), SOURCES).file().orElseThrow().picks().size(), "re-tuned: used again");
        ShippedPicks none = ShippedPicks.of(file(List.of(qnorm("q0"))), SOURCES);
        assertTrue(none.file().isEmpty() && none.status().contains("not used"), none.status());
    }

    @Test
    void aMalformedFileNamesTheFileAndTheField() {
        var e = assertThrows(IllegalArgumentException.class, () -> ShippedPicks.read(
                "{\"format\":2,\"arch\":\"sm_90\",\"picks\":[{\"op\":\"rmsnorm\",\"pass\":\"fwd\",\"dtype\":\"bf16\",\"dims\":{\"T\":0},\"kernels\":\"x\",\"config\":\"a\"}]}"
                        .getBytes(StandardCharsets.UTF_8), "picks/sm_90.json"));
        assertTrue(e.getMessage().startsWith("picks/sm_90.json: picks[0].dims.T"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ShippedPicks.read("{\"format\":1,\"arch\":\"sm_90\",\"kernels\":\"x\"}".getBytes(StandardCharsets.UTF_8), "f.json"));
        assertTrue(e.getMessage().contains("format 1"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ShippedPicks.read(Json.write(file(List.of(qnorm("q1"), qnorm("q2")))).getBytes(StandardCharsets.UTF_8), "f.json"));
        assertTrue(e.getMessage().startsWith("f.json: picks[1]: a second pick"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ShippedPicks.read("{\"format\":2,\"picks\":\"no\"}".getBytes(StandardCharsets.UTF_8), "f.json"));
        assertTrue(e.getMessage().startsWith("f.json: picks"), e.getMessage());
    }

    /** A tunable space of three configs: enough to see which one {@link Tunable#chosen} takes, and in which order it asks. */
    record Space(ConfigPicks picks, ShippedPicks shipped) implements Tunable {
        static final List<KernelConfig> CONFIGS = List.of(new KernelConfig("k", Map.of("v", 0)), new KernelConfig("k", Map.of("v", 1)),
                new KernelConfig("k", Map.of("v", 2)));
        @Override public List<KernelConfig> configs(OpInstance instance) { return CONFIGS; }
        @Override public List<CompileOutcome> compile(OpInstance instance, List<KernelConfig> configs, int threads) { throw new UnsupportedOperationException(); }
        @Override public Launch prepare(OpInstance instance, Map<String, Buffer> args, KernelConfig config) { throw new UnsupportedOperationException(); }
        @Override public String codeId() { return "sm_90 kernels@h test"; }
    }

    @Test
    void aLocalPickOverridesTheShippedOneWhichOverridesTheDefault(@TempDir Path dir) {
        GlueOp op = Catalogue.parse("rmsnorm");
        OpInstance in = new OpInstance(op, op.shape(Presets.LLAMA_3_8B, 8192, DType.BF16), Pass.FORWARD, Variant.FUSED);
        String v1 = Space.CONFIGS.get(1).id(), v2 = Space.CONFIGS.get(2).id();
        var shippedFile = new ShippedPicks.File(2, "sm_90", "c", "t", "d", "cmd",
                List.of(new ShippedPicks.Pick("rmsnorm", "fwd", "bf16", in.shape().dims(), "n1", v1, 1, null, Double.NaN)));
        ConfigPicks local = new ConfigPicks(dir);
        assertEquals(Space.CONFIGS.get(0), new Space(local, ShippedPicks.none()).chosen(in).orElseThrow(), "nothing tuned: the default");
        Space space = new Space(local, ShippedPicks.of(shippedFile, SOURCES));
        assertEquals(Space.CONFIGS.get(1), space.chosen(in).orElseThrow(), "the shipped pick");
        local.store(ConfigPicks.Key.of(in, space.codeId()), v2, "{}");
        assertEquals(Space.CONFIGS.get(2), space.chosen(in).orElseThrow(), "this machine's pick first");
    }
}
