package gluelab.cli;

import com.fasterxml.jackson.databind.JsonNode;
import gluelab.files.Json;
import gluelab.torch.PythonChoice;
import gluelab.torch.TorchBridge;
import gluelab.torch.TorchPython;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * `model baselines` and `model profile` killed (SIGKILL) after their first tree: steps 01 and 03 kept their finished trees
 * only in memory until the end, so a killed run lost them all; now each finished tree is on disk, and the next run keeps it
 * and runs only the others.
 */
@Tag("slow") // two gluelab processes killed part-way, and the runs that finish them
class ModelStepKilledTest {
    static final Path LLAMA = Path.of("..", "docs", "examples", "models", "llama3.py").toAbsolutePath().normalize();

    static JsonNode read(Path file) throws java.io.IOException { return Json.MAPPER.readTree(file.toFile()); }

    /** Starts gluelab with {@code args}, polls {@code record} until it holds one finished tree ({@code field}'s first entry), then kills it with SIGKILL. */
    static JsonNode killAfterTheFirstTree(Path dir, Path record, String field, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
                "-D" + TorchBridge.INDUCTOR_CACHE_PROPERTY + "=" + System.getProperty(TorchBridge.INDUCTOR_CACHE_PROPERTY),
                "-cp", System.getProperty("java.class.path"), "gluelab.cli.Main"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(dir.resolve("killed.log").toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
            while (System.nanoTime() < deadline && p.isAlive()) {
                if (Files.isRegularFile(record)) {
                    JsonNode r = read(record);
                    if (r.path(field).size() >= 1) {
                        p.destroyForcibly(); // SIGKILL: nothing of gluelab's runs after it
                        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
                        return read(record);
                    }
                }
                Thread.sleep(100);
            }
            fail("no tree recorded before the process " + (p.isAlive() ? "ran 240 s" : "ended") + ": " + Files.readString(dir.resolve("killed.log")));
            return null;
        } finally {
            p.destroyForcibly();
        }
    }

    @Test void aKilledBaselinesOrProfileKeepsItsFinishedTreesAndTheNextRunRunsOnlyTheOthers(@TempDir Path dir) throws Exception {
        TorchPython.useSharedInductorCache();
        PythonChoice python = TorchPython.find();
        assumeTrue(python != null, TorchPython::whyMissing);
        Path root = dir.resolve("experiments");
        String py = python.python().toString();
        CliTest.Result plan = CliTest.run("experiment", "k", "--model-file", LLAMA + ":build", "--inputs", "x:T,64:fp32", "--tokens", "16", "--device", "cpu",
                "--experiments-root", root.toString(), "--python", py);
        assertEquals(0, plan.code(), plan.toString());
        Path ex = root.resolve("k"), steps = ex.resolve("steps");

        Path baselines = steps.resolve("01-baselines").resolve("model-baselines.json"), partialRows = baselines.resolveSibling("model-baselines.partial.json");
        JsonNode left = killAfterTheFirstTree(dir, partialRows, "rows", "model", "baselines", "k", "--timeout", "0.5", "--experiments-root", root.toString(),
                "--python", py);
        int rowsLeft = left.path("rows").size();
        assertTrue(rowsLeft >= 1 && rowsLeft < 3, "the finished rows, not all: " + left);
        assertEquals("EAGER", left.path("rows").get(0).path("tree").asText());
        assertFalse(Files.exists(steps.resolve("01-baselines.json")), "no step marker: the step did not finish");
        assertFalse(Files.exists(baselines), "no finished record: the rows so far are in the part-way one");
        JsonNode eager = left.path("rows").get(0).path("run");
        CliTest.Result resumed = CliTest.run("model", "baselines", "k", "--timeout", "0.5", "--experiments-root", root.toString(), "--python", py);
        assertEquals(0, resumed.code(), resumed.toString());
        assertTrue(resumed.err().contains("kept " + (rowsLeft == 1 ? "1 row" : rowsLeft + " rows") + " of a run that stopped part-way"), resumed.err());
        JsonNode whole = read(baselines);
        assertEquals(List.of("EAGER", "PER_BLOCK", "WHOLE"), whole.path("rows").valueStream().map(r -> r.path("tree").asText()).toList(), whole.toString());
        assertEquals(eager, whole.path("rows").get(0).path("run"), "the kept row as it was measured, not timed again");
        assertTrue(Files.exists(steps.resolve("01-baselines.json")), "the step is done");
        assertFalse(Files.exists(partialRows), "the part-way record goes when the run finishes");

        Path profile = steps.resolve("03-profile-diff").resolve("model-profile.json");
        JsonNode leftProfile = killAfterTheFirstTree(dir, profile.resolveSibling("model-profile.partial.json"), "trees", "model", "profile", "k", "--experiments-root", root.toString(), "--python", py);
        int treesLeft = leftProfile.path("trees").size();
        assertTrue(treesLeft >= 1 && treesLeft < 3, leftProfile.toString());
        assertTrue(Files.isRegularFile(Path.of(leftProfile.path("trees").get(0).path("trace").asText())), "its trace is on disk: " + leftProfile);
        assertFalse(Files.exists(steps.resolve("03-profile-diff.json")));
        CliTest.Result profiled = CliTest.run("model", "profile", "k", "--experiments-root", root.toString(), "--python", py);
        assertEquals(0, profiled.code(), profiled.toString());
        assertTrue(profiled.err().contains("kept " + (treesLeft == 1 ? "1 tree" : treesLeft + " trees") + " of a run that stopped part-way"), profiled.err());
        JsonNode all = read(profile);
        assertEquals(List.of("EAGER", "PER_BLOCK", "WHOLE"), all.path("trees").valueStream().map(t -> t.path("tree").asText()).toList());
        assertEquals(leftProfile.path("trees").get(0).path("rows"), all.path("trees").get(0).path("rows"), "the kept tree as it was profiled");
        assertEquals(profile.resolveSibling("eager.json.gz").toString(), all.path("trees").get(0).path("trace").asText(), "its trace moved into place");
        assertTrue(profiled.out().contains("## eager"), "the summary reads the kept tree's trace: " + profiled.out());
    }
}
