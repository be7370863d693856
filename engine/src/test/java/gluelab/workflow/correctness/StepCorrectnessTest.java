package gluelab.workflow.correctness;

import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.Step;
import gluelab.expr.Glue;
import gluelab.expr.workbench.Examples;
import gluelab.model.Presets;
import gluelab.tensor.DType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.*;

class StepCorrectnessTest {
    @Test
    void outputsAndEveryGradientInBf16AndFp32(@TempDir Path root) {
        try (Device cpu = Devices.open("cpu")) {
            ExperimentFolder ex = ExperimentFolder.open("correct", root);
            CorrectnessResult r = StepCorrectness.on(cpu, Presets.LLAMA_3_8B).tokens(8)
                    .op("rmsnorm", "fused")
                    .region("qnorm_rope_real", dt -> Examples.qnormRopeReal(Glue.dims("T", 4, "H", 2, "HD", 8, "HD2", 4), dt))
                    .record(ex);
            assertTrue(r.passed(), r.table().print(100));
            Set<String> rmsTensors = r.rows().stream().filter(x -> x.subject().equals("rmsnorm") && x.dtype() == DType.FP32).map(CheckRow::tensor).collect(Collectors.toSet());
            assertEquals(Set.of("y", "dx", "dw", "all gradients"), rmsTensors);
            for (DType d : new DType[]{DType.BF16, DType.FP32}) {
                assertTrue(r.rows().stream().anyMatch(x -> x.subject().equals("qnorm_rope_real") && x.dtype() == d && x.pass().equals("bwd") && x.tensor().equals("dq")));
                assertTrue(r.rows().stream().anyMatch(x -> x.dtype() == d && x.pass().equals("bwd x2") && x.ok()));
            }
            CheckRow fp32 = r.rows().stream().filter(x -> x.subject().equals("rmsnorm") && x.dtype() == DType.FP32 && x.tensor().equals("dw")).findFirst().orElseThrow();
            assertTrue(fp32.vsFp64().relL2() < 1e-5 && fp32.vsEager() != null, fp32.verdict());
            assertEquals(r, StepCorrectness.latest(ex));
            assertTrue(ex.require(Step.CORRECTNESS).summary().contains("all ok"));
        }
    }

    @Test
    void aRegionWithoutGradientsIsAFailure() {
        try (Device cpu = Devices.open("cpu")) {
            CorrectnessResult r = StepCorrectness.on(cpu, Presets.LLAMA_3_8B).dtypes("fp32").region("detached", dt -> {
                Glue g = Glue.dims("T", 4, "D", 8);
                var x = g.data("x", dt, "T", "D");
                return g.region("detached").out("y", x.mul(x));
            }).run();
            assertFalse(r.passed());
            assertTrue(r.failures().getFirst().verdict().contains("no input requires grad"), r.table().print());
        }
    }
}
