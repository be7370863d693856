package gluelab.check;

import gluelab.backend.cpu.CpuDevice;
import gluelab.model.ModelSpec;
import gluelab.model.Presets;
import gluelab.ops.Catalogue;
import gluelab.ops.GlueOp;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.tensor.DType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/** Every CPU op, variant and pass against the fp64 reference, in bf16 and fp32. */
class CpuOpsVsReferenceTest {
    static CpuDevice device;

    @BeforeAll static void open() { device = new CpuDevice(2); }

    @AfterAll static void close() { device.close(); }

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (GlueOp op : Catalogue.all()) {
            for (Pass p : Pass.values()) {
                if (!op.supports(p)) continue;
                for (Variant v : Variant.ON_DEVICES) {
                    for (DType d : List.of(DType.BF16, DType.FP32)) out.add(Arguments.of(op.name(), p, v, d));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2} {3}")
    @MethodSource("cases")
    void matchesFp64(String name, Pass pass, Variant variant, DType dtype) {
        GlueOp op = Catalogue.parse(name);
        // A small DeepSeek-like spec keeps the fp64 reference fast and exercises odd sizes.
        ModelSpec spec = new ModelSpec("small", null, "test", 96, 3, 3, 48, 32, 160, 96, 20, 4, "sigmoid", 1e-6, 10000, 2, List.of());
        Correctness c = new Checker(device).check(op, op.shape(spec, 37, dtype), pass, variant);
        assertTrue(c.passed(), () -> "failed: " + c);
        if (variant == Variant.FUSED) {
            // In bf16 the fused kernels round once per output (fp32 compute): within a couple of ulp of fp64.
            var outs = op.outputs(op.shape(spec, 37, dtype), pass);
            for (int i = 0; i < outs.size(); i++) {
                if (outs.get(i).dtype() == DType.BF16) assertTrue(c.vsReference().get(i).maxUlp() <= 2.0, c.vsReference().get(i).toString());
            }
            assertEquals(c.vsReference().size(), c.vsEager().size());
        }
        if (name.equals("moe_routing")) {
            assertEquals(0, c.vsReference().stream().filter(e -> e.tensor().equals("indices")).findFirst().orElseThrow().mismatches());
        }
    }

    /** Widths that are no multiple of any SIMD step: the bf16 row loops' scalar tails run too. */
    @ParameterizedTest(name = "{0} {1} hidden {2}")
    @MethodSource("tails")
    void normRowTailsMatchFp64(String name, Pass pass, int hidden) {
        GlueOp op = Catalogue.parse(name);
        ModelSpec spec = new ModelSpec("tails", null, "test", hidden, 3, 3, 48, 32, hidden + 7, 96, 20, 4, "sigmoid", 1e-6, 10000, 2, List.of());
        Correctness c = new Checker(device).check(op, op.shape(spec, 19, DType.BF16), pass, Variant.FUSED);
        assertTrue(c.passed(), () -> "failed: " + c);
        for (var e : c.vsReference()) assertTrue(e.maxUlp() <= 2.0, e.toString());
    }

    static Stream<Arguments> tails() {
        List<Arguments> out = new ArrayList<>();
        for (String op : List.of("rmsnorm", "add_rmsnorm", "swiglu")) {
            for (Pass p : Pass.values()) for (int hidden : new int[]{53, 100}) out.add(Arguments.of(op, p, hidden));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ops")
    void llamaShapesAreChecked(String name) {
        GlueOp op = Catalogue.parse(name);
        Correctness c = new Checker(device).check(op, op.shape(Presets.LLAMA_3_8B, 4, DType.BF16), Pass.FORWARD, Variant.FUSED);
        assertTrue(c.passed(), c::toString);
    }

    static Stream<String> ops() { return Catalogue.names().stream(); }
}
