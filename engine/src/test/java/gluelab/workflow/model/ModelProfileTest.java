package gluelab.workflow.model;

import gluelab.device.Device;
import gluelab.device.Devices;
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
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Steps 03 and 04 on the shipped Llama-3 example at tiny dims with the real torch 2.13 CPU: gluelab
 * drives torch.profiler itself, keeps the traces for the trace import, names the line of the model
 * file each op ran under (checked against the file's own text), and ranks per location and op.
 */
@Tag("slow")
class ModelProfileTest {
    static Device cpu;
    static TorchSide torch;

    @BeforeAll static void start() {
        TorchPython.useSharedInductorCache();
        PythonChoice python = TorchPython.withCompile();
        assumeTrue(python != null, TorchPython::whyNoCompile);
        cpu = Devices.open("cpu");
        torch = TorchSide.start(python, cpu);
    }

    @AfterAll static void stop() {
        if (torch != null) torch.close();
        if (cpu != null) cpu.close();
    }

    /**
     * The 1-based line of {@code def func} (after {@code class cls} when given): the profiler's Python
     * tracer names a function by its first line. The hand count of where an op sits.
     */
    static int defLine(Path file, String cls, String func) throws Exception {
        List<String> lines = Files.readAllLines(file);
        int i = 0;
        if (cls != null) while (!lines.get(i).startsWith("class " + cls)) i++;
        for (; i < lines.size(); i++) if (lines.get(i).strip().startsWith("def " + func + "(")) return i + 1;
        throw new AssertionError("def " + func + " not in " + file);
    }

    @Test void eachTreeIsProfiledWithItsOpsGivenToTheLinesOfTheModelFileAndRanked(@TempDir Path root) throws Exception {
        Path llama = ModelPlanTest.EXAMPLES.resolve("llama3.py");
        ExperimentFolder ex = ExperimentFolder.open("llama", root);
        ModelPlan.write(ex, torch.bridge(), Presets.LLAMA_3_8B, new ModelSubject(llama.toString(), "build", "x:T,64:fp32", "", List.of("model.Attention.rope")),
                List.of(16L), 0.01, "cpu");
        var result = ModelProfileStep.run(ex, torch.bridge(), Presets.LLAMA_3_8B, 10e9, Progress.NONE);
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

        ModelProfile.TreeProfile eager = p.tree(ModelTree.EAGER).orElseThrow();
        String norm = "RMSNorm.forward (llama3.py:" + defLine(llama, "RMSNorm", "forward") + ")";
        assertTrue(eager.rows().stream().anyMatch(r -> r.location().equals(norm) && r.op().equals("aten::rsqrt") && r.pass().equals("fwd")),
                "the norm's rsqrt at its line: " + eager.rows().stream().map(ModelProfile.SourceRow::location).distinct().toList());
        String rope = "apply_rotary_emb (llama3.py:" + defLine(llama, null, "apply_rotary_emb") + ")";
        assertTrue(eager.rows().stream().anyMatch(r -> r.location().equals(rope) && r.op().equals("aten::mul") && r.pass().equals("fwd")), rope);
        assertTrue(eager.rows().stream().anyMatch(r -> r.location().equals(norm) && r.pass().equals("bwd")),
                "a backward op is given to its forward op's line");
        double sum = eager.rows().stream().mapToDouble(ModelProfile.SourceRow::us).sum();
        assertEquals(sum, eager.stepUs(), 1e-6 * sum, "the step is the sum of the rows");

        SourceRanking ranking = ModelRankStep.run(ex, ModelTree.EAGER, 10e9);
        List<SourceCandidate> ranked = ranking.ranked();
        for (int i = 1; i < ranked.size(); i++) assertTrue(ranked.get(i - 1).score() >= ranked.get(i).score());
        // A hand count: per (location, op, pass) the profile's self times summed, ranked by (measured - ideal) x share.
        var byKey = new java.util.LinkedHashMap<List<String>, double[]>();
        for (var r : eager.rows()) {
            double[] s = byKey.computeIfAbsent(List.of(r.location(), r.op(), r.pass()), k -> new double[2]);
            s[0] += r.us();
            s[1] += r.bytes();
        }
        List<List<String>> hand = byKey.entrySet().stream().sorted((a, b) -> Double.compare(score(b.getValue(), eager.stepUs()), score(a.getValue(), eager.stepUs())))
                .limit(3).map(java.util.Map.Entry::getKey).toList();
        assertEquals(hand, ranked.stream().limit(3).map(c -> List.of(c.location(), c.op(), c.pass())).toList());
        assertTrue(ex.has(Step.PROFILE_DIFF) && ex.has(Step.RANK));
        assertTrue(Files.readString(ex.file(Step.RANK, ModelRankStep.FILE)).contains("llama3.py:"), "the ranking names source lines");
        assertEquals(p.trees().size(), ModelProfileStep.load(ex).trees().size());
    }

    static double score(double[] usBytes, double stepUs) {
        double ideal = 2 * usBytes[1] / 10e9 * 1e6;
        return Math.max(0, usBytes[0] - ideal) * usBytes[0] / stepUs;
    }
}
