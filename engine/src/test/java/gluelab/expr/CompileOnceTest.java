package gluelab.expr;

import gluelab.device.Buffer;
import gluelab.device.Launch;
import gluelab.backend.cpu.CpuDevice;
import gluelab.expr.workbench.Examples;
import gluelab.expr.run.Lowering;
import gluelab.expr.run.RegionCompiler;
import gluelab.expr.run.RegionLaunches;
import gluelab.tensor.TensorSpec;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/** A 32-layer model's worth of region calls compiles once per distinct signature, never per layer. */
class CompileOnceTest {
    @Test
    void thirtyTwoLayersCompileOncePerSignature() {
        try (CpuDevice cpu = new CpuDevice(1)) {
            RegionCompiler compiler = RegionCompiler.of(cpu);
            Set<String> signatures = new HashSet<>();
            int calls = 0;
            for (int layer = 0; layer < 32; layer++) {
                // Every layer builds its own expressions with its own input names, as a model's code would.
                Glue g = Glue.dims("T", 16, "D", 64, "H", 2, "HD", 32, "HD2", 16, "F", 48);
                String p = "layers." + layer + ".";
                Expr x = g.input(p + "x", "bf16", "T", "D"), w1 = g.input(p + "attn_norm", "bf16", "D"), w2 = g.input(p + "ffn_norm", "bf16", "D");
                Region attnNorm = g.region(p + "attn_norm").out(p + "h", Examples.rmsnorm(g, x, w1));
                Region ffnNorm = g.region(p + "ffn_norm").out(p + "h2", Examples.rmsnorm(g, x, w2));
                Region qk = Examples.qnormRopeReal(g, "bf16").named(p + "q");
                Region mlp = Examples.swiglu(g, "bf16").named(p + "mlp");
                for (Region r : List.of(attnNorm, ffnNorm, qk, mlp, attnNorm.backward(), qk.backward())) {
                    compiler.compile(r);
                    signatures.add(r.signature().key());
                    calls++;
                }
            }
            assertEquals(32 * 6, calls);
            assertEquals(5, signatures.size(), "rmsnorm (both sites), q-norm+RoPE, SwiGLU, and two backwards");
            assertEquals(signatures.size(), compiler.compiles(), "one compile per distinct signature");
        }
    }

    @Test
    void differentShapesOrDtypesAreDifferentSignatures() {
        Region a = Examples.rmsnorm(Glue.dims("T", 16, "D", 64), "bf16");
        assertEquals(a.signature(), Examples.rmsnorm(Glue.dims("T", 16, "D", 64), "bf16").signature());
        assertNotEquals(a.signature(), Examples.rmsnorm(Glue.dims("T", 32, "D", 64), "bf16").signature());
        assertNotEquals(a.signature(), Examples.rmsnorm(Glue.dims("T", 16, "D", 64), "fp32").signature());
    }

    @Test
    void eagerKernelsAreSharedByStructureToo() {
        try (CpuDevice cpu = new CpuDevice(1)) {
            Region r = Examples.addRmsnorm(Glue.dims("T", 8, "D", 32), "bf16");
            Map<String, Buffer> buffers = new HashMap<>();
            for (TensorSpec s : RegionLaunches.tensors(r)) buffers.put(s.name(), cpu.allocate(s));
            RegionCompiler c = RegionCompiler.of(cpu);
            try (Launch l = RegionLaunches.prepare(cpu, r, Lowering.EAGER, buffers, Map.of())) {
                int first = c.compiles();
                try (Launch again = RegionLaunches.prepare(cpu, r.named("layer2"), Lowering.EAGER, buffers, Map.of())) {
                    assertEquals(first, c.compiles());
                    assertEquals(l.kernels(), again.kernels());
                }
            }
            buffers.values().forEach(Buffer::close);
        }
    }
}
