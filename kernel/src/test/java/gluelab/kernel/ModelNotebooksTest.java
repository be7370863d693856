package gluelab.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import gluelab.files.Json;
import gluelab.torch.PythonFinder;
import gluelab.torch.PythonSource;
import gluelab.torch.TorchBridge;
import gluelab.torch.TorchException;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.model.ModelCheckStep;
import gluelab.workflow.model.ModelFixResult;
import gluelab.workflow.model.ModelFixStep;
import gluelab.workflow.stack.ChangeStack;
import gluelab.workflow.writeup.PrChecker;
import gluelab.ops.Replay;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The story's notebooks 00-11 on the analyst's model, as `gluelab run ... -p modelFile=...` runs them:
 * the shipped Llama-3 example at tiny dims (16 tokens) on the CPU with the real torch (GLUELAB_PYTHON),
 * one experiment planned by 00 and carried through every step to 08's correctness; step 05 tries the
 * example's default fix (the real-arithmetic RoPE as a region) and 07 confirms it in fresh processes,
 * both real measurements; step 06 counts graphs with aot_eager (the same graphs, no C++ compile);
 * 09-11 write the stack, the findings doc, the PR text and the feedback from them, and the CLI's
 * `model stack|findings|feedback` and `pr check` read the same experiment. One story run serves every
 * test here: a model story on the CPU costs minutes, most of it compiling.
 */
@Tag("slow")
class ModelNotebooksTest {
    static final Path NOTEBOOKS = Path.of("../notebooks").toAbsolutePath().normalize();
    static final Path LLAMA = NOTEBOOKS.resolveSibling("docs/examples/models/llama3.py");

    /** The line of `def name(` in an example model file: the examples change, the test follows them. */
    static int defLine(String file, String name) throws IOException {
        List<String> lines = Files.readAllLines(LLAMA.resolveSibling(file));
        for (int i = 0; i < lines.size(); i++) if (lines.get(i).startsWith("def " + name + "(")) return i + 1;
        throw new AssertionError(file + " has no def " + name);
    }
    static final List<String> STORY = List.of("00-plan", "01-baselines", "02-ideal-times", "03-profile-diff", "04-rank", "05-fix", "06-graph-budget",
            "07-confirm", "08-correctness", "09-stack", "10-findings", "11-feedback");
    @TempDir static Path dir;
    static Map<String, JsonNode> executed = new LinkedHashMap<>();
    static KernelCommandsTest.Result run;
    static double seconds;

    @BeforeAll static void runTheStoryOnTheModel() throws Exception {
        String why = null;
        try {
            PythonFinder.standard().find(null, PythonSource.ARGUMENT);
        } catch (TorchException e) {
            why = e.getMessage();
        }
        assumeTrue(why == null, "no Python with torch (set GLUELAB_PYTHON): " + why);
        useOneFreshInductorCache();
        // Copies outside the checkout, so the experiment lands under dir/out/experiments, not the checkout's.
        List<String> args = new ArrayList<>(List.of("run"));
        for (String nb : STORY) {
            Files.copy(NOTEBOOKS.resolve(nb + ".ipynb"), dir.resolve(nb + ".ipynb"));
            args.add(dir.resolve(nb + ".ipynb").toString());
        }
        args.addAll(List.of("-p", "experiment=llama", "-p", "modelFile=" + LLAMA + ":build", "-p", "inputs=x:T,64:fp32", "-p", "tokens=16",
                "-p", "graphBackend=aot_eager", "-p", "commit=abc1234", "--out", dir.resolve("executed").toString()));
        long t0 = System.nanoTime();
        run = KernelCommandsTest.gluelab(args.toArray(String[]::new));
        seconds = (System.nanoTime() - t0) * 1e-9;
        System.out.printf("ModelNotebooksTest: notebooks 00-11 on llama3.py at 16 tokens ran in %.0f s%n", seconds);
        run.out().lines().filter(l -> l.startsWith("ok: ") || l.startsWith("FAILED: ")).forEach(l -> System.out.println("  " + l));
        for (String nb : STORY) {
            Path f = dir.resolve("executed/" + nb + ".ipynb");
            if (Files.exists(f)) executed.put(nb, Json.MAPPER.readTree(f.toFile()));
        }
    }

    /**
     * One Inductor cache for the whole story, as bin/test gives the kernel part (TORCHINDUCTOR_CACHE_DIR): every harness,
     * step 07's fresh ones too, compiles into it and loads what an earlier step compiled. Run alone, it is a temp folder of
     * this JVM, so the story compiles cold as in CI, and the user's cache is neither read nor filled.
     */
    static void useOneFreshInductorCache() throws java.io.IOException {
        String env = System.getenv("TORCHINDUCTOR_CACHE_DIR");
        if (env != null && !env.isBlank() || System.getProperty(TorchBridge.INDUCTOR_CACHE_PROPERTY) != null) return;
        Path cache = Files.createTempDirectory("gluelab-story-inductor-");
        System.setProperty(TorchBridge.INDUCTOR_CACHE_PROPERTY, cache.toString());
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try (var paths = Files.walk(cache)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (java.io.IOException ignored) {
                // a temp folder: the system cleans it up otherwise
            }
        }, "story-inductor-cache-cleanup"));
    }

    /** Every output of a notebook as one text: streams, text/plain and text/html. */
    static String shown(JsonNode nb) {
        StringBuilder sb = new StringBuilder();
        for (JsonNode c : nb.get("cells")) {
            for (JsonNode o : c.path("outputs")) {
                sb.append(o.path("text").asText()).append(o.path("data").path("text/plain").asText()).append(o.path("data").path("text/html").asText());
                if (o.path("output_type").asText().equals("error")) sb.append("ERROR OUTPUT: ").append(o);
            }
        }
        return sb.toString();
    }

    static String shown(String nb) { return shown(executed.get(nb)); }

    static ExperimentFolder experiment() { return ExperimentFolder.open("llama", dir.resolve("out/experiments")); }

    @Test void theTwelveNotebooksRunOnTheModelWithoutAnError() {
        assertEquals(0, run.code(), run.toString());
        assertEquals(STORY, List.copyOf(executed.keySet()));
        for (var e : executed.entrySet()) assertFalse(shown(e.getValue()).contains("ERROR OUTPUT"), e.getKey() + ": " + shown(e.getValue()));
        assertTrue(shown("00-plan").contains("llama3.py"), "the plan names the model file: " + shown("00-plan"));
        for (Step s : List.of(Step.PLAN, Step.BASELINES, Step.IDEAL_TIMES, Step.PROFILE_DIFF, Step.RANK, Step.FIX, Step.GRAPH_BUDGET, Step.CONFIRM, Step.CORRECTNESS,
                Step.STACK, Step.FINDINGS, Step.FEEDBACK))
            assertTrue(experiment().has(s), s + " marked done");
    }

    @Test void baselinesShowTheModelsTreesFwdBwd() {
        String s = shown("01-baselines");
        assertTrue(s.contains("model llama3.py:build"), s);
        for (String tree : List.of("eager", "per-block", "whole")) assertTrue(s.contains(tree), tree + " row: " + s);
        assertTrue(s.contains("compile_s") && !s.contains("FAILED"), s);
    }

    @Test void idealTimesAreTheModelsOpsFloorsFromTheShapesOfAnEagerProfile() {
        String s = shown("02-ideal-times");
        assertTrue(s.contains("ideal times of the eager tree at 16 tokens") && s.contains("pct_of_floor") && s.contains("floor_bytes"), s);
        assertTrue(s.contains("an eager profile made here (step 03 has not run)"), "02 runs before 03 in the story: " + s);
        assertTrue(s.matches("(?s).*\\(llama3\\.py:\\d+\\).*"), "rows per source line of the model file: " + s);
    }

    @Test void profileAndRankingNameLinesOfTheModelFile() {
        String profile = shown("03-profile-diff"), ranking = shown("04-rank");
        assertTrue(profile.contains("profiled at 16 tokens") && profile.contains("llama3.py:"), profile);
        assertTrue(ranking.contains("ranking per source line and op") && ranking.matches("(?s).*\\(llama3\\.py:\\d+\\).*"), ranking);
        assertFalse(ranking.contains("rmsnorm region"), "not the catalogue's story: " + ranking);
    }

    @Test void theFixStepTriesTheExamplesDefaultFixForReal() {
        String s = shown("05-fix");
        assertTrue(s.contains("the example's defaults") && s.contains("rope=swap:model.apply_rotary_emb=") && s.contains(":apply_rotary_emb_real+regions:model.apply_rotary_emb"), s);
        assertTrue(s.contains("fixes of llama3.py:build") && s.contains("baseline_us") && s.contains("best known kernel"), s);
        assertFalse(s.contains("rmsnorm region"), "not the catalogue's story: " + s);
        ModelFixResult r = ModelFixStep.load(experiment());
        assertEquals(List.of("rope"), r.fixes().stream().map(f -> f.name()).toList());
        assertEquals(1, r.rows().size(), r.text());
        ModelFixResult.FixRow row = r.rows().getFirst();
        assertTrue(row.measured() && row.tokens() == 16 && row.baselineUs() > 0 && row.fixedUs() > 0 && row.compileSeconds() > 0, r.text());
        assertEquals(List.of(16L), r.references().stream().map(ModelFixResult.ReferenceRow::tokens).toList(), r.text());
    }

    @Test void graphBudgetConfirmationAndChecksRunOnStep05sFix() {
        String graphs = shown("06-graph-budget"), confirm = shown("07-confirm"), checks = shown("08-correctness");
        assertTrue(graphs.contains("counted by dynamo") && graphs.contains("per-block") && graphs.contains("llama3.py:"), graphs);
        assertTrue(confirm.contains("step 05's fixes [rope] at tokens [16]") && confirm.contains("3 of 3 processes finished") && confirm.contains("baseline_n"), confirm);
        assertTrue(checks.contains("step 05's fixes [rope] vs eager and fp64") && checks.contains("rel"), checks);
        var correctness = ModelCheckStep.load(experiment());
        assertTrue(correctness.passed(), correctness.summary());
        assertTrue(correctness.rows().stream().anyMatch(r -> r.candidate().equals("rope")), correctness.summary());
    }

    @Test void theStackNamesTheFixsFilesAndFunctions() {
        String s = shown("09-stack");
        ChangeStack stack = ChangeStack.load(experiment().stackFile());
        var rope = stack.change("rope");
        assertTrue(s.contains("rope: " + rope.headline().describe()), s);
        assertTrue(s.contains("rope: `llama3.py:apply_rotary_emb` (def at line 48): replaced by `rewrites.py:apply_rotary_emb_real`"), s);
        assertTrue(s.contains("llama3.py:build (runs the changed path)"), s);
        assertEquals("abc1234", rope.commit());
        assertNull(rope.delta(16, Replay.GRAPH), "the CPU has no graph replay: no graph row is stated");
        assertTrue(rope.problem().getFirst().startsWith("Step 03 profiles `apply_rotary_emb (llama3.py:"), rope.problem().toString());
        assertTrue(rope.correctness().stream().allMatch(v -> v.pass()), rope.correctness().toString());
    }

    @Test void theFindingsAndPrTextCarryTheModelsNumbersAndPassTheCheck() throws Exception {
        String s = shown("10-findings");
        ExperimentFolder ex = experiment();
        assertTrue(s.contains("apply_rotary_emb (llama3.py:"), "the ranking's source locations in the findings doc: " + s);
        assertTrue(s.contains("rope.md: 0 violation(s)"), s);
        Path pr = ex.prDir().resolve("rope.md");
        assertEquals(List.of(), PrChecker.check(pr, ChangeStack.load(ex.stackFile())));
        String text = Files.readString(pr);
        assertTrue(text.contains("## Code\n\n- `llama3.py:apply_rotary_emb` (def at line 48): replaced by `rewrites.py:apply_rotary_emb_real`"), text);
        String rewrite = "`rewrites.py:apply_rotary_emb_real` (def at line " + defLine("rewrites.py", "apply_rotary_emb_real") + ")";
        assertTrue(text.contains("- " + rewrite + ": the replacement"), text);
        assertTrue(text.contains("correctness vs fp64 reference, fp32: rel L2"), text);
        String findings = Files.readString(ex.findingsFile());
        for (String part : List.of("### Baselines (step 01)", "### Ranking per source line (step 04)", "### Fixes (step 05)", "### Graph budget (step 06)",
                "### Source lines of the changed functions (eager profile, step 03, 16 tokens)", "### Confirmation in fresh processes (step 07)",
                "### Correctness (step 08)", "- code: `llama3.py:apply_rotary_emb` (def at line 48)", "process 3 pid "))
            assertTrue(findings.contains(part), part + "\n" + findings);

        KernelCommandsTest.Result check = KernelCommandsTest.gluelab("pr", "check", pr.toString());
        assertEquals(0, check.code(), check + "\n" + text);
        Path edited = dir.resolve("rope-edited.md");
        Files.writeString(edited, text.replace("`llama3.py:apply_rotary_emb` (def at line 48)", "the RoPE function")
                .replace(rewrite, "its rewrite"));
        KernelCommandsTest.Result bad = KernelCommandsTest.gluelab("pr", "check", edited.toString());
        assertEquals(1, bad.code(), bad.toString());
        assertTrue(bad.out().contains("[code] a Code item that names no file and function"), bad.out());
    }

    @Test void theCommandLineWritesTheSameWriteUpFromTheExperiment() throws Exception {
        String root = dir.resolve("out/experiments").toString();
        ExperimentFolder ex = experiment();
        String before = Files.readString(ex.prDir().resolve("rope.md"));
        for (String step : List.of("stack", "findings", "feedback")) {
            var args = new ArrayList<>(List.of("model", step, "llama", "--experiments-root", root));
            if (step.equals("stack")) args.addAll(List.of("--commit", "abc1234"));
            KernelCommandsTest.Result r = KernelCommandsTest.gluelab(args.toArray(String[]::new));
            assertEquals(0, r.code(), step + ": " + r);
        }
        assertTrue(Files.isRegularFile(ex.feedbackFile()));
        assertEquals(before.lines().filter(l -> l.startsWith("- `")).toList(), Files.readString(ex.prDir().resolve("rope.md")).lines().filter(l -> l.startsWith("- `")).toList(),
                "the CLI's PR text names the same code as the notebook's");
    }
}
