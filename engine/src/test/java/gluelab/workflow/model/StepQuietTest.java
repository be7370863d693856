package gluelab.workflow.model;

import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.model.Presets;
import gluelab.progress.Progress;
import gluelab.timing.QuietCheck;
import gluelab.torch.ModelBaselines;
import gluelab.torch.ModelEntry;
import gluelab.torch.ModelFix;
import gluelab.torch.ModelTree;
import gluelab.torch.PythonChoice;
import gluelab.torch.TorchPython;
import gluelab.torch.TorchSide;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.experiment.Step;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Blind check: only step 07 read the quiet check. Here steps 01, 03 and 05 run on the real torch 2.13 CPU beside a process
 * that spins on a core (started outside this JVM's process tree, as another user's job is): each keeps the check, and its
 * summary, devlog and table say "busy machine"; step 04, which times nothing, repeats step 03's mark.
 */
@Tag("slow")
class StepQuietTest {
    /** {@code yes} spinning on a core, reparented away from this JVM (the quiet check ignores our own children); its pid. */
    static long spinner() throws Exception {
        Process sh = new ProcessBuilder("sh", "-c", "yes > /dev/null 2>&1 & echo $!").start();
        String pid = new String(sh.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(0, sh.waitFor(), "sh started the spinner");
        return Long.parseLong(pid);
    }

    @Test void stepsThatTimeOnABusyMachineSaySoInTheirSummaryDevlogAndTables(@TempDir Path dir) throws Exception {
        TorchPython.useSharedInductorCache();
        PythonChoice python = TorchPython.withCompile();
        assumeTrue(python != null, TorchPython::whyNoCompile);
        ModelEntry e = ModelHangsTest.model(dir, "small.py", "        x = x * 1.0");
        ExperimentFolder ex = ExperimentFolder.open("busy", dir);
        ex.plan(ExperimentPlan.of("llama-3-8b", List.of(16L), 0.05, "cpu", new ModelSubject(e.file().toString(), "build", "x:T,8:fp32", "", List.of())));
        long spinner = spinner();
        ModelBaselines b;
        ModelFixResult fixed;
        try (Device cpu = Devices.open("cpu"); TorchSide torch = TorchSide.start(python, cpu)) {
            b = ModelBaselinesStep.run(ex, cpu, torch.bridge(), Presets.LLAMA_3_8B, ModelHangsTest.QUICK, 0, Progress.NONE);
            ModelProfileStep.run(ex, cpu, torch.bridge(), Presets.LLAMA_3_8B, 0, Progress.NONE);
            fixed = ModelFixStep.run(ex, cpu, torch.bridge(), Presets.LLAMA_3_8B, List.of(ModelFix.parse("region=regions:model.Net.forward")), null,
                    ModelHangsTest.QUICK, 0, Progress.NONE);
        } finally {
            ProcessHandle.of(spinner).ifPresent(ProcessHandle::destroy);
        }
        ModelRankStep.run(ex, ModelTree.EAGER, 10e9, gluelab.floor.FlopPeak.declared(1e11));

        // On a machine already loaded by others the spinner may not be the busiest process named: any finding will do.
        for (Step step : List.of(Step.BASELINES, Step.PROFILE_DIFF, Step.FIX)) {
            StepQuiet q = StepQuiet.of(ex, step).orElseThrow(() -> new AssertionError(step + " kept no quiet check"));
            assertFalse(q.quiet(), step + ": " + q);
            assertFalse(q.start().quiet() || q.start().findings().isEmpty(), step + " at its start: " + q.start().findings());
            assertNotNull(q.end(), step + " read it at its end too");
            assertTrue(ex.require(step).summary().contains("; " + StepQuiet.BUSY + ": "), step + ": " + ex.require(step).summary());
        }
        assertTrue(ex.require(Step.RANK).summary().contains("step 03 profiled on a busy machine: "), ex.require(Step.RANK).summary());
        assertTrue(Files.readString(ex.file(Step.RANK, ModelRankStep.FILE)).contains("**profiled by step 03 on a busy machine: "), "the ranking's page");
        assertTrue(Files.readString(ex.file(Step.PROFILE_DIFF, ModelProfileStep.SUMMARY)).contains("\n**busy machine: "), "the profile's page");

        var table = StepQuiet.marked(ModelTables.baselines(b), ex, Step.BASELINES);
        assertTrue(table.name().endsWith(" [" + StepQuiet.of(ex, Step.BASELINES).orElseThrow().mark() + "]") && table.name().contains(" [busy machine: "), table.name());
        assertTrue(fixed.notes().stream().anyMatch(n -> n.startsWith("busy machine: ")), fixed.notes().toString());
        assertTrue(fixed.text().contains("note: busy machine: "), fixed.text());
        assertTrue(ModelFixStep.load(ex).notes().equals(fixed.notes()), "the saved record keeps the note");
        assertTrue(ex.devlog().read().stream().filter(x -> x.text().contains(StepQuiet.BUSY + ": ")).count() >= 3, "a devlog note per step");
    }

    @Test void aQuietCheckMarksNothing() {
        QuietCheck quiet = new QuietCheck("before", true, List.of(), Map.of());
        QuietCheck busy = new QuietCheck("after", false, List.of("host load average 9.10 on 2 cores"), Map.of());
        assertEquals("", new StepQuiet(StepQuiet.FORMAT, quiet, quiet).mark());
        assertEquals("", new StepQuiet(StepQuiet.FORMAT, quiet, quiet).suffix());
        assertEquals("busy machine: host load average 9.10 on 2 cores (at the end)", new StepQuiet(StepQuiet.FORMAT, quiet, busy).mark());
    }
}
