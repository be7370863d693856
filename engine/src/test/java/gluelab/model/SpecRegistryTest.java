package gluelab.model;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class SpecRegistryTest {
    @Test
    void presetsHavePublicDims() {
        SpecRegistry r = SpecRegistry.presets();
        ModelSpec llama = r.get("llama-3-8b");
        assertEquals(4096, llama.hidden());
        assertEquals(14336, llama.ffn());
        ModelSpec ds = r.get("deepseek-v3");
        assertEquals(7168, ds.hidden());
        assertEquals(256, ds.experts());
        assertEquals(8, ds.topK());
        assertEquals(2048, ds.swigluWidth());
        var e = assertThrows(IllegalArgumentException.class, () -> r.get("gpt-5"));
        assertTrue(e.getMessage().contains("llama-3-8b"), e.getMessage());
    }

    @Test
    void userSpecsExtendAndRegionsReachDescendants(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("dsv3-ours.json"), """
                {"extends": "deepseek-v3", "regions": ["router_glue", "q_norm_rope"]}""");
        Files.writeString(dir.resolve("kimi.json"), """
                {"name": "kimi-k2", "extends": "dsv3-ours", "experts": 384, "regions": ["loss"]}""");
        Files.writeString(dir.resolve("kimi-small.json"), """
                {"name": "kimi-small", "extends": "kimi-k2", "layers": 4, "regions": ["cat"], "regionsReplace": true}""");
        SpecRegistry r = SpecRegistry.load(List.of(dir, dir.resolve("missing")));
        ModelSpec kimi = r.get("kimi-k2");
        assertEquals(384, kimi.experts());
        assertEquals(7168, kimi.hidden());
        assertEquals(List.of("router_glue", "q_norm_rope", "loss"), kimi.regions());
        assertEquals(List.of("cat"), r.get("kimi-small").regions());
        assertEquals(List.of("dsv3-ours", "kimi-k2"), r.reach("dsv3-ours", "router_glue").stream().map(ModelSpec::name).toList());
        assertEquals(List.of("dsv3-ours", "kimi-k2", "kimi-small"), r.reach("dsv3-ours", null).stream().map(ModelSpec::name).toList());
        assertEquals(List.of("dsv3-ours", "kimi-k2", "kimi-small"), r.descendants("deepseek-v3").stream().map(ModelSpec::name).toList());
    }

    @Test
    void badSpecsNameTheFileAndTheProblem(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("a.json"), "{\"extends\": \"b\"}");
        Files.writeString(dir.resolve("b.json"), "{\"extends\": \"a\"}");
        var cycle = assertThrows(IllegalArgumentException.class, () -> SpecRegistry.load(List.of(dir)));
        assertTrue(cycle.getMessage().contains("cycle"), cycle.getMessage());

        Path d2 = Files.createDirectory(dir.resolve("d2"));
        Files.writeString(d2.resolve("x.json"), "{\"extends\": \"llama-3-8b\", \"hiden\": 1}");
        var field = assertThrows(IllegalArgumentException.class, () -> SpecRegistry.load(List.of(d2)));
        assertTrue(field.getMessage().contains("x.json") && field.getMessage().contains("hiden"), field.getMessage());

        Path d3 = Files.createDirectory(dir.resolve("d3"));
        Files.writeString(d3.resolve("y.json"), "{\"extends\": \"llama-3-8b\", \"hidden\": -4}");
        var neg = assertThrows(IllegalArgumentException.class, () -> SpecRegistry.load(List.of(d3)));
        assertTrue(neg.getMessage().contains("y.json") && neg.getMessage().contains("hidden"), neg.getMessage());

        Path d4 = Files.createDirectory(dir.resolve("d4"));
        Files.writeString(d4.resolve("z.json"), "{\"extends\": \"llama-3-8b\",");
        var json = assertThrows(IllegalArgumentException.class, () -> SpecRegistry.load(List.of(d4)));
        assertTrue(json.getMessage().contains("z.json") && json.getMessage().contains("not valid JSON"), json.getMessage());

        Path d5 = Files.createDirectory(dir.resolve("d5"));
        Files.writeString(d5.resolve("w.json"), "{\"extends\": \"nope\"}");
        var parent = assertThrows(IllegalArgumentException.class, () -> SpecRegistry.load(List.of(d5)));
        assertTrue(parent.getMessage().contains("unknown model spec 'nope'"), parent.getMessage());
    }

    @Test
    void inlineSpecsForNotebooks() {
        SpecRegistry r = SpecRegistry.presets();
        ModelSpec s = r.define("{\"name\": \"mine\", \"extends\": \"llama-3-8b\", \"ffn\": 8192}");
        assertEquals(8192, s.ffn());
        assertEquals("mine", r.get("mine").name());
    }
}
