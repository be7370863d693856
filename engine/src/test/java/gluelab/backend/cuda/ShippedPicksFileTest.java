package gluelab.backend.cuda;

import gluelab.device.OpInstance;
import gluelab.device.ShippedPicks;
import gluelab.model.ModelSpec;
import gluelab.model.Presets;
import gluelab.ops.Catalogue;
import gluelab.ops.GlueOp;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.tensor.DType;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The shipped picks file (kernels/src/main/picks/sm_90.json) reads, and each pick is a config its kernel has at a preset's shape (no GPU needed). */
class ShippedPicksFileTest {
    static ShippedPicks.File shipped() throws Exception {
        try (InputStream in = ShippedPicksFileTest.class.getClassLoader().getResourceAsStream("gluelab/kernels/picks/sm_90.json")) {
            assertNotNull(in, "gluelab/kernels/picks/sm_90.json is on the class path");
            return ShippedPicks.read(in.readAllBytes(), "sm_90.json");
        }
    }

    @Test
    void everyShippedPickIsAValidConfigOfItsKernelAtAPresetShape() throws Exception {
        ShippedPicks.File f = shipped();
        assertEquals("sm_90", f.arch());
        assertFalse(f.picks().isEmpty());
        List<String> problems = new ArrayList<>();
        for (ShippedPicks.Pick p : f.picks()) {
            GlueOp op = Catalogue.parse(p.op());
            OpInstance at = null;
            for (ModelSpec spec : Presets.all()) {
                var shape = op.shape(spec, p.dims().get("T"), DType.parse(p.dtype()));
                if (shape.dims().equals(p.dims())) at = new OpInstance(op, shape, Pass.parse(p.pass()), Variant.FUSED);
            }
            if (at == null) { problems.add(p.op() + " " + p.dims() + ": no preset has these dims"); continue; }
            OpInstance in = at;
            if (FusedKernels.configs(in).stream().noneMatch(c -> c.id().equals(p.config()))) problems.add(in.label() + ": no config " + p.config());
        }
        assertEquals(List.of(), problems);
    }

    /** Where this fails, the CUDA sources changed after the picks were tuned: the picks are then not used (say so in the release notes, or tune again). */
    @Test
    void theShippedPicksWereTunedOnTheseKernelSources() throws Exception {
        ShippedPicks.File f = shipped();
        ShippedPicks loaded = ShippedPicks.forKernels("sm_90", KernelsHash.current());
        assertTrue(loaded.file().isPresent(), loaded.status() + ": regenerate with bench/gpu-kit/shipped_picks.sh on the GPU host and gluelab picks export");
        assertEquals(f.kernels(), KernelsHash.current());
    }
}
