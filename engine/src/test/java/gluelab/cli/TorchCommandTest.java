package gluelab.cli;

import gluelab.files.Json;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

@Tag("slow")
class TorchCommandTest {
    @Test void badTorchOptionsFailBeforeAnythingRuns() {
        CliTest.assertBadInput(CliTest.run("bench", "cast", "--device", "cpu", "--with", "pytorch"), "--with takes 'torch', got 'pytorch'");
        CliTest.assertBadInput(CliTest.run("bench", "cast", "--device", "cpu", "--with", "torch", "--compile-mode", "fast"), "unknown --compile-mode 'fast'");
        CliTest.assertBadInput(CliTest.run("torch", "time", "m:f", "--device", "cpu", "--inputs", "x:T,Q:bf16"), "input 'x:T,Q:bf16': dim 2 'Q'");
        CliTest.assertBadInput(CliTest.run("torch", "time", "m:f", "--device", "cpu", "--inputs", "x:T"), "expected NAME:DIMS:DTYPE");
    }

    @Test void aPythonWithoutTorchIsNamedWithTheFullCommandAndTheWayOut(@TempDir Path dir) throws Exception {
        // The system Python without its site packages: a real interpreter that cannot import torch.
        Path noSite = dir.resolve("python-no-site");
        Files.writeString(noSite, "#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n");
        assertTrue(noSite.toFile().setExecutable(true));
        var r = CliTest.run("torch", "versions", "--device", "cpu", "--python", noSite.toString());
        assertEquals(1, r.code(), r.toString());
        assertTrue(r.err().contains("gluelab torch versions: error: --python " + noSite + ": no torch (ModuleNotFoundError"), r.err());
        assertTrue(r.err().contains("order tried: --python"), r.err());
        assertTrue(r.err().contains("use --python PATH"), r.err());
    }

    @Test void benchWithTorchOnTheCpuThenItsChart(@TempDir Path dir) throws Exception {
        var python = gluelab.torch.TorchPython.find();
        assumeTrue(python != null, () -> "no Python with torch: " + gluelab.torch.TorchPython.whyMissing());
        gluelab.torch.TorchPython.useSharedInductorCache();
        var r = CliTest.run("bench", "cast", "--device", "cpu", "--tokens", "16", "--with", "torch", "--python", python.python().toString(),
                "--torch-variants", "torch-eager", "--timeout", "0.2", "--min-time", "0.01", "--check", "0", "--json");
        assertEquals(0, r.code(), r.toString());
        var variants = Json.MAPPER.readTree(r.out()).findValuesAsText("variant");
        assertTrue(variants.containsAll(java.util.List.of("eager", "fused", "torch-eager")), variants.toString());
        Path rows = Files.writeString(dir.resolve("rows.json"), r.out());
        var chart = CliTest.run("torch", "chart", rows.toString(), dir.resolve("sbs").toString(), "--device-name", "CPU test host");
        assertEquals(0, chart.code(), chart.toString());
        assertTrue(chart.out().contains("sbs-fwd.png: Baselines (fwd): ") && chart.out().contains("(CPU test host, "), chart.out());
        assertTrue(chart.out().matches("(?s).*torch-eager \\((us|ms|s)\\).*"), chart.out());
        assertTrue(Files.exists(dir.resolve("sbs-fwd.png")));
        CliTest.assertBadInput(CliTest.run("torch", "chart", dir.resolve("sbs-fwd.png").toString(), dir.resolve("x").toString(), "--device-name", "x"), "not the JSON rows");
    }
}
