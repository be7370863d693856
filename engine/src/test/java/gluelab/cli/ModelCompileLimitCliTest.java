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

/**
 * A loop that dynamo traces for ever counted as compile time, which the step limit leaves out, so a compiled tree ran up to
 * 20 minutes past `--step-limit 20`: the compile has a limit of its own (`--compile-limit`), and a trace stopped by it is a
 * FAILED tree naming the line dynamo was tracing; the progress says "compiling" meanwhile.
 */
@Tag("slow")
class ModelCompileLimitCliTest {
    @Test void aTraceThatNeverEndsIsStoppedByTheCompileLimitNamingItsLine(@TempDir Path dir) throws Exception {
        TorchPython.useSharedInductorCache();
        PythonChoice python = TorchPython.find();
        assumeTrue(python != null, TorchPython::whyMissing);
        // line 8: the statement dynamo unrolls while it compiles; eager (and the plan check) never loops
        Path loop = Files.writeString(dir.resolve("traceloop.py"), """
                import torch
                class Net(torch.nn.Module):
                    def __init__(self):
                        super().__init__()
                        self.lin = torch.nn.Linear(8, 8)
                    def forward(self, x):
                        while torch.compiler.is_compiling():
                            x = x + 1
                        return self.lin(x)
                def build(T):
                    return Net()
                """);
        String root = dir.resolve("experiments").toString(), py = python.python().toString();
        CliTest.Result plan = CliTest.run("experiment", "tl", "--model-file", loop + ":build", "--inputs", "x:T,8:fp32", "--tokens", "16", "--device", "cpu",
                "--experiments-root", root, "--python", py);
        assertEquals(0, plan.code(), plan.toString());

        CliTest.Result refused = CliTest.run("model", "profile", "tl", "--compile-limit", "0", "--experiments-root", root, "--python", py);
        assertNotEquals(0, refused.code());
        assertTrue(refused.err().contains("--compile-limit must be more than 0 seconds, got 0.0"), refused.err());

        long t0 = System.nanoTime();
        CliTest.Result r = CliTest.run("model", "profile", "tl", "--step-limit", "20", "--compile-limit", "3", "--experiments-root", root, "--python", py);
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertEquals(0, r.code(), "eager was profiled: " + r);
        assertTrue(seconds < 90, "the compile limit stops the trace, not 20 minutes of it: " + seconds + " s");
        assertTrue(r.out().matches("(?s).*## whole\\s+FAILED: timed out: torch\\.compile was still compiling at the compile limit \\(3 s of compiling\\) "
                + "in building the model and its first fwd\\+bwd step \\(traceloop\\.py:[78] in forward\\).*"), r.out());
        assertTrue(r.err().contains("whole @ 16 tokens: compiling"), "the progress shows the compile: " + r.err());
    }
}
