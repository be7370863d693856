package gluelab.backend.cuda;

import gluelab.device.KernelConfig;
import gluelab.device.OpInstance;
import gluelab.device.Tunable;
import gluelab.backend.cuda.compile.CompileCache;
import gluelab.backend.cuda.compile.NvccCompiler;
import gluelab.backend.cuda.compile.NvccCompilerTest;
import gluelab.model.ModelSpec;
import gluelab.model.Presets;
import gluelab.ops.Catalogue;
import gluelab.ops.GlueOp;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.tensor.DType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.*;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The fused kernel families' config spaces, and their compilation in parallel through nvcc (compile
 * only: no GPU needed, so this runs on CI wherever the CUDA toolkit is installed).
 */
@Tag("slow")
class FusedKernelsTest {
    /** Configs compiled by the round-robin test: every kernel's default and next forms (nvcc on 2 cores takes seconds each). */
    private static final int SAMPLE = 32;

    @TempDir Path cacheDir;

    static List<OpInstance> catalogue(ModelSpec spec, long tokens) {
        List<OpInstance> out = new ArrayList<>();
        for (GlueOp op : Catalogue.all()) {
            for (Pass p : Pass.values()) {
                if (op.supports(p)) out.add(new OpInstance(op, op.shape(spec, tokens, DType.BF16), p, Variant.FUSED));
            }
        }
        return out;
    }

    @Test
    void everyFusedKernelHasAtLeastEightConfigsPrunedByShape() {
        for (ModelSpec spec : List.of(Presets.ANCHOR_H200, Presets.DEEPSEEK_V3)) {
            for (OpInstance in : catalogue(spec, 8192)) {
                List<KernelConfig> cs = FusedKernels.configs(in);
                assertTrue(cs.size() >= 8, in.label() + " " + spec.name() + ": " + cs.size() + " configs");
                assertEquals(cs.size(), new HashSet<>(cs).size(), "no config twice");
                for (KernelConfig c : cs) {
                    if (c.params().containsKey("vec") && in.shape().dims().containsKey("D") && !in.op().name().equals("cat")) {
                        assertEquals(0, in.shape().dim("D") % c.get("vec"), c + " must divide D");
                    }
                }
            }
        }
        var cast32 = Catalogue.parse("cast");
        assertTrue(FusedKernels.configs(new OpInstance(cast32, cast32.shape(Presets.LLAMA_3_8B, 64, DType.FP32), Pass.FORWARD, Variant.FUSED)).isEmpty(),
                "an fp32 cast is the eager cast: no configs");
    }

    @Test
    void aSampleOfEveryFamilysConfigsCompilesInParallelThroughNvcc() {
        NvccCompiler nvcc = NvccCompilerTest.nvcc();
        KernelSources sources = new KernelSources();
        CompileCache cache = new CompileCache(cacheDir, nvcc);
        // Round-robin over the kernels so every kernel's space, and so every family, is in the sample.
        Map<List<String>, Runnable> unique = new LinkedHashMap<>();
        List<Deque<Map.Entry<OpInstance, KernelConfig>>> perKernel = new ArrayList<>();
        for (OpInstance in : catalogue(Presets.ANCHOR_H200, 8192)) {
            Deque<Map.Entry<OpInstance, KernelConfig>> q = new ArrayDeque<>();
            for (KernelConfig c : FusedKernels.configs(in)) q.add(Map.entry(in, c));
            perKernel.add(q);
        }
        List<Map.Entry<OpInstance, KernelConfig>> picked = new ArrayList<>();
        Set<List<String>> seen = new HashSet<>();
        while (picked.size() < SAMPLE && perKernel.stream().anyMatch(q -> !q.isEmpty())) {
            for (var q : perKernel) {
                if (q.isEmpty() || picked.size() >= SAMPLE) continue;
                var e = q.poll();
                if (seen.add(CudaKernels.options(e.getKey(), e.getValue()))) picked.add(e);
            }
        }
        assertEquals(SAMPLE, picked.size());
        assertEquals(FusedKernels.FAMILIES.size(), picked.stream().map(e -> FusedKernels.require(e.getKey())).distinct().count(), "every family is in the sample");
        Map<KernelConfig, OpInstance> owner = new IdentityHashMap<>();
        List<KernelConfig> configs = new ArrayList<>();
        for (var e : picked) {
            KernelConfig c = new KernelConfig(e.getValue().kernel(), e.getValue().params());
            owner.put(c, e.getKey());
            configs.add(c);
        }
        int threads = Runtime.getRuntime().availableProcessors();
        long t0 = System.nanoTime();
        List<Tunable.CompileOutcome> outcomes = CudaTuning.compileAll(configs, threads, c -> c,
                c -> cache.fetch(sources.unit(FusedKernels.require(owner.get(c)).source()), "sm_90", CudaKernels.options(owner.get(c), c)));
        double wall = (System.nanoTime() - t0) * 1e-9, sum = outcomes.stream().mapToDouble(Tunable.CompileOutcome::seconds).sum();
        System.out.printf("compiled %d configs on %d threads: wall %.1f s, per-config sum %.1f s (%.1fx)%n", outcomes.size(), threads, wall, sum, sum / wall);
        for (Tunable.CompileOutcome o : outcomes) {
            assertTrue(o.error().isEmpty(), o.config() + ": " + o.error().orElse(""));
            assertTrue(o.compiled(), o.config() + " was compiled, not taken from a cache");
        }
        assertTrue(sum >= wall * 0.9, "the per-config sum is the serial cost: " + sum + " vs wall " + wall);
    }

    @Test
    void stagedNormConfigsMoveSixteenByteAccessesWithinTheirSharedMemory() {
        int staged = 0;
        for (OpInstance in : catalogue(Presets.ANCHOR_H200, 8192)) {
            if (!in.op().name().endsWith("rmsnorm")) continue;
            for (KernelConfig c : FusedKernels.configs(in)) {
                int bytes = FusedKernels.sharedBytes(in, c);
                if (!c.params().containsKey("stages")) {
                    assertEquals(0, bytes, c + " has no ring");
                    continue;
                }
                staged++;
                assertEquals(16, c.get("vec") * in.shape().dtype().bytes(), c + ": cp.async moves 16 bytes");
                // the ring holds stages x tensors x accesses x threads 16-byte slots, within the dynamic limit the configs allow
                int tensors = (in.pass() == Pass.FORWARD ? 1 : 2) + (in.op().name().equals("add_rmsnorm") ? 1 : 0);
                assertEquals(c.get("stages") * tensors * c.get("cpt") * c.get("threads") * 16, bytes, c.toString());
                assertTrue(bytes <= 100 * 1024, c + ": " + bytes + " bytes");
            }
        }
        assertTrue(staged >= 8, staged + " staged configs");
    }

    /**
     * One config of each form whose kernel code is not in the round-robin sample above (a grid
     * barrier that finishes dw, rows interleaved across the grid, rows staged for q-norm + RoPE)
     * compiles for sm_90, and the staged q-norm forms ask for the shared memory their ring takes.
     */
    @Test
    void barrierAndStagedFormsCompileWithinTheirSharedMemory() {
        NvccCompiler nvcc = NvccCompilerTest.nvcc();
        KernelSources sources = new KernelSources();
        CompileCache cache = new CompileCache(cacheDir, nvcc);
        List<String> forms = List.of("dwfin", "ileave", "stages");
        Map<List<String>, Map.Entry<OpInstance, KernelConfig>> firstOfForm = new LinkedHashMap<>();
        for (OpInstance in : catalogue(Presets.ANCHOR_H200, 8192)) {
            String op = in.op().name();
            if (!op.startsWith("qnorm_rope") && !op.equals("rmsnorm")) continue;
            for (KernelConfig c : FusedKernels.configs(in)) {
                List<String> form = new ArrayList<>(List.of(op, in.pass().name()));
                for (String f : forms) if (c.params().getOrDefault(f, 0) > 0) form.add(f);
                if (form.size() == 2 || op.equals("rmsnorm") && !form.contains("dwfin")) continue;
                firstOfForm.putIfAbsent(form, Map.entry(in, c));
                int bytes = FusedKernels.sharedBytes(in, c);
                if (c.params().containsKey("stages") && op.startsWith("qnorm_rope")) {
                    int tensors = in.pass() == Pass.FORWARD ? 1 : 2;
                    assertEquals(c.get("stages") * tensors * (c.get("vec") * 2 / 16) * c.get("threads") * 16, bytes, c.toString());
                }
                assertTrue(bytes <= 100 * 1024, c + ": " + bytes + " bytes");
            }
        }
        // rmsnorm bwd: dwfin + ileave, staged and not; per q-norm form: fwd staged, bwd staged + dwfin, bwd interleaved, with and without dwfin
        assertEquals(2 + 2 * 4, firstOfForm.size(), firstOfForm.keySet().toString());
        List<KernelConfig> configs = new ArrayList<>();
        Map<KernelConfig, OpInstance> owner = new IdentityHashMap<>();
        for (var e : firstOfForm.values()) {
            KernelConfig c = new KernelConfig(e.getValue().kernel(), e.getValue().params());
            owner.put(c, e.getKey());
            configs.add(c);
        }
        List<Tunable.CompileOutcome> outcomes = CudaTuning.compileAll(configs, Runtime.getRuntime().availableProcessors(), c -> c,
                c -> cache.fetch(sources.unit(FusedKernels.require(owner.get(c)).source()), "sm_90", CudaKernels.options(owner.get(c), c)));
        for (Tunable.CompileOutcome o : outcomes) assertTrue(o.error().isEmpty(), o.config() + ": " + o.error().orElse(""));
    }

    @Test
    void aConfigThatDoesNotCompileIsReportedWithItsReason() {
        NvccCompiler nvcc = NvccCompilerTest.nvcc();
        // A kernel source whose routing section no longer compiles: its configs are rejected, with the compiler's line.
        var routing = new KernelSources().unit("routing.cu");
        String line = "const RouteKey best = group_max<L>(m[0]);";
        assertTrue(routing.text().contains(line), "routing.cu still has the line this test breaks: " + line);
        var broken = routing.withText(routing.text().replace(line, "const RouteKey best = group_max<L>(m[0]) + not_declared;"));
        CompileCache cache = new CompileCache(cacheDir, nvcc);
        var op = Catalogue.parse("moe_routing");
        OpInstance in = new OpInstance(op, op.shape(Presets.ANCHOR_H200, 64, DType.BF16), Pass.FORWARD, Variant.FUSED);
        List<KernelConfig> two = FusedKernels.configs(in).subList(0, 2);
        List<Tunable.CompileOutcome> out = CudaTuning.compileAll(two, 2, c -> c, c -> cache.fetch(broken, "sm_90", CudaKernels.options(in, c)));
        for (Tunable.CompileOutcome o : out) {
            String why = o.error().orElseThrow(() -> new AssertionError(o.config() + " compiled"));
            assertTrue(why.startsWith("does not compile") && why.contains("not_declared"), why);
        }
    }
}
