package gluelab.cli;

import gluelab.files.Json;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class CliTest {
    record Result(int code, String out, String err) {}

    static Result run(String... args) {
        CommandLine cl = Main.commandLine();
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err, true));
        PrintStream oldOut = System.out, oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream(), stderr = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true));
        System.setErr(new PrintStream(stderr, true));
        try {
            int code = cl.execute(args);
            return new Result(code, out.toString(), err + stderr.toString());
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }

    @Test void regionOnAnOpWithoutAnExpressionPrintsANotMeasuredRowWithItsReason() {
        Result r = run("bench", "moe_routing", "--variants", "region", "--tokens", "16", "--device", "cpu");
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().contains("not measured"), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.contains("moe_routing fwd region") && l.contains("top-k is not an expression")), r.out());
    }

    /** An option's lines in a command's --help: its own line and the description's continuation lines. */
    static String helpOf(String help, String option) {
        List<String> lines = help.lines().toList();
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).strip().startsWith(option + "=")) continue;
            b.append(lines.get(i).strip());
            for (int j = i + 1; j < lines.size() && !lines.get(j).strip().startsWith("-") && lines.get(j).startsWith("      "); j++) b.append(' ').append(lines.get(j).strip());
        }
        assertFalse(b.isEmpty(), option + " is not in: " + help);
        return b.toString().replaceAll("\\s+", " ");
    }

    @Test void torchTakesBenchsPlanOptionsWithTheFlagsItHadBefore() {
        String bench = run("bench", "--help").out(), time = run("torch", "time", "--help").out(), compare = run("torch", "compare-compile", "--help").out();
        for (String option : List.of("--model", "--tokens")) {
            assertEquals(helpOf(bench, option), helpOf(time, option));
            assertEquals(helpOf(bench, option), helpOf(compare, option));
        }
        assertEquals(helpOf(bench, "--passes"), helpOf(time, "--passes"));
        String[] base = {"torch", "time", "m:f", "--device", "cpu", "--inputs", "x:T,D:bf16"};
        assertBadInput(run(concat(base, "--model", "gpt-9")), "unknown model spec 'gpt-9'", "llama-3-8b");
        assertBadInput(run(concat(base, "--passes", "fwd,sideways")), "--passes: ");
        assertBadInput(run(concat(base, "--tokens", "2k,4k")), "--tokens takes one count here, got 2k,4k");
        assertBadInput(run("torch", "compare-compile", "m:Model", "--device", "cpu", "--inputs", "x:T,D:bf16", "--model", "gpt-9"), "unknown model spec 'gpt-9'");
        // The flags as users give them still parse: the run gets as far as looking for the Python.
        Result r = run(concat(base, "--model", "llama-3-8b", "--tokens", "4k", "--passes", "fwd,bwd", "--variants", "torch-eager", "--python", "/nonexistent/python3"));
        assertTrue(r.err().contains("/nonexistent/python3") && !r.err().contains("Unknown option"), r.toString());
    }

    static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    static void assertBadInput(Result r, String... fragments) {
        assertEquals(2, r.code(), r.toString());
        for (String f : fragments) assertTrue(r.err().contains(f), "missing '" + f + "' in: " + r.err());
    }

    @Test
    void unknownNamesListWhatExists() {
        assertBadInput(run("bench", "layernorm"), "unknown op 'layernorm'", "rmsnorm", "swiglu");
        assertBadInput(run("bench", "rmsnorm", "--model", "gpt-9"), "unknown model spec 'gpt-9'", "llama-3-8b", "deepseek-v3");
        assertBadInput(run("bench", "rmsnorm", "--device", "tpu"), "unknown device 'tpu'", "cpu");
        assertBadInput(run("bench", "rmsnorm", "--variants", "compiled"), "unknown variant 'compiled'", "eager", "fused");
        assertBadInput(run("bench", "rmsnorm", "--dtype", "int4"), "unknown dtype 'int4'");
        assertBadInput(run("tune", "layernorm"), "unknown op 'layernorm'", "rmsnorm");
        assertBadInput(run("tune", "rmsnorm", "--threads", "0"), "--threads must be >= 1");
        assertBadInput(run("tune", "rmsnorm", "--variants", "eager"), "only fused and region have launch configurations to tune");
        assertBadInput(run("tune", "rmsnorm", "--tokens", "0"), "must be > 0");
    }

    @Test
    void badTokenCountsFailBeforeAnythingRuns() {
        assertBadInput(run("bench", "rmsnorm", "--tokens", "0"), "must be > 0");
        assertBadInput(run("bench", "rmsnorm", "--tokens", "-5"), "must be > 0");
        assertBadInput(run("bench", "rmsnorm", "--tokens", "2k,abc"), "'abc' is not a whole number");
        assertBadInput(run("bench", "rmsnorm", "--tokens", "99999999999"), "over the limit");
        assertBadInput(run("bench", "swiglu", "--tokens", "16000000"), "needs about", "GiB");
        assertBadInput(run("demo", "--tokens", ""), "token counts are empty");
        // A repeat would measure every row twice (and compare refuses such a run).
        assertBadInput(run("bench", "rmsnorm", "--tokens", "2k,2k"), "token counts '2k,2k' give 2048 twice ('2k' and '2k')");
        assertBadInput(run("bench", "rmsnorm", "--tokens", "2048,4k,2k"), "give 2048 twice ('2048' and '2k')");
        assertBadInput(run("floor", "rmsnorm", "--tokens", "16,16"), "give 16 twice");
        assertThrows(IllegalArgumentException.class, () -> gluelab.bench.BenchPlan.builder(gluelab.model.SpecRegistry.load(java.util.List.of()))
                .ops(java.util.List.of("rmsnorm")).tokens(java.util.List.of(64L, 64L)));
        assertBadInput(run("demo", "--placements", "0"), "--placements must be 1..64");
        assertBadInput(run("bench", "rmsnorm", "--placements", "100"), "--placements must be 1..64");
    }

    @Test
    void reportOfAMissingOrCorruptRunNamesIt(@TempDir Path dir) throws Exception {
        assertBadInput(run("report", dir.resolve("nope").toString()), "no experiment record at");
        java.nio.file.Files.writeString(dir.resolve("record.json"), "{\"formatVersion\": 1, \"id\": ");
        assertBadInput(run("report", dir.toString()), "corrupt experiment record", "record.json");
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void benchPrintsJsonRows() throws Exception {
        Result r = run("bench", "rmsnorm", "cat", "--device", "cpu", "--tokens", "64", "--timeout", "0.2", "--min-time", "0", "--check", "4", "--json");
        assertEquals(0, r.code(), r.err());
        var rows = Json.MAPPER.readTree(r.out());
        assertEquals(4, rows.size());
        assertEquals("rmsnorm", rows.get(0).get("key").get("op").asText());
        assertEquals("direct", rows.get(0).get("key").get("replay").asText());
        assertEquals("fwd", rows.get(0).get("key").get("pass").asText());
        assertTrue(rows.get(0).get("measurement").has("noise"), rows.get(0).toString());
        assertEquals(0.2, rows.get(0).get("measurement").get("rule").get("timeoutSeconds").asDouble());
        // Progress goes to stderr, so stdout stays pure JSON.
        assertTrue(r.err().contains("bench ["), r.err());
        assertTrue(rows.get(0).get("measurement").get("samples").size() >= 1);
        assertTrue(rows.get(0).get("correctness").get("passed").asBoolean());
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void benchDrawsItsChartWithoutTorchAndChecksItsFolderFirst(@TempDir Path dir) throws Exception {
        long t0 = System.nanoTime();
        assertBadInput(run("bench", "rmsnorm", "--device", "cpu", "--chart", dir.resolve("no-such-folder/x").toString()),
                "--chart", "folder " + dir.resolve("no-such-folder") + " does not exist");
        assertTrue((System.nanoTime() - t0) * 1e-9 < 30, "a bad --chart must fail before any measurement");
        Result r = run("bench", "cast", "--device", "cpu", "--tokens", "16", "--timeout", "0.2", "--min-time", "0", "--check", "0", "--no-tune",
                "--chart", dir.resolve("c").toString());
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().contains("chart: " + dir.resolve("c-fwd.png")), r.out());
        var named = java.util.regex.Pattern.compile("device: \\S+ \\((.+)\\), floor bandwidth").matcher(r.out());
        assertTrue(named.find(), r.out());
        String device = named.group(1);
        assertTrue(r.out().contains("chart: " + dir.resolve("c-fwd.png") + ": Baselines (fwd): eager vs fused vs ideal (" + device + ", "), "the device in the title: " + r.out());
        assertTrue(java.nio.file.Files.size(dir.resolve("c-fwd.png")) > 0 && java.nio.file.Files.exists(dir.resolve("c-fwd.svg")));
    }

    @Test
    void devlogSaysWhatItDidAndNeverMakesFoldersItWasNotAskedFor(@TempDir Path dir) throws Exception {
        Path nested = dir.resolve("no-such-folder/d.md");
        assertBadInput(run("devlog", "--file", nested.toString(), "x"), "devlog folder " + dir.resolve("no-such-folder") + " does not exist");
        assertFalse(java.nio.file.Files.exists(nested.getParent()), "the folder is not created");
        Path file = dir.resolve("d.md");
        assertBadInput(run("devlog", "--file", file.toString()), "no devlog at " + file);
        Result decision = run("devlog", "--file", file.toString(), "--kind", "decision", "take", "the", "fused", "kernel");
        assertEquals(0, decision.code(), decision.toString());
        assertEquals("appended [decision] to " + file, decision.out().strip());
        assertEquals(0, run("devlog", "--file", file.toString(), "a plain note").code());
        Result all = run("devlog", "--file", file.toString());
        assertTrue(all.out().contains("[decision] take the fused kernel") && all.out().contains("[note] a plain note"), all.out());
        Result decisions = run("devlog", "--file", file.toString(), "--kind", "decision");
        assertEquals(0, decisions.code(), decisions.toString());
        assertTrue(decisions.out().contains("take the fused kernel") && !decisions.out().contains("a plain note"), decisions.out());
        Result none = run("devlog", "--file", file.toString(), "--kind", "dead_end");
        assertTrue(none.out().contains("no [dead_end] entries in " + file + " (2 of other kinds)"), none.out());
        assertBadInput(run("devlog", "--file", file.toString(), "--kind", "idea"), "unknown devlog kind 'idea'");
    }

    @Test
    void compareListsTheRowsOverTheBoundAndExitsOneWhenAny(@TempDir Path dir) throws Exception {
        // A: a demo's --out folder holding one run (the H200 demo record); B: bench --json rows, one row 3% slower.
        Path run = java.nio.file.Files.createDirectories(dir.resolve("demo1/demo-20261130-000000-abc"));
        java.nio.file.Files.copy(Path.of("src/test/resources/records/h200-demo/record.json"), run.resolve("record.json"));
        var rows = new java.util.ArrayList<>(gluelab.record.RecordStore.loadRows(dir.resolve("demo1")));
        var first = rows.getFirst();
        var m = first.measurement();
        double[] slower = java.util.Arrays.stream(m.samples()).map(x -> x * 1.03).toArray();
        var s = m.summary();
        var slowerSummary = new gluelab.timing.Summary(s.count(), s.min() * 1.03, s.p20() * 1.03, s.median() * 1.03, s.mean() * 1.03,
                s.p80() * 1.03, s.max() * 1.03, s.relStdev());
        rows.set(0, new gluelab.record.Row(first.key(), first.model(), first.bytes(), first.flops(), first.idealUs(), first.bound(),
                new gluelab.timing.Measurement(m.label(), m.mode(), slower, slowerSummary, m.stopReason(), m.kernels(),
                        m.peakBytes(), m.wallSeconds(), m.discarded(), m.noise(), m.rule()), first.correctness()));
        Path bench = dir.resolve("bench.json");
        java.nio.file.Files.writeString(bench, Json.write(rows));

        Result over = run("compare", bench.toString(), dir.resolve("demo1").toString(), "--bound", "2");
        assertEquals(1, over.code(), over.toString());
        assertTrue(over.out().startsWith(rows.size() + " rows in both; median |diff| 0.00%, max 3.00% (" + first.key() + "); 1 over 2.00%"), over.out());
        assertTrue(over.out().contains(first.op().name()) && over.out().contains("3.0"), over.out());
        Result same = run("compare", run.toString(), run.resolve("record.json").toString(), "--bound", "1");
        assertEquals(0, same.code(), same.toString());
        assertTrue(same.out().contains("0 over 1.00%"), same.out());
        java.nio.file.Files.createDirectories(dir.resolve("demo1/demo-2"));
        java.nio.file.Files.copy(run.resolve("record.json"), dir.resolve("demo1/demo-2/record.json"));
        assertBadInput(run("compare", dir.resolve("demo1").toString(), bench.toString()), "holds 2 runs; name one");
        java.nio.file.Files.writeString(dir.resolve("bad.json"), "[{\"key\": 3}]");
        assertBadInput(run("compare", dir.resolve("bad.json").toString(), bench.toString()), "rows file", "bad.json");
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void everyOptionIsCheckedBeforeAnyWork() {
        long t0 = System.nanoTime();
        assertBadInput(run("demo", "--device", "cpu", "--stop-fraction", "-1"), "--stop-fraction must be in (0, 1), got -1");
        assertBadInput(run("demo", "--device", "cpu", "--min-time", "-1"), "--min-time must be a finite number >= 0");
        assertBadInput(run("demo", "--device", "cpu", "--timeout", "0"), "--timeout must be a finite number > 0");
        assertBadInput(run("compare", "a", "b", "--bound", "0"), "--bound must be a percentage > 0");
        assertBadInput(run("floor", "rmsnorm", "--tokens", ","), "empty entry");
        assertBadInput(run("bench", "cat", "--passes", "bwd", "--device", "cpu"), "nothing to measure", "cat has [fwd]");
        assertBadInput(run("bench", "rmsnorm", "--min-time", "NaN", "--device", "cpu"), "--min-time must be a finite number");
        assertBadInput(run("bench", "rmsnorm", "--timeout", "Infinity", "--device", "cpu"), "--timeout must be a finite number");
        assertBadInput(run("bench", "rmsnorm", "--max-noise", "0", "--device", "cpu"), "--max-noise must be a finite number > 0");
        assertBadInput(run("bench", "rmsnorm", "--check", "-1", "--device", "cpu"), "--check must be >= 0");
        assertBadInput(run("bench", "rmsnorm", "--passes", "fwd,", "--device", "cpu"), "--passes", "empty entry");
        assertBadInput(run("floor", "rmsnorm", "--bandwidth", "Infinity"), "--bandwidth", "'Infinity' is too large");
        assertBadInput(run("floor", "rmsnorm", "--bandwidth", "0"), "--bandwidth", "'0' is out of range");
        assertBadInput(run("bench", "rmsnorm", "--mode", "warm", "--device", "cpu"), "unknown mode 'warm'; valid values: cold, hot");
        assertBadInput(run("trace", "summary", "no-such-trace.json", "--top", "-1"), "--top must be a whole number >= 1");
        assertBadInput(run("trace", "summary", "no-such-trace.json", "--bandwidth", "NaN"), "--bandwidth", "'NaN' is not a finite number");
        assertTrue((System.nanoTime() - t0) * 1e-9 < 30, "a bad option must fail before any measurement");
    }

    /** Every command's path below the top one, e.g. [torch, versions]. */
    static java.util.List<java.util.List<String>> commandPaths(CommandLine cl) {
        java.util.List<java.util.List<String>> out = new java.util.ArrayList<>();
        cl.getSubcommands().forEach((name, sub) -> {
            if (!name.equals(sub.getCommandName())) return; // an alias
            out.add(java.util.List.of(name));
            for (var below : commandPaths(sub)) out.add(java.util.stream.Stream.concat(java.util.stream.Stream.of(name), below.stream()).toList());
        });
        return out;
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void everyCommandsHelpRendersWithoutAWarning() {
        var paths = commandPaths(Main.commandLine());
        assertTrue(paths.contains(java.util.List.of("torch", "versions")), paths.toString());
        for (var path : paths) {
            Result r = run(java.util.stream.Stream.concat(path.stream(), java.util.stream.Stream.of("--help")).toArray(String[]::new));
            assertEquals(0, r.code(), path + ": " + r);
            assertTrue(r.out().contains("Usage: gluelab " + String.join(" ", path)), path + ": " + r.out());
            assertFalse(r.err().contains("WARN"), path + " --help warns: " + r.err());
        }
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void everyCommandPrintsTheVersion() {
        String version = "gluelab " + gluelab.record.Environment.VERSION;
        assertEquals(version + "\n", run("--version").out().replace("\r", ""));
        for (var path : commandPaths(Main.commandLine())) {
            Result r = run(java.util.stream.Stream.concat(path.stream(), java.util.stream.Stream.of("--version")).toArray(String[]::new));
            assertEquals(0, r.code(), path + ": " + r);
            assertEquals(version, r.out().strip(), path + " --version");
        }
    }

    /** Where experiments live is the environment's to say: the help of the commands that read or write them names GLUELAB_HOME. */
    @Test
    void theHelpNamesTheEnvironmentThatSaysWhereExperimentsLive() {
        for (String[] path : List.of(new String[]{"--help"}, new String[]{"experiment", "--help"}, new String[]{"model", "--help"},
                new String[]{"model", "rank", "--help"}, new String[]{"confirm", "--help"})) {
            String help = run(path).out();
            assertTrue(help.contains("Environment:") && help.contains("  GLUELAB_HOME ") && help.contains("  GLUELAB_EXPERIMENTS "), String.join(" ", path) + ":\n" + help);
            assertTrue(help.lines().allMatch(l -> l.length() <= 80), "no line picocli would wrap: " + help);
        }
        assertTrue(helpOf(run("experiment", "--help").out(), "--experiments-root").contains("under $GLUELAB_HOME"), run("experiment", "--help").out());
    }

    /** The status table's title was centred over a 280-column table, a screen of spaces before it. */
    @Test
    void theExperimentsStatusTitleIsLeftAligned(@TempDir Path root) {
        Result r = run("experiment", "titled", "--experiments-root", root.toString(), "--model", "llama-3-8b", "--tokens", "16");
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().lines().anyMatch(l -> l.equals("experiment titled")), r.out());
    }

    /** A model experiment's status was 230 columns wide: step 00's summary names the model file's whole path and the plan. */
    @Test
    void theExperimentsStatusFitsATerminalItsLongSummariesCutInTheMiddle(@TempDir Path root) {
        String summary = "model file /a/very/long/path/to/the/analysts/own/model/blocks.py:build on inputs x:T,64:fp32, tokens [64, 128], device cpu";
        var ex = gluelab.workflow.experiment.ExperimentFolder.open("wide", root);
        ex.plan("llama-3-8b", List.of(16L), 0.01, "cpu");
        ex.done(gluelab.workflow.experiment.Step.BASELINES, List.of(), java.util.Map.of(), summary);
        Result r = run("experiment", "wide", "--experiments-root", root.toString());
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().lines().allMatch(l -> l.length() <= 120), "every line within 120 columns:\n" + r.out());
        assertTrue(r.out().contains(gluelab.table.TableFormat.fit(summary, gluelab.workflow.experiment.ExperimentFolder.STATUS_CELL_WIDTH)), r.out());
        assertTrue(r.out().contains("model file /a/very/") && r.out().contains("device cpu"), "its start and its end are kept: " + r.out());
    }

    @Test
    void anUnknownCommandIsAnErrorEvenWithHelp() {
        Result r = run("no-such-command", "--help");
        assertNotEquals(0, r.code(), r.toString());
        assertTrue(r.err().contains("no-such-command"), r.err());
        assertFalse(r.out().contains("Commands:"), "the general help is not printed as if all were well: " + r.out());
    }

    @Test
    void aCachedCalibrationWithZeroBandwidthIsRefusedByField() {
        String cached = "{\"deviceFingerprint\":\"x\",\"deviceName\":\"cpu\",\"bufferBytes\":1,\"copyMedian\":0,\"copyBest\":0,"
                + "\"triadMedian\":0,\"triadBest\":0,\"peakFlops\":1,\"theoreticalBandwidth\":0,\"measuredAt\":\"-\",\"fromCache\":true}";
        var e = assertThrows(Exception.class, () -> Json.MAPPER.readValue(cached, gluelab.calibrate.Calibration.class));
        assertTrue(e.getMessage().contains("calibration bandwidth (copyMedian) must be a finite number > 0"), e.getMessage());
    }

    @Test
    void listingsWork() {
        Result ops = run("ops");
        assertEquals(0, ops.code());
        assertTrue(ops.out().contains("qnorm_rope_real"));
        Result specs = run("specs");
        assertEquals(0, specs.code());
        assertTrue(specs.out().contains("anchor-h200"), specs.out());
        Result floor = run("floor", "rmsnorm", "--tokens", "2048", "--bandwidth", "4272");
        assertEquals(0, floor.code(), floor.err());
        assertTrue(floor.out().contains("floor_bytes (MiB)") && floor.out().matches("(?s).*rmsnorm\\s+\\|\\s+fwd\\s+\\|\\s+2048\\s+\\|\\s+32\\s+\\|.*"), floor.out());
    }
}
