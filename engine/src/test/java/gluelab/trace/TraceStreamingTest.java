package gluelab.trace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import gluelab.files.Json;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.*;

/** The import keeps totals, not launches: same summaries as before, and a size that does not follow the launch count. */
class TraceStreamingTest {
    static final ObjectMapper MAPPER = new ObjectMapper();

    static Path trace(String name) throws Exception {
        if (SampleTraces.NAMES.contains(name)) return SampleTraces.of(name);
        return Path.of(TraceStreamingTest.class.getResource("/trace-golden/" + name).toURI());
    }

    /**
     * The summaries (JSON, with ideal times at 4272 GB/s) equal those gluelab printed when it kept
     * every launch (golden files written by that version, commit 2462d07). The synthetic trace adds
     * what the samples lack: steps, syncs in and out of them, two interleaved streams, graph launches.
     */
    @ParameterizedTest
    @ValueSource(strings = {"block_eager_T4096.json.gz", "block_compiled_T4096.json.gz", "glue_eager_shapes_T8192.json.gz",
            "glue_compiled_shapes_T8192.json.gz", "synthetic_steps_streams.json.gz"})
    void summariesEqualThoseFromKeptLaunches(String name) throws Exception {
        Path file = trace(name);
        TraceSummary s = TraceSummary.of(TraceReader.read(file), 0, KernelFamilies.defaults(), 4272e9);
        ObjectNode now = (ObjectNode) MAPPER.readTree(Json.write(s));
        now.put("file", file.getFileName().toString());
        now.put("parse_seconds", 0);
        JsonNode golden;
        try (InputStream in = getClass().getResourceAsStream("/trace-golden/" + name.replace(".json.gz", ".summary.json"))) {
            golden = MAPPER.readTree(in);
        }
        assertEquals(golden, now, name);
    }

    /** A trace of the sample's events repeated {@code copies} times, shifted in time, with fresh ids, CPU events first as profilers write them. */
    static Path repeated(Path dir, String sample, int copies) throws Exception {
        JsonNode events;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(SampleTraces.of(sample)))) {
            events = MAPPER.readTree(in).get("traceEvents");
        }
        double first = Double.MAX_VALUE, last = 0;
        long ids = 0;
        for (JsonNode e : events) {
            if (e.has("ts")) {
                first = Math.min(first, e.get("ts").asDouble());
                last = Math.max(last, e.get("ts").asDouble() + e.path("dur").asDouble());
            }
            for (String k : List.of("correlation", "External id")) ids = Math.max(ids, e.path("args").path(k).asLong());
        }
        double span = last - first + 1000;
        ArrayNode cpu = JsonNodeFactory.instance.arrayNode(), gpu = JsonNodeFactory.instance.arrayNode();
        for (int c = 0; c < copies; c++) {
            for (JsonNode e : events) {
                ObjectNode x = e.deepCopy();
                if (x.has("ts")) x.put("ts", e.get("ts").asDouble() + c * span);
                if (x.get("args") instanceof ObjectNode a) {
                    for (String k : List.of("correlation", "External id")) if (a.has(k)) a.put(k, a.get(k).asLong() + c * (ids + 1));
                }
                String cat = x.path("cat").asText();
                (cat.equals("cpu_op") || cat.equals("user_annotation") || x.path("ph").asText().equals("M") ? cpu : gpu).add(x);
            }
        }
        Path out = dir.resolve(sample.replace(".json.gz", "") + "_x" + copies + ".json");
        ObjectNode doc = JsonNodeFactory.instance.objectNode();
        doc.putArray("traceEvents").addAll(cpu).addAll(gpu);
        try (OutputStream o = Files.newOutputStream(out)) {
            MAPPER.writeValue(o, doc);
        }
        return out;
    }

    /** Everything a trace keeps, its numbers blanked: equal when two traces keep the same things, whatever their counts. */
    static JsonNode shape(Trace t) throws Exception {
        ObjectNode n = (ObjectNode) blank(MAPPER.readTree(Json.write(t)));
        n.remove("file");
        return n;
    }

    private static JsonNode blank(JsonNode n) {
        if (n.isNumber()) return JsonNodeFactory.instance.numberNode(0);
        if (n instanceof ObjectNode o) {
            ObjectNode b = JsonNodeFactory.instance.objectNode();
            o.properties().forEach(e -> b.set(e.getKey(), blank(e.getValue())));
            return b;
        }
        if (n instanceof ArrayNode a) {
            ArrayNode b = JsonNodeFactory.instance.arrayNode();
            a.forEach(x -> b.add(blank(x)));
            return b;
        }
        return n;
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void tenTimesTheLaunchesKeepTheSameTotals(@TempDir Path dir) throws Exception {
        String sample = "glue_eager_shapes_T8192.json.gz";
        Trace one = TraceReader.read(repeated(dir, sample, 1)), ten = TraceReader.read(repeated(dir, sample, 10));
        assertEquals(10 * one.kernelCount(), ten.kernelCount());
        assertEquals(10 * one.host().launches(), ten.host().launches());
        assertEquals(one.kernels().stream().map(KernelTotals::name).toList(), ten.kernels().stream().map(KernelTotals::name).toList());
        for (int i = 0; i < one.kernels().size(); i++) assertEquals(10 * one.kernels().get(i).count(), ten.kernels().get(i).count());
        assertEquals(one.ops().size(), ten.ops().size());
        for (int i = 0; i < one.ops().size(); i++) {
            assertEquals(one.ops().get(i).op() + one.ops().get(i).shapes(), ten.ops().get(i).op() + ten.ops().get(i).shapes());
            assertEquals(10 * one.ops().get(i).instances(), ten.ops().get(i).instances());
            assertEquals(10 * one.ops().get(i).bytes(), ten.ops().get(i).bytes());
        }
        assertEquals(ten.kernelMicros(), ten.ops().stream().mapToDouble(ShapeFloors.OpTotal::measuredUs).sum(), 1e-6, "every kernel linked");
        assertTrue(ten.warnings().isEmpty(), ten.warnings().toString());
        assertTrue(shape(one).equals(shape(ten)), "what the trace keeps does not grow with its launches");
        // the copies are 1 ms apart: ten windows, nine more gaps over 10 us than one copy has
        assertEquals(one.host().gapsOver10us() * 10 + 9, ten.host().gapsOver10us());
    }

    /** The sweep over spans by start, as a sort of every span gives it. */
    static GpuIdle.Result sorted(List<double[]> spans) {
        List<double[]> s = new ArrayList<>(spans);
        s.sort(Comparator.comparingDouble((double[] x) -> x[0]).thenComparingDouble(x -> x[2]));
        double busy = 0, idle = 0, largest = 0, end = Double.NaN, start = Double.NaN;
        int gaps = 0;
        for (double[] x : s) {
            if (Double.isNaN(end)) {
                start = x[0];
                end = x[1];
                busy += x[1] - x[0];
            } else if (x[0] > end) {
                idle += x[0] - end;
                largest = Math.max(largest, x[0] - end);
                if (x[0] - end > 10) gaps++;
                busy += x[1] - x[0];
                end = x[1];
            } else if (x[1] > end) {
                busy += x[1] - end;
                end = x[1];
            }
        }
        return new GpuIdle.Result(busy, Double.isNaN(end) ? 0 : end - start, idle, gaps, largest, 0);
    }

    @Test
    void idleGapsFromSpansOutOfOrderWithinTheWindowAreExact() {
        Random rnd = new Random(3);
        List<double[]> spans = new ArrayList<>();
        double t = 0;
        for (int i = 0; i < 20_000; i++) {
            t += rnd.nextInt(4) == 0 ? rnd.nextDouble() * 30 : rnd.nextDouble() * 2;
            // x[2]: arrival, with copies after kernels (the order ties are broken in)
            boolean copy = rnd.nextInt(10) == 0;
            spans.add(new double[]{Math.rint(t * 1000) / 1000, Math.rint((t + 0.5 + rnd.nextDouble() * 8) * 1000) / 1000, (copy ? 1e9 : 0) + i});
        }
        // two streams written one block after the other within each chunk of 500: out of order, but by less than the window
        List<double[]> arrival = new ArrayList<>();
        for (int c = 0; c < spans.size(); c += 500) {
            List<double[]> chunk = spans.subList(c, Math.min(spans.size(), c + 500));
            for (int parity = 0; parity < 2; parity++) for (int i = parity; i < chunk.size(); i += 2) arrival.add(chunk.get(i));
        }
        GpuIdle idle = new GpuIdle(1024);
        for (int i = 0; i < arrival.size(); i++) {
            double[] x = arrival.get(i);
            x[2] = (x[2] >= 1e9 ? 1e9 : 0) + i;
            idle.add(x[0], x[1], x[2] >= 1e9);
        }
        GpuIdle.Result r = idle.finish();
        assertEquals(sorted(arrival), r);
        assertTrue(r.gapsOver10us() > 100 && r.idleUs() > 0, r.toString());

        GpuIdle narrow = new GpuIdle(16);
        for (double[] x : arrival) narrow.add(x[0], x[1], false);
        assertTrue(narrow.finish().late() > 0, "spans further out of order than the window are counted, never placed silently");
    }
}
