package gluelab.workflow.experiment;

import gluelab.files.AtomicFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class ExperimentFolderTest {
    @TempDir Path root;

    @Test
    void planIsWrittenOnceAndResumed() {
        ExperimentFolder ex = ExperimentFolder.open("demo", root);
        assertFalse(ex.hasPlan());
        ExperimentPlan p = ex.plan("llama3-8b", List.of(256L, 1024L), 0.01, "cpu");
        assertEquals(root.resolve("demo").toAbsolutePath(), ex.dir());
        assertTrue(ex.has(Step.PLAN));

        ExperimentFolder again = ExperimentFolder.open("demo", root);
        assertEquals(p, again.plan());
        assertEquals(p, again.plan("llama3-8b", List.of(256L, 1024L), 0.01, "cpu"), "the same plan resumes and keeps its creation time");
        var e = assertThrows(IllegalArgumentException.class, () -> again.plan("llama3-8b", List.of(256L), 0.01, "cpu"));
        assertTrue(e.getMessage().contains("tokens"), e.getMessage());
        assertEquals(1024L, again.plan().largestTokens());
        assertEquals(1, again.devlog().read().stream().filter(x -> x.text().startsWith("plan of experiment")).count());
    }

    @Test
    void aLaterStepNamesTheNotebookToRunFirst() {
        ExperimentFolder ex = ExperimentFolder.open("demo", root);
        var e = assertThrows(IllegalStateException.class, ex::ranking);
        assertEquals("experiment 'demo' has no ranking: run 04-rank first", e.getMessage());
        e = assertThrows(IllegalStateException.class, ex::plan);
        assertEquals("experiment 'demo' has no plan: run 00-plan first", e.getMessage());
        ex.plan("llama-3-8b", List.of(16L), 0.01, "cpu");
        assertEquals("experiment 'demo' has no ranking: run 04-rank first", ex.missing(Step.RANK).getMessage(), "a catalogue experiment runs its notebooks");
    }

    /** Blind check: "run 03-profile-diff first" left a model experiment's analyst to find which command that is. */
    @Test
    void aModelExperimentsMissingStepNamesItsCommand() {
        ExperimentFolder ex = ExperimentFolder.open("mlp", root);
        ex.plan(ExperimentPlan.of("llama-3-8b", List.of(16L), 0.01, "cpu", new ModelSubject("/m/mlp.py", "build", "x:T,64:fp32", "", List.of())));
        assertEquals("experiment 'mlp' has no profile diff: run 03-profile-diff (gluelab model profile mlp) first", ex.missing(Step.PROFILE_DIFF).getMessage());
        assertEquals("experiment 'mlp' has no correctness verdicts: run 08-correctness (gluelab model check mlp) first", ex.missing(Step.CORRECTNESS).getMessage());
        assertEquals("experiment 'mlp' has no ideal times: run 02-ideal-times first", ex.missing(Step.IDEAL_TIMES).getMessage(), "no command runs step 02");
    }

    @Test
    void aMistypedNameLeavesNoFolderBehindAndARealOneKeepsItsFiles() throws Exception {
        ExperimentFolder typo = ExperimentFolder.open("dmeo", root);
        assertThrows(IllegalStateException.class, typo::plan);
        assertFalse(Files.exists(root.resolve("dmeo")), "the folder open() made for nothing is gone");
        ExperimentFolder used = ExperimentFolder.open("used", root);
        Files.writeString(used.chartsDir().resolve("c.png"), "x");
        assertThrows(IllegalStateException.class, used::plan);
        assertTrue(Files.exists(used.chartsDir().resolve("c.png")), "a folder with anything in it stays");
    }

    @Test
    void stepOutputsRoundTripAndNameTheirFiles() throws Exception {
        ExperimentFolder ex = ExperimentFolder.open("demo", root);
        Files.writeString(ex.stepDir(Step.FIX).resolve("interactions.json"), "{}");
        StepOutput out = ex.done(Step.FIX, List.of(), Map.of("interactions", "steps/05-fix/interactions.json"), "2 fixes");
        assertEquals(out, ex.require(Step.FIX));
        assertEquals(ex.dir().resolve("steps/05-fix/interactions.json"), ex.file(Step.FIX, "interactions"));
        assertThrows(IllegalArgumentException.class, () -> ex.file(Step.FIX, "nothing"));
        assertThrows(IllegalArgumentException.class, () -> ex.done(Step.FIX, List.of("no-such-record"), Map.of(), ""));
        assertEquals("done", ex.status().stringColumn("state").get(Step.FIX.ordinal()));
        assertEquals(ex.dir().resolve("stack.json"), ex.stackFile());
        assertEquals(ex.dir().resolve("pr"), ex.prDir());
    }

    @Test
    void corruptContentsNameTheFileAndField() throws Exception {
        ExperimentFolder ex = ExperimentFolder.open("demo", root);
        AtomicFiles.write(ex.planFile(), "{\"model\": \"m\", \"tokens\": \"many\", \"stopFraction\": 0.01, \"device\": \"cpu\"}");
        var e = assertThrows(IllegalArgumentException.class, ex::plan);
        assertTrue(e.getMessage().contains("plan.json") && e.getMessage().contains("\"tokens\""), e.getMessage());

        AtomicFiles.write(ex.planFile(), "{\"model\": \"m\", \"tokens\": [1], \"stopFraction\": 2, \"device\": \"cpu\"}");
        e = assertThrows(IllegalArgumentException.class, ex::plan);
        assertTrue(e.getMessage().contains("plan.json") && e.getMessage().contains("stopFraction"), e.getMessage());

        Files.writeString(root.resolve("demo/steps/04-rank.json"), "{\"step\": \"RANK\", \"finished\": \"x\", \"records\": [1,");
        e = assertThrows(IllegalArgumentException.class, () -> ex.require(Step.RANK));
        assertTrue(e.getMessage().contains("04-rank.json") && e.getMessage().contains("line 1"), e.getMessage());
        Files.writeString(root.resolve("demo/steps/04-rank.json"), "{\"step\": \"RANK\", \"finished\": \"x\", \"records\": {}, \"files\": {}}");
        e = assertThrows(IllegalArgumentException.class, () -> ex.require(Step.RANK));
        assertTrue(e.getMessage().contains("04-rank.json") && e.getMessage().contains("\"records\""), e.getMessage());
        assertEquals("unreadable", ex.status().stringColumn("state").get(Step.RANK.ordinal()));
    }

    record Result(int format, java.util.List<Long> values) {}

    @Test
    void stepResultsOfAnotherFormatOrTypeAreNamed() throws Exception {
        Path f = root.resolve("r.json");
        StepResults.save(f, new Result(1, List.of(1L, 2L)));
        assertEquals(new Result(1, List.of(1L, 2L)), StepResults.load(f, Result.class, 1));
        var e = assertThrows(IllegalArgumentException.class, () -> StepResults.load(f, Result.class, 2));
        assertTrue(e.getMessage().contains("r.json") && e.getMessage().contains("\"format\""), e.getMessage());
        Files.writeString(f, "{\"format\": 1, \"values\": [1, \"x\"]}");
        e = assertThrows(IllegalArgumentException.class, () -> StepResults.load(f, Result.class, 1));
        assertTrue(e.getMessage().contains("values[1]"), e.getMessage());
    }

    @Test
    void namesAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> ExperimentFolder.open("../up", root));
        assertThrows(IllegalArgumentException.class, () -> ExperimentFolder.open("", root));
        assertEquals(Step.RANK, Step.parse("04-rank.ipynb"));
        assertEquals(Step.CONFIRM, Step.parse("7"));
    }

    @Test
    void theBrowserAndTheRunnerShareTheRepositorysExperimentFolder() throws Exception {
        Path repo = Files.createDirectories(root.resolve("repo"));
        Files.createDirectories(repo.resolve(".git"));
        Path notebooks = Files.createDirectories(repo.resolve("notebooks"));
        assertEquals(repo.toAbsolutePath(), ExperimentFolder.home(notebooks), "a kernel in notebooks/ finds the repository root");
        assertEquals(repo.toAbsolutePath(), ExperimentFolder.home(repo), "gluelab run from the root finds it too");
        Path loose = Files.createDirectories(root.resolve("loose"));
        assertEquals(loose.toAbsolutePath(), ExperimentFolder.home(loose), "outside a repository, the notebook's folder");
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv(ExperimentFolder.ROOT_ENV) == null && System.getenv(ExperimentFolder.HOME_ENV) == null);
        String old = System.setProperty(ExperimentFolder.NOTEBOOK_FOLDER_PROPERTY, notebooks.toString());
        try {
            assertEquals(repo.toAbsolutePath().resolve("out/experiments"), ExperimentFolder.defaultRoot());
        } finally {
            if (old == null) System.clearProperty(ExperimentFolder.NOTEBOOK_FOLDER_PROPERTY);
            else System.setProperty(ExperimentFolder.NOTEBOOK_FOLDER_PROPERTY, old);
        }
    }

    /** Blind check: on a busy machine every status cell read "8 rows of llama3.py:b...ava 60% (at the end)", cut in the middle of the busy note. */
    @Test
    void aBusyMachinesNoteLeavesTheStatusCellItsSummarysHeadAndABusyMark(@TempDir Path root) {
        var ex = ExperimentFolder.open("busy", root);
        ex.plan("llama-3-8b", List.of(16L), 0.01, "cpu");
        String found = "8 rows of llama3.py:build at 2 token counts, 4 trees";
        String note = "; busy machine: host load average 3.10 on 2 cores (at the start); other processes: java 60% (at the end)";
        ex.done(Step.BASELINES, List.of(), Map.of(), found + note);
        ex.failed(Step.PROFILE_DIFF, Map.of(), "nothing profiled" + note);
        String text = ex.statusText();
        assertTrue(text.contains("8 rows of llama3.py:build... (busy machine)"), text);
        assertTrue(text.contains("nothing profiled (busy machine)"), text);
        assertFalse(text.contains("(at the end)"), "the note's tail is not the cell: " + text);
        assertTrue(text.lines().allMatch(l -> l.length() <= 120), text);
        assertEquals(found + note, ex.require(Step.BASELINES).summary(), "the whole note stays in the step's files");
        assertEquals("8 rows of ll... (busy machine)", ExperimentFolder.statusCell(found + note, 30));
        String plain = "model file /a/very/long/path/to/the/analysts/own/model/blocks.py:build, device cpu";
        assertEquals(gluelab.table.TableFormat.fit(plain, 44), ExperimentFolder.statusCell(plain, 44), "a summary with no note is cut as before");
    }

    /** Two processes writing different plans into one new experiment at once: both used to succeed, one plan lost (issue 23). */
    @Test
    void twoWritersOfOneNewPlanGetOnePlanAndOneClearRefusal(@org.junit.jupiter.api.io.TempDir java.nio.file.Path root) throws Exception {
        for (int round = 0; round < 20; round++) {
            String name = "race" + round;
            var barrier = new java.util.concurrent.CyclicBarrier(2);
            java.util.concurrent.Callable<String> small = () -> { barrier.await(); ExperimentFolder.open(name, root).plan("llama3-8b", List.of(256L), 0.01, "cpu"); return "ok"; };
            java.util.concurrent.Callable<String> big = () -> { barrier.await(); ExperimentFolder.open(name, root).plan("llama3-8b", List.of(1024L), 0.01, "cpu"); return "ok"; };
            try (var pool = java.util.concurrent.Executors.newFixedThreadPool(2)) {
                var a = pool.submit(small);
                var b = pool.submit(big);
                int ok = 0;
                for (var f : List.of(a, b)) {
                    try {
                        f.get(120, java.util.concurrent.TimeUnit.SECONDS);
                        ok++;
                    } catch (java.util.concurrent.ExecutionException e) {
                        assertTrue(e.getCause().getMessage().contains("already has a plan that differs"), e.getCause().toString());
                    }
                }
                assertEquals(1, ok, "round " + round + ": both writers succeeded, one plan lost");
            }
        }
    }

    @Test
    void aLockHeldElsewhereIsWaitedForOrFailsNamingTheHolder(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        var file = dir.resolve("x.lock");
        try (var held = gluelab.files.FileLock.tryTake(file)) {
            assertNotNull(held);
            assertNull(gluelab.files.FileLock.tryTake(file));
            var e = assertThrows(IllegalStateException.class, () -> gluelab.files.FileLock.take(file, java.time.Duration.ofMillis(200), "the other writer"));
            assertTrue(e.getMessage().contains("the other writer still holds " + file), e.getMessage());
        }
        try (var again = gluelab.files.FileLock.tryTake(file)) {
            assertNotNull(again, "released on close");
        }
    }

    /** A plan file with tokens [2048, 2048] was read as a plan (issue 23's probe). */
    @Test
    void aPlanFileListingACountTwiceIsRefusedNamingTheFile(@org.junit.jupiter.api.io.TempDir java.nio.file.Path root) throws Exception {
        ExperimentFolder ex = ExperimentFolder.open("twice", root);
        ex.plan("llama3-8b", List.of(2048L), 0.01, "cpu");
        java.nio.file.Files.writeString(ex.planFile(), java.nio.file.Files.readString(ex.planFile()).replace("[ 2048 ]", "[ 2048, 2048 ]"));
        var e = assertThrows(IllegalArgumentException.class, () -> ExperimentFolder.open("twice", root).plan());
        assertTrue(e.getMessage().contains(ex.planFile().toString()) && e.getMessage().contains("lists a count twice"), e.getMessage());
    }

    static final String MODEL_PLAN = "{\"model\": \"llama-3-8b\", \"tokens\": [16], \"stopFraction\": 0.01, \"device\": \"cpu\", "
            + "\"subject\": {\"file\": \"m.py\", \"function\": \"build\", \"inputs\": INPUTS, \"blocks\": \"\", \"regions\": REGIONS}}";

    /** "inputs": 5 was read as a plan; a later step said "input '5': expected NAME:DIMS:DTYPE", naming no file or field. */
    @Test
    void aModelSubjectOfTheWrongTypeIsRefusedWhenThePlanIsRead() throws Exception {
        ExperimentFolder ex = ExperimentFolder.open("cor", root);
        AtomicFiles.write(ex.planFile(), MODEL_PLAN.replace("INPUTS", "\"x:T,64:fp32\"").replace("REGIONS", "[]"));
        assertEquals("x:T,64:fp32", ex.plan().modelSubject().inputs());
        AtomicFiles.write(ex.planFile(), MODEL_PLAN.replace("INPUTS", "5").replace("REGIONS", "[]"));
        var e = assertThrows(IllegalArgumentException.class, ex::plan);
        assertEquals(ex.planFile() + ": field \"subject.inputs\" must be forward's inputs as a string NAME:DIMS:DTYPE;..., such as \"x:T,D:bf16\", got 5",
                e.getMessage());
        AtomicFiles.write(ex.planFile(), MODEL_PLAN.replace("INPUTS", "\"x:T,64:fp32\"").replace("REGIONS", "\"model.f\""));
        e = assertThrows(IllegalArgumentException.class, ex::plan);
        assertTrue(e.getMessage().startsWith(ex.planFile() + ": field \"subject.regions\" must be a list of functions"), e.getMessage());
        AtomicFiles.write(ex.planFile(), MODEL_PLAN.replace("INPUTS", "\"x:T,64:fp32\"").replace("REGIONS", "[]").replace("\"build\"", "[]"));
        e = assertThrows(IllegalArgumentException.class, ex::plan);
        assertTrue(e.getMessage().startsWith(ex.planFile() + ": field \"subject.function\" must be the name of the function"), e.getMessage());
    }

    /** "x:T,64" (no dtype) was read as a plan; each input is checked when the plan is read, naming the file and subject.inputs[i]. */
    @Test
    void aMalformedInputIsRefusedWhenThePlanIsReadNamingItsIndex() throws Exception {
        ExperimentFolder ex = ExperimentFolder.open("inputs", root);
        var cases = new java.util.LinkedHashMap<String, String>();
        cases.put("x:T,64", "field \"subject.inputs[0]\" ('x:T,64'): no dtype: expected NAME:DIMS:DTYPE, e.g. x:T,D:bf16");
        cases.put("x:T,64:fp32; f:T,8:", "field \"subject.inputs[1]\" ('f:T,8:'): no dtype: expected NAME:DIMS:DTYPE, e.g. x:T,D:bf16");
        cases.put("x:T,64:fp33", "field \"subject.inputs[0]\" ('x:T,64:fp33'): unknown dtype 'fp33'; known: [bf16, fp16, fp32, fp64, i32, i64]");
        cases.put("x:T,-4:fp32", "field \"subject.inputs[0]\" ('x:T,-4:fp32'): dim 2 '-4' is neither a number > 0 nor a symbol such as T or D");
        cases.put("x:T,64:fp32 x:T,64:fp32", "field \"subject.inputs[1]\" ('x:T,64:fp32'): the name 'x' is given twice");
        cases.put("1x:T:fp32", "field \"subject.inputs[0]\" ('1x:T:fp32'): name '1x' is not an identifier");
        for (var c : cases.entrySet()) {
            AtomicFiles.write(ex.planFile(), MODEL_PLAN.replace("INPUTS", "\"" + c.getKey() + "\"").replace("REGIONS", "[]"));
            var e = assertThrows(IllegalArgumentException.class, ex::plan, c.getKey());
            assertEquals(ex.planFile() + ": " + c.getValue(), e.getMessage());
        }
    }

    /** A name forward does not take is known only from importing the model: step 00's check keeps what it ran, and an input it never saw is refused. */
    @Test
    void anInputStep00sCheckDidNotRunIsRefusedWhenThePlanIsRead() throws Exception {
        ExperimentFolder ex = ExperimentFolder.open("checked", root);
        var subject = new ModelSubject("m.py", "build", "x:T,64:fp32 freqs:T,8:fp32", "", List.of());
        ex.plan(ExperimentPlan.of("llama-3-8b", List.of(16L), 0.01, "cpu", subject), new CheckedInputs(subject.inputs(), "(x, freqs)"));
        assertEquals(subject, ExperimentFolder.open("checked", root).plan().modelSubject());
        String plan = Files.readString(ex.planFile());
        Files.writeString(ex.planFile(), plan.replace("freqs:T,8:fp32", "cis:T,8:fp32"));
        var e = assertThrows(IllegalArgumentException.class, ex::plan);
        assertTrue(e.getMessage().startsWith(ex.planFile() + ": field \"subject.inputs[1]\" ('cis:T,8:fp32'): 'cis' is not forward's parameter there: "
                + "step 00's model check ran forward(x, freqs) with 'freqs' there; plan.json was changed after the check"), e.getMessage());
        Files.writeString(ex.planFile(), plan.replace("freqs:T,8:fp32", "freqs:T,8:fp32 mask:T:bf16"));
        e = assertThrows(IllegalArgumentException.class, ex::plan);
        assertTrue(e.getMessage().contains("field \"subject.inputs[2]\" ('mask:T:bf16'): step 00's model check ran forward(x, freqs) on 2 inputs"), e.getMessage());
        // Checking the edited plan again compares it with, not refuses it for, the last check; a passing check is kept.
        Files.writeString(ex.planFile(), plan.replace("freqs:T,8:fp32", "cis:T,8:fp32"));
        var edited = new ModelSubject("m.py", "build", "x:T,64:fp32 cis:T,8:fp32", "", List.of());
        ex.plan(ExperimentPlan.of("llama-3-8b", List.of(16L), 0.01, "cpu", edited), new CheckedInputs(edited.inputs(), "(x, cis)"));
        assertEquals(edited, ex.plan().modelSubject());
    }

    /** "subject": null made a model experiment a catalogue one in silence, its model check beside it. */
    @Test
    void aModelPlansSubjectEditedAwayIsRefused() throws Exception {
        ExperimentFolder ex = ExperimentFolder.open("unsubjected", root);
        var subject = new ModelSubject("m.py", "build", "x:T,64:fp32", "", List.of());
        ex.plan(ExperimentPlan.of("llama-3-8b", List.of(16L), 0.01, "cpu", subject), new CheckedInputs(subject.inputs(), "(x)"));
        var node = (com.fasterxml.jackson.databind.node.ObjectNode) gluelab.files.Json.MAPPER.readTree(ex.planFile().toFile());
        for (boolean remove : List.of(false, true)) {
            if (remove) node.remove("subject"); else node.putNull("subject");
            Files.writeString(ex.planFile(), node.toPrettyString());
            var e = assertThrows(IllegalArgumentException.class, ex::plan);
            assertTrue(e.getMessage().startsWith(ex.planFile() + ": field \"subject\" is null or missing, but step 00 checked a model file for this experiment (model-check.json)"),
                    e.getMessage());
        }
        assertFalse(ExperimentFolder.open("catalogue", root).plan("llama3-8b", List.of(16L), 0.01, "cpu").hasModelSubject(), "a catalogue plan reads as before");
        assertFalse(ExperimentFolder.open("catalogue", root).plan().hasModelSubject());
    }

    /** Token counts given out of order are kept ascending. */
    @Test
    void tokenCountsAreKeptAscending() {
        ExperimentFolder ex = ExperimentFolder.open("sorted", root);
        assertEquals(List.of(16L, 32L), ex.plan("llama3-8b", List.of(32L, 16L), 0.01, "cpu").tokens());
        assertEquals(List.of(16L, 32L), ExperimentFolder.open("sorted", root).plan().tokens());
    }

    /** Jackson's words (java.util.ArrayList, Packed Binary Double Vector, StreamReadFeature...) said as what is wrong in the file. */
    @Test
    void corruptResultsSayWhatIsWrongInWords() throws Exception {
        record Row(String name, double[] samples) {}
        record Results(int format, List<Row> rows, List<String> fixes) {}
        Path f = root.resolve("model-fix.json");
        StepResults.save(f, new Results(1, List.of(new Row("a", new double[]{1, 2})), List.of("rope")));
        String whole = Files.readString(f);
        Files.writeString(f, whole.substring(0, whole.length() / 2));
        var e = assertThrows(IllegalArgumentException.class, () -> StepResults.load(f, Results.class, 1));
        assertTrue(e.getMessage().startsWith("corrupt " + f + " at line ") && e.getMessage().endsWith(": the file ends early (truncated?)"), e.getMessage());

        Files.writeString(f, "{\"format\": 1, \"rows\": [], \"fixes\": 5}");
        e = assertThrows(IllegalArgumentException.class, () -> StepResults.load(f, Results.class, 1));
        assertEquals(f + ": field \"fixes\": expected a list, got a number", e.getMessage());

        Files.writeString(f, "{\"format\": 1, \"rows\": [{\"name\": \"a\", \"samples\": \"oops\"}], \"fixes\": []}");
        e = assertThrows(IllegalArgumentException.class, () -> StepResults.load(f, Results.class, 1));
        assertEquals(f + ": field \"rows[0].samples\": expected a list of numbers, got a string", e.getMessage());

        Files.writeString(f, "{\"format\": 1, \"rows\": [{\"name\": [], \"samples\": []}], \"fixes\": []}");
        e = assertThrows(IllegalArgumentException.class, () -> StepResults.load(f, Results.class, 1));
        assertEquals(f + ": field \"rows[0].name\": expected a string, got a list", e.getMessage());
    }
}
