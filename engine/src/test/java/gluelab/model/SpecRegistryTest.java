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
        // kimi-small replaced its regions without router_glue: the change does not reach it
        assertEquals(List.of(new RegionReach("dsv3-ours", "dsv3-ours"), new RegionReach("kimi-k2", "dsv3-ours")), r.reachOf("router_glue"));
        assertEquals(List.of(new RegionReach("kimi-k2", "kimi-k2")), r.reachOf("loss"));
        assertEquals(List.of(new RegionReach("kimi-k2", "dsv3-ours")), r.reachOf("router_glue", "kimi-k2"));
        assertEquals(List.of(), r.reachOf("router_glue", "llama-3-8b"));
        assertEquals(new java.util.TreeSet<>(List.of("cat", "loss", "q_norm_rope", "router_glue")), r.regions());
        assertEquals(List.of("dsv3-ours", "kimi-k2", "kimi-small"), r.descendants("deepseek-v3").stream().map(ModelSpec::name).toList());
    }

    /** The one problem a folder holding only {@code file} with {@code json} reports; the presets still load. */
    static String problem(Path dir, String file, String json) throws Exception {
        Path d = Files.createDirectories(dir.resolve(file + ".d"));
        Files.writeString(d.resolve(file), json);
        SpecRegistry r = SpecRegistry.load(List.of(d));
        assertEquals(4096, r.get("llama-3-8b").hidden());
        assertEquals(1, r.problems().size(), r.problems().toString());
        String m = r.problems().getFirst();
        assertTrue(m.contains(file), m);
        return m;
    }

    @Test
    void badSpecsNameTheFileAndTheField(@TempDir Path dir) throws Exception {
        assertTrue(problem(dir, "x.json", "{\"extends\": \"llama-3-8b\", \"hiden\": 1}").contains("hiden"));
        assertTrue(problem(dir, "mine.json", "{\"name\": \"llama-3-8b\", \"extends\": \"llama-3-8b\", \"layers\": 2}").contains("is a preset's name"));
        Files.writeString(dir.resolve("mine.json.d").resolve("child.json"), "{\"extends\": \"llama-3-8b\", \"layers\": 3}");
        assertEquals(3, SpecRegistry.load(List.of(dir.resolve("mine.json.d"))).get("child").layers(), "specs extending the preset still resolve");
        assertTrue(problem(dir, "y.json", "{\"extends\": \"llama-3-8b\", \"hidden\": -4}").contains("hidden"));
        assertTrue(problem(dir, "z.json", "{\"extends\": \"llama-3-8b\",").contains("not valid JSON"));
        assertTrue(problem(dir, "w.json", "{\"extends\": \"nope\"}").contains("\"extends\": unknown model spec 'nope'"));
        assertTrue(problem(dir, "e1.json", "{\"extends\": \"llama-3-8b\", \"normEps\": \"abc\"}").contains("\"normEps\" must be a number"));
        assertTrue(problem(dir, "e2.json", "{\"extends\": \"llama-3-8b\", \"normEps\": 1e400}").contains("\"normEps\" must be a finite number"));
        assertTrue(problem(dir, "e3.json", "{\"extends\": \"llama-3-8b\", \"ropeTheta\": 0}").contains("ropeTheta"));
        assertTrue(problem(dir, "k.json", "{\"extends\": \"llama-3-8b\", \"kvHeads\": -8}").contains("kvHeads"));
        assertTrue(problem(dir, "k2.json", "{\"extends\": \"llama-3-8b\", \"kvHeads\": 5}").contains("kvHeads"));
        assertTrue(problem(dir, "l.json", "{\"extends\": \"llama-3-8b\", \"layers\": -1}").contains("layers"));
        assertTrue(problem(dir, "r1.json", "{\"extends\": \"llama-3-8b\", \"regions\": \"cat\"}").contains("\"regions\" must be a list"));
        assertTrue(problem(dir, "r2.json", "{\"extends\": \"llama-3-8b\", \"regions\": [\"cat\", 5]}").contains("\"regions\" entries"));
        assertTrue(problem(dir, "r3.json", "{\"extends\": \"llama-3-8b\", \"regionsReplace\": \"yes\"}").contains("regionsReplace"));
        assertTrue(problem(dir, "p.json", "{\"extends\": [\"x\"]}").contains("\"extends\" must be a string"));
        assertTrue(problem(dir, "n.json", "{\"name\": 7, \"extends\": \"llama-3-8b\"}").contains("\"name\" must be a string"));
        assertTrue(problem(dir, "s.json", "[1, 2]").contains("JSON object"));
    }

    @Test
    void aBrokenSpecIsReportedAndTheOthersWork(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("good.json"), "{\"extends\": \"llama-3-8b\", \"layers\": 2}");
        Files.writeString(dir.resolve("bad.json"), "{\"extends\": \"llama-3-8b\", \"normEps\": \"abc\"}");
        Files.writeString(dir.resolve("child.json"), "{\"extends\": \"bad\", \"layers\": 3}");
        Files.writeString(dir.resolve("a.json"), "{\"extends\": \"b\"}");
        Files.writeString(dir.resolve("b.json"), "{\"extends\": \"a\"}");
        SpecRegistry r = SpecRegistry.load(List.of(dir));
        assertEquals(2, r.get("good").layers());
        assertEquals(4, r.problems().size(), r.problems().toString());
        var bad = assertThrows(IllegalArgumentException.class, () -> r.get("bad"));
        assertTrue(bad.getMessage().contains("broken") && bad.getMessage().contains("bad.json") && bad.getMessage().contains("normEps"), bad.getMessage());
        String child = assertThrows(IllegalArgumentException.class, () -> r.get("child")).getMessage();
        assertTrue(child.contains("child.json") && child.contains("'bad' is broken") && child.contains("bad.json"), child);
        assertTrue(r.problems().stream().anyMatch(p -> p.contains("a.json: model spec cycle")), r.problems().toString());
        assertTrue(r.problems().stream().anyMatch(p -> p.startsWith(dir.resolve("b.json") + ":") && p.contains("cycle")), r.problems().toString());
        assertFalse(r.all().stream().anyMatch(s -> s.name().equals("bad") || s.name().equals("a")));
    }

    @Test
    void inlineSpecsForNotebooks() {
        SpecRegistry r = SpecRegistry.presets();
        ModelSpec s = r.define("{\"name\": \"mine\", \"extends\": \"llama-3-8b\", \"ffn\": 8192}");
        assertEquals(8192, s.ffn());
        assertEquals("mine", r.get("mine").name());
    }
}
