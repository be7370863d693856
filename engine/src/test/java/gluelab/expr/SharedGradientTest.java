package gluelab.expr;

import gluelab.backend.cpu.CpuDevice;
import gluelab.expr.eval.Reference;
import gluelab.expr.workbench.Examples;
import gluelab.expr.workbench.RegionCheck;
import gluelab.expr.lower.EagerTree;
import gluelab.expr.lower.RegionCost;
import gluelab.expr.run.Lowering;
import gluelab.expr.run.RegionLaunches;
import gluelab.tensor.TensorSpec;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** add_rmsnorm's backward: dx and dresidual are one value, written once into one buffer, both names still answered. */
class SharedGradientTest {
    static Glue small() { return Glue.dims("T", 24, "D", 96); }

    @Test
    void dxAndDresidualShareOneWrittenBuffer() {
        Region bwd = Examples.addRmsnorm(small(), "bf16").backward();
        assertSame(bwd.outputs().get("dx"), bwd.outputs().get("dresidual"));
        assertTrue(bwd.written().containsKey("dx") ^ bwd.written().containsKey("dresidual"), bwd.written().keySet().toString());
        assertEquals(bwd.bufferOf("dx"), bwd.bufferOf("dresidual"));
        assertEquals(bwd.outputs().size() - 1, bwd.written().size());
        List<String> buffers = RegionLaunches.tensors(bwd).stream().map(TensorSpec::name).toList();
        assertEquals(1, buffers.stream().filter(n -> n.equals("dx") || n.equals("dresidual")).count(), buffers.toString());
    }

    @Test
    void floorBytesCountTheSharedGradientOnce() {
        Region bwd = Examples.addRmsnorm(small(), "bf16").backward();
        long everyName = 0;
        for (Expr o : bwd.outputs().values()) everyName += o.bytes();
        assertEquals(everyName - 24 * 96 * 2, RegionCost.of(bwd).bytesWritten(), "one T x D bf16 tensor less");
        // The eager tree writes it once too: no kernel copies one gradient into the other.
        EagerTree tree = EagerTree.of(bwd);
        long writesOfIt = tree.kernels().stream().filter(k -> k.writes().equals(bwd.bufferOf("dx"))).count();
        assertEquals(1, writesOfIt);
        String alias = bwd.bufferOf("dx").equals("dx") ? "dresidual" : "dx";
        assertTrue(tree.kernels().stream().noneMatch(k -> k.writes().equals(alias)), "no kernel writes the alias " + alias);
    }

    @Test
    void bothNamesMatchFp64AndFiniteDifferencesEagerAndFused() {
        try (CpuDevice cpu = new CpuDevice(2)) {
            for (String dt : List.of("bf16", "fp32")) {
                Region f = Examples.addRmsnorm(small(), dt);
                for (RegionCheck.Result res : RegionCheck.check(cpu, f, dt.equals("bf16") ? 1 : 64, 256, 5)) assertTrue(res.ok(), res.toString());
                Region bwd = f.backward();
                Map<String, double[]> in = RegionCheck.randomInputs(bwd, 3);
                Map<String, double[]> ref = Reference.of(bwd).run(in);
                for (Lowering l : Lowering.values()) {
                    Map<String, double[]> got = RegionLaunches.run(cpu, bwd, l, in, Map.of());
                    assertEquals(bwd.outputs().keySet(), got.keySet());
                    assertArrayEquals(got.get("dx"), got.get("dresidual"), l.id());
                    assertArrayEquals(ref.get("dx"), ref.get("dresidual"));
                }
            }
            for (RegionCheck.GradResult g : RegionCheck.gradients(Examples.addRmsnorm(small(), "fp32"), 6, 9)) assertTrue(g.ok(), g.toString());
        }
    }
}
