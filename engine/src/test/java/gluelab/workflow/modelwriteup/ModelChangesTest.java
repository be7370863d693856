package gluelab.workflow.modelwriteup;

import gluelab.ops.Replay;
import gluelab.torch.ModelFix;
import gluelab.workflow.confirm.ModelConfirmResult;
import gluelab.workflow.stack.CodeChange;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** What a model change says of a fix, short of running torch (ModelNotebooksTest runs the steps for real). */
class ModelChangesTest {
    static final Path MODELS = Path.of("..", "docs", "examples", "models").toAbsolutePath().normalize();
    static final Path LLAMA = MODELS.resolve("llama3.py");

    @Test void definitionsAreFoundByTheirQualifiedNames() {
        assertEquals(48, PythonDefs.line(LLAMA, "apply_rotary_emb"));
        assertEquals(87, PythonDefs.line(LLAMA, "Attention.rope"));
        assertEquals(70, PythonDefs.line(LLAMA, "RMSNorm.forward"));
        assertEquals(64, PythonDefs.line(LLAMA, "RMSNorm"));
        assertEquals(0, PythonDefs.line(LLAMA, "Attention.no_such"), "not defined");
        assertEquals(0, PythonDefs.line(LLAMA, "forward"), "a method is not a module function");
        assertEquals(0, PythonDefs.line(MODELS.resolve("rewrites.py"), "RotaryReal.apply"), "an attribute autograd.Function inherits");
    }

    @Test void aRowThatIsNoWinSaysSoBesideItsOwnCaveat() {
        var slower = new ModelConfirmResult.Row("rope", 16, Replay.DIRECT, 100, 3, 104, 3, 3, "", "noisy: 2 of 6 measurements (...)");
        assertEquals("noisy: 2 of 6 measurements (...); not a win in step 07: not faster than the model as written", ModelChanges.caveat(slower));
        var within = new ModelConfirmResult.Row("rope", 16, Replay.DIRECT, 100, 3, 99.5, 3, 3, "", "");
        assertEquals("not a win in step 07: under 1% faster than the model as written", ModelChanges.caveat(within));
        var win = new ModelConfirmResult.Row("rope", 16, Replay.DIRECT, 100, 3, 80, 3, 3, "", "");
        assertEquals("", ModelChanges.caveat(win));
    }

    @Test void eachKindOfPartNamesItsFileAndFunction() {
        ModelFix f = ModelFix.parse("norm=options:model.RMSNorm.forward:epilogue_fusion=false+regions:model.Attention.rope");
        assertEquals("Compile RMSNorm.forward with Inductor options epilogue_fusion=false + Compile Attention.rope as its own region", ModelChanges.title(f, LLAMA));
        assertEquals(List.of(new CodeChange("llama3.py", "RMSNorm.forward", 70, "compiled on its own with Inductor options epilogue_fusion=false")),
                ModelChanges.code(f.parts().get(0), LLAMA));
        assertEquals(List.of(new CodeChange("llama3.py", "Attention.rope", 87, "compiled on its own as a torch.compile region (fullgraph=True)")),
                ModelChanges.code(f.parts().get(1), LLAMA));
        assertEquals(List.of("model.RMSNorm.forward", "model.Attention.rope"), ModelChanges.compiledRegions(f));
        ModelFix ag = ModelFix.parse("ag=autograd:model.apply_rotary_emb=" + MODELS.resolve("rewrites.py") + ":apply_rotary_emb_autograd");
        assertEquals("ag=autograd:model.apply_rotary_emb=rewrites.py:apply_rotary_emb_autograd", ModelChanges.variant(ag));
        assertEquals(List.of(new CodeChange("llama3.py", "apply_rotary_emb", 48, "replaced by the autograd.Function `rewrites.py:apply_rotary_emb_autograd`"),
                new CodeChange("rewrites.py", "apply_rotary_emb_autograd", 57, "the replacement, with a hand-written backward")), ModelChanges.code(ag.parts().getFirst(), LLAMA));
        assertTrue(ModelChanges.at("Attention.rope (llama3.py:88)", "Attention.rope"));
        assertTrue(ModelChanges.at("RMSNorm.forward (llama3.py:72)", "RMSNorm"), "a class's methods are its lines");
        assertFalse(ModelChanges.at("apply_rotary_emb_real (rewrites.py:30)", "apply_rotary_emb"));
    }
}
