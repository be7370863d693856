package gluelab.workflow.writeup;

import gluelab.workflow.stack.StackSamples;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.*;

/**
 * For every rule a hand-edited text that breaks it, made from a generated text that passes: the
 * checker must name that rule at the edited line. A rule taken out of the checker fails its case.
 */
class PrCheckerTest {
    static final String GOOD = PrText.markdown(StackSamples.stack(), StackSamples.qNormRope(), "q-norm-rope.png");

    static String replace(String text, String from, String to) {
        assertTrue(text.contains(from), "the sample text has no '" + from + "'");
        return text.replace(from, to);
    }

    static String section(String text, String header) {
        int a = text.indexOf("## " + header + "\n"), b = text.indexOf("\n## ", a + 3);
        if (b < 0) b = text.indexOf("\n<details>", a);
        assertTrue(a >= 0 && b > a, header);
        return text.substring(a, b + 1);
    }

    /** The q-norm-rope change as a loaded machine leaves it: every before -> after carries its caveat. */
    static final String CAVEAT = "noisy: 6 of 6 measurements (noise 3.10% > 0.50%, ...); device not quiet";

    static gluelab.workflow.stack.ChangeStack noisyStack() {
        gluelab.workflow.stack.Change c = StackSamples.qNormRope();
        gluelab.workflow.stack.Change noisy = new gluelab.workflow.stack.Change(c.id(), c.title(), c.kind(), c.variant(), c.region(),
                c.deltas().stream().map(d -> d.withCaveat(CAVEAT)).toList(), c.layerShare(), c.correctness(), c.graphs(), c.commit(), c.config(),
                c.scope(), c.problem(), c.solution(), c.unchanged(), c.diagram(), c.rejected(), c.notTested(), c.testPlan(), c.code());
        return StackSamples.stack().with(noisy);
    }

    static final String GOOD_NOISY = PrText.markdown(noisyStack(), noisyStack().changes().stream().filter(x -> x.id().equals("q-norm-rope")).findFirst().orElseThrow(), "q-norm-rope.png");

    /** The broken text for each rule. */
    static final Map<PrRule, UnaryOperator<String>> BREAK = new EnumMap<>(PrRule.class);

    static {
        BREAK.put(PrRule.TLDR, t -> replace(t, t.lines().filter(l -> l.startsWith("TLDR")).findFirst().orElseThrow() + "\n", ""));
        BREAK.put(PrRule.PROBLEM_STEPS, t -> replace(t, "3. Each region launches its own kernels in forward and backward.\n", ""));
        BREAK.put(PrRule.PROBLEM_COST, t -> replace(t, "4. Cost: 1497 us at 16k tokens (fwd+bwd), 6.00% of the layer.", "4. Cost: most of the q path."));
        BREAK.put(PrRule.SOLUTION_STEPS, t -> replace(t, "4. Unchanged:", "- also the backward\n4. Unchanged:"));
        BREAK.put(PrRule.SOLUTION_UNCHANGED, t -> replace(t, "4. Unchanged: the model code, the numerics and the other regions.", "4. The region compiles once."));
        BREAK.put(PrRule.ONE_FACT, t -> replace(t, "1. One region q_norm_rope holds the norm and RoPE.", "1. One region holds the norm and RoPE. It compiles once."));
        BREAK.put(PrRule.CODE, t -> replace(t, "`torchtitan/models/deepseek_v3/model.py:Attention.forward`", "the attention module"));
        BREAK.put(PrRule.DIAGRAM, t -> replace(t, section(t, "Diagram"), ""));
        BREAK.put(PrRule.NUMBERS_IN_CODE, t -> replace(t, "- region q_norm_rope: dsv3-ours", "- dsv3-ours went 1497 -> 1044 us\n- region q_norm_rope: dsv3-ours"));
        BREAK.put(PrRule.CONDITIONS_ABOVE, t -> replace(t, "```\nNVIDIA H200, dsv3-ours, bf16, fwd+bwd, cold samples, median of 3 fresh processes, variant region q_norm_rope (norm + RoPE), fused\n", "```\n"));
        BREAK.put(PrRule.DIRECTION, t -> replace(t, "- a global cat-lowering option", "- per-site norm regions: 1.3x slower\n- a global cat-lowering option"));
        BREAK.put(PrRule.REACH, t -> replace(t, section(t, "Reach"), "## Reach\n\n"));
        BREAK.put(PrRule.NO_PARAGRAPHS, t -> replace(t, "## Problem\n", "The q path was the biggest item of the ranking.\n\n## Problem\n"));
        BREAK.put(PrRule.NO_TABLES, t -> replace(t, "## Results\n", "| tokens | before | after |\n|---|---|---|\n\n## Results\n"));
        BREAK.put(PrRule.RESULTS, t -> replace(replace(t, "correctness vs eager bf16: rel L2 2.1e-03, max 1 ulp, pass\n", ""),
                "correctness vs fp64 reference: rel L2 1.4e-03, max 1 ulp, pass\n", ""));
        BREAK.put(PrRule.REJECTED, t -> replace(t, section(t, "Rejected alternatives"), "## Rejected alternatives\n\n"));
        BREAK.put(PrRule.NOT_TESTED, t -> replace(t, section(t, "Not tested"), "## Not tested\n\n"));
        BREAK.put(PrRule.TEST_PLAN, t -> replace(t, section(t, "Test plan"), "## Test plan\n\n"));
        BREAK.put(PrRule.STACK_SUMMARY, t -> replace(t, "  <- this PR", ""));
        BREAK.put(PrRule.SECTION_ORDER, t -> {
            String plan = section(t, "Test plan");
            return replace(replace(t, plan, ""), "## Not tested\n", plan + "## Not tested\n");
        });
        BREAK.put(PrRule.CHART_FILES, t -> replace(t, "(q-norm-rope.png)", "(/home/me/q-norm-rope.png)"));
        // a hand edit that drops the caveat from the TLDR's headline (checked against the noisy stack)
        BREAK.put(PrRule.EVIDENCE, t -> replace(GOOD_NOISY, " (-30.3%, ~1.43x faster) (caveat: " + CAVEAT + ")", " (-30.3%, 1.43x faster)"));
    }

    /** The stack a rule's broken sample is checked against. */
    static gluelab.workflow.stack.ChangeStack stackFor(PrRule rule) { return rule == PrRule.EVIDENCE ? noisyStack() : null; }

    @Test
    void aNoisyStacksGeneratedTextPassesAndCarriesEveryCaveat() {
        assertEquals(List.of(), PrChecker.check(GOOD_NOISY, "noisy.md", null, noisyStack()));
        assertTrue(GOOD_NOISY.lines().filter(l -> l.startsWith("TLDR")).findFirst().orElseThrow().contains("(caveat: " + CAVEAT + ")"), GOOD_NOISY);
        assertTrue(GOOD_NOISY.contains("16k tokens, graph replay: 1402 -> 1021 us (-27.2%, ~1.37x faster) (caveat: " + CAVEAT + ")"), GOOD_NOISY);
    }

    @Test
    void aRatioQuotedWithoutItsCaveatIsCaught() {
        String bad = replace(GOOD_NOISY, "## Rejected alternatives\n\n", "## Rejected alternatives\n\n- nothing else came near the 1.43x of this change\n");
        assertTrue(PrChecker.check(bad, "bad.md", null, noisyStack()).stream().anyMatch(v -> v.rule() == PrRule.EVIDENCE));
        assertTrue(PrChecker.check(GOOD, "good.md", null, StackSamples.stack()).isEmpty(), "a sound stack asks for no caveat");
    }

    /** The model story's stack on the H200: 2k clean, 8k and 32k noisy, each ratio shared by two workloads with other caveats. */
    static gluelab.workflow.stack.ChangeStack sharedRatios() {
        gluelab.workflow.stack.Change c = StackSamples.qNormRope();
        var direct = gluelab.ops.Replay.DIRECT;
        var graph = gluelab.ops.Replay.GRAPH;
        List<gluelab.workflow.stack.Delta> deltas = List.of(gluelab.workflow.stack.Delta.of(2048, direct, 10218, 9990),
                gluelab.workflow.stack.Delta.of(2048, graph, 9947, 9748),
                gluelab.workflow.stack.Delta.of(8192, direct, 43800, 43000).withCaveat("noisy: 4 of 6 measurements"),
                gluelab.workflow.stack.Delta.of(8192, graph, 43500, 42700).withCaveat("noisy: 5 of 6 measurements"),
                gluelab.workflow.stack.Delta.of(32768, direct, 267100, 264100).withCaveat("noisy: n=4 < 10"),
                gluelab.workflow.stack.Delta.of(32768, graph, 266700, 263900).withCaveat("noisy: n=4 < 10, noise 0.71%"));
        gluelab.workflow.stack.Change shared = new gluelab.workflow.stack.Change(c.id(), c.title(), c.kind(), c.variant(), c.region(), deltas, c.layerShare(),
                c.correctness(), c.graphs(), c.commit(), c.config(), c.scope(), c.problem(), c.solution(), c.unchanged(), c.diagram(), c.rejected(), c.notTested(),
                c.testPlan(), c.code());
        return StackSamples.stack().with(shared);
    }

    @Test
    void aLineQuotingItsOwnPairIsNotAQuoteOfAnotherWorkloadWithTheSameRatio() {
        var stack = sharedRatios();
        String text = PrText.markdown(stack, stack.changes().stream().filter(x -> x.id().equals("q-norm-rope")).findFirst().orElseThrow(), "q-norm-rope.png");
        assertTrue(text.contains("2k tokens: 10.2 -> 9.99 ms (-2.2%, 1.02x faster)\n"), text);
        assertEquals(List.of(), PrChecker.check(text, "shared.md", null, stack));
        // a ratio alone may mean any workload with it: each caveated one must ride along
        String bad = replace(text, "## Rejected alternatives\n\n", "## Rejected alternatives\n\n- nothing else came near 1.01x faster (caveat: noisy: n=4 < 10)\n");
        var v = PrChecker.check(bad, "bad.md", null, stack).stream().filter(x -> x.rule() == PrRule.EVIDENCE).toList();
        assertEquals(1, v.size(), v.toString());
        assertTrue(v.getFirst().message().contains("32k tokens, graph replay"), v.toString());
    }

    /** CI's loaded machine: step 05's region lost by 1.81x (its own numbers), the change's noisy delta was 1.81x too. */
    @Test
    void aRejectedAlternativeWithItsOwnNumbersIsNotAQuoteOfACaveatedDeltaWithTheSameRatio() {
        gluelab.workflow.stack.Change c = StackSamples.qNormRope();
        var noisy = gluelab.workflow.stack.Delta.of(16, gluelab.ops.Replay.DIRECT, 40500, 22376).withCaveat("noisy: 2 of 6 measurements (timeout); device not quiet");
        assertTrue(noisy.direction().startsWith("1.81x faster"), noisy.direction());
        var rejected = List.of(new gluelab.workflow.stack.Rejected("expression region 'rmsnorm region' (fwd, 16 tokens)", "1.81x slower (2429.0 vs 1342.3 us, ideal 5.4)"));
        gluelab.workflow.stack.Change one = new gluelab.workflow.stack.Change(c.id(), c.title(), c.kind(), c.variant(), c.region(), List.of(noisy), c.layerShare(),
                c.correctness(), c.graphs(), c.commit(), c.config(), c.scope(), c.problem(), c.solution(), c.unchanged(), c.diagram(), rejected, c.notTested(),
                c.testPlan(), c.code());
        var stack = StackSamples.stack().with(one);
        String text = PrText.markdown(stack, one, "q-norm-rope.png");
        assertTrue(text.contains("- expression region 'rmsnorm region' (fwd, 16 tokens): 1.81x slower (2429.0 vs 1342.3 us"), text);
        assertEquals(List.of(), PrChecker.check(text, "loaded.md", null, stack));
        // the same ratio with no numbers of its own may mean the delta: its caveat must ride along
        String bad = replace(text, "## Rejected alternatives\n\n", "## Rejected alternatives\n\n- nothing else came near 1.81x faster\n");
        assertTrue(PrChecker.check(bad, "bad.md", null, stack).stream().anyMatch(x -> x.rule() == PrRule.EVIDENCE), bad);
    }

    @Test
    void theGeneratedSamplePasses() {
        assertEquals(List.of(), PrChecker.check(GOOD, "good.md", null));
    }

    @Test
    void everyRuleHasABrokenSample() {
        assertEquals(List.of(PrRule.values()), List.copyOf(BREAK.keySet()));
    }

    @ParameterizedTest
    @EnumSource(PrRule.class)
    void eachRuleCatchesAHandEditedTextThatBreaksIt(PrRule rule) {
        String bad = BREAK.get(rule).apply(GOOD);
        assertNotEquals(GOOD, bad);
        List<Violation> v = PrChecker.check(bad, "bad.md", null, stackFor(rule));
        assertTrue(v.stream().anyMatch(x -> x.rule() == rule), rule + " not caught; got " + v + "\n" + bad);
        for (Violation x : v) {
            assertEquals("bad.md", x.source());
            assertTrue(x.line() >= 1 && x.line() <= bad.lines().count(), x.toString());
        }
    }

    @Test
    void violationsNameFileLineAndRule(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("pr.md");
        Files.writeString(f, BREAK.get(PrRule.ONE_FACT).apply(GOOD));
        List<Violation> v = PrChecker.check(f);
        int line = GOOD.lines().toList().indexOf("1. One region q_norm_rope holds the norm and RoPE.") + 1;
        assertTrue(v.contains(new Violation(f.toString(), line, PrRule.ONE_FACT, "a step with more than one sentence; split it, one fact a line")), v.toString());
        // the chart it links is not beside it
        assertTrue(v.stream().anyMatch(x -> x.rule() == PrRule.CHART_FILES && x.message().contains("does not exist beside the text")), v.toString());
        assertEquals(f + ":" + line + ": [one-fact] a step with more than one sentence; split it, one fact a line",
                v.stream().filter(x -> x.rule() == PrRule.ONE_FACT).findFirst().orElseThrow().toString());
    }

    @Test
    void aTextNamesTheFilesAndFunctionsItChanges() {
        assertTrue(GOOD.contains("## Code\n\n- `torchtitan/models/deepseek_v3/model.py:Attention.forward`: q norm and RoPE called inside region q_norm_rope\n"), GOOD);
        String other = replace(GOOD, section(GOOD, "Code"), "## Code\n\n- `kernels/src/main/cuda/rmsnorm.cu:fused_rmsnorm_fwd` (def at line 84): the fused kernel\n- llama3.py:Attention.rope: compiled\n\n");
        assertEquals(List.of(), PrChecker.check(other, "ok.md", null));

        String none = replace(GOOD, section(GOOD, "Code"), "");
        List<Violation> v = PrChecker.check(none, "none.md", null);
        assertEquals(List.of(new Violation("none.md", 1, PrRule.CODE,
                "no \"## Code\" section; list each file and function the change edits (\"- `llama3.py:apply_rotary_emb`: replaced by ...\")")), v);

        String vague = replace(GOOD, section(GOOD, "Code"), "## Code\n\n- the attention module\n- model.py without a function\n\n");
        v = PrChecker.check(vague, "vague.md", null);
        assertEquals(2, v.size(), v.toString());
        assertTrue(v.stream().allMatch(x -> x.rule() == PrRule.CODE && x.message().startsWith("a Code item that names no file and function")), v.toString());
        int line = vague.lines().toList().indexOf("- the attention module") + 1;
        assertEquals(line, v.getFirst().line());
    }

    @Test
    void abbreviationsAndTheTldrHeadlineAreNotViolations() {
        String t = replace(GOOD, "1. One region q_norm_rope holds the norm and RoPE.", "1. One region holds the norm and RoPE, e.g. for q.");
        assertEquals(List.of(), PrChecker.check(t, "ok.md", null));
        // the method's own example headline
        String tldr = GOOD.lines().filter(l -> l.startsWith("TLDR")).findFirst().orElseThrow();
        t = replace(GOOD, tldr, "TLDR: upstream regions -> stack, 16k tokens 240.1 -> 75.1 ms (-69%)");
        assertEquals(List.of(), PrChecker.check(t, "ok.md", null));
    }
}
