package gluelab.torch;

import gluelab.check.ErrorStats;
import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.tensor.DType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Step 08 on a model computes its error statistics in torch, beside the tensors (model_checks.error_stats); they must be the
 * numbers gluelab's own {@link ErrorStats#compare} gives for the same values: random values, near misses, exact zeros,
 * magnitudes under each dtype's smallest normal, values past float32's range, and non-finite results.
 */
@Tag("slow")
class ErrorStatsAgreementTest {
    static Device cpu;
    static TorchSide torch;

    @BeforeAll static void start() {
        PythonChoice python = TorchPython.find();
        assumeTrue(python != null, TorchPython::whyMissing);
        cpu = Devices.open("cpu");
        torch = TorchSide.start(python, cpu);
    }

    @AfterAll static void stop() {
        if (torch != null) torch.close();
        if (cpu != null) cpu.close();
    }

    static List<double[][]> pairs(DType dtype) {
        SplittableRandom rnd = new SplittableRandom(42);
        List<double[][]> out = new ArrayList<>();
        for (double scale : new double[] {1, 1e-3, 1e-6, 1e-30, 1e-39, 1e-44, 1e20, 1e39}) {
            double[] ref = new double[257], act = new double[257];
            for (int i = 0; i < ref.length; i++) {
                ref[i] = i % 17 == 0 ? 0 : scale * rnd.nextGaussian();
                act[i] = dtype.round(ref[i] * (1 + 1e-3 * rnd.nextGaussian()));
            }
            out.add(new double[][] {act, ref});
        }
        double[] ref = {1, 2, 3, -4}, act = {1, Double.NaN, Double.POSITIVE_INFINITY, -4};
        out.add(new double[][] {act, ref});
        out.add(new double[][] {new double[] {0, 0, 0}, new double[] {0, 0, 0}});
        out.add(new double[][] {new double[] {1e-3, 0}, new double[] {0, 0}});
        return out;
    }

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"BF16", "FP16", "FP32"})
    void torchsStatsAreJavas(DType dtype) {
        List<double[][]> pairs = pairs(dtype);
        List<ErrorStats> fromTorch = ModelCorrectness.errorStats(torch.bridge(), pairs, dtype);
        assertEquals(pairs.size(), fromTorch.size());
        for (int i = 0; i < pairs.size(); i++) {
            ErrorStats java = ErrorStats.compare("pair " + i, "reference", pairs.get(i)[0], pairs.get(i)[1], dtype), py = fromTorch.get(i);
            String what = dtype + " pair " + i;
            assertEquals(java.elements(), py.elements(), what);
            assertEquals(java.mismatches(), py.mismatches(), what);
            assertEquals(java.maxAbs(), py.maxAbs(), 0, what + " max abs");
            close(java.relL2(), py.relL2(), what + " rel L2");
            close(java.maxUlp(), py.maxUlp(), what + " max ulp");
        }
    }

    static void close(double java, double torch, String what) {
        if (!Double.isFinite(java)) {
            assertEquals(java, torch, what);
            return;
        }
        assertEquals(java, torch, 1e-9 * Math.max(1e-300, Math.abs(java)), what);
    }
}
