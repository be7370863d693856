package gluelab.workflow.model;

import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.model.Presets;
import gluelab.torch.ModelEntry;
import gluelab.torch.PythonChoice;
import gluelab.torch.TorchException;
import gluelab.torch.TorchPython;
import gluelab.torch.TorchSide;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ModelSubject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Step 00 on the analyst's model, with the real torch the product's rule finds (CI: torch 2.13 CPU):
 * the shipped examples are checked and planned; every kind of bad model input is a one-line error
 * naming the file, the function and the input, and leaves no plan behind.
 */
@Tag("slow")
class ModelPlanTest {
    /** The example models the project ships (tests run in engine/). */
    static final Path EXAMPLES = Path.of("..", "docs", "examples", "models").toAbsolutePath().normalize();

    static Device cpu;
    static TorchSide torch;

    @BeforeAll static void start() {
        TorchPython.useSharedInductorCache();
        PythonChoice python = TorchPython.find();
        assumeTrue(python != null, () -> "no Python with torch for the torch tests: " + TorchPython.whyMissing());
        cpu = Devices.open("cpu");
        torch = TorchSide.start(python, cpu);
    }

    @AfterAll static void stop() {
        if (torch != null) torch.close();
        if (cpu != null) cpu.close();
    }

    static ModelSubject subject(Path file, String function, String inputs) {
        return new ModelSubject(file.toString(), function, inputs, "", List.of());
    }

    static ModelPlan.Planned plan(Path root, String name, ModelSubject s) {
        return ModelPlan.write(ExperimentFolder.open(name, root), torch.bridge(), Presets.LLAMA_3_8B, s, List.of(16L, 32L), 0.05, "cpu");
    }

    @Test void theShippedExamplesAreCheckedAndPlanned(@TempDir Path root) throws Exception {
        var llama = plan(root, "llama", subject(EXAMPLES.resolve("llama3.py"), "build", "x:T,64:fp32"));
        assertEquals("Transformer", llama.check().moduleType());
        assertEquals(2, llama.check().blocks(), "the ModuleDict's layers: " + llama.check().describe());
        assertEquals("TransformerBlock", llama.check().blockType());
        assertEquals(List.of(List.of(16L, 64L)), llama.check().outputs());
        var ex = ExperimentFolder.open("llama", root);
        assertTrue(ex.plan().hasModelSubject());
        assertEquals(EXAMPLES.resolve("llama3.py").toString(), ex.plan().modelSubject().file());
        assertEquals(List.of(16L, 32L), ex.plan().tokens());

        // What the check ran is kept: a plan.json edited afterwards to a name forward does not take is refused when it is read.
        assertTrue(Files.readString(ex.checkedInputsFile()).contains("\"forward\" : \"(x)\""), Files.readString(ex.checkedInputsFile()));
        Files.writeString(ex.planFile(), Files.readString(ex.planFile()).replace("\"x:T,64:fp32\"", "\"h:T,64:fp32\""));
        var e = assertThrows(IllegalArgumentException.class, () -> ExperimentFolder.open("llama", root).plan());
        assertTrue(e.getMessage().startsWith(ex.planFile() + ": field \"subject.inputs[0]\" ('h:T,64:fp32'): 'h' is not forward's parameter there: "
                + "step 00's model check ran forward(x) with 'x' there"), e.getMessage());

        var ds = plan(root, "deepseek", subject(EXAMPLES.resolve("deepseek_v3.py"), "build", "x:T,64:fp32"));
        assertEquals(2, ds.check().blocks(), ds.check().describe());
        assertEquals("Block", ds.check().blockType());
        assertTrue(ds.check().parameters() > 100_000, ds.check().describe());
    }

    /** A model with no repeated blocks and no container named: "no repeated blocks", not "no repeated blocks ()". */
    @Test void aModelWithoutRepeatedBlocksSaysSo(@TempDir Path root) throws Exception {
        Path one = Files.writeString(root.resolve("one.py"), "import torch\n\ndef build(T):\n    return torch.nn.Linear(4, 4)\n");
        String described = plan(root, "one", subject(one, "build", "input:T,4:fp32")).check().describe();
        assertTrue(described.contains("no repeated blocks") && !described.contains("()"), described);
    }

    /** A --blocks the model does not have is refused before the plan is written, not dropped in silence. */
    @Test void aBlocksContainerTheModelDoesNotHaveIsRefused(@TempDir Path root) throws Exception {
        var s = new ModelSubject(EXAMPLES.resolve("llama3.py").toString(), "build", "x:T,64:fp32", "nolayers", List.of());
        String e = planError(root, s);
        assertTrue(e.startsWith("--blocks nolayers: ") && !e.contains("--blocks nolayers: --blocks"), e);
    }

    /** A --regions path that names no function of the model file is refused by the plan check, naming the path. */
    @Test void aRegionTheModelFileDoesNotHaveIsRefused(@TempDir Path root) throws Exception {
        var s = new ModelSubject(EXAMPLES.resolve("llama3.py").toString(), "build", "x:T,64:fp32", "", List.of("model.Attention.nope"));
        String e = planError(root, s);
        assertTrue(e.contains("region model.Attention.nope: model.Attention has no attribute 'nope'"), e);
    }

    /** The plan step's error for {@code s}; no plan may be left. */
    static String planError(Path root, ModelSubject s) {
        RuntimeException e = assertThrows(RuntimeException.class, () -> plan(root, "bad", s));
        assertFalse(ExperimentFolder.open("bad", root).hasPlan(), "a model that failed its check left a plan");
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
        return e.getMessage();
    }

    @Test void badModelInputIsAnErrorNamingTheFileTheFunctionAndTheInput(@TempDir Path root) throws Exception {
        Path llama = EXAMPLES.resolve("llama3.py");
        String shape = planError(root, subject(llama, "build", "x:T,48:fp32"));
        assertTrue(shape.contains("llama3.py:build") && shape.contains("input 'x' (16,48 fp32)") && shape.contains("llama3.py:"), shape);
        assertTrue(shape.matches(".*\\(llama3\\.py:\\d+ in \\w+\\).*"), "names the line of the model that raised: " + shape);

        String dtype = planError(root, subject(llama, "build", "x:T,64:bf16"));
        assertTrue(dtype.contains("llama3.py:build: input 'x' (16,64 bf16) is bf16 but the model's parameters are fp32"), dtype);

        String name = planError(root, subject(llama, "build", "h:T,64:fp32"));
        assertTrue(name.contains("input 'h' (16,64 fp32) is given where Transformer.forward(x) takes 'x'"), name);

        String extra = planError(root, subject(llama, "build", "x:T,64:fp32; w:64:fp32"));
        assertTrue(extra.contains("input 'w' (64 fp32) has no parameter in Transformer.forward(x)"), extra);

        String function = planError(root, subject(llama, "make", "x:T,64:fp32"));
        assertTrue(function.contains("llama3.py has no function 'make'"), function);

        Path broken = Files.writeString(root.resolve("broken.py"), "import torch\nimport not_a_module_here\n\ndef build(T):\n    return torch.nn.Linear(4, 4)\n");
        String imports = planError(root, subject(broken, "build", "x:T,4:fp32"));
        assertTrue(imports.contains("broken.py does not import: ModuleNotFoundError") && imports.contains("broken.py:2"), imports);

        Path notModule = Files.writeString(root.resolve("plain.py"), "def build(T):\n    return lambda x: x\n\ndef raising(T):\n    raise ValueError('T=%d too small' % T)\n"
                + "\nnot_callable = 5\n");
        String module = planError(root, subject(notModule, "build", "x:T,4:fp32"));
        assertTrue(module.contains("plain.py:build returned a function, not an nn.Module"), module);
        String notCallable = planError(root, subject(notModule, "not_callable", "x:T,4:fp32"));
        assertTrue(notCallable.contains("plain.py:not_callable is an int, not a function"), notCallable);
        String raised = planError(root, subject(notModule, "raising", "x:T,4:fp32"));
        assertTrue(raised.contains("plain.py:raising(16) failed: ValueError: T=16 too small (plain.py:5 in raising)"), raised);

        Path dictOut = Files.writeString(root.resolve("dict_out.py"), "import torch\n\nclass M(torch.nn.Module):\n    def __init__(self):\n"
                + "        super().__init__()\n        self.l = torch.nn.Linear(4, 4)\n\n    def forward(self, x):\n        return {'y': self.l(x)}\n\n"
                + "def build(T):\n    return M()\n");
        String dict = planError(root, subject(dictOut, "build", "x:T,4:fp32"));
        assertTrue(dict.contains("dict_out.py:build: forward returned a dict, not a tensor or a tuple or list of tensors"), "a dict holds a float tensor: " + dict);

        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
                () -> plan(root, "bad", subject(root.resolve("nowhere.py"), "build", "x:T,4:fp32")));
        assertTrue(missing.getMessage().contains("no such file") && missing.getMessage().contains("nowhere.py"), missing.getMessage());
        IllegalArgumentException symbol = assertThrows(IllegalArgumentException.class, () -> plan(root, "bad", subject(llama, "build", "x:T,Q:fp32")));
        assertTrue(symbol.getMessage().contains("input 'x:T,Q:fp32': dim 2 'Q'"), symbol.getMessage());
        assertThrows(TorchException.class, () -> plan(root, "bad", subject(llama, "build", "x:T,48:fp32")));
        assertTrue(torch.bridge().alive(), "a bad model leaves the harness usable");
    }

    @Test void aModelEntryNamesAPythonFileAndAFunction(@TempDir Path dir) throws Exception {
        Path f = Files.writeString(dir.resolve("m.py"), "");
        assertEquals("build", ModelEntry.parse(f + ":build").function());
        for (String bad : List.of(f.toString(), f + ":", dir.resolve("m.txt") + ":build", dir.resolve("none.py") + ":build", f + ":not-a-name")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ModelEntry.parse(bad), bad);
            assertTrue(e.getMessage().contains("--model-file") || e.getMessage().contains("not a Python function name"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> new ModelSubject("f.py", "build", "x:T:fp32", "", List.of("Attention.rope")));
    }
}
