package gluelab.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static gluelab.cli.CliBadInputTest.assertOneLine;
import static gluelab.cli.CliTest.run;
import static org.junit.jupiter.api.Assertions.*;

/** `gluelab model graphs` and `gluelab model check`: bad input is one line naming it, before an experiment is read or torch started. */
class ModelStepsCliTest {
    @Test void badFixesDtypesAndTreesAreNamedFirst(@TempDir Path root) {
        String r = root.toString();
        assertOneLine(run("model", "check", "nope", "--experiments-root", r, "--fix", "rope"), "--fix 'rope'", "NAME=KIND");
        assertOneLine(run("model", "check", "nope", "--experiments-root", r, "--fix", "r=regions:model.Attention.rope", "--dtypes", "fp64"),
                "--dtypes fp64", "fp64 is the reference");
        for (String count : List.of("0", "-5")) assertOneLine(run("model", "check", "nope", "--experiments-root", r, "--tokens", count), "--tokens must be a token count > 0, got " + count);
        assertOneLine(run("model", "graphs", "nope", "--experiments-root", r, "--trees", "whole"), "tree whole compiles no regions of its own");
        assertOneLine(run("model", "graphs", "nope", "--experiments-root", r, "--recompile-limit", "-1"), "recompile limit");
        assertOneLine(run("model", "graphs", "nope", "--experiments-root", r), "no experiment 'nope'");
        for (String step : List.of("stack", "findings", "feedback")) assertOneLine(run("model", step, "nope", "--experiments-root", r), "no experiment 'nope'");
    }

    /** Without --fix: step 05 takes a shipped example's defaults (another model is told what to pass), step 08 the fixes step 05 tried. */
    @Test void withoutFixesFixAsksForThemOnAModelWithNoDefaultsAndCheckNeedsStep05(@TempDir Path root) throws Exception {
        String r = root.toString();
        java.nio.file.Files.writeString(root.resolve("blocks.py"), "");  // a step that runs the model refuses a plan whose model file is gone
        var ex = gluelab.workflow.experiment.ExperimentFolder.open("mine", root);
        ex.plan(gluelab.workflow.experiment.ExperimentPlan.of("llama-3-8b", java.util.List.of(16L), 0.01, "cpu",
                new gluelab.workflow.experiment.ModelSubject(root.resolve("blocks.py").toString(), "build", "x:T,64:fp32", "", java.util.List.of())));
        var noFixes = run("model", "fix", "mine", "--experiments-root", r);
        assertOneLine(noFixes, "blocks.py:build is not a shipped example with default fixes", "`gluelab model fix mine --fix NAME=SPEC`");
        assertTrue(noFixes.err().indexOf("gluelab model fix mine --fix") < noFixes.err().indexOf("-p modelFixes="), "the command line's form first: " + noFixes.err());
        for (String step : new String[]{"check", "confirm"}) {
            var res = run("model", step, "mine", "--experiments-root", r);
            assertEquals(1, res.code(), res.toString());
            assertEquals("gluelab model " + step + ": error: experiment 'mine' has no fix results: run 05-fix (gluelab model fix mine) first", res.err().strip());
        }
    }

    /** Step 04 times nothing: a missing step 03 is named before the device is opened or calibrated (here a GPU this machine lacks). */
    @Test void rankWithoutAProfileNamesStep03BeforeTheDevice(@TempDir Path root) {
        var ex = gluelab.workflow.experiment.ExperimentFolder.open("mine", root);
        ex.plan(gluelab.workflow.experiment.ExperimentPlan.of("llama-3-8b", java.util.List.of(16L), 0.01, "cuda:63",
                new gluelab.workflow.experiment.ModelSubject(root.resolve("blocks.py").toString(), "build", "x:T,64:fp32", "", java.util.List.of())));
        var res = run("model", "rank", "mine", "--experiments-root", root.toString());
        assertEquals(1, res.code(), res.toString());
        assertEquals("gluelab model rank: error: experiment 'mine' has no profile diff: run 03-profile-diff (gluelab model profile mine) first", res.err().strip());
    }

    /** The option's name, not the plan file's field ("plan: subject.inputs is empty"). */
    @Test void emptyInputsNameTheOption(@TempDir Path root) {
        assertOneLine(run("experiment", "e", "--experiments-root", root.toString(), "--model-file", "m.py:build", "--inputs", "", "--tokens", "16"),
                "--inputs is empty: give forward's inputs as NAME:DIMS:DTYPE");
    }

    @Test void theStepsAreModelSubcommands() {
        String help = run("model", "--help").out();
        assertTrue(help.contains("graphs") && help.contains("Step 06") && help.contains("check") && help.contains("Step 08"), help);
        for (String step : List.of("stack", "Step 09", "findings", "Step 10", "feedback", "Step 11")) assertTrue(help.contains(step), step + ": " + help);
    }
}
