package gluelab.workflow.confirm;

import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.model.Presets;
import gluelab.ops.Replay;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;
import gluelab.torch.ModelFix;
import gluelab.torch.ModelVariantTiming;
import gluelab.torch.PythonChoice;
import gluelab.torch.TorchPython;
import gluelab.torch.TorchSide;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.experiment.StepResults;
import gluelab.workflow.model.ModelFixResult;
import gluelab.workflow.model.ModelFixStep;
import gluelab.workflow.model.ModelPlan;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Step 07 on the shipped Llama-3 example at tiny dims with the real torch 2.13 CPU: a fix (the
 * rewrite file's RoPE with a hand-written backward) against the model as written in three fresh
 * Python processes, the second really killed while it measures: it is FAILED with no numbers, the
 * others confirm with their pids, readings and raw samples, and the graph rows are skipped with the reason.
 */
@Tag("slow")
class ModelConfirmationTest {
    static final Path EXAMPLES = Path.of("..", "docs", "examples", "models").toAbsolutePath().normalize();
    static final TimingConfig QUICK = new TimingConfig(Mode.COLD, 0.01, new StopRule(3, 0.001, 0.5, 1.0, 50), 1);

    @Test void aProcessKilledMidRunIsFailedWithNoNumbers(@TempDir Path root) throws Exception {
        TorchPython.useSharedInductorCache();
        PythonChoice python = TorchPython.withCompile();
        assumeTrue(python != null, TorchPython::whyNoCompile);
        ExperimentFolder ex = ExperimentFolder.open("llama-confirm", root);
        try (Device cpu = Devices.open("cpu")) {
            try (TorchSide torch = TorchSide.start(python, cpu)) {
                ModelPlan.write(ex, torch.bridge(), Presets.LLAMA_3_8B, new ModelSubject(EXAMPLES.resolve("llama3.py").toString(), "build", "x:T,64:fp32", "",
                        List.of()), List.of(16L, 32L), 0.05, "cpu");
            }
            ModelFix ag = ModelFix.parse("rope-ag=autograd:model.apply_rotary_emb=" + EXAMPLES.resolve("rewrites.py") + ":apply_rotary_emb_autograd");
            Map<Integer, Long> killed = new ConcurrentHashMap<>();
            List<Long> measuring = new ArrayList<>();
            List<ModelConfirmResult> savedBeforeTheSecond = new ArrayList<>();
            List<gluelab.workflow.model.KeptSoFar> keptBeforeTheSecond = new ArrayList<>();
            java.time.Instant started = java.time.Instant.now().minusSeconds(1);
            ModelConfirmResult r = new ModelConfirmation(cpu, python).listener((index, pid) -> {
                measuring.add(pid);
                if (index == 2 && killed.isEmpty()) {
                    // What a run cut short here would leave: process 1's numbers, saved as a partial, unconfirmed result.
                    try (var files = Files.list(ex.stepDir(Step.CONFIRM))) {
                        files.map(d -> d.resolve(ModelConfirmation.FILE + ".json")).filter(Files::isRegularFile)
                                .forEach(f -> savedBeforeTheSecond.add(ModelConfirmResult.load(f)));
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                    keptBeforeTheSecond.add(ModelConfirmation.keptSoFar(ex, started, ModelConfirmation.PROCESSES));
                    killed.put(index, pid);
                    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                }
            }).run(ex, Presets.LLAMA_3_8B, List.of(ag), QUICK);

            assertEquals(1, savedBeforeTheSecond.size(), "saved after process 1");
            ModelConfirmResult first = savedBeforeTheSecond.getFirst();
            assertEquals(1, first.processes().size(), first.text());
            assertTrue(first.processes().getFirst().ok() && first.row("rope-ag", 32, Replay.DIRECT).orElseThrow().measured(), first.text());
            assertTrue(first.row("rope-ag", 32, Replay.DIRECT).orElseThrow().caveat().contains("unconfirmed: 1 of 3"), first.text());
            assertTrue(first.flags().contains(ModelConfirmation.PARTIAL + "1 of 3 processes had run when this was saved; the confirmation did not finish"), first.flags().toString());
            assertFalse(r.flags().stream().anyMatch(f -> f.startsWith(ModelConfirmation.PARTIAL)), "the finished result is not partial: " + r.flags());
            // What a `model confirm` stopped by a signal here says it kept; a run that had saved nothing yet names no earlier run's folder.
            assertEquals("1 of 3 processes kept in steps/07-confirm/" + r.id() + "/model-confirm.json, flagged partial (not a confirmation)",
                    keptBeforeTheSecond.getFirst().what());
            assertFalse(keptBeforeTheSecond.getFirst().resumed());
            assertEquals("no process had finished", ModelConfirmation.keptSoFar(ex, java.time.Instant.now().plusSeconds(5), ModelConfirmation.PROCESSES).what());

            assertEquals(3, r.processes().size(), r.text());
            var second = r.processes().get(1);
            assertEquals(killed.get(2), second.pid());
            assertFalse(second.ok(), r.text());
            assertNull(second.timing(), "a killed process has no numbers");
            assertTrue(second.reason().contains("137"), "killed: " + second.reason());
            for (int i : new int[]{0, 2}) {
                var p = r.processes().get(i);
                assertTrue(p.ok(), r.text());
                assertNotEquals(second.pid(), p.pid());
                ModelVariantTiming.Row fixed = p.timing().row("rope-ag", 32, Replay.DIRECT).orElseThrow();
                assertTrue(fixed.run().samples().length >= 1 && fixed.run().wallSeconds() > 0, "raw samples kept: " + fixed);
                assertEquals(p.pid(), p.timing().pid(), "the Python process that timed it");
                assertTrue(p.before().containsKey("host.load_average_1m") && p.after().containsKey("host.load_average_1m"), "read before and after: " + p.before());
            }
            assertNotEquals(r.processes().get(0).pid(), r.processes().get(2).pid(), "fresh processes");

            assertEquals(4, r.rows().size(), r.text());
            assertTrue(r.text().lines().anyMatch(l -> l.matches("\\s+rope-ag\\s+16 normal .*")) && !r.text().contains(" direct "),
                    "the launch column's words are steps 01 and 05's (normal, graph): " + r.text());
            for (long t : new long[]{16, 32}) {
                var direct = r.row("rope-ag", t, Replay.DIRECT).orElseThrow();
                assertTrue(direct.measured() && direct.processesOk() == 2 && direct.fixedN() >= 1 && direct.fixedN() <= 2, r.text());
                assertTrue(direct.caveat().contains("unconfirmed: "), direct.caveat());
                var graph = r.row("rope-ag", t, Replay.GRAPH).orElseThrow();
                assertFalse(graph.measured());
                assertTrue(graph.skip().contains("no CUDA-graph replay"), graph.skip());
            }
            assertTrue(r.flags().stream().anyMatch(f -> f.startsWith("process 2 (pid " + second.pid() + ") FAILED")), r.flags().toString());
            assertTrue(r.before().readings().containsKey("host.cpus"), "the quiet check before");

            assertTrue(ex.has(Step.CONFIRM));
            ModelConfirmResult back = ModelConfirmResult.load(ex.file(Step.CONFIRM, ModelConfirmation.FILE));
            assertEquals(r.rows(), back.rows());
            assertEquals(second.reason(), back.processes().get(1).reason());
            assertTrue(Files.readString(ex.devlog().file()).contains("process 2 (pid " + second.pid() + ") FAILED"));
        }
    }

    /** Issue 24: step 05 stopped after T=16 (its file saved, no step marker): T=16 is confirmed and T=32 named as not. */
    @Test void aFixStepThatStoppedPartWayIsConfirmedAtTheTokenCountsItMeasured(@TempDir Path root) throws Exception {
        TorchPython.useSharedInductorCache();
        PythonChoice python = TorchPython.withCompile();
        assumeTrue(python != null, TorchPython::whyNoCompile);
        ExperimentFolder ex = ExperimentFolder.open("llama-partial", root);
        ModelFix ag = ModelFix.parse("rope-ag=autograd:model.apply_rotary_emb=" + EXAMPLES.resolve("rewrites.py") + ":apply_rotary_emb_autograd");
        try (Device cpu = Devices.open("cpu")) {
            try (TorchSide torch = TorchSide.start(python, cpu)) {
                ModelPlan.write(ex, torch.bridge(), Presets.LLAMA_3_8B, new ModelSubject(EXAMPLES.resolve("llama3.py").toString(), "build", "x:T,64:fp32", "",
                        List.of()), List.of(16L, 32L), 0.05, "cpu");
                ModelFixStep.run(ex, cpu, torch.bridge(), Presets.LLAMA_3_8B, List.of(ag), null, QUICK, 0, gluelab.progress.Progress.NONE);
            }
            // What a step 05 killed while it timed T=32 leaves: its part-way record as saved after T=16, no record and no step marker.
            Path file = ex.stepDir(Step.FIX).resolve(ModelFixStep.FILE + ".partial.json");
            ModelFixResult whole = ModelFixStep.load(ex);
            ModelFixResult atSixteen = new ModelFixResult(whole.format(), whole.model(), whole.fixes(), whole.rows().stream().filter(r -> r.tokens() == 16).toList(),
                    List.of(), List.of(), List.of(), List.of(), whole.timings().subList(0, 1));
            StepResults.save(file, atSixteen);
            Files.delete(ex.dir().resolve("steps/05-fix.json"));
            Files.delete(ex.stepDir(Step.FIX).resolve(ModelFixStep.FILE + ".json"));
            assertFalse(ex.has(Step.FIX));

            ModelFixResult partial = ModelFixStep.load(ex);
            assertEquals(List.of(16L), partial.measuredTokens());
            ModelConfirmResult r = new ModelConfirmation(cpu, python).processes(1).run(ex, Presets.LLAMA_3_8B, partial, partial.fixes(), QUICK);
            assertEquals(List.of(16L), r.tokens(), r.text());
            assertTrue(r.row("rope-ag", 16, Replay.DIRECT).orElseThrow().measured(), r.text());
            assertTrue(r.rows().stream().noneMatch(x -> x.tokens() == 32), r.text());
            String flag = "T=32 not confirmed: step 05 measured no fix there (step 05 stopped before it timed this token count)";
            assertTrue(r.flags().contains(flag), r.flags().toString());
            assertTrue(r.summary().contains(flag) && r.text().contains(flag), r.summary());
            assertTrue(Files.readString(ex.devlog().file()).contains("T=32 not confirmed"));
            assertTrue(ex.has(Step.CONFIRM));
        }
    }
}
