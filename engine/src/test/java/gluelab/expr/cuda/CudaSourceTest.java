package gluelab.expr.cuda;

import gluelab.backend.cuda.compile.NvccCompiler;
import gluelab.backend.cuda.compile.NvccCompilerTest;
import gluelab.expr.Glue;
import gluelab.expr.Region;
import gluelab.expr.workbench.Examples;
import gluelab.expr.lower.RowPlan;
import gluelab.model.Presets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Generated region kernels compile with nvcc for Hopper (compile only: no GPU needed, only the toolkit). */
@Tag("slow")
class CudaSourceTest {
    static NvccCompiler nvcc() { return NvccCompilerTest.nvcc(); }

    static List<Region> examples(Glue g) {
        List<Region> out = new ArrayList<>();
        for (String dt : List.of("bf16", "fp32")) {
            for (Region r : List.of(Examples.rmsnorm(g, dt), Examples.addRmsnorm(g, dt), Examples.qnormRopeComplex(g, dt),
                    Examples.qnormRopeReal(g, dt), Examples.swiglu(g, dt), Examples.ropeCat(g, dt))) {
                out.add(r);
                out.add(r.backward());
            }
        }
        return out;
    }

    @Test
    void everyExampleFwdAndBwdCompilesForSm90AtModelSizes() {
        NvccCompiler c = nvcc();
        // One translation unit per region, as the device compiles them; deepseek-v3 has R < HD (rope + cat).
        Glue g = Glue.of(Presets.DEEPSEEK_V3, 8192);
        StringBuilder all = new StringBuilder();
        int i = 0;
        for (Region r : examples(g)) {
            RowPlan plan = RowPlan.of(r);
            LaunchConfig d = LaunchConfig.defaultFor(plan);
            // The default, and the same with runs of 8 elements moved as 16-byte accesses.
            boolean bf16 = r.outputs().values().iterator().next().dtype() == gluelab.tensor.DType.BF16;
            List<LaunchConfig> configs = new java.util.ArrayList<>(bf16 && !d.isFlat() ? List.of(d, new LaunchConfig(Math.max(32, d.threadsPerRow() / 8), 256, d.blocksPerSm(), 8)) : List.of(d));
            // Two tiled (flat) or row-ahead-fetching candidates where the region has them.
            LaunchConfig.candidates(plan).stream().filter(x -> (x.isFlat() || x.prefetch()) && !configs.contains(x)).limit(2).forEach(configs::add);
            for (LaunchConfig lc : configs) {
                String src = CudaSource.generate(plan, lc).source();
                all.append("namespace r").append(i++).append(" {\n").append(src.replace("extern \"C\" ", "")).append("}\n");
            }
        }
        byte[] cubin = c.compileCubin(gluelab.backend.cuda.compile.SourceUnit.of("regions.cu", all.toString()), "sm_90", List.of("-std=c++17"));
        assertEquals('E', cubin[1], "a cubin is an ELF file");
    }

    @Test
    void everyCandidateConfigOfTheQNormRopeBackwardCompiles() {
        NvccCompiler c = nvcc();
        Region bwd = Examples.qnormRopeComplex(Glue.of(Presets.LLAMA_3_8B, 8192), "bf16").backward();
        RowPlan plan = RowPlan.of(bwd);
        List<LaunchConfig> configs = LaunchConfig.candidates(plan);
        assertTrue(configs.size() >= 4, configs.toString());
        StringBuilder all = new StringBuilder();
        int i = 0;
        // Every vector width and thread count appears among these (a third of the list keeps CI short).
        for (int k = 0; k < configs.size(); k += 3) {
            LaunchConfig lc = configs.get(k);
            all.append("namespace c").append(i++).append(" {\n").append(CudaSource.generate(plan, lc).source().replace("extern \"C\" ", "")).append("}\n");
        }
        c.compileCubin(gluelab.backend.cuda.compile.SourceUnit.of("configs.cu", all.toString()), "sm_90", List.of("-std=c++17"));
    }

    /** dx = dresidual of add_rmsnorm's backward: the kernel has one output pointer for it and stores it once per element. */
    @Test
    void sharedGradientIsStoredOnce() {
        Region bwd = Examples.addRmsnorm(Glue.of(Presets.LLAMA_3_8B, 512), "bf16").backward();
        RowPlan plan = RowPlan.of(bwd);
        String src = CudaSource.generate(plan, LaunchConfig.defaultFor(plan)).source();
        String out = "out" + plan.index(bwd.outputs().get("dx"));
        String signature = src.substring(src.indexOf(CudaSource.MAIN), src.indexOf('{', src.indexOf(CudaSource.MAIN)));
        assertEquals(1, count(signature, out + ","), signature);
        assertEquals(bwd.written().size(), count(signature, "* __restrict__ out") + count(signature, "* __restrict__ ws"), signature);
        assertEquals('E', nvcc().compileCubin(gluelab.backend.cuda.compile.SourceUnit.of("add_rmsnorm_bwd.cu", src), "sm_90", List.of("-std=c++17"))[1]);
    }

    /**
     * The norms' backwards sum x^2 and dy w x over a row independently: the generated kernel
     * completes both behind one barrier (row_sums<2>, as the hand kernels' group_sums), no lone
     * row_sum left; across warps (512 threads a row), a warp a row and several rows a block, fetching ahead or not; nvcc compiles them.
     */
    @Test
    void independentRowSumsShareOneBarrier() {
        StringBuilder all = new StringBuilder();
        int i = 0;
        Glue g = Glue.of(Presets.LLAMA_3_8B, 8192);
        for (Region bwd : List.of(Examples.rmsnorm(g, "bf16").backward(), Examples.addRmsnorm(g, "bf16").backward())) {
            RowPlan plan = RowPlan.of(bwd);
            for (LaunchConfig lc : List.of(new LaunchConfig(512, 512, 2, 8).prefetching(), new LaunchConfig(256, 512, 2, 4).prefetching(),
                    new LaunchConfig(32, 256, 4, 8), LaunchConfig.defaultFor(plan))) {
                String src = CudaSource.generate(plan, lc).source();
                String main = src.substring(src.indexOf(CudaSource.MAIN), src.indexOf(CudaSource.FINALIZE));
                assertEquals(1, count(main, "row_sums<2>(sb, red[par]"), bwd.name() + " " + lc.id());
                assertEquals(0, count(main, "row_sum("), bwd.name() + " " + lc.id());
                all.append("namespace s").append(i++).append(" {\n").append(src.replace("extern \"C\" ", "")).append("}\n");
            }
        }
        assertEquals('E', nvcc().compileCubin(gluelab.backend.cuda.compile.SourceUnit.of("row_sums.cu", all.toString()), "sm_90", List.of("-std=c++17"))[1]);
    }

    /** A sum that reads another (softmax's sum of exp(x - max)) waits for it: the order keeps every operand before its user. */
    @Test
    void phaseOrderKeepsOperandsFirst() {
        Glue g = Glue.dims("T", 64, "D", 256);
        gluelab.expr.Expr x = g.input("x", "fp32", "T", "D");
        gluelab.expr.Expr e = x.sub(x.amax()).exp();
        Region soft = g.region("softmax").out("y", e.div(e.sum())).out("m", x.mean().broadcastTo(g.dim("D")).add(x.square().mean()));
        List<gluelab.expr.Expr> order = CudaSource.byPhase(soft.nodes());
        for (gluelab.expr.Expr n : order) for (gluelab.expr.Expr a : n.args()) assertTrue(order.indexOf(a) < order.indexOf(n), n.describe());
        RowPlan plan = RowPlan.of(soft);
        String src = CudaSource.generate(plan, new LaunchConfig(64, 256, 0, 4)).source();
        // amax and the two means of x are phase 1; the sum of exp waits for the max.
        assertEquals(1, count(src, "row_sums<2>(sb"), src);
        assertEquals(1, count(src, "= row_sum("), src);
        assertEquals('E', nvcc().compileCubin(gluelab.backend.cuda.compile.SourceUnit.of("softmax.cu", src), "sm_90", List.of("-std=c++17"))[1]);
    }

    private static int count(String s, String part) {
        int n = 0;
        for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) n++;
        return n;
    }

    @Test
    void sourceDoesNotDependOnNames() {
        Glue a = Glue.dims("T", 64, "D", 128), b = Glue.dims("T", 64, "D", 128);
        Region ra = Examples.rmsnorm(a, "bf16"), rb = Examples.rmsnorm(b, "bf16").named("layers.7.norm");
        LaunchConfig lc = LaunchConfig.defaultFor(RowPlan.of(ra));
        assertEquals(CudaSource.generate(RowPlan.of(ra), lc).source(), CudaSource.generate(RowPlan.of(rb), lc).source());
    }

    @Test
    void tokenCountsShareOneSource() {
        for (String dt : List.of("bf16", "fp32")) {
            Region small = Examples.qnormRopeReal(Glue.of(Presets.LLAMA_3_8B, 16), dt).backward();
            Region big = Examples.qnormRopeReal(Glue.of(Presets.LLAMA_3_8B, 32768), dt).backward();
            assertNotEquals(small.signature(), big.signature(), "a region per shape, as torch counts graphs");
            LaunchConfig lc = LaunchConfig.defaultFor(RowPlan.of(small));
            assertEquals(CudaSource.generate(RowPlan.of(small), lc).source(), CudaSource.generate(RowPlan.of(big), lc).source(), "but one cubin");
        }
    }

    @Test
    void oversizedSharedMemoryIsRefusedBeforeCompiling() {
        Glue g = Glue.dims("T", 16, "D", 16384);
        var x = g.input("x", "fp32", "T", "D");
        Region r = g.region("big").out("y", x.mul(2.0).evens().cat(x.odds()));
        RowPlan plan = RowPlan.of(r);
        var e = assertThrows(gluelab.expr.ExprException.class, () -> CudaSource.generate(plan, new LaunchConfig(1024, 1024, 0, 1)));
        assertTrue(e.getMessage().contains("shared memory"), e.getMessage());
    }

    /** Every kernel of the eager trees (one primitive each, in its default configuration; some are one row, or flat) compiles. */
    @Test
    void everyEagerKernelCompilesForSm90() {
        Glue g = Glue.of(Presets.LLAMA_3_8B, 64);
        StringBuilder all = new StringBuilder();
        int i = 0;
        for (Region f : List.of(Examples.rmsnorm(g, "bf16"), Examples.qnormRopeReal(g, "bf16"), Examples.swiglu(g, "bf16"))) {
            for (Region r : List.of(f, f.backward())) {
                for (gluelab.expr.lower.EagerTree.Kernel k : gluelab.expr.lower.EagerTree.of(r).kernels()) {
                    RowPlan plan = RowPlan.of(k.region());
                    all.append("namespace e").append(i++).append(" {\n").append(CudaSource.generate(plan, LaunchConfig.defaultFor(plan)).source().replace("extern \"C\" ", "")).append("}\n");
                }
            }
        }
        assertTrue(i > 30, "kernels: " + i);
        assertEquals('E', nvcc().compileCubin(gluelab.backend.cuda.compile.SourceUnit.of("eager.cu", all.toString()), "sm_90", List.of("-std=c++17"))[1]);
    }

    /**
     * Elementwise regions over one shape (SwiGLU fwd and bwd, a cast) are tiled flat; a reduction or
     * a broadcast along rows keeps the row kernel; configurations of one kind are refused for the other.
     */
    @Test
    void flatRegionsAreTiledAndOthersKeepRows() {
        Glue g = Glue.of(Presets.LLAMA_3_8B, 8);
        Region swiglu = Examples.swiglu(g, "bf16"), rms = Examples.rmsnorm(g, "bf16");
        gluelab.expr.Expr x = g.input("x", "bf16", "T", "D"), w = g.input("w", "bf16", "D");
        for (Region r : List.of(swiglu, swiglu.backward(), g.region("cast").out("y", x.cast("fp32")))) {
            RowPlan plan = RowPlan.of(r);
            assertTrue(plan.flat(), r.name());
            assertTrue(LaunchConfig.defaultFor(plan).isFlat(), r.name());
            assertTrue(LaunchConfig.candidates(plan).stream().allMatch(LaunchConfig::isFlat), r.name());
        }
        for (Region r : List.of(rms, rms.backward(), g.region("scale").out("y", x.mul(w).cast("bf16")))) assertFalse(RowPlan.of(r).flat(), r.name());
        LaunchConfig flat = LaunchConfig.flat(256, 8, 8, 2);
        assertEquals(256 * 8 * 2, flat.tile());
        assertThrows(IllegalArgumentException.class, () -> CudaSource.generate(RowPlan.of(rms), flat));
        assertThrows(IllegalArgumentException.class, flat::prefetching);
        // Fetching ahead needs whole runs: a row of odd length has none.
        Region odd = Examples.rmsnorm(Glue.dims("T", 4, "D", 99), "bf16");
        assertThrows(IllegalArgumentException.class, () -> CudaSource.generate(RowPlan.of(odd), new LaunchConfig(32, 256, 4, 1).prefetching()));
        assertTrue(LaunchConfig.candidates(RowPlan.of(rms)).stream().anyMatch(LaunchConfig::prefetch));
    }

    /**
     * Where a rearranging node reads registers instead of shared memory, the element each register
     * read names is one the reading thread owns, in that register (element j lives in thread
     * (j / VEC) mod TPR, register (j / (VEC TPR)) VEC + j mod VEC): checked for every thread and
     * element of every example's forward and backward, in every candidate configuration.
     */
    @Test
    void registerReadsNameElementsTheThreadOwns() {
        int checked = 0;
        for (Region r : examples(Glue.of(Presets.DEEPSEEK_V3, 8))) {
            RowPlan plan = RowPlan.of(r);
            for (LaunchConfig c : LaunchConfig.candidates(plan)) {
                int tpr = c.threadsPerRow(), vec = c.vector(), span = tpr * vec;
                for (gluelab.expr.Expr e : plan.nodes()) {
                    if (e.op().kind() != gluelab.expr.Op.Kind.REMAP || !CudaSource.inRegisters(plan, c, e)) continue;
                    int len = plan.length(e);
                    for (int t = 0; t < tpr; t++) {
                        for (int kk = 0; kk < c.perThread(len); kk++) {
                            int j = (kk / vec * tpr + t) * vec + kk % vec;
                            if (j >= len) continue;
                            switch (e.op()) {
                                case SLICE -> owns(e, t, kk + e.start() / span * vec, e.start() + j, tpr, vec);
                                case SCATTER -> {
                                    if (j >= e.start() && j < e.start() + plan.length(e.arg(0))) owns(e, t, kk - e.start() / span * vec, j - e.start(), tpr, vec);
                                }
                                case CAT -> {
                                    int at = 0;
                                    for (gluelab.expr.Expr part : e.args()) {
                                        if (j >= at && j < at + plan.length(part)) owns(e, t, kk - at / span * vec, j - at, tpr, vec);
                                        at += plan.length(part);
                                    }
                                }
                                case CMUL -> {
                                    owns(e, t, kk & ~1, j & ~1, tpr, vec);
                                    owns(e, t, kk | 1, j | 1, tpr, vec);
                                }
                                case CONJ -> owns(e, t, kk, j, tpr, vec);
                                default -> fail("register form for " + e.describe());
                            }
                            checked++;
                        }
                    }
                }
            }
        }
        assertTrue(checked > 10_000, "checked " + checked);
    }

    private static void owns(gluelab.expr.Expr e, int t, int register, int element, int tpr, int vec) {
        assertEquals(t, element / vec % tpr, () -> e.describe() + ": element " + element + " is not thread " + t + "'s");
        assertEquals(element / (vec * tpr) * vec + element % vec, register, () -> e.describe() + ": element " + element + " is not in register " + register);
    }
}
