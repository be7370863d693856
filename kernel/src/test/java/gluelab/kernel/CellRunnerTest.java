package gluelab.kernel;

import gluelab.kernel.display.Renderers;
import gluelab.kernel.eval.Evaluator;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.dflib.jjava.jupyter.kernel.display.Renderer;
import org.dflib.jjava.jupyter.kernel.display.mime.MIMEType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.Table;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

@Tag("slow")
class CellRunnerTest {
    static Evaluator e;
    static CellRunner cells;

    @BeforeAll static void open() {
        e = new Evaluator();
        cells = new CellRunner(e);
        cells.session().switchDevice("cpu");
    }

    @AfterAll static void close() {
        cells.session().close();
        e.close();
    }

    @Test
    void magicsAndCodeRunInOrder() throws Exception {
        assertTrue(String.valueOf(cells.run("%lsmagic")).contains("%%cuda"));
        assertEquals(5, cells.run("int m = 2;\n%lsmagic\nm + 3"));
        Object floors = cells.run("%floor rmsnorm --model llama-3-8b --tokens 8k");
        assertInstanceOf(Table.class, floors);
        assertEquals(2, ((Table) floors).rowCount());
        assertTrue(String.valueOf(cells.run("%device")).contains("cpu"));
        assertNotNull(cells.run("lab.facts()"), "%device defines lab");
    }

    @Test
    void benchMagicTunesLikeGluelabBench() throws Exception {
        // Both parse BenchCommand into one plan, whose tune decision the one runner (BenchSession) acts on.
        var specs = cells.session().lab().specs();
        var cli = new gluelab.cli.BenchCommand();
        new picocli.CommandLine(cli).parseArgs("rmsnorm");
        assertTrue(cli.plan(specs).tune(), "gluelab bench tunes unless --no-tune");
        java.util.List<String> tasks = new java.util.concurrent.CopyOnWriteArrayList<>();
        var before = cells.session().lab().progress();
        cells.session().lab().progress((task, done, total, detail) -> tasks.add(task));
        try {
            // On the CPU gluelab bench tunes only with --tune, and so does %bench.
            cells.run("%bench rmsnorm --tokens 64 --timeout 0.2 --min-time 0 --check 0");
            assertFalse(tasks.contains("tune"), "on the CPU %bench, like bench, tunes only when asked: " + tasks);
            tasks.clear();
            cells.run("%bench rmsnorm --tokens 64 --timeout 0.2 --min-time 0 --check 0 --tune");
            assertTrue(tasks.contains("tune") && tasks.indexOf("tune") < tasks.indexOf("bench"), "%bench --tune tunes first: " + tasks);
            tasks.clear();
            cells.run("%bench rmsnorm --tokens 64 --timeout 0.2 --min-time 0 --check 0 --no-tune");
            assertFalse(tasks.contains("tune"), "--no-tune is honoured: " + tasks);
            assertTrue(tasks.contains("bench"), tasks.toString());
        } finally {
            cells.session().lab().progress(before);
        }
    }

    @Test
    void magicsAreRegisteredObjectsWithTheirOwnHelpAndOptions() throws Exception {
        var registry = cells.magics().registry();
        assertEquals(java.util.Set.of("bench", "classpath", "device", "devlog", "floor", "graphbudget", "jars", "lsmagic", "maven", "time", "tune"),
                registry.getLineMagicNames());
        assertEquals(java.util.Set.of("cuda", "time"), registry.getCellMagicNames());
        String listed = String.valueOf(cells.run("%lsmagic"));
        for (String name : registry.getLineMagicNames()) assertTrue(listed.contains("  %" + name), name + " in " + listed);
        for (String name : registry.getCellMagicNames()) assertTrue(listed.contains("  %%" + name), name + " in " + listed);
        assertTrue(String.valueOf(cells.run("%bench --help")).contains("--no-tune"), "%bench's help is bench's");
        String floorHelp = String.valueOf(cells.run("%floor --help"));
        assertTrue(floorHelp.contains("default: llama-3-8b") && floorHelp.contains("default: 2048,4096"), "defaults from the one plan: " + floorHelp);
        var bad = assertThrows(IllegalArgumentException.class, () -> cells.run("%floor rmsnorm --tokns 8"));
        assertTrue(bad.getMessage().startsWith("%floor: ") && bad.getMessage().contains("--tokns"), bad.getMessage());
        assertEquals(3, cells.run("%time 1 + 2"), "%time runs the rest of its line as code");
    }

    @Test
    void benchOnAnotherDeviceRebindsLab() throws Exception {
        cells.run("%device");
        cells.run("var before = lab;");
        cells.run("%bench cat --tokens 16 --timeout 0.2 --min-time 0 --check 0 --no-tune --device cpu");
        assertEquals(true, cells.run("lab != before && lab == gluelab.kernel.Session.current().lab()"), "%bench --device rebinds lab");
        var refused = assertThrows(RuntimeException.class, () -> cells.run("%bench cat --device tpu:0"));
        assertTrue(refused.getMessage().contains("tpu"), refused.getMessage());
    }

    @Test
    void benchMagicTakesTheCliOptions() throws Exception {
        Object r = cells.run("%bench cat --tokens 64 --timeout 0.2 --min-time 0 --check 4");
        assertInstanceOf(gluelab.bench.BenchResult.class, r);
        assertEquals(2, ((gluelab.bench.BenchResult) r).rows().size());
        var chart = assertThrows(IllegalArgumentException.class, () -> cells.run("%bench cat --tokens 64 --chart x"));
        assertTrue(chart.getMessage().contains("%bench does not take --chart"), chart.getMessage());
    }

    @Test
    void tuneMagicTunesAndShowsTheAccounting() throws Exception {
        String table = String.valueOf(cells.run("%tune rmsnorm --tokens 32 --passes fwd --force"));
        assertTrue(table.contains("rmsnorm/fwd T=32") && table.contains("tuned now: 8 configs"), table);
        assertTrue(String.valueOf(cells.run("%lsmagic")).contains("%tune"));
    }

    @Test
    void devlogMagicAppends(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("log.md");
        cells.run("%devlog --file " + f);
        cells.run("%devlog tried the fused norm");
        assertTrue(Files.readString(f).contains("tried the fused norm"));
    }

    @Test
    void badMagicsSayWhatExists() {
        var unknown = assertThrows(IllegalArgumentException.class, () -> cells.run("%nope"));
        assertTrue(unknown.getMessage().contains("lsmagic"), unknown.getMessage());
        assertThrows(IllegalArgumentException.class, () -> cells.run("%classpath remove x"));
        assertThrows(IllegalArgumentException.class, () -> cells.run("%%cuda"));
    }

    @Test
    void cudaCellsOnTheCpuSayNoGpuIsPresent() {
        var err = assertThrows(IllegalStateException.class,
                () -> cells.run("%%cuda scale\nextern \"C\" __global__ void scale(float* x) { x[0] *= 2; }"));
        assertTrue(err.getMessage().contains("need a GPU") && err.getMessage().contains("cpu"), err.getMessage());
    }

    @Test
    void renderersShowTablesChartsAndFallBackToText() {
        Renderer r = new Renderer();
        Renderers.install(r);
        Table t = Table.create("big", IntColumn.indexColumn("i", 100, 0));
        DisplayData d = r.render(t);
        String html = String.valueOf(d.getData(MIMEType.TEXT_HTML));
        assertTrue(html.contains("<table>") && html.contains("60 more rows"), html.substring(0, 200));
        var ranking = gluelab.rank.Ranking.of(java.util.List.of(new gluelab.rank.Candidate("rmsnorm", "fwd", "eager", 4096, 1, 50, 10, 1000)), 0.01);
        DisplayData chart = r.render(gluelab.chart.Charts.ranked(ranking, "cpu", null));
        byte[] png = java.util.Base64.getDecoder().decode(String.valueOf(chart.getData(MIMEType.IMAGE_PNG)));
        assertEquals((byte) 0x89, png[0]);
        assertTrue(String.valueOf(r.render(ranking).getData(MIMEType.TEXT_HTML)).contains("rmsnorm"));
        Object weird = new Object() {
            @Override public String toString() { return "weird value"; }
        };
        DisplayData fb = Renderers.fallback(weird, new RuntimeException("boom"));
        assertEquals("weird value", fb.getData(MIMEType.TEXT_PLAIN));
    }
}
