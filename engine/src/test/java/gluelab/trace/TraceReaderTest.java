package gluelab.trace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

import static org.junit.jupiter.api.Assertions.*;

class TraceReaderTest {
    static final Path TRACES = SampleTraces.folder();

    static String json(String name) throws IOException {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(TRACES.resolve(name)))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Totals by Python's json module (see docs/benchmarks.md), and by Jackson's tree model here. */
    @ParameterizedTest
    @CsvSource({
            "block_eager_T4096.json.gz, 22196.498, 208, 136.609, 4, 39.103, 40",
            "block_compiled_T4096.json.gz, 18737.553, 104, 34.24, 2, 34.85, 36",
            "glue_eager_shapes_T8192.json.gz, 12663.639, 198, 392.959, 6, 10.273, 12",
            "glue_compiled_shapes_T8192.json.gz, 3007.326, 63, 0, 0, 0, 0"})
    void totalsMatchAnIndependentCount(String file, double kernelUs, int kernels, double memcpyUs, int memcpys, double memsetUs, int memsets) throws Exception {
        Trace t = TraceReader.read(TRACES.resolve(file));
        TraceSummary s = TraceSummary.of(t, 0, KernelFamilies.defaults(), null);
        assertEquals(kernelUs, s.kernelTimeUs(), 1e-6);
        assertEquals(kernels, s.kernelCount());
        assertEquals(memcpyUs, s.memcpyTimeUs(), 1e-6);
        assertEquals(memcpys, s.memcpyCount());
        assertEquals(memsetUs, s.memsetTimeUs(), 1e-6);
        assertEquals(memsets, s.memsetCount());
        assertTrue(t.warnings().isEmpty(), t.warnings().toString());
        double tree = 0;
        int count = 0;
        for (JsonNode e : new ObjectMapper().readTree(json(file)).get("traceEvents")) {
            if (e.path("cat").asText().equals("kernel")) {
                tree += e.get("dur").asDouble();
                count++;
            }
        }
        assertEquals(tree, t.kernelMicros(), 1e-6);
        assertEquals(count, t.kernelCount());
        int familyCount = s.families().values().stream().mapToInt(TraceSummary.FamilyTotal::count).sum();
        assertEquals(kernels + memcpys + memsets, familyCount);
    }

    @Test
    void plainJsonAndBareArraysRead(@TempDir Path dir) throws Exception {
        Path plain = dir.resolve("t.json");
        Files.writeString(plain, json("glue_compiled_shapes_T8192.json.gz"));
        assertEquals(63, TraceReader.read(plain).kernelCount());
        Path bare = dir.resolve("bare.json");
        Files.writeString(bare, "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":1,\"dur\":2.5},{\"ph\":\"M\",\"name\":\"x\"}]");
        Trace t = TraceReader.read(bare);
        assertEquals(2.5, t.kernelMicros());
        assertEquals(1, t.unknownKinds().get("ph=M"));
    }

    @Test
    void recordShapesAndLinksAreRead() {
        Trace t = TraceReader.read(TRACES.resolve("glue_eager_shapes_T8192.json.gz"));
        assertTrue(t.recordShapes());
        assertEquals("NVIDIA H200", t.device());
        var mul = t.ops().stream().filter(o -> o.op().equals("aten::mul")).findFirst().orElseThrow();
        assertEquals(2, mul.shapes().split("] \\[").length, mul.shapes());
        assertEquals(t.kernelCount(), t.ops().stream().mapToInt(ShapeFloors.OpTotal::kernels).sum(), "every kernel is linked to its op");
        assertFalse(TraceReader.read(TRACES.resolve("block_eager_T4096.json.gz")).recordShapes());
    }

    static Path write(Path dir, String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    @Test
    void truncatedGzipNamesTheFile(@TempDir Path dir) throws Exception {
        byte[] whole = Files.readAllBytes(TRACES.resolve("block_eager_T4096.json.gz"));
        Path cut = dir.resolve("cut.json.gz");
        Files.write(cut, java.util.Arrays.copyOf(whole, whole.length / 2));
        var e = assertThrows(TraceException.class, () -> TraceReader.read(cut));
        assertTrue(e.getMessage().contains(cut.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("truncated") || e.getMessage().contains("ends early"), e.getMessage());
    }

    /** Two traces in one file were read as the first alone, and text after the trace was ignored (issue 23). */
    @Test
    void textOrASecondTraceAfterTheTraceIsRefused(@TempDir Path dir) throws Exception {
        String one = json("glue_compiled_shapes_T8192.json.gz");
        Path garbage = write(dir, "garbage.json", one + "\nxx");
        String g = assertThrows(TraceException.class, () -> TraceReader.read(garbage)).getMessage();
        assertTrue(g.contains(garbage.toString()) && g.contains("after the trace ends"), g);
        byte[] gz = Files.readAllBytes(TRACES.resolve("glue_compiled_shapes_T8192.json.gz"));
        Path two = dir.resolve("two.json.gz");
        Files.write(two, gz);
        Files.write(two, gz, java.nio.file.StandardOpenOption.APPEND);
        String t = assertThrows(TraceException.class, () -> TraceReader.read(two)).getMessage();
        assertTrue(t.contains(two.toString()) && t.contains("two gzip members"), t);
        Path folder = Files.createDirectory(dir.resolve("a-folder.json"));
        assertTrue(assertThrows(TraceException.class, () -> TraceReader.read(folder)).getMessage().contains("is a folder"));
    }

    /** Every kernel event twice doubled every total without a word (issue 23's probe). */
    @Test
    void exactlyRepeatedKernelEventsAreLeftOutAndCounted(@TempDir Path dir) throws Exception {
        var tree = (com.fasterxml.jackson.databind.node.ObjectNode) new ObjectMapper().readTree(json("glue_compiled_shapes_T8192.json.gz"));
        var events = (com.fasterxml.jackson.databind.node.ArrayNode) tree.get("traceEvents");
        var doubled = events.arrayNode();
        for (JsonNode e : events) {
            doubled.add(e);
            if (e.path("cat").asText().equals("kernel")) doubled.add(e.deepCopy());
        }
        tree.set("traceEvents", doubled);
        Path p = write(dir, "doubled.json", tree.toString());
        Trace t = TraceReader.read(p);
        Trace once = TraceReader.read(TRACES.resolve("glue_compiled_shapes_T8192.json.gz"));
        assertEquals(once.kernelCount(), t.kernelCount());
        assertEquals(once.kernelMicros(), t.kernelMicros(), 1e-6);
        assertEquals(once.kernelCount(), t.warnings().entrySet().stream().filter(w -> w.getKey().contains("repeated exactly")).mapToInt(java.util.Map.Entry::getValue).sum(),
                t.warnings().toString());
    }

    /** A family rule that backtracks without end used to hang trace summary (issue 23). */
    @Test
    void aCatastrophicFamilyRuleFailsNamingItsLine(@TempDir Path dir) throws Exception {
        // Java's regex memoises simple nested repeats such as (a+)+$; a bounded repeat of a lazy .* is not.
        Path rules = write(dir, "families.txt", "# mine\nslow = (.*?_){16}Z\n");
        KernelFamilies f = KernelFamilies.parse(rules);
        String name = "void_elementwise_kernel" + "_x".repeat(40);
        String m = assertTimeoutPreemptively(java.time.Duration.ofSeconds(60), () -> assertThrows(IllegalArgumentException.class, () -> f.of(name))).getMessage();
        assertTrue(m.contains("families.txt:2") && m.contains("slow = (.*?_){16}Z") && m.contains("backtracks"), m);
        assertEquals("other", f.of("b"));
    }

    @Test
    void invalidJsonNamesFileAndPosition(@TempDir Path dir) throws Exception {
        Path p = write(dir, "bad.json", "{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": }\n]}");
        var e = assertThrows(TraceException.class, () -> TraceReader.read(p));
        assertTrue(e.getMessage().contains(p.toString()) && e.getMessage().contains("line 2"), e.getMessage());
        Path q = write(dir, "ends.json", "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 2}");
        var f = assertThrows(TraceException.class, () -> TraceReader.read(q));
        assertTrue(f.getMessage().contains(q.toString()), f.getMessage());
        Path r = write(dir, "notrace.json", "{\"hello\": 1}");
        assertTrue(assertThrows(TraceException.class, () -> TraceReader.read(r)).getMessage().contains("no \"traceEvents\""));
        Path s = write(dir, "scalar.json", "42");
        assertTrue(assertThrows(TraceException.class, () -> TraceReader.read(s)).getMessage().contains("not a Chrome trace"));
        assertTrue(assertThrows(TraceException.class, () -> TraceReader.read(dir.resolve("missing.json"))).getMessage().contains("no trace file"));
    }

    @Test
    void eventLevelProblemsAreCountedWarningsAndNeverEnterTotals(@TempDir Path dir) throws Exception {
        Path p = write(dir, "warn.json", """
                {"traceEvents": [
                 {"ph":"X","cat":"kernel","name":"good","ts":1,"dur":10},
                 {"ph":"X","cat":"kernel","ts":2,"dur":100},
                 {"ph":"X","cat":"kernel","name":"","ts":2,"dur":100},
                 {"ph":"X","cat":"kernel","name":"neg","ts":3,"dur":-5},
                 {"ph":"X","cat":"kernel","name":"nodur","ts":3},
                 {"ph":"X","cat":"kernel","name":"zero","ts":4,"dur":0},
                 {"ph":"X","cat":"gpu_memcpy","name":"Memcpy","ts":5,"dur":"7.5","args":{"bytes":64}},
                 {"ph":"X","cat":"mystery","name":"m","ts":6,"dur":1},
                 17
                ]}""");
        Trace t = TraceReader.read(p);
        assertEquals(10.0, t.kernelMicros());
        assertEquals(2, t.kernelCount());
        assertEquals(7.5, t.gpuMem().memcpyUs());
        assertEquals(2, t.warnings().get("event without a name (left out)"));
        assertEquals(1, t.warnings().get("event with a negative duration (left out)"));
        assertEquals(1, t.warnings().get("event without ts or dur (left out)"));
        assertEquals(1, t.warnings().get("GPU event with zero duration (kept, adds 0 us)"));
        assertEquals(1, t.warnings().get("event is not a JSON object"));
        assertEquals(1, t.unknownKinds().get("mystery"));
        assertTrue(t.warningExamples().get("event with a negative duration (left out)").contains("neg"));
    }

    @Test
    void impossibleDurationsAreLeftOutAndFlaggedNeverSummed(@TempDir Path dir) throws Exception {
        Path p = write(dir, "huge.json", """
                {"traceEvents": [
                 {"ph":"X","cat":"kernel","name":"good","ts":1,"dur":10},
                 {"ph":"X","cat":"kernel","name":"good","ts":20,"dur":30},
                 {"ph":"X","cat":"kernel","name":"huge","ts":60,"dur":1e308},
                 {"ph":"X","cat":"kernel","name":"overflow","ts":70,"dur":1e999999999},
                 {"ph":"X","cat":"kernel","name":"text","ts":80,"dur":"1e999999999"},
                 {"ph":"X","cat":"kernel","name":"late","ts":1e300,"dur":1},
                 {"ph":"X","cat":"gpu_memcpy","name":"Memcpy","ts":90,"dur":1e308,"args":{"bytes":64}}
                ]}""");
        Trace t = TraceReader.read(p);
        assertEquals(40.0, t.kernelMicros());
        assertEquals(5, t.warnings().get("event with an impossible duration (over a day) or timestamp (left out)"), t.warnings().toString());
        TraceSummary s = TraceSummary.of(t, 0.1, KernelFamilies.defaults(), null);
        assertEquals(40.0, s.kernelTimeUs());
        assertEquals(100.0, s.kernels().getFirst().sharePct());
        String json = gluelab.files.Json.write(s);
        assertFalse(json.contains("Infinity") || json.contains("NaN"), json);
        assertTrue(TraceText.summary(s, 5).contains("5 x event with an impossible duration"), TraceText.summary(s, 5));
        assertEquals(1e15, TraceSummary.round(1e15), "rounding keeps large totals instead of capping them at Long.MAX_VALUE");
    }

    /**
     * Mutated real traces: each either reads or fails with a TraceException naming the file; when
     * it reads, its kernel total equals an independent count of the well-formed kernel events.
     */
    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void fuzzedTracesNeverFailOtherwiseOrMiscount(@TempDir Path dir) throws Exception {
        String base = json("glue_compiled_shapes_T8192.json.gz");
        Random rnd = new Random(7);
        ObjectMapper mapper = new ObjectMapper();
        int read = 0, rejected = 0;
        for (int i = 0; i < 300; i++) {
            StringBuilder s = new StringBuilder(base);
            int edits = 1 + rnd.nextInt(4);
            for (int k = 0; k < edits; k++) {
                int at = rnd.nextInt(s.length());
                switch (rnd.nextInt(5)) {
                    case 0 -> s.setCharAt(at, "{}[]\",:-0e".charAt(rnd.nextInt(10)));
                    case 1 -> s.delete(at, Math.min(s.length(), at + rnd.nextInt(40)));
                    case 2 -> s.setLength(at);
                    case 3 -> s.insert(at, "\"dur\": -3,");
                    default -> s.insert(at, rnd.nextBoolean() ? "\"name\": \"\"," : "\"ts\": \"x\",");
                }
            }
            boolean gz = rnd.nextBoolean();
            Path p = dir.resolve("fuzz" + i + (gz ? ".json.gz" : ".json"));
            byte[] bytes = s.toString().getBytes(StandardCharsets.UTF_8);
            if (gz) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                try (GZIPOutputStream z = new GZIPOutputStream(out)) { z.write(bytes); }
                bytes = out.toByteArray();
            }
            Files.write(p, bytes);
            Trace t;
            try {
                t = TraceReader.read(p);
            } catch (TraceException e) {
                assertTrue(e.getMessage().contains(p.toString()), e.getMessage());
                rejected++;
                continue;
            }
            read++;
            JsonNode doc;
            try {
                doc = mapper.readTree(s.toString());
            } catch (IOException e) {
                fail("gluelab read a document Jackson rejects: " + p);
                return;
            }
            JsonNode events = doc.isArray() ? doc : doc.get("traceEvents");
            double expected = 0;
            int n = 0;
            for (JsonNode e : events) {
                if (!e.isObject() || !e.path("cat").asText().equals("kernel") || e.path("name").asText("").isEmpty()) continue;
                if (e.has("ph") && !e.path("ph").isTextual()) continue;
                JsonNode ts = e.get("ts"), dur = e.get("dur");
                if (ts == null || dur == null || !number(ts) || !number(dur) || dur.asDouble() < 0) continue;
                expected += dur.asDouble();
                n++;
            }
            assertEquals(n, t.kernelCount(), "kernel count of " + p);
            assertEquals(expected, t.kernelMicros(), 1e-6, "kernel time of " + p);
        }
        assertTrue(read >= 10 && rejected >= 10, "read " + read + ", rejected " + rejected);
    }

    private static boolean number(JsonNode n) {
        if (n.isNumber()) return true;
        if (!n.isTextual()) return false;
        try {
            Double.parseDouble(n.asText());
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
