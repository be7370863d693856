package gluelab.cli;

import com.fasterxml.jackson.databind.JsonNode;
import gluelab.torch.PythonChoice;
import gluelab.torch.TorchBridge;
import gluelab.torch.TorchPython;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.model.ModelFixStep;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static gluelab.cli.ModelStepKilledTest.LLAMA;
import static gluelab.cli.ModelStepKilledTest.read;
import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A rerun of a finished model step stopped part-way by SIGINT or SIGTERM: it lost the finished step (its record overwritten by
 * the part-way one, its marker taken away) and said nothing. Now the finished record, its marker and step 03's traces stay as
 * they were, the run's part-way record is a file of its own that the next run continues from, and the stopped step prints one
 * line saying what it kept, exiting 130 or 143.
 */
@Tag("slow") // gluelab processes stopped by a signal part-way, and the runs that finish them
class ModelStepStoppedTest {
    record Stopped(int code, String output, JsonNode partial) {}

    /** Starts gluelab with {@code args}, waits until {@code partial} holds a finished unit ({@code field}'s first entry), then sends it {@code signal}. */
    static Stopped stopAfterTheFirstUnit(Path dir, String signal, Path partial, String field, String... args) throws Exception {
        assumeTrue(new ProcessBuilder("kill", "-l").start().waitFor() == 0, "no kill command");
        List<String> cmd = new ArrayList<>(StopSignalsTest.defaultSigint());
        cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
                "-D" + TorchBridge.INDUCTOR_CACHE_PROPERTY + "=" + System.getProperty(TorchBridge.INDUCTOR_CACHE_PROPERTY),
                "-cp", System.getProperty("java.class.path"), "gluelab.cli.Main"));
        cmd.addAll(List.of(args));
        Path log = dir.resolve("stopped-" + signal + ".log");
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
            while (System.nanoTime() < deadline && p.isAlive()) {
                if (Files.isRegularFile(partial) && read(partial).path(field).size() >= 1) {
                    new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).inheritIO().start().waitFor();
                    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "still running after SIG" + signal + ": " + Files.readString(log));
                    return new Stopped(p.exitValue(), Files.readString(log), read(partial));
                }
                Thread.sleep(100);
            }
            fail("no unit saved part-way before the process " + (p.isAlive() ? "ran 240 s" : "ended") + ": " + Files.readString(log));
            return null;
        } finally {
            p.destroyForcibly();
        }
    }

    /** Each file's bytes (a hash of them), by name, in {@code dir} (not below it; not an atomic write's temp file). */
    static Map<String, String> files(Path dir) throws Exception {
        Map<String, String> out = new LinkedHashMap<>();
        try (Stream<Path> l = Files.list(dir)) {
            for (Path f : l.filter(f -> Files.isRegularFile(f) && !f.getFileName().toString().startsWith(".")).sorted().toList()) out.put(f.getFileName().toString(), java.util.HexFormat.of().formatHex(
                    java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(f))));
        }
        return out;
    }

    static String oneStopLine(String output) {
        List<String> lines = output.lines().filter(l -> l.startsWith("STOPPED by ")).toList();
        assertEquals(1, lines.size(), output);
        return lines.getFirst();
    }

    @Test void aStoppedRerunOfBaselinesOrProfileLeavesTheFinishedStepAsItWasAndTheNextRunContinuesIt(@TempDir Path dir) throws Exception {
        TorchPython.useSharedInductorCache();
        PythonChoice python = TorchPython.find();
        assumeTrue(python != null, TorchPython::whyMissing);
        Path root = dir.resolve("experiments");
        String py = python.python().toString();
        String[] where = {"--experiments-root", root.toString(), "--python", py};
        CliTest.Result plan = CliTest.run("experiment", "s", "--model-file", LLAMA + ":build", "--inputs", "x:T,64:fp32", "--tokens", "16", "--device", "cpu",
                "--experiments-root", root.toString(), "--python", py);
        assertEquals(0, plan.code(), plan.toString());
        Path ex = root.resolve("s"), steps = ex.resolve("steps");

        // Step 01: finished, then a rerun stopped by SIGINT after its first row.
        String[] baselines = Stream.concat(Stream.of("model", "baselines", "s", "--timeout", "0.5"), Stream.of(where)).toArray(String[]::new);
        CliTest.Result first = CliTest.run(baselines);
        assertEquals(0, first.code(), first.toString());
        Path b01 = steps.resolve("01-baselines"), marker01 = steps.resolve("01-baselines.json");
        Map<String, String> finished = files(b01);
        String finishedMarker = Files.readString(marker01);
        Path partialRows = b01.resolve("model-baselines.partial.json");
        Stopped s = stopAfterTheFirstUnit(dir, "INT", partialRows, "rows", baselines);
        assertEquals(130, s.code(), s.output());
        int rowsLeft = s.partial().path("rows").size();
        assertTrue(rowsLeft >= 1 && rowsLeft < 3, s.partial().toString());
        assertEquals("STOPPED by SIGINT: step 01-baselines: " + rowsLeft + " of 3 rows kept in steps/01-baselines/model-baselines.partial.json; "
                + "the earlier finished record is unchanged; run the step again to continue", oneStopLine(s.output()));
        Map<String, String> after = files(b01);
        after.remove("model-baselines.partial.json");
        assertEquals(finished, after, "the finished record as it was");
        assertEquals(finishedMarker, Files.readString(marker01), "the step's marker as it was");
        CliTest.Result status = CliTest.run("experiment", "s", "--experiments-root", root.toString());
        assertTrue(status.out().lines().anyMatch(l -> l.contains("01-baselines") && l.contains("done")), "the status shows step 01 done: " + status);
        CliTest.Result resumed = CliTest.run(baselines);
        assertEquals(0, resumed.code(), resumed.toString());
        assertTrue(resumed.err().contains("kept " + (rowsLeft == 1 ? "1 row" : rowsLeft + " rows") + " of a run that stopped part-way (steps/01-baselines/model-baselines.partial.json)"),
                resumed.err());
        assertFalse(Files.exists(partialRows), "the part-way record goes when the run finishes");
        JsonNode whole = read(b01.resolve("model-baselines.json"));
        assertEquals(3, whole.path("rows").size(), whole.toString());
        assertEquals(s.partial().path("rows").get(0).path("run"), whole.path("rows").get(0).path("run"), "the kept row as it was measured, not timed again");
        assertNotEquals(finishedMarker, Files.readString(marker01), "marked done again by the run that finished");

        // Step 03: finished, then a rerun stopped by SIGTERM after its first tree: the finished record's traces are the ones it profiled.
        String[] profile = Stream.concat(Stream.of("model", "profile", "s"), Stream.of(where)).toArray(String[]::new);
        CliTest.Result profiled = CliTest.run(profile);
        assertEquals(0, profiled.code(), profiled.toString());
        Path p03 = steps.resolve("03-profile-diff"), marker03 = steps.resolve("03-profile-diff.json");
        Map<String, String> profiledFiles = files(p03);
        assertTrue(profiledFiles.containsKey("eager.json.gz"), profiledFiles.toString());
        String profiledMarker = Files.readString(marker03);
        Path partialTrees = p03.resolve("model-profile.partial.json");
        Stopped t = stopAfterTheFirstUnit(dir, "TERM", partialTrees, "trees", profile);
        assertEquals(143, t.code(), t.output());
        int treesLeft = t.partial().path("trees").size();
        assertTrue(treesLeft >= 1 && treesLeft < 3, t.partial().toString());
        assertEquals("STOPPED by SIGTERM: step 03-profile-diff: " + treesLeft + " of 3 trees kept in steps/03-profile-diff/model-profile.partial.json "
                + "(their traces in steps/03-profile-diff/partial-traces/); the earlier finished record is unchanged; run the step again to continue", oneStopLine(t.output()));
        Path keptTrace = Path.of(t.partial().path("trees").get(0).path("trace").asText());
        assertEquals(p03.resolve("partial-traces").resolve("eager.json.gz"), keptTrace, "the stopped run's trace is its own");
        Map<String, String> afterProfile = files(p03);
        afterProfile.remove("model-profile.partial.json");
        assertEquals(profiledFiles, afterProfile, "the finished record and the traces it names as they were");
        assertEquals(profiledMarker, Files.readString(marker03));
        String keptTraceBytes = files(keptTrace.getParent()).get("eager.json.gz");
        CliTest.Result again = CliTest.run(profile);
        assertEquals(0, again.code(), again.toString());
        assertTrue(again.err().contains("kept " + (treesLeft == 1 ? "1 tree" : treesLeft + " trees") + " of a run that stopped part-way"), again.err());
        assertFalse(Files.exists(partialTrees));
        assertFalse(Files.exists(p03.resolve("partial-traces")), "the run's traces moved into place");
        JsonNode all = read(p03.resolve("model-profile.json"));
        assertEquals(List.of("EAGER", "PER_BLOCK", "WHOLE"), all.path("trees").valueStream().map(x -> x.path("tree").asText()).toList());
        assertEquals(p03.resolve("eager.json.gz").toString(), all.path("trees").get(0).path("trace").asText());
        assertEquals(keptTraceBytes, files(p03).get("eager.json.gz"), "the kept tree's own trace, not profiled again");
        assertEquals(t.partial().path("trees").get(0).path("rows"), all.path("trees").get(0).path("rows"), "the kept tree as it was profiled");
        assertTrue(again.out().contains("## eager"), again.out());
    }

    @Test void aStoppedRerunOfFixKeepsTheFinishedRecordThatConfirmReads(@TempDir Path dir) throws Exception {
        TorchPython.useSharedInductorCache();
        PythonChoice python = TorchPython.find();
        assumeTrue(python != null, TorchPython::whyMissing);
        Path root = dir.resolve("experiments");
        String py = python.python().toString();
        CliTest.Result plan = CliTest.run("experiment", "f", "--model-file", LLAMA + ":build", "--inputs", "x:T,64:fp32", "--tokens", "16,32", "--device", "cpu",
                "--experiments-root", root.toString(), "--python", py);
        assertEquals(0, plan.code(), plan.toString());
        String[] fix = {"model", "fix", "f", "--timeout", "0.5", "--fix", "norm=regions:model.RMSNorm.forward", "--experiments-root", root.toString(), "--python", py};
        CliTest.Result first = CliTest.run(fix);
        assertEquals(0, first.code(), first.toString());
        Path f05 = root.resolve("f").resolve("steps").resolve("05-fix"), marker = f05.resolveSibling("05-fix.json");
        Map<String, String> finished = files(f05);
        String finishedMarker = Files.readString(marker);
        ExperimentFolder ex = ExperimentFolder.open("f", root);
        var finishedRows = ModelFixStep.load(ex).rows();
        assertEquals(2, finishedRows.size(), finishedRows.toString());

        Stopped s = stopAfterTheFirstUnit(dir, "INT", f05.resolve("model-fix.partial.json"), "timings", fix);
        assertEquals(130, s.code(), s.output());
        assertEquals(1, s.partial().path("timings").size(), "stopped after the first token count: " + s.partial());
        assertEquals("STOPPED by SIGINT: step 05-fix: the rows of 1 of 2 token counts kept in steps/05-fix/model-fix.partial.json; "
                + "the earlier finished record is unchanged; run the step again to start it over", oneStopLine(s.output()));
        Map<String, String> after = files(f05);
        after.remove("model-fix.partial.json");
        assertEquals(finished, after, "the finished record as it was");
        assertEquals(finishedMarker, Files.readString(marker));
        assertEquals(finishedRows, ModelFixStep.load(ex).rows(), "step 07 reads the finished record, not the stopped run's");

        CliTest.Result again = CliTest.run(fix);
        assertEquals(0, again.code(), again.toString());
        assertFalse(Files.exists(f05.resolve("model-fix.partial.json")), "the part-way record goes when the run finishes");
        assertEquals(2, ModelFixStep.load(ex).rows().size());
    }
}
