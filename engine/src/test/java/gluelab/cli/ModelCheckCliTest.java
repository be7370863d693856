package gluelab.cli;

import gluelab.torch.PythonChoice;
import gluelab.torch.TorchPython;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** `gluelab experiment --model-file` on a model whose forward never returns: bounded by --timeout, and no experiment is left behind. */
@Tag("slow")
class ModelCheckCliTest {
    @Test void aCheckThatHangsFailsWithinItsTimeoutNamingTheLineAndLeavesNoExperiment(@TempDir Path dir) throws Exception {
        PythonChoice python = TorchPython.find();
        assumeTrue(python != null, TorchPython::whyMissing);
        Path loop = Files.writeString(dir.resolve("loop.py"), """
                import torch
                class Net(torch.nn.Module):
                    def forward(self, x):
                        while True:
                            pass
                def build(T):
                    return Net()
                """);
        Path root = dir.resolve("experiments");
        long t0 = System.nanoTime();
        CliTest.Result r = CliTest.run("experiment", "lp", "--model-file", loop + ":build", "--inputs", "x:T,8:fp32", "--tokens", "16", "--device", "cpu",
                "--timeout", "1", "--experiments-root", root.toString(), "--python", python.python().toString());
        assertTrue((System.nanoTime() - t0) / 1e9 < 25, "bounded by --timeout");
        assertNotEquals(0, r.code(), r.toString());
        assertTrue(r.err().contains("loop.py:build: timed out: the model ran past the step limit (1 s) in forward without grad"), r.err());
        assertTrue(r.err().matches("(?s).*\\(loop.py:[45] in forward\\).*"), r.err());
        assertFalse(Files.exists(root.resolve("lp")), "a failed check leaves no experiment behind");
    }
}
