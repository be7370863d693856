package gluelab.lab;

import gluelab.workflow.confirm.Comparison;
import gluelab.workflow.confirm.ConfirmResult;
import gluelab.workflow.confirm.ConfirmedRow;
import gluelab.workflow.confirm.ProcessRun;
import gluelab.device.Buffer;
import gluelab.backend.cuda.CudaDeviceProvider;
import gluelab.backend.cuda.UserKernel;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.expr.Glue;
import gluelab.expr.workbench.Examples;
import gluelab.workflow.fix.Attempt;
import gluelab.workflow.fix.FixSource;
import gluelab.workflow.fix.FixResult;
import gluelab.ops.Replay;
import gluelab.tensor.DType;
import gluelab.tensor.TensorSpec;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;
import org.junit.jupiter.api.*;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Steps 05-08 on the GPU through the facade: the %%cuda kernel and torch forms as fixes, graph
 * rows in the screen, 3 fresh processes with NVML readings, correctness of generated CUDA in bf16
 * and fp32. Prints WORKFLOW-GPU lines for docs/benchmarks.md. Skipped where no GPU is usable.
 */
@Tag("gpu")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WorkflowGpuTest {
    static final TimingConfig T = new TimingConfig(Mode.COLD, 0.05, new StopRule(10, 0.05, 0.01, 2, 2000), 4);
    static final long TOKENS = 8192;
    /** A naive bf16 RMSNorm, one block per row, as an analyst would write it in a %%cuda cell. */
    static final String RMSNORM = """
            __device__ float bf(unsigned short u) { return __uint_as_float(((unsigned) u) << 16); }
            __device__ unsigned short tobf(float f) { unsigned u = __float_as_uint(f); return (unsigned short) ((u + 0x7fff + ((u >> 16) & 1)) >> 16); }
            extern "C" __global__ void my_rmsnorm(const unsigned short* x, const unsigned short* w, unsigned short* y, int d, float eps) {
              __shared__ float part[256];
              const unsigned short* row = x + (long long) blockIdx.x * d;
              float s = 0.f;
              for (int i = threadIdx.x; i < d; i += blockDim.x) { float v = bf(row[i]); s += v * v; }
              part[threadIdx.x] = s;
              __syncthreads();
              for (int k = blockDim.x / 2; k > 0; k >>= 1) { if (threadIdx.x < k) part[threadIdx.x] += part[threadIdx.x + k]; __syncthreads(); }
              float r = rsqrtf(part[0] / d + eps);
              for (int i = threadIdx.x; i < d; i += blockDim.x) y[(long long) blockIdx.x * d + i] = tobf(bf(row[i]) * r * bf(w[i]));
            }
            """;

    Optional<String> noGpu;
    Gluelab lab;

    @BeforeAll
    void setUp() {
        noGpu = new CudaDeviceProvider().unavailableReason();
        if (noGpu.isEmpty()) lab = Gluelab.open("cuda");
    }

    @BeforeEach
    void needsAGpu() { assumeTrue(noGpu.isEmpty(), () -> "no usable GPU: " + noGpu.orElse("")); }

    @AfterAll
    void tearDown() { if (lab != null) lab.close(); }

    @Test
    void fixesScreenConfirmAndCheckOnTheGpu(@TempDir Path root) {
        ExperimentFolder ex = lab.experiment("gpu", root);
        lab.plan(ex, "llama-3-8b", 0.01, TOKENS);
        int d = lab.spec("llama-3-8b").hidden();
        UserKernel k = UserKernel.compile(lab.device(), RMSNORM, "my_rmsnorm");
        try (Buffer x = lab.buffer("x", "bf16", TOKENS, d); Buffer w = lab.buffer("w", "bf16", d);
             Buffer y = lab.device().allocate(TensorSpec.of("y", DType.BF16, TOKENS, d))) {
            FixResult fix = gluelab.workflow.fix.FixStep.on(lab.device(), lab.calibration(), lab.spec("llama-3-8b")).timing(T)
                    .candidate("rmsnorm", "fwd", TOKENS, "eager").candidate("swiglu", "fwd", TOKENS, "eager")
                    .region("rmsnorm", "rmsnorm region", g -> Examples.rmsnorm(g, "bf16"))
                    .kernel("rmsnorm", "fwd", "my_rmsnorm", dev -> k.launch((int) TOKENS, 256, x, w, y, d, 1e-6f))
                    .torch(() -> lab.torch(), "default")
                    .record(ex);
            for (Attempt a : fix.attempts()) System.out.println("WORKFLOW-GPU fix " + a.op() + " " + a.pass() + " T=" + a.tokens() + " " + a.source().label() + " " + a.name() + ": " + a.describe());
            fix.interactions().forEach(r -> System.out.printf("WORKFLOW-GPU interaction %s: %.2f us (%+.2f)%n", r.combination(), r.us(), r.deltaUs()));
            fix.notes().forEach(n -> System.out.println("WORKFLOW-GPU note " + n));
            assertTrue(fix.attempts().stream().anyMatch(a -> a.source() == FixSource.CUDA_KERNEL && a.measured()), fix.table().print());
            assertTrue(fix.attempts().stream().anyMatch(a -> a.source() == FixSource.TORCH && a.measured()), fix.table().print());
            assertEquals(4, fix.interactions().size());
        }

        var job = lab.confirmJob(ex, List.of(Comparison.of("rmsnorm", TOKENS, "eager", "fused"), Comparison.of("swiglu", TOKENS, "eager", "fused")), T);
        var screen = lab.screen(job);
        System.out.println(screen.print(20));
        assertEquals(8, screen.rowCount(), "2 comparisons x 2 variants x normal and graph");

        ConfirmResult r = lab.confirm(ex, job);
        System.out.println(r.processTable().print(20));
        System.out.println(r.table().print(20));
        r.flags().forEach(f -> System.out.println("WORKFLOW-GPU flag " + f));
        for (ProcessRun p : r.processes()) {
            assertFalse(p.reason().contains("killed") || p.reason().contains("crashed"), p.reason());
            System.out.println("WORKFLOW-GPU process " + p.index() + " pid " + p.pid() + " " + p.state() + " " + p.clocks() + " " + p.reason());
        }
        assertTrue(r.before().readings().containsKey("sm_clock_mhz"), r.before().readings().toString());
        for (ConfirmedRow row : r.rows()) {
            System.out.println("WORKFLOW-GPU confirm " + row.comparison() + " " + row.replay().id() + ": " + row.describe());
            if (r.processesOk() > 0) assertTrue(row.measured(), row.describe());
        }
        assertTrue(r.rows().stream().anyMatch(x -> x.replay() == Replay.GRAPH));

        var correct = lab.correctness(ex).tokens(64).op("rmsnorm", "fused").op("swiglu", "fused")
                .region("qnorm_rope_real", dt -> Examples.qnormRopeReal(Glue.of(lab.spec("llama-3-8b"), 16), dt)).record(ex);
        System.out.println(correct.table().print(100));
        assertTrue(correct.passed(), correct.summary());
    }
}
