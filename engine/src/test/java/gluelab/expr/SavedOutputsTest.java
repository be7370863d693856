package gluelab.expr;

import gluelab.backend.cpu.CpuDevice;
import gluelab.expr.eval.Reference;
import gluelab.expr.workbench.Examples;
import gluelab.expr.workbench.RegionCheck;
import gluelab.expr.lower.EagerTree;
import gluelab.expr.lower.RegionCost;
import gluelab.expr.run.Lowering;
import gluelab.expr.run.RegionLaunches;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The backward reads a forward output back (add+rmsnorm's h) instead of recomputing it from the
 * forward's inputs where that reads fewer bytes: x and the residual drop out of its inputs.
 */
class SavedOutputsTest {
    static Glue small() { return Glue.dims("T", 24, "D", 96); }

    private static List<String> inputNames(Region r) { return r.inputs().stream().map(Expr::name).sorted().toList(); }

    @Test
    void addRmsnormBackwardReadsTheSavedSumNotItsOperands() {
        Region f = Examples.addRmsnorm(small(), "bf16");
        Region bwd = f.backward();
        assertEquals(List.of("dh", "dy", "h", "w"), inputNames(bwd));
        assertEquals(List.of("h"), f.savedOutputs());
        assertFalse(bwd.input("h").requiresGrad());
        // Four T x D bf16 tensors and w, as the catalogue's hand kernel (it was five: x and residual for h).
        long td = 24 * 96 * 2;
        assertEquals(4 * td + 96 * 2 + 96 * 2, RegionCost.of(bwd).bytesRead() + RegionCost.of(bwd).bytesWritten());
        // The eager tree reads h too: no kernel recomputes the add.
        assertTrue(EagerTree.of(bwd).kernels().stream().noneMatch(k -> k.reads().contains("x") || k.reads().contains("residual")));
    }

    @Test
    void rmsnormKeepsRecomputingFromItsInputs() {
        // y is a cast of the normalised row, which the backward does not read: nothing to save.
        Region f = Examples.rmsnorm(small(), "bf16");
        assertEquals(List.of(), f.savedOutputs());
        assertEquals(List.of("dy", "w", "x"), inputNames(f.backward()));
    }

    @Test
    void anOutputIsNotSavedWhereReadingItCostsAsMuch() {
        // exp's derivative reads exp(x) itself, y; reading y instead of x moves as many bytes, so x stays.
        Glue g = small();
        Expr x = g.input("x", "fp32", "T", "D");
        Region f = g.region("exp").out("y", x.exp());
        assertEquals(List.of(), f.savedOutputs());
        assertEquals(List.of("dy", "x"), inputNames(f.backward()));
        // Where y is bf16 and x fp32, reading y is cheaper: saved.
        Expr xf = g.input("x", "fp32", "T", "D");
        Expr y = xf.cast("bf16").exp();
        Region narrow = g.region("exp_bf16").out("y", y);
        assertEquals(List.of("y"), narrow.savedOutputs());
        for (RegionCheck.GradResult r : RegionCheck.gradients(narrow, 6, 4)) assertTrue(r.ok(), r.toString());
    }

    @Test
    void savedBackwardMatchesFp64AndFiniteDifferencesOnTheCpu() {
        try (CpuDevice cpu = new CpuDevice(2)) {
            for (String dt : List.of("bf16", "fp32")) {
                for (RegionCheck.Result res : RegionCheck.check(cpu, Examples.addRmsnorm(small(), dt), dt.equals("bf16") ? 1 : 64, 256, 11)) assertTrue(res.ok(), res.toString());
            }
            Region f = Examples.addRmsnorm(small(), "fp32");
            for (RegionCheck.GradResult g : RegionCheck.gradients(f, 8, 12)) assertTrue(g.ok(), g.toString());
            // Fed the forward's h, the saved backward gives the gradients of the one that recomputes h from x and residual.
            Map<String, double[]> in = RegionCheck.randomInputs(f, 13);
            Map<String, double[]> outs = Reference.of(f).run(in);
            Region bwd = f.backward();
            Map<String, double[]> bin = new LinkedHashMap<>(RegionCheck.randomInputs(bwd, 14));
            bin.put("h", outs.get("h"));
            Map<String, double[]> saved = RegionLaunches.run(cpu, bwd, Lowering.FUSED, bin, Map.of());
            Expr x = Expr.input("x", f.input("x").shape(), f.input("x").dtype(), true), r = Expr.input("residual", x.shape(), x.dtype(), true);
            Map<String, Expr> recomputed = new LinkedHashMap<>();
            Map<Expr, Expr> sub = new java.util.IdentityHashMap<>();
            sub.put(bwd.input("h"), x.add(r));
            bwd.outputs().forEach((n, e) -> recomputed.put(n, Composition.rebuild(e, sub)));
            Map<String, double[]> rin = new LinkedHashMap<>(bin);
            rin.remove("h");
            rin.put("x", in.get("x"));
            rin.put("residual", in.get("residual"));
            Map<String, double[]> full = Reference.of(Region.of("recomputed", recomputed)).run(rin);
            for (String o : List.of("dx", "dw")) {
                double[] a = saved.get(o), e = full.get(o);
                for (int i = 0; i < a.length; i++) assertEquals(e[i], a[i], 1e-4 * Math.max(1, Math.abs(e[i])), o + "[" + i + "]");
            }
        }
    }
}
