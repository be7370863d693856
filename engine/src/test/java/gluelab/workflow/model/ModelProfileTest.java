package gluelab.workflow.model;

import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.floor.FlopPeak;
import gluelab.floor.OpKind;
import gluelab.model.Presets;
import gluelab.progress.Progress;
import gluelab.rank.SourceCandidate;
import gluelab.rank.SourceRanking;
import gluelab.torch.ModelProfile;
import gluelab.torch.ModelTree;
import gluelab.torch.PythonChoice;
import gluelab.torch.TorchPython;
import gluelab.torch.TorchSide;
import gluelab.trace.Trace;
import gluelab.trace.TraceReader;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.experiment.Step;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Steps 03 and 04 on the shipped Llama-3 example at tiny dims with the real torch 2.13 CPU, one
 * experiment profiled once for the class (one Inductor cache for the run): gluelab drives
 * torch.profiler itself, keeps the traces for the trace import (whose per-op totals equal torch's
 * key_averages() of the same run), names the statement of the model file each op ran under (checked
 * against the file's own text), floors GEMMs and attention by their FLOPs, and ranks per location and op.
 */
@Tag("slow")
class ModelProfileTest {
    static final Path LLAMA = ModelPlanTest.EXAMPLES.resolve("llama3.py");
    /** A declared peak, so the hand count's FLOP floors are the ranking's to the digit: 50 GFLOP/s. */
    static final FlopPeak PEAK = FlopPeak.declared(50e9);
    static final double BANDWIDTH = 10e9;
    static final long T = 16, D = 64, HEADS = 4, HEAD_DIM = D / HEADS;

    @TempDir static Path root;
    static Device cpu;
    static TorchSide torch;
    static ExperimentFolder ex;
    static ModelProfileStep.Result result;
    static ModelProfile.TreeProfile eager;

    @BeforeAll static void profileOnce() {
        TorchPython.useSharedInductorCache();
        PythonChoice python = TorchPython.withCompile();
        assumeTrue(python != null, TorchPython::whyNoCompile);
        cpu = Devices.open("cpu");
        torch = TorchSide.start(python, cpu);
        ex = ExperimentFolder.open("llama", root);
        ModelPlan.write(ex, torch.bridge(), Presets.LLAMA_3_8B, new ModelSubject(LLAMA.toString(), "build", "x:T," + D + ":fp32", "",
                List.of("model.Attention.rope")), List.of(T), 0.01, "cpu");
        result = ModelProfileStep.run(ex, cpu, torch.bridge(), Presets.LLAMA_3_8B, BANDWIDTH, Progress.NONE);
        eager = result.profile().tree(ModelTree.EAGER).orElseThrow();
    }

    @AfterAll static void stop() {
        if (torch != null) torch.close();
        if (cpu != null) cpu.close();
    }

    /** The 1-based line of the first line holding {@code text} (after {@code class cls} when given): the hand count of where an op is called. */
    static int lineOf(Path file, String cls, String text) throws Exception {
        List<String> lines = Files.readAllLines(file);
        int i = 0;
        if (cls != null) while (!lines.get(i).startsWith("class " + cls)) i++;
        for (; i < lines.size(); i++) if (lines.get(i).contains(text)) return i + 1;
        throw new AssertionError("'" + text + "' not in " + file);
    }

    static List<ModelProfile.SourceRow> at(String location, String op, String pass) {
        return eager.rows().stream().filter(r -> r.location().equals(location) && r.op().equals(op) && r.pass().equals(pass)).toList();
    }

    static List<String> locations() { return eager.rows().stream().map(ModelProfile.SourceRow::location).distinct().toList(); }

    @Test void eachTreeIsProfiledAndItsTraceKeptInTheExperiment() throws Exception {
        ModelProfile p = result.profile();
        assertEquals(List.of(ModelTree.EAGER, ModelTree.PER_BLOCK, ModelTree.WHOLE, ModelTree.REGIONS), p.trees().stream().map(ModelProfile.TreeProfile::tree).toList());
        for (var t : p.trees()) {
            assertFalse(t.failed(), t.tree() + ": " + t.error());
            assertTrue(Files.isRegularFile(Path.of(t.trace())) && Path.of(t.trace()).startsWith(ex.dir()), "the trace is kept in the experiment: " + t.trace());
            Trace trace = TraceReader.read(Path.of(t.trace()));
            assertTrue(trace.recordShapes() && trace.backward(), t.tree() + ": a fwd+bwd trace with shapes");
            assertTrue(t.stepUs() > 0 && !t.rows().isEmpty());
        }
        assertEquals(3, result.diffs().size(), "each compiled tree diffed against eager");
        String md = Files.readString(ex.file(Step.PROFILE_DIFF, ModelProfileStep.SUMMARY));
        assertTrue(md.contains("no kernels (the CPU runs ops)") && md.contains("against eager: ops per step ") && md.contains("; the mean of 3 profiled steps, with the profiler's overhead and no noise bound: step 01 times the trees)") && !md.contains("kernel time +0.0 us"),
                "the CPU's trees compare by their ops, not by kernels it has none of:\n" + md);
        double sum = eager.rows().stream().mapToDouble(ModelProfile.SourceRow::us).sum();
        assertEquals(sum, eager.stepUs(), 1e-6 * sum, "the step is the sum of the rows");
        assertTrue(ex.has(Step.PROFILE_DIFF));
        assertEquals(p.trees().size(), ModelProfileStep.load(ex).trees().size());
        assertEquals(eager.rows().getFirst().kind(), ModelProfileStep.load(ex).tree(ModelTree.EAGER).orElseThrow().rows().getFirst().kind());
    }

    @Test void eachOpIsGivenTheStatementOfTheModelFileThatCalledIt() throws Exception {
        String norm = "RMSNorm.forward (llama3.py:" + lineOf(LLAMA, "RMSNorm", "torch.rsqrt(") + ")";
        assertFalse(at(norm, "aten::rsqrt", "fwd").isEmpty(), "the norm's rsqrt at its statement " + norm + ": " + locations());
        assertFalse(eager.rows().stream().filter(r -> r.location().equals(norm) && r.pass().equals("bwd")).toList().isEmpty(),
                "a backward op is given to its forward op's statement");
        String rope = "apply_rotary_emb (llama3.py:" + lineOf(LLAMA, null, "xq_out = torch.view_as_real(xq_ * freqs_cis)") + ")";
        assertFalse(at(rope, "aten::mul", "fwd").isEmpty(), rope + ": " + locations());
        String wq = "Attention.forward (llama3.py:" + lineOf(LLAMA, "Attention", "xq = self.wq(x)") + ")";
        String wk = "Attention.forward (llama3.py:" + lineOf(LLAMA, "Attention", "xk = self.wk(x)") + ")";
        assertFalse(at(wq, "aten::mm", "fwd").isEmpty() || at(wk, "aten::mm", "fwd").isEmpty(), "two projections, two statements: " + locations());
        String sdpa = "Attention.forward (llama3.py:" + lineOf(LLAMA, "Attention", "F.scaled_dot_product_attention(") + ")";
        assertFalse(at(sdpa, "aten::_scaled_dot_product_flash_attention_for_cpu", "fwd").isEmpty(), sdpa + ": " + locations());
    }

    @Test void gemmsAndAttentionCarryTheirFlopsAndAreNotGlue() throws Exception {
        String wq = "Attention.forward (llama3.py:" + lineOf(LLAMA, "Attention", "xq = self.wq(x)") + ")";
        for (var r : at(wq, "aten::mm", "fwd")) {
            assertEquals(OpKind.GEMM, r.kind());
            assertEquals("fp32", r.dtype());
            assertEquals(2, r.calls(), "one call per layer at one statement");
            assertEquals(r.calls() * 2 * T * D * D, r.flops(), "2mnk per call: " + r);
        }
        String sdpa = "Attention.forward (llama3.py:" + lineOf(LLAMA, "Attention", "F.scaled_dot_product_attention(") + ")";
        for (var r : at(sdpa, "aten::_scaled_dot_product_flash_attention_for_cpu", "fwd")) {
            assertEquals(OpKind.ATTENTION, r.kind());
            assertEquals(r.calls() * 4 * HEADS * T * T * HEAD_DIM, r.flops(), "QK^T and PV, 2 x b h s s d each: " + r);
        }
        assertTrue(eager.rows().stream().anyMatch(r -> r.op().equals("aten::_scaled_dot_product_flash_attention_for_cpu_backward")
                && r.kind() == OpKind.ATTENTION && r.flops() > 0), "attention's backward has its FLOPs");
        for (var r : eager.rows()) {
            if (r.op().equals("aten::rsqrt") || r.op().equals("aten::mul") || r.op().equals("aten::add")) assertEquals(OpKind.GLUE, r.kind(), r.toString());
            if (r.kind() == OpKind.GLUE) assertEquals(0, r.flops(), r.toString());
        }
    }

    /** Views, allocations and autograd nodes move no data: on the CPU their self time is host bookkeeping, never a glue candidate. */
    @Test void viewsAndAutogradNodesAreOverheadWithNoBytes() {
        var views = List.of("aten::t", "aten::view", "aten::transpose", "aten::as_strided", "aten::view_as_real", "aten::view_as_complex", "aten::unsqueeze");
        var seen = new java.util.TreeSet<String>();
        for (var r : eager.rows()) {
            boolean noData = views.contains(r.op()) || r.op().equals("torch::autograd::AccumulateGrad") || r.op().matches("[A-Z]\\w*Backward\\d*");
            if (noData) {
                seen.add(r.op());
                assertEquals(OpKind.OVERHEAD, r.kind(), r.toString());
                assertEquals(0, r.bytes(), r.toString());
            }
        }
        assertTrue(seen.stream().anyMatch(views::contains) && seen.stream().anyMatch(o -> o.endsWith("Backward0")), "the eager profile on the CPU holds views and autograd nodes: " + seen);
        SourceRanking ranking = ModelRankStep.ranking(eager, BANDWIDTH, PEAK, 0.01);
        for (SourceCandidate c : ranking.ranked()) {
            if (c.kind() == OpKind.OVERHEAD) {
                assertEquals(0, c.idealUs(), 0, c.label());
                assertEquals("no data moved", ranking.verdict(c));
            }
        }
        assertTrue(ranking.worthFixing().stream().noneMatch(c -> c.kind() == OpKind.OVERHEAD));
        String header = ranking.text(1).lines().findFirst().orElseThrow();
        assertTrue(header.matches(".*\\bpass\\s+kind\\s+calls\\b.*"), "the header names the kind column its rows print: " + header);
    }

    @Test void theTraceImportsPerOpTotalsEqualTorchsKeyAveragesOfTheSameRun() {
        for (var t : result.profile().trees()) {
            Trace trace = TraceReader.read(Path.of(t.trace()));
            Map<String, ModelProfile.KeyAverage> torch = new LinkedHashMap<>();
            for (var k : t.keyAverages()) if (k.device().equals("cpu")) torch.put(k.key(), k);
            assertFalse(trace.cpuOps().isEmpty(), t.tree() + ": per-op totals");
            int aten = 0;
            for (Trace.CpuOpTime op : trace.cpuOps()) {
                ModelProfile.KeyAverage k = torch.get(op.name());
                assertNotNull(k, t.tree() + ": " + op.name() + " is in the trace, not in key_averages()");
                assertEquals(k.count(), op.count(), t.tree() + ": calls of " + op.name());
                // The trace writes each duration rounded to the microsecond's third decimal.
                assertEquals(k.cpuUs(), op.totalUs(), 1e-3 * op.count() + 1e-6 * k.cpuUs(), t.tree() + ": total us of " + op.name());
                if (op.name().startsWith("aten::")) aten++;
            }
            for (var k : torch.values()) {
                if (k.key().startsWith("aten::")) {
                    assertTrue(trace.cpuOps().stream().anyMatch(o -> o.name().equals(k.key())), t.tree() + ": " + k.key() + " in key_averages(), not in the trace");
                }
            }
            assertTrue(aten > 10, t.tree() + ": " + aten + " aten ops compared");
        }
    }

    /** An op at one line called with two input shapes is two rows: the shapes tell them apart, in the summary and in the notebook's table. */
    @Test void rowsSplitByInputShapesShowTheirShapes() throws Exception {
        var split = eager.rows().stream().collect(java.util.stream.Collectors.groupingBy(r -> List.of(r.location(), r.op(), r.pass()), java.util.stream.Collectors.counting()));
        assertTrue(split.values().stream().anyMatch(n -> n > 1), "the Llama profile has an op at one line with two input shapes: " + split);
        var t = ModelTables.sourceRows(eager, 1000);
        var seen = new java.util.HashSet<List<String>>();
        for (int i = 0; i < t.rowCount(); i++) {
            List<String> row = List.of(t.stringColumn("location").get(i), t.stringColumn("op").get(i), t.stringColumn("pass").get(i), t.stringColumn("input_shapes").get(i));
            assertTrue(seen.add(row), "two rows look alike: " + row);
        }
        String md = Files.readString(ex.file(Step.PROFILE_DIFF, ModelProfileStep.SUMMARY));
        assertTrue(md.contains("| location | op | pass | input shapes | calls | us |"), md);
        var mdRows = new java.util.HashSet<List<String>>();
        for (String line : md.lines().toList()) {
            if (line.startsWith("## ")) mdRows.clear();  // a table per tree
            if (!line.startsWith("| ") || line.startsWith("| location")) continue;
            List<String> cells = List.of(line.split(" \\| "));
            assertTrue(cells.get(3).startsWith("["), "the input shapes cell: " + line);
            assertTrue(mdRows.add(cells.subList(0, 5)), "two rows of one tree's summary look alike but for their time: " + line + "\n" + md);
        }
    }

    /** On the CPU a 0-dim tensor (a Python scalar made a tensor) has dims [] as a non-tensor does: its copy_ was floored at 0 bytes. */
    @Test void aZeroDimCopyGetsItsBytesFromTheTrace() {
        List<ModelProfile.SourceRow> copies = eager.rows().stream().filter(r -> r.op().equals("aten::copy_") && r.shapes().equals("[[], [], []]")).toList();
        assertFalse(copies.isEmpty(), "the eager Llama profile copies scalars to 0-dim tensors (x + eps): " + eager.rows().stream().map(ModelProfile.SourceRow::op).distinct().toList());
        InputBytes bytes = InputBytes.of(eager);
        for (ModelProfile.SourceRow r : copies) {
            assertEquals(0, r.bytes(), "the harness's shapes hold no dims for it: " + r);
            InputBytes.Row b = bytes.of(r);
            // Hand count from the trace: each copy writes a float and reads a long int or a double (the scalar torch made a tensor of).
            assertEquals(12L * r.calls(), b.bytes(), r + ": " + b);
            assertTrue(b.note().contains("0-dim tensor inputs from the trace"), b.note());
        }
        SourceRanking ranking = ModelRankStep.ranking(eager, BANDWIDTH, PEAK, 0.01);
        for (SourceCandidate c : ranking.ranked()) {
            if (c.op().equals("aten::copy_")) assertTrue(c.idealUs() > 0, "a copy moves bytes, so its floor is not 0: " + c);
        }
        var ideals = ModelIdealTimesStep.table(eager, T, BANDWIDTH, PEAK);
        var copyRows = ideals.where(ideals.stringColumn("op").isEqualTo("aten::copy_"));
        assertTrue(copyRows.rowCount() > 0 && copyRows.longColumn("floor_bytes").asList().stream().allMatch(b -> b != null && b > 0), copyRows.print());
    }

    /** aten::cat's inputs are a tensor list: the profiler's per-op shapes give it [] and no dtype, so its floor was 0 bytes. */
    @Test void aCatsTensorListGetsItsBytesFromTheTrace(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("cat.py"), """
                import torch

                class Cat(torch.nn.Module):
                    def __init__(self):
                        super().__init__()
                        self.w = torch.nn.Parameter(torch.ones(8))

                    def forward(self, x):
                        return torch.cat([x * self.w, x], dim=-1)

                def build(T):
                    return Cat()
                """);
        ModelProfile p = ModelProfile.run(torch.bridge(), gluelab.torch.ModelEntry.parse(file + ":build"),
                List.of(gluelab.tensor.TensorSpec.of("x", gluelab.tensor.DType.FP32, T, 8)), T, List.of(ModelTree.EAGER), List.of(), "", dir, Progress.NONE);
        ModelProfile.TreeProfile tree = p.tree(ModelTree.EAGER).orElseThrow();
        assertFalse(tree.failed(), tree.error());
        List<ModelProfile.SourceRow> cats = tree.rows().stream().filter(r -> r.op().equals("aten::cat") && r.pass().equals("fwd")).toList();
        assertFalse(cats.isEmpty(), tree.rows().toString());
        for (ModelProfile.SourceRow r : cats) {
            assertEquals(0, r.bytes(), "the harness's shapes hold no dims for a tensor list: " + r);
            InputBytes.Row b = InputBytes.of(tree).of(r);
            // Hand count: two (T, 8) fp32 tensors read per call.
            assertEquals(2L * T * 8 * 4 * r.calls(), b.bytes(), r + ": " + b);
            assertTrue(b.note().contains("tensor lists (taken as fp32, the profile's commonest dtype) from the trace"), b.note());
        }
    }

    /** A glue op whose profile recorded no tensor inputs (aten::zeros: a size list) has no floor: bytes unknown, not an ideal of 0, and not ranked. */
    @Test void anOpWithoutRecordedTensorInputsIsBytesUnknownAndNotRanked() {
        SourceRanking ranking = ModelRankStep.ranking(eager, BANDWIDTH, PEAK, 0.01);
        assertTrue(ranking.bytesUnknown().stream().anyMatch(c -> c.op().equals("aten::zeros")), "SDPA's backward on the CPU allocates with aten::zeros: "
                + ranking.bytesUnknown());
        for (SourceCandidate c : ranking.bytesUnknown()) {
            assertNotEquals(OpKind.OVERHEAD, c.kind(), c.label());
            assertTrue(Double.isNaN(c.idealUs()) && Double.isNaN(c.score()), c.label());
            assertEquals("bytes unknown", ranking.verdict(c));
            assertFalse(ranking.worthFixing(c));
        }
        assertTrue(ranking.ranked().stream().allMatch(SourceCandidate::floorKnown), "only ops with a floor are ranked");
        String text = ranking.text(1000);
        assertTrue(text.contains("not ranked, no floor: ") && text.lines().anyMatch(l -> l.contains("aten::zeros") && l.contains("unknown") && l.endsWith("bytes unknown")), text);
        var table = ModelTables.ranking(ranking, 1000);
        var zeros = table.where(table.stringColumn("op").isEqualTo("aten::zeros"));
        assertTrue(zeros.rowCount() > 0 && zeros.intColumn("rank").isMissing().size() == zeros.rowCount() && zeros.doubleColumn("ideal_us").isMissing().size() == zeros.rowCount()
                && zeros.stringColumn("verdict").asList().stream().allMatch("bytes unknown"::equals), zeros.print());
        var ideals = ModelIdealTimesStep.table(eager, T, BANDWIDTH, PEAK);
        var unknown = ideals.where(ideals.stringColumn("op").isEqualTo("aten::zeros"));
        assertTrue(unknown.rowCount() > 0 && unknown.longColumn("floor_bytes").isMissing().size() == unknown.rowCount()
                && unknown.stringColumn("bound").asList().stream().allMatch("unknown"::equals)
                && unknown.stringColumn("bytes_note").asList().stream().allMatch(InputBytes.UNKNOWN_NOTE::equals), unknown.print());
    }

    /** aten::_scaled_dot_product_flash_attention_for_cpu_backward pushed the rank table's columns out of line. */
    @Test void longOpNamesKeepTheRankTablesColumnsInLine() {
        String text = ModelRankStep.ranking(eager, BANDWIDTH, PEAK, 0.01).text(1000);
        List<String> lines = text.lines().toList();
        int pass = lines.getFirst().indexOf(" pass ") + 1, measured = lines.getFirst().indexOf("measured_us");
        assertTrue(eager.rows().stream().anyMatch(r -> r.op().length() > SourceRanking.OP_WIDTH), "the profile has an op name wider than the column");
        for (String l : lines) {
            if (!l.matches("  (\\d+|-) .*")) continue;
            assertTrue(l.startsWith("fwd ", pass) || l.startsWith("bwd ", pass), "the pass column in line:\n" + lines.getFirst() + "\n" + l);
            assertEquals(' ', l.charAt(measured - 1), l);
        }
        assertTrue(text.contains("aten::_scaled_dot...for_cpu_backward"), "a long name keeps its start and its end: " + text);
    }

    /** A hand count: per (location, op, pass) the profile's self times and ideals summed, ranked by (measured - ideal) x share. */
    static double handIdeal(ModelProfile.SourceRow r) {
        double bytesUs = 2.0 * r.bytes() / BANDWIDTH * 1e6;
        double flopUs = r.kind() == OpKind.GLUE ? 0 : r.flops() / 50e9 * 1e6;
        return Math.max(bytesUs, flopUs);
    }

    @Test void theRankingFloorsGemmsByTheirFlopsAndOffersOnlyGlueAsFixes() throws Exception {
        SourceRanking ranking = ModelRankStep.run(ex, ModelTree.EAGER, BANDWIDTH, PEAK);
        List<SourceCandidate> ranked = ranking.ranked();
        for (int i = 1; i < ranked.size(); i++) assertTrue(ranked.get(i - 1).score() >= ranked.get(i).score());
        var byKey = new LinkedHashMap<List<String>, double[]>();
        for (var r : eager.rows()) {
            double[] s = byKey.computeIfAbsent(List.of(r.location(), r.op(), r.pass()), k -> new double[2]);
            s[0] += r.us();
            s[1] += handIdeal(r);
        }
        double step = eager.stepUs();
        List<List<String>> hand = byKey.entrySet().stream()
                .sorted((a, b) -> Double.compare(score(b.getValue(), step), score(a.getValue(), step)))
                .limit(5).map(Map.Entry::getKey).toList();
        assertEquals(hand, ranked.stream().limit(5).map(c -> List.of(c.location(), c.op(), c.pass())).toList());

        SourceCandidate mm = ranked.stream().filter(c -> c.op().equals("aten::mm") && c.pass().equals("fwd")).findFirst().orElseThrow();
        assertEquals(OpKind.GEMM, mm.kind());
        assertEquals("not glue", ranking.verdict(mm));
        assertTrue(ranking.worthFixing().stream().allMatch(c -> c.kind() == OpKind.GLUE), "only glue is a fix candidate");
        for (SourceCandidate c : ranked) {
            if (c.kind() == OpKind.GLUE) assertEquals(c.gapShare() >= 0.01 ? "fix" : "below stop rule", ranking.verdict(c), c.label());
        }
        String md = Files.readString(ex.file(Step.RANK, ModelRankStep.FILE));
        assertTrue(md.contains("llama3.py:") && md.contains("not glue") && md.contains(PEAK.basis()), md);
        assertTrue(ex.has(Step.RANK));
    }

    /** Step 04 ends on one line saying what to do next: its top glue candidate with its gap and share, or that the stop rule is reached. */
    @Test void theRankingConcludesWithItsTopCandidateOrTheStopRule() throws Exception {
        SourceRanking planned = ModelRankStep.run(ex, ModelTree.EAGER, BANDWIDTH, PEAK);
        assertTrue(Files.readString(ex.file(Step.RANK, ModelRankStep.FILE)).strip().endsWith(planned.conclusion() + "."), "the kept ranking ends on its conclusion");

        SourceRanking loose = ModelRankStep.ranking(eager, BANDWIDTH, PEAK, 1e-6);
        SourceCandidate top = loose.worthFixing().getFirst();
        String line = loose.conclusion();
        assertTrue(line.startsWith("Top candidate: " + top.label() + ", " + String.format(java.util.Locale.ROOT, "%.1f us over its floor, %.1f%% of the step",
                top.gapUs(), 100 * top.share())) && line.endsWith("next: step 05 with a fix for it"), line);

        SourceRanking strict = ModelRankStep.ranking(eager, BANDWIDTH, PEAK, 0.99);
        assertTrue(strict.worthFixing().isEmpty());
        assertTrue(strict.conclusion().startsWith("Stop rule reached: no glue row's gap over its floor is 99% of the step or more"), strict.conclusion());
    }

    static double score(double[] usIdeal, double stepUs) { return Math.max(0, usIdeal[0] - usIdeal[1]) * usIdeal[0] / stepUs; }
}
