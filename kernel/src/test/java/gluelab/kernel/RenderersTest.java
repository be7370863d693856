package gluelab.kernel;

import gluelab.kernel.display.ErrorText;
import gluelab.table.DisplayNumbers;
import gluelab.kernel.display.Renderers;
import gluelab.kernel.eval.Evaluator;
import gluelab.kernel.eval.UserCodeError;
import gluelab.model.SpecRegistry;
import gluelab.timing.Summary;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.dflib.jjava.jupyter.kernel.display.Renderer;
import org.dflib.jjava.jupyter.kernel.display.mime.MIMEType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

@Tag("slow")
class RenderersTest {
    static DisplayData render(Object o) {
        Renderer r = new Renderer();
        Renderers.install(r);
        return Renderers.render(r, o);
    }

    @Test
    void engineRecordsWithoutTheirOwnRendererGetACardWithRoundedNumbers() {
        DisplayData d = render(new Summary(5, 0.000000055594105813102546, 1.0, 12.345678, 13.0, 14.0, 15.0, 0.0123456));
        String text = String.valueOf(d.getData(MIMEType.TEXT_PLAIN));
        String html = String.valueOf(d.getData(MIMEType.TEXT_HTML));
        assertFalse(text.contains("Summary["), text);
        assertTrue(text.contains("median: 12.35") && text.contains("5.559e-08"), text);
        assertTrue(html.contains("<table>") && html.contains("12.35") && !html.contains("0.000000055594105813102546"), html);
        DisplayData spec = render(SpecRegistry.presets().get("llama-3-8b"));
        assertTrue(String.valueOf(spec.getData(MIMEType.TEXT_PLAIN)).startsWith("ModelSpec llama-3-8b"), String.valueOf(spec.getData(MIMEType.TEXT_PLAIN)));
        DisplayData list = render(List.of(new Summary(1, 1, 1, 1, 1, 1, 1, 0), new Summary(2, 2, 2, 2, 2, 2, 2, 0)));
        assertTrue(String.valueOf(list.getData(MIMEType.TEXT_HTML)).contains("<th>median</th>"));
        try (Evaluator e = new Evaluator()) {
            e.eval("record Mine(int a) {}");
            assertEquals("Mine[a=1]", render(e.eval("new Mine(1)")).getData(MIMEType.TEXT_PLAIN), "a user's own record keeps its text");
        }
    }

    @Test
    void aListOfCandidatesLeadsWithTheCaveatWhenOneHasIt() {
        var key = new gluelab.ops.MeasureKey(gluelab.ops.OpId.of("rmsnorm"), gluelab.ops.Pass.FORWARD, gluelab.ops.Variant.EAGER,
                gluelab.ops.Replay.DIRECT, 2048, gluelab.tensor.DType.BF16);
        var sound = new gluelab.rank.Candidate(key, 1, 120, 20, 10_000, "");
        var noisy = new gluelab.rank.Candidate(key, 1, 120, 20, 10_000, "n=1 < 10, noise unknown");
        String html = String.valueOf(render(List.of(sound, noisy)).getData(MIMEType.TEXT_HTML));
        assertTrue(html.indexOf(">caveat<") < html.indexOf(">key<"), "the caveat leads: " + html);
        String quiet = String.valueOf(render(List.of(sound, sound)).getData(MIMEType.TEXT_HTML));
        assertTrue(quiet.indexOf(">key<") < quiet.indexOf(">caveat<"), "an empty caveat stays in place: " + quiet);
    }

    @Test
    void aChangeStackShowsItsSummaryAndAChangeItsResults() {
        var change = gluelab.workflow.stack.Change.builder("q-norm-rope", "Fuse q norm and RoPE").kind(gluelab.workflow.stack.FixKind.RESIZE_REGION)
                .variant("region q_norm_rope").region("q_norm_rope").delta(16384, gluelab.ops.Replay.DIRECT, 1497, 1044).graphs(4, 8)
                .commit("a1b2c3d").scope(gluelab.workflow.stack.Scope.specs(List.of("dsv3-ours"))).problem("p1", "p2", "p3").solution("s1", "s2", "s3")
                .unchanged("the numerics").testPlan("t").code("model.py", "rope", "rewritten").build();
        var stack = gluelab.workflow.stack.ChangeStack.empty(new gluelab.workflow.stack.Conditions("NVIDIA H200", "dsv3-ours", gluelab.tensor.DType.BF16,
                List.of(gluelab.ops.Pass.FORWARD), "cold samples", 3)).with(change);
        String html = String.valueOf(render(stack).getData(MIMEType.TEXT_HTML));
        assertTrue(html.contains("Change stack: 1 change(s)") && html.contains("1. q-norm-rope  16k tokens: 1497 -&gt; 1044 us (-30.3%, 1.43x faster)"), html);
        String text = String.valueOf(render(change).getData(MIMEType.TEXT_PLAIN));
        assertTrue(text.startsWith("Change q-norm-rope: Fuse q norm and RoPE") && text.contains("graphs q_norm_rope: 4 of limit 8"), text);
    }

    @Test
    void experimentFilesShowAsMarkdownAndImages(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        var md = java.nio.file.Files.writeString(dir.resolve("findings.md"), "# Findings\n\n- one");
        DisplayData d = render(gluelab.lab.Gluelab.show(md));
        assertEquals("# Findings\n\n- one", d.getData(MIMEType.TEXT_MARKDOWN));
        var png = java.nio.file.Files.write(dir.resolve("c.png"), new byte[]{(byte) 0x89, 'P', 'N', 'G'});
        DisplayData image = render(gluelab.lab.Gluelab.show(png));
        assertEquals(java.util.Base64.getEncoder().encodeToString(new byte[]{(byte) 0x89, 'P', 'N', 'G'}), image.getData(MIMEType.IMAGE_PNG));
        var linked = java.nio.file.Files.writeString(dir.resolve("pr.md"), "- a\n![c: before vs after](c.png)\n![gone](missing.png)");
        DisplayData shownLinked = render(gluelab.lab.Gluelab.show(linked));
        String shown = String.valueOf(shownLinked.getData(MIMEType.TEXT_MARKDOWN));
        assertTrue(shown.contains("![c: before vs after](data:image/png;base64,iVBORw==)") && shown.contains("![gone](missing.png)"), shown);
        assertTrue(String.valueOf(shownLinked.getData(MIMEType.TEXT_PLAIN)).contains("![c: before vs after](c.png)"), "the text keeps the file's own links");
        var other = java.nio.file.Files.writeString(dir.resolve("x.json"), "{}");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> gluelab.lab.Gluelab.show(other)).getMessage().contains("x.json"));
    }

    @Test
    void aBenchShowsWhatItDidNotMeasureAsARowWithItsReason() {
        var skip = new gluelab.ops.Skip("moe_routing fwd region", "top-k is not an expression");
        DisplayData d = render(new gluelab.bench.BenchResult(List.of(), List.of(), List.of(skip)));
        for (MIMEType type : List.of(MIMEType.TEXT_PLAIN, MIMEType.TEXT_HTML)) {
            String shown = String.valueOf(d.getData(type));
            assertTrue(shown.contains("not measured") && shown.contains("moe_routing fwd region") && shown.contains("top-k is not an expression"), shown);
        }
        String measuredOnly = String.valueOf(render(new gluelab.bench.BenchResult(List.of(), List.of())).getData(MIMEType.TEXT_PLAIN));
        assertTrue(!measuredOnly.contains("not measured"), measuredOnly);
    }

    @Test
    void numbersAreRoundedSensibly() {
        assertEquals("0.01235", DisplayNumbers.format(0.0123456));
        assertEquals("1234567", DisplayNumbers.format(1234567.4));
        assertEquals("5.559e-08", DisplayNumbers.format(0.000000055594105813102546));
        assertEquals("42", DisplayNumbers.format(42.0));
        assertEquals("3.142", DisplayNumbers.format(Math.PI));
    }

    @Test
    void runtimeErrorsLeadWithTheUsersExceptionOnceWithoutJShellFrames() {
        try (Evaluator e = new Evaluator()) {
            e.eval("int explode(int i) { int[] z = new int[1]; return z[i]; }");
            UserCodeError err = assertThrows(UserCodeError.class, () -> e.eval("int a = 1;\nexplode(3)"));
            List<String> lines = ErrorText.lines(err);
            assertEquals("java.lang.ArrayIndexOutOfBoundsException: Index 3 out of bounds for length 1 (cell line 2)", lines.getFirst());
            assertEquals("ArrayIndexOutOfBoundsException", ErrorText.name(err));
            String all = String.join("\n", lines);
            assertEquals(1, all.split("Index 3 out of bounds", -1).length - 1, all);
            assertFalse(all.contains("jdk.jshell") || all.contains("jdk.internal.reflect") || all.contains("gluelab.kernel") || all.contains("$JShell$"), all);
            assertTrue(all.contains("explode(cell code)"), all);
        }
    }

    @Test
    void deviceAutoFallingBackIsSaidOnceAndShownOnTheLabCard() throws Exception {
        var err = new java.io.ByteArrayOutputStream();
        var old = System.err;
        System.setErr(new java.io.PrintStream(err, true));
        try {
            for (int i = 0; i < 3; i++) gluelab.device.Devices.open("auto").close();
        } finally {
            System.setErr(old);
        }
        String said = err.toString();
        assertTrue(said.lines().filter(l -> l.contains("device auto")).count() <= 1, said);
        try (var lab = gluelab.lab.Gluelab.open()) {
            String card = String.valueOf(render(lab).getData(MIMEType.TEXT_PLAIN));
            assertTrue(card.startsWith("Lab on "), card);
            gluelab.device.Devices.autoFallback().ifPresent(why -> assertTrue(card.contains("device auto chose the CPU: " + why), card));
        }
    }

    @Test
    void wideTablesShowTheirFlagsFirstAndWrapLongText() {
        var t = tech.tablesaw.api.Table.create("measurements",
                tech.tablesaw.api.StringColumn.create("op", "rmsnorm", "swiglu"),
                tech.tablesaw.api.DoubleColumn.create("median_us", 1.5, 2.5),
                tech.tablesaw.api.StringColumn.create("noisy", "", "spread 31% over the 10% limit: rerun on a quiet machine"));
        String html = Renderers.html(t);
        assertTrue(html.indexOf(">noisy<") < html.indexOf(">op<"), "the flag column leads: " + html);
        assertTrue(html.contains("<th>median_<wbr>us</th>"), html);
        assertTrue(html.contains("white-space:normal") && html.contains("spread 31%"), html);
        var sound = t.copy();
        sound.replaceColumn("noisy", tech.tablesaw.api.StringColumn.create("noisy", "", ""));
        String quiet = Renderers.html(sound);
        assertTrue(quiet.indexOf(">op<") < quiet.indexOf(">noisy<"), "an empty flag column stays last: " + quiet);
    }

    /** Tablesaw centred a title over the table's width: a wide table's text began with a screen of spaces. */
    @Test
    void aTablesTextStartsWithItsTitleAtTheLeft() {
        var t = tech.tablesaw.api.Table.create("ranking per source line and op",
                tech.tablesaw.api.StringColumn.create("location", "Attention.forward (llama3.py:99) " + "x".repeat(120)));
        String text = String.valueOf(render(t).getData(MIMEType.TEXT_PLAIN));
        assertTrue(text.startsWith("ranking per source line and op" + System.lineSeparator()), text);
    }

    @Test
    void theCpuCardHasNoPlaceholderForADriver() {
        try (var lab = gluelab.lab.Gluelab.open("cpu")) {
            for (MIMEType m : List.of(MIMEType.TEXT_PLAIN, MIMEType.TEXT_HTML)) {
                String card = String.valueOf(render(lab.facts()).getData(m));
                assertFalse(card.contains("; -") || card.contains(", -,") || card.contains(" - "), card);
                assertTrue(card.contains("Java "), card);
            }
        }
    }

    @Test
    void devlogEntriesReadToTheSecondWithTheirKindInWords() {
        var entries = List.of(new gluelab.devlog.Devlog.Entry(java.time.Instant.parse("2026-11-30T21:46:09.164241396Z"), gluelab.devlog.Devlog.Kind.DEAD_END,
                "fix swiglu bwd T=128 expression region 'swiglu region': 1.74x slower (20561.0 vs 11812.5 us, ideal 265.2)"));
        String html = String.valueOf(render(entries).getData(MIMEType.TEXT_HTML));
        assertTrue(html.contains("<td>2026-11-30 21:46:09</td>") && html.contains("<td>dead end</td>"), html);
        assertFalse(html.contains(".164241396"), html);
        assertTrue(html.contains("white-space:normal"), "the text wraps: " + html);
    }

    @Test
    void aMistypedOpShowsTheMessageWithoutStreamInternals() {
        try (Evaluator e = new Evaluator()) {
            e.eval("var lab = Gluelab.open(\"cpu\");");
            UserCodeError err = assertThrows(UserCodeError.class, () -> e.eval("int a = 1;\nlab.bench(\"rmsnrom\")"));
            List<String> lines = ErrorText.lines(err);
            String all = String.join("\n", lines);
            assertTrue(lines.getFirst().startsWith("java.lang.IllegalArgumentException: unknown op 'rmsnrom'") && lines.getFirst().endsWith("(cell line 2)"), all);
            assertFalse(all.contains("java.util.stream") || all.contains("java.base") || all.contains("Catalogue"), all);
            assertTrue(lines.stream().skip(1).allMatch(l -> l.endsWith("(cell code)")), "only the user's frames: " + all);
            assertTrue(lines.size() <= 3, all);
        }
    }

    @Test
    void aStepViewShowsItsHeadlineThenEachPartAsACellWouldShowIt() {
        var table = tech.tablesaw.api.Table.create("trees").addColumns(tech.tablesaw.api.StringColumn.create("tree", "eager", "whole"));
        var chart = new org.knowm.xchart.CategoryChartBuilder().title("wall time").build();
        chart.addSeries("us", List.of("eager"), List.of(1.0));
        DisplayData d = render(new gluelab.lab.StepView("model llama3.py:build: 2 trees", List.of(table, chart, List.of("a plain list"))));
        String html = String.valueOf(d.getData(MIMEType.TEXT_HTML)), text = String.valueOf(d.getData(MIMEType.TEXT_PLAIN));
        assertTrue(html.startsWith("<p><b>model llama3.py:build: 2 trees</b></p>") && html.contains("<table") && html.contains(">whole<"), html);
        assertTrue(html.contains("<img src='data:image/png;base64,") && html.contains("<pre>[a plain list]</pre>"), html);
        assertTrue(text.startsWith("model llama3.py:build: 2 trees") && text.contains("whole") && text.contains("chart: wall time"), text);
    }
}
