package gluelab.workflow.modelwriteup;

import gluelab.ops.Replay;
import gluelab.torch.ModelFix;
import gluelab.workflow.confirm.ModelConfirmResult;
import gluelab.workflow.stack.CodeChange;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** What a model change says of a fix, short of running torch (ModelNotebooksTest runs the steps for real). */
class ModelChangesTest {
    static final Path MODELS = Path.of("..", "docs", "examples", "models").toAbsolutePath().normalize();

    /** The 1-based line of a file that starts with `start`: the example files change, the test follows them. */
    static int lineOf(Path file, String start) {
        try {
            List<String> lines = java.nio.file.Files.readAllLines(file);
            for (int i = 0; i < lines.size(); i++) if (lines.get(i).startsWith(start)) return i + 1;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        throw new AssertionError(file + " has no line starting with " + start);
    }
    static final Path LLAMA = MODELS.resolve("llama3.py");

    @Test void definitionsAreFoundByTheirQualifiedNames() {
        assertEquals(48, PythonDefs.line(LLAMA, "apply_rotary_emb"));
        assertEquals(87, PythonDefs.line(LLAMA, "Attention.rope"));
        assertEquals(70, PythonDefs.line(LLAMA, "RMSNorm.forward"));
        assertEquals(64, PythonDefs.line(LLAMA, "RMSNorm"));
        assertEquals(0, PythonDefs.line(LLAMA, "Attention.no_such"), "not defined");
        assertEquals(0, PythonDefs.line(LLAMA, "forward"), "a method is not a module function");
        assertEquals(0, PythonDefs.line(MODELS.resolve("rewrites.py"), "RotaryReal.apply"), "an attribute autograd.Function inherits");
    }

    @Test void aRowThatIsNoWinSaysSoBesideItsOwnCaveat() {
        var slower = new ModelConfirmResult.Row("rope", 16, Replay.DIRECT, 100, 3, 104, 3, 3, "", "noisy: 2 of 6 measurements (...)");
        assertEquals("noisy: 2 of 6 measurements (...); not a win in step 07: not faster than the model as written", ModelChanges.caveat(slower));
        var within = new ModelConfirmResult.Row("rope", 16, Replay.DIRECT, 100, 3, 99.5, 3, 3, "", "");
        assertEquals("not a win in step 07: under 1% faster than the model as written", ModelChanges.caveat(within));
        var win = new ModelConfirmResult.Row("rope", 16, Replay.DIRECT, 100, 3, 80, 3, 3, "", "");
        assertEquals("", ModelChanges.caveat(win));
    }

    static gluelab.workflow.stack.ChangeStack stackOf(ModelFix f, ModelConfirmResult.Row... rows) {
        return stackOf(f, null, null, rows);
    }

    static gluelab.workflow.stack.ChangeStack stackOf(ModelFix f, gluelab.workflow.correctness.CorrectnessResult checked, gluelab.workflow.graphbudget.BudgetResult budget,
                                                     ModelConfirmResult.Row... rows) {
        var quiet = new gluelab.timing.QuietCheck("before", true, List.of(), Map.of());
        var confirmed = new ModelConfirmResult(ModelConfirmResult.FORMAT, "c", "llama3.py:build", List.of(f), List.of(32L), quiet, quiet, List.of(), List.of(rows),
                List.of(), "");
        var subject = new gluelab.workflow.experiment.ModelSubject(LLAMA.toString(), "build", "x:T,64:fp32", "", List.of());
        return ModelChanges.stack(gluelab.workflow.stack.StackSamples.CONDITIONS,
                new ModelChanges.Inputs(subject, List.of(32L), confirmed, null, null, checked, budget, "abc1234"));
    }

    /** The blind check's case: a fix 2x slower in step 07 got a PR text that read as a proposal, its cost the whole step called 0.04% of the layer. */
    @Test void aFixWithNoWinIsNotRecommendedAndItsCostIsTheWholeStep() {
        ModelFix f = ModelFix.parse("rope=swap:model.apply_rotary_emb=" + MODELS.resolve("rewrites.py") + ":apply_rotary_emb_real+regions:model.Attention.rope");
        var stack = stackOf(f, new ModelConfirmResult.Row("rope", 32, Replay.DIRECT, 4450, 3, 8876, 3, 3, "", ""));
        var c = stack.change("rope");
        assertTrue(c.title().startsWith(ModelChanges.NOT_RECOMMENDED), c.title());
        assertEquals(1.0, c.layerShare(), "step 07 times the whole step: the delta is already a share of it");
        assertTrue(c.problem().contains("Step 05 screened fix `rope` (swap + regions) against the original model in one process."), c.problem().toString());
        String text = gluelab.workflow.writeup.PrText.markdown(stack, c, null);
        assertTrue(text.contains("Cost: 4450 us at 32 tokens (fwd+bwd), the whole step."), text);
        assertTrue(text.lines().anyMatch(l -> l.startsWith("TLDR: " + ModelChanges.NOT_RECOMMENDED)), text);
        assertEquals(List.of(), gluelab.workflow.writeup.PrChecker.check(text, "rope.md", null, stack));

        var won = stackOf(f, new ModelConfirmResult.Row("rope", 32, Replay.DIRECT, 4450, 3, 4000, 3, 3, "", "")).change("rope");
        assertFalse(won.title().startsWith(ModelChanges.NOT_RECOMMENDED), "a win at a token count is a proposal: " + won.title());
    }

    /** Blind check: a 5% "win" inside 8% of noise was written up as a proposal, its caveat without the word inconclusive. */
    @Test void aDeltaInsideItsNoiseIsInconclusiveInTheStackThePrTextAndTheFeedback() {
        ModelFix f = ModelFix.parse("rope=swap:model.apply_rotary_emb=" + MODELS.resolve("rewrites.py") + ":apply_rotary_emb_real");
        var inside = new ModelConfirmResult.Row("rope", 32, Replay.DIRECT, 4450, 1, 4230, 1, 3, "", "", 0.08);
        assertTrue(inside.inconclusive() && !inside.win(), inside.describe());
        assertEquals("not a win in step 07: inconclusive: -4.9% is within the noise (8.0%)", ModelChanges.caveat(inside));

        var stack = stackOf(f, inside);
        var c = stack.change("rope");
        assertTrue(c.title().startsWith(ModelChanges.INCONCLUSIVE), "no proposal: " + c.title());
        assertTrue(c.headline().caveat().contains("inconclusive"), c.headline().caveat());
        String text = gluelab.workflow.writeup.PrText.markdown(stack, c, null);
        assertTrue(text.lines().anyMatch(l -> l.startsWith("TLDR: Not confirmed (inconclusive in step 07, within the noise): ")), text);
        List<String> quotes = text.lines().filter(l -> l.contains("4450 -> 4230 us")).toList();
        assertTrue(quotes.size() >= 2 && quotes.stream().allMatch(l -> l.contains("inconclusive")), "every quote of the numbers says so: " + text);
        assertEquals(List.of(), gluelab.workflow.writeup.PrChecker.check(text, "rope.md", null, stack));
        var noWin = ModelFeedback.noWins(stack);
        assertEquals(1, noWin.size());
        assertTrue(noWin.getFirst().proposal().endsWith("is inconclusive (within the noise) in step 07 at any token count"), noWin.getFirst().proposal());
        assertTrue(noWin.getFirst().evidence().getFirst().contains("inconclusive"), noWin.getFirst().evidence().toString());

        // A win at another token count keeps the change a proposal; the row inside its noise still says so.
        var won = new ModelConfirmResult.Row("rope", 16, Replay.DIRECT, 2000, 3, 1500, 3, 3, "", "", 0.01);
        var mixed = stackOf(f, won, inside).change("rope");
        assertFalse(ModelChanges.notProposed(mixed.title()).isPresent(), mixed.title());
        assertTrue(mixed.delta(32, Replay.DIRECT).caveat().contains("inconclusive"), mixed.delta(32, Replay.DIRECT).caveat());
        assertEquals("", mixed.delta(16, Replay.DIRECT).caveat());
    }

    /** Blind check: the conditions line said "median of 3 fresh processes" over a row whose smaller side kept 1. */
    @Test void theConditionsLineNamesEachRowOfFewerProcesses() throws Exception {
        ModelFix f = ModelFix.parse("rope=regions:model.Attention.rope");
        var quiet = new gluelab.timing.QuietCheck("before", true, List.of(), Map.of());
        List<ModelConfirmResult.PythonRun> three = new java.util.ArrayList<>();
        for (int i = 1; i <= 3; i++) three.add(new ModelConfirmResult.PythonRun(i, i, gluelab.workflow.confirm.ProcessRun.State.OK, "", 1, Map.of(), Map.of(), null));
        var confirmed = new ModelConfirmResult(ModelConfirmResult.FORMAT, "c", "llama3.py:build", List.of(f), List.of(16L, 32L), quiet, quiet, three,
                List.of(new ModelConfirmResult.Row("rope", 16, Replay.DIRECT, 2000, 3, 1500, 3, 3, "", ""),
                        new ModelConfirmResult.Row("rope", 32, Replay.DIRECT, 4450, 1, 4000, 3, 3, "", "")), List.of(), "");
        var fewer = ModelWriteup.fewer(confirmed);
        assertEquals(List.of(new gluelab.workflow.stack.Conditions.Fewer("rope at 32 tokens, normal launch", 1)), fewer);
        var base = gluelab.workflow.stack.StackSamples.CONDITIONS;
        var conditions = new gluelab.workflow.stack.Conditions(base.device(), base.model(), base.dtype(), base.passes(), base.timing(), 3, fewer, 2);
        assertEquals("NVIDIA H200, dsv3-ours, bf16, fwd+bwd, cold samples, median of 3 fresh processes (1 for rope at 32 tokens, normal launch)", conditions.describe());
        assertEquals(1, conditions.fewest());
        assertThrows(IllegalArgumentException.class, () -> new gluelab.workflow.stack.Conditions(base.device(), base.model(), base.dtype(), base.passes(),
                base.timing(), 3, List.of(new gluelab.workflow.stack.Conditions.Fewer("rope", 3)), 1), "3 is not fewer than 3");

        var subject = new gluelab.workflow.experiment.ModelSubject(LLAMA.toString(), "build", "x:T,64:fp32", "", List.of());
        var stack = ModelChanges.stack(conditions, new ModelChanges.Inputs(subject, List.of(16L, 32L), confirmed, null, null, null, null, "abc1234"));
        String text = gluelab.workflow.writeup.PrText.markdown(stack, stack.change("rope"), null);
        assertTrue(text.contains("\n" + conditions.describe() + ", variant "), text);
        assertTrue(text.contains("- confirmation in 3 fresh processes of rope at 32 tokens, normal launch (1 kept)\n"), text);
        assertEquals(List.of(), gluelab.workflow.writeup.PrChecker.check(text, "rope.md", null, stack));
        var back = gluelab.files.Json.MAPPER.readValue(gluelab.files.Json.write(conditions), gluelab.workflow.stack.Conditions.class);
        assertEquals(conditions, back);
        var older = gluelab.files.Json.MAPPER.readValue(gluelab.files.Json.write(conditions).replaceFirst(",\\s*\"rows\"\\s*:\\s*2", ""), gluelab.workflow.stack.Conditions.class);
        assertEquals(conditions.describe(), older.describe(), "a stack written before rows were kept reads as it did");
        var old = gluelab.files.Json.MAPPER.readValue(gluelab.files.Json.write(base).replaceAll(",\\s*\"fewer\"\\s*:\\s*\\[\\s*\\]", ""), gluelab.workflow.stack.Conditions.class);
        assertEquals(base, old, "a stack saved before the rows were named reads as it did");
    }

    /** Blind check: "median of 3 fresh processes (1 for rope at 16 tokens, 1 for rope at 32 tokens)" when every row kept one process. */
    @Test void aConditionsLineWhoseEveryRowKeptFewerSaysSoPlainly() {
        var base = gluelab.workflow.stack.StackSamples.CONDITIONS;
        var ones = List.of(new gluelab.workflow.stack.Conditions.Fewer("rope at 16 tokens, normal launch", 1), new gluelab.workflow.stack.Conditions.Fewer("rope at 32 tokens, normal launch", 1));
        assertEquals("NVIDIA H200, dsv3-ours, bf16, fwd+bwd, cold samples, 1 fresh process per row (of 3 that finished)",
                new gluelab.workflow.stack.Conditions(base.device(), base.model(), base.dtype(), base.passes(), base.timing(), 3, ones, 2).describe());
        var twos = List.of(new gluelab.workflow.stack.Conditions.Fewer("rope at 16 tokens, normal launch", 2), new gluelab.workflow.stack.Conditions.Fewer("rope at 32 tokens, normal launch", 2));
        assertEquals("NVIDIA H200, dsv3-ours, bf16, fwd+bwd, cold samples, median of 2 fresh processes per row (of 3 that finished)",
                new gluelab.workflow.stack.Conditions(base.device(), base.model(), base.dtype(), base.passes(), base.timing(), 3, twos, 2).describe());
        var mixed = List.of(ones.getFirst(), twos.getLast());
        assertEquals("NVIDIA H200, dsv3-ours, bf16, fwd+bwd, cold samples, fewer fresh processes per row than the 3 that finished (1 for rope at 16 tokens, normal launch, "
                        + "2 for rope at 32 tokens, normal launch)",
                new gluelab.workflow.stack.Conditions(base.device(), base.model(), base.dtype(), base.passes(), base.timing(), 3, mixed, 2).describe());
        // one row of three kept fewer: today's form
        assertEquals("NVIDIA H200, dsv3-ours, bf16, fwd+bwd, cold samples, median of 3 fresh processes (1 for rope at 16 tokens, normal launch, 1 for rope at 32 tokens, normal launch)",
                new gluelab.workflow.stack.Conditions(base.device(), base.model(), base.dtype(), base.passes(), base.timing(), 3, ones, 3).describe());
    }

    @Test void eachKindOfPartNamesItsFileAndFunction() {
        ModelFix f = ModelFix.parse("norm=options:model.RMSNorm.forward:epilogue_fusion=false+regions:model.Attention.rope");
        assertEquals("Compile RMSNorm.forward with Inductor options epilogue_fusion=false + Compile Attention.rope as its own region", ModelChanges.title(f, LLAMA));
        assertEquals(List.of(new CodeChange("llama3.py", "RMSNorm.forward", 70, "compiled on its own with Inductor options epilogue_fusion=false")),
                ModelChanges.code(f.parts().get(0), LLAMA));
        assertEquals(List.of(new CodeChange("llama3.py", "Attention.rope", 87, "compiled on its own as a torch.compile region (fullgraph=True)")),
                ModelChanges.code(f.parts().get(1), LLAMA));
        assertEquals(List.of("model.RMSNorm.forward", "model.Attention.rope"), ModelChanges.compiledRegions(f));
        ModelFix ag = ModelFix.parse("ag=autograd:model.apply_rotary_emb=" + MODELS.resolve("rewrites.py") + ":apply_rotary_emb_autograd");
        assertEquals("ag=autograd:model.apply_rotary_emb=rewrites.py:apply_rotary_emb_autograd", ModelChanges.variant(ag));
        assertEquals(List.of(new CodeChange("llama3.py", "apply_rotary_emb", 48, "replaced by the autograd.Function `rewrites.py:apply_rotary_emb_autograd`"),
                new CodeChange("rewrites.py", "apply_rotary_emb_autograd", lineOf(MODELS.resolve("rewrites.py"), "def apply_rotary_emb_autograd("), "the replacement, with a hand-written backward")), ModelChanges.code(ag.parts().getFirst(), LLAMA));
        assertTrue(ModelChanges.at("Attention.rope (llama3.py:88)", "Attention.rope"));
        assertTrue(ModelChanges.at("RMSNorm.forward (llama3.py:72)", "RMSNorm"), "a class's methods are its lines");
        assertFalse(ModelChanges.at("apply_rotary_emb_real (rewrites.py:30)", "apply_rotary_emb"));
    }

    static gluelab.workflow.correctness.CheckRow row(String fix, String tensor, gluelab.check.ErrorStats vsFp64, double limit, boolean ok, String note) {
        return new gluelab.workflow.correctness.CheckRow("llama3.py:build", fix, gluelab.tensor.DType.FP32, "bwd", tensor, vsFp64, null, limit, ok, note);
    }

    static gluelab.check.ErrorStats relL2(double r) { return new gluelab.check.ErrorStats("t", "fp64", 10, r, 1, r, 0); }

    /** Rows that fail for want of an fp64 copy (DeepSeek-V3 at real dims) measured nothing wrong: the fix stays a change; a row over its limit rejects it. */
    @Test void aFixIsWrongOnlyByARowThatMeasuredItWrongAndItsWorstRowIsTheFurthestOverItsLimit() {
        ModelFix f = ModelFix.parse("rope=swap:model.apply_rotary_emb=" + MODELS.resolve("rewrites.py") + ":apply_rotary_emb_real");
        var win = new ModelConfirmResult.Row("rope", 32, Replay.DIRECT, 4450, 3, 4000, 3, 3, "", "");
        var unreferenced = new gluelab.workflow.correctness.CorrectnessResult(1, List.of(row("rope", "grad x", null, 0, false,
                FailedCheck.NO_REFERENCE + ": the fp64 copy's weights and gradients need 180 GiB; compared with eager only, so not passed")));
        var kept = stackOf(f, unreferenced, null, win);
        assertEquals(List.of("rope"), kept.changes().stream().map(c -> c.id()).toList(), kept.rejected().toString());
        // Its write-up says what step 08 did and why it gave no verdict, not that it checked nothing.
        String text = gluelab.workflow.writeup.PrText.markdown(kept, kept.change("rope"), null);
        String why = "no fp64 reference: the fp64 copy's weights and gradients need 180 GiB";
        assertTrue(text.contains("Step 08 compared every output and gradient with eager only (" + why + ")."), text);
        assertTrue(text.contains("- correctness vs fp64 (step 08 compared with eager only: " + why + ")"), text);
        assertTrue(text.contains("correctness: not passed, correctness vs fp64"), text);
        assertFalse(text.contains("has not checked") || text.contains("correctness of the output and gradients (step 08)"), text);
        assertEquals(List.of(), gluelab.workflow.writeup.PrChecker.check(text, "rope.md", null, kept));

        var wrong = new gluelab.workflow.correctness.CorrectnessResult(1, List.of(row("rope", "grad a", relL2(2e-5), 1e-5, false, ""),
                row("rope", "grad b", relL2(5e-5), 1e-5, false, ""), row("rope", "grad c", relL2(1e-6), 1e-5, true, "")));
        var rejected = stackOf(f, wrong, null, win);
        assertEquals(List.of(), rejected.changes());
        assertEquals(1, rejected.rejected().size());
        String rejectedWhy = rejected.rejected().getFirst().describe();
        assertTrue(rejectedWhy.startsWith("fix rope (swap, wrong in step 08): 2 of its 3 rows in step 08 fail (fp32); worst fp32 grad b: FAIL (rel L2 5.00e-05"), rejectedWhy);
        assertTrue(rejectedWhy.contains("; step 07 at 32 tokens, normal launch: 1.11x faster (4000.0 vs 4450.0 us"), "step 07's numbers stay: " + rejectedWhy);
    }

    @Test void aRegionStep06RanWithoutCountingSaysWhatStep06Counted() {
        ModelFix f = ModelFix.parse("rope=regions:model.Attention.rope");
        var row = new ModelConfirmResult.Row("rope", 32, Replay.DIRECT, 4450, 3, 4000, 3, 3, "", "");
        var other = new gluelab.workflow.graphbudget.RegionGraphs("per-block", 2, 8, 6, List.of(), List.of(32L), List.of(), "dynamo");
        var budget = new gluelab.workflow.graphbudget.BudgetResult(1, 8, 6, List.of(other), List.of());
        var c = stackOf(f, null, budget, row).change("rope");
        assertTrue(c.resultLines().contains("graphs Attention.rope: not measured, limit not checked (step 06 did not count it; it counted [per-block])"), c.resultLines().toString());
        var none = stackOf(f, row).change("rope");
        assertTrue(none.resultLines().contains("graphs Attention.rope: not measured, limit not checked (step 06 not run)"), none.resultLines().toString());
    }
}
