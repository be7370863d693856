package gluelab.torch;

import com.fasterxml.jackson.databind.JsonNode;
import gluelab.files.Json;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The --fix syntax: each kind parsed, written back, ordered cheapest first, and sent to the harness as the JSON it reads. */
class ModelFixTest {
    static final String REWRITES = Path.of("../docs/examples/models/rewrites.py").toAbsolutePath().normalize().toString();

    @Test void eachKindParsesAndWritesBack() {
        ModelFix regions = ModelFix.parse("r=regions:model.Attention.rope, model.FeedForward.forward");
        assertEquals(new ModelFix.RegionSet(List.of("model.Attention.rope", "model.FeedForward.forward")), regions.parts().getFirst());
        assertTrue(regions.regionSet());
        ModelFix swap = ModelFix.parse("rope=swap:model.apply_rotary_emb=" + REWRITES + ":apply_rotary_emb_real+regions:model.apply_rotary_emb");
        assertEquals(ModelFix.Kind.SWAP, swap.kind());
        assertFalse(swap.regionSet());
        assertEquals(new ModelFix.Swap("model.apply_rotary_emb", REWRITES, "apply_rotary_emb_real"), swap.parts().getFirst());
        ModelFix opt = ModelFix.parse("o=options:model.RMSNorm.forward:epilogue_fusion=false,max_autotune_gemm=true,unroll_reductions_threshold=4");
        ModelFix.RegionOptions o = (ModelFix.RegionOptions) opt.parts().getFirst();
        assertEquals(false, o.options().get("epilogue_fusion"));
        assertEquals(4L, o.options().get("unroll_reductions_threshold"));
        ModelFix ag = ModelFix.parse("ag=autograd:model.apply_rotary_emb=" + REWRITES + ":RotaryReal.apply");
        assertEquals(ModelFix.Kind.AUTOGRAD, ag.kind());
        for (ModelFix f : List.of(regions, swap, opt, ag)) assertEquals(f, ModelFix.parse(f.spec()), f.spec());
        assertEquals(List.of("r", "rope", "o", "ag"), ModelFix.cheapestFirst(List.of(ag, opt, swap, regions)).stream().map(ModelFix::name).toList());
        assertEquals(5, ModelFix.together("all", List.of(regions, swap, opt, ag)).parts().size());
    }

    @Test void theHarnessReadsKindAndFields() throws Exception {
        ModelFix f = ModelFix.parse("rope=swap:model.apply_rotary_emb=" + REWRITES + ":apply_rotary_emb_real+options:model.RMSNorm.forward:epilogue_fusion=false");
        JsonNode n = Json.MAPPER.valueToTree(f);
        assertEquals("swap", n.at("/parts/0/kind").asText());
        assertEquals(REWRITES, n.at("/parts/0/file").asText());
        assertEquals("options", n.at("/parts/1/kind").asText());
        assertFalse(n.at("/parts/1/options/epilogue_fusion").asBoolean(true));
        assertEquals(f, Json.MAPPER.treeToValue(n, ModelFix.class));
    }

    @Test void badSpecsNameTheInput() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ModelFix.parse("rope")).getMessage().contains("expected NAME=KIND"));
        assertEquals("--fix 'swap:model.f=fixes.py:g': no NAME= before the fix (it starts with the kind 'swap'); expected NAME=KIND:..., e.g. rope=swap:model.f=fixes.py:g",
                assertThrows(IllegalArgumentException.class, () -> ModelFix.parse("swap:model.f=fixes.py:g")).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ModelFix.parse("x=swap:model.f=missing_file.py:g")).getMessage()
                .matches("--fix x: replacement file .*missing_file.py: no such file"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ModelFix.parse("x=regions:Attention.rope")).getMessage()
                .contains("region 'Attention.rope': expected model.NAME"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ModelFix.parse("x=compile:model.f")).getMessage().contains("unknown kind 'compile'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ModelFix.parse("x=options:model.f:fusion")).getMessage().contains("'fusion' is not KEY=VALUE"));
    }
}
