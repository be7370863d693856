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

    /**
     * Where this fails, a family's CUDA sources changed after its picks were tuned: those picks are
     * then not used (the other families' still are). Re-tune that family alone:
     * FAMILIES=<family> bench/gpu-kit/shipped_picks.sh on the GPU host, then picks export --merge.
     */
    @Test
    void everyShippedPickWasTunedOnItsFamilysCurrentSources() throws Exception {
        ShippedPicks.File f = shipped();
        var hashes = KernelsHash.byOp();
        List<String> stale = f.picks().stream().filter(p -> !p.current(hashes)).map(p -> p.op() + " " + p.pass() + " " + p.dims() + " kernels@" + p.kernels()
                + " (now kernels@" + hashes.get(gluelab.ops.OpId.of(p.op())) + ")").distinct().toList();
        assertEquals(List.of(), stale, "re-tune with FAMILIES=... bench/gpu-kit/shipped_picks.sh, then gluelab picks export --merge");
        assertEquals(f.picks().size(), ShippedPicks.forKernels("sm_90", hashes).file().orElseThrow().picks().size());
    }

    /** FAMILIES=... of the script that regenerates the file names the families by their files' names. */
    @Test
    void theRegeneratingScriptKnowsEveryFamilyByItsFileName() throws Exception {
        String script = java.nio.file.Files.readString(java.nio.file.Path.of("..", "bench", "gpu-kit", "shipped_picks.sh"));
        for (FusedFamily f : FusedKernels.FAMILIES) {
            String name = f.source().replace(".cu", "");
            assertTrue(script.contains("    " + name + ") "), "shipped_picks.sh FAMILIES has no case for " + name);
        }
    }
}
