package gluelab.kernel;

import gluelab.cli.Main;
import gluelab.files.Json;
import gluelab.kernel.install.KernelSpecs;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** `gluelab kernel ...` and `gluelab run` as the CLI parses them (the plug-in registered by Main). */
class KernelCommandsTest {
    record Result(int code, String out, String err) {}

    static Result gluelab(String... args) {
        CommandLine cl = Main.commandLine();
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err, true));
        PrintStream old = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true));
        try {
            return new Result(cl.execute(args), out.toString(), err.toString());
        } finally {
            System.setOut(old);
        }
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void installTakesOneTargetAndSaysWhenItReplacesAnotherCheckoutsKernel(@TempDir Path dir) throws Exception {
        Result both = gluelab("kernel", "install", "--prefix", dir.resolve("pfx").toString(), "--jupyter-path", dir.resolve("jp").toString());
        assertEquals(2, both.code(), both.toString());
        assertTrue(both.err().contains("--prefix") && both.err().contains("--jupyter-path") && both.err().contains("mutually exclusive"), both.err());
        assertFalse(Files.exists(dir.resolve("pfx")) || Files.exists(dir.resolve("jp")), "nothing installed");

        Path spec = dir.resolve("jp/kernels/gluelab");
        Files.createDirectories(spec);
        Files.writeString(spec.resolve("kernel.json"), Json.write(KernelSpecs.spec("/other/jdk/bin/java",
                "/other/checkout/kernel/target/gluelab-kernel-0.1.0-SNAPSHOT.jar:/other/checkout/kernel/target/lib/x.jar")));
        Result over = gluelab("kernel", "install", "--jupyter-path", dir.resolve("jp").toString());
        assertEquals(0, over.code(), over.toString());
        List<String> lines = over.out().lines().toList();
        String replaced = lines.stream().filter(l -> l.startsWith("replaced")).findFirst().orElse("");
        assertTrue(replaced.startsWith("replaced kernelspec gluelab in " + spec.toAbsolutePath() + ": /other/checkout/kernel/target/gluelab-kernel-0.1.0-SNAPSHOT.jar"
                + " (java /other/jdk/bin/java) -> "), over.out());
        assertTrue(lines.getLast().startsWith("installed kernelspec gluelab in "), over.out());
        Result list = gluelab("kernel", "list", "--jupyter-path", dir.resolve("jp").toString());
        assertTrue(list.out().contains(spec.toAbsolutePath() + "  runs " + KernelSpecs.Launch.current().describe()), list.out());
        Result again = gluelab("kernel", "install", "--jupyter-path", dir.resolve("jp").toString());
        assertFalse(again.out().contains("replaced"), "the same checkout's kernelspec is replaced without a word: " + again.out());
        assertEquals(0, gluelab("kernel", "uninstall", "--jupyter-path", dir.resolve("jp").toString()).code());
    }

    @Test
    void runChecksTheStorysParametersAsTheCliOptionsBeforeAKernelStarts(@TempDir Path dir) {
        Path plan = Path.of("../notebooks/00-plan.ipynb");
        Result r = gluelab("run", plan.toString(), "-p", "experiment=p2", "-p", "tokens=3x", "--out", dir.resolve("out").toString());
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("gluelab run: error: parameter 'tokens' of " + plan + ": token count '3x' is not a whole number"), r.err());
        assertFalse(Files.exists(dir.resolve("out")), "no notebook ran");
    }

    @Test
    void aModelFileThatIsNotThereIsRefusedBeforeAKernelStarts(@TempDir Path dir) {
        Path plan = Path.of("../notebooks/00-plan.ipynb");
        Result r = gluelab("run", plan.toString(), "-p", "modelFile=nowhere/blocks.py:build", "--out", dir.resolve("out").toString());
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("gluelab run: error: parameter 'modelFile' of " + plan + ": --model-file 'nowhere/blocks.py:build': no such file"), r.err());
        assertFalse(Files.exists(dir.resolve("out")), "no notebook ran");
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void theKernelCommandsHelpAndVersion() {
        for (List<String> path : List.of(List.of("kernel", "install"), List.of("kernel", "list"), List.of("run"))) {
            Result help = gluelab(java.util.stream.Stream.concat(path.stream(), java.util.stream.Stream.of("--help")).toArray(String[]::new));
            assertTrue(help.code() == 0 && help.out().contains("Usage: gluelab " + String.join(" ", path)) && !help.err().contains("WARN"), help.toString());
            Result version = gluelab(java.util.stream.Stream.concat(path.stream(), java.util.stream.Stream.of("--version")).toArray(String[]::new));
            assertEquals("gluelab " + gluelab.record.Environment.VERSION, version.out().strip(), path.toString());
        }
    }
}
