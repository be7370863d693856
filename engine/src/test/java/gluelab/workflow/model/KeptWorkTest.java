package gluelab.workflow.model;

import gluelab.timing.Measurement;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.Summary;
import gluelab.torch.ModelBaselines;
import gluelab.torch.ModelProfile;
import gluelab.torch.ModelTree;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * What a rerun keeps of a run that stopped part-way: finished work only. A Ctrl-C reaches the torch harness too, and
 * a unit it was running can be saved as failed ("stopped by SIGINT") before gluelab exits; kept, it read as done.
 */
class KeptWorkTest {
    static final String STOPPED = "the torch harness process was stopped by SIGINT (exit code 130)";

    static ModelBaselines.Row row(ModelTree tree, long tokens, String error) {
        if (!error.isEmpty()) return new ModelBaselines.Row(tree, tokens, error, null, null, 0, "", 0, 0, "", 0, "", null);
        double[] samples = new double[StopRule.standard().minSamples()];
        for (int i = 0; i < samples.length; i++) samples[i] = (1 + 0.001 * i) * 1e-3;
        Measurement m = new Measurement(tree.id(), Mode.COLD, samples, Summary.of(samples), StopRule.Reason.CONVERGED, 1, 0, 0.1, 0, 0.01, StopRule.standard());
        return new ModelBaselines.Row(tree, tokens, "", m, null, 0, "", 0, 0, "", 0, "", null);
    }

    @Test void aRerunOfStep01KeepsTheMeasuredRowsBeforeTheFirstFailedOne() {
        List<ModelTree> trees = List.of(ModelTree.EAGER, ModelTree.PER_BLOCK, ModelTree.WHOLE);
        var eager = row(ModelTree.EAGER, 16, "");
        var rows = List.of(eager, row(ModelTree.PER_BLOCK, 16, STOPPED), row(ModelTree.WHOLE, 16, ""));
        assertEquals(List.of(eager), ModelBaselinesStep.keptRows(rows, List.of(16L, 32L), trees), "the failed row and all after it run again");
        var measured = List.of(eager, row(ModelTree.PER_BLOCK, 16, ""), row(ModelTree.WHOLE, 16, ""), row(ModelTree.EAGER, 32, ""));
        assertEquals(measured, ModelBaselinesStep.keptRows(measured, List.of(16L, 32L), trees));
    }

    @Test void aRerunOfStep03KeepsTheProfiledTreesBeforeTheFirstFailedOne(@TempDir Path dir) throws Exception {
        Path trace = Files.writeString(dir.resolve("eager.json.gz"), "kept");
        var eager = new ModelProfile.TreeProfile(ModelTree.EAGER, "", trace.toString(), 10, List.of(), List.of());
        var stopped = new ModelProfile.TreeProfile(ModelTree.PER_BLOCK, STOPPED, "", 0, List.of(), List.of());
        var whole = new ModelProfile.TreeProfile(ModelTree.WHOLE, "", trace.toString(), 8, List.of(), List.of());
        List<ModelTree> trees = List.of(ModelTree.EAGER, ModelTree.PER_BLOCK, ModelTree.WHOLE);
        assertEquals(List.of(eager), ModelProfileStep.keptTrees(List.of(eager, stopped, whole), trees));
        Files.delete(trace);
        assertEquals(List.of(), ModelProfileStep.keptTrees(List.of(eager), trees), "a tree whose trace is gone runs again");
    }
}
