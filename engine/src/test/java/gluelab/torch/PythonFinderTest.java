package gluelab.torch;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The rule for the bridge's Python, with real interpreters: the Python with torch the rule finds on
 * this machine (CI: GLUELAB_PYTHON), the same interpreter started with -S (no site packages, so no
 * torch), and scripts that are not Python at all.
 */
class PythonFinderTest {
    @TempDir static Path dir;
    static Path withTorch;
    static Path noTorch;

    @BeforeAll static void interpreters() throws IOException {
        PythonChoice found = TorchPython.find();
        assumeTrue(found != null, () -> "no Python with torch on this machine: " + TorchPython.whyMissing());
        withTorch = found.python();
        noTorch = script("no-site/python3", "exec " + withTorch + " -S \"$@\"");
    }

    static Path script(String name, String body) throws IOException {
        Path p = dir.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        assertTrue(p.toFile().setExecutable(true));
        return p;
    }

    /** A folder holding {@code python3} (and {@code python}) that run {@code target}. */
    static Path binOf(String name, Path target) throws IOException {
        script(name + "/bin/python", "exec " + target + " \"$@\"");
        script(name + "/bin/python3", "exec " + target + " \"$@\"");
        return dir.resolve(name);
    }

    static PythonFinder finder(Map<String, String> env, Path system) { return new PythonFinder(env, system); }

    @Test void theNamedPythonComesFirstThenGluelabPython() {
        var flag = finder(Map.of("GLUELAB_PYTHON", noTorch.toString()), noTorch).find(withTorch.toString(), PythonSource.FLAG);
        assertEquals(new PythonChoice(withTorch, PythonSource.FLAG, flag.torch()), flag);
        assertEquals("python: " + withTorch + " (--python)", flag.describe());
        var env = finder(Map.of("GLUELAB_PYTHON", withTorch.toString()), noTorch).find(null, PythonSource.FLAG);
        assertEquals(PythonSource.GLUELAB_PYTHON, env.source());
        assertEquals("python: " + withTorch + " (GLUELAB_PYTHON)", env.describe());
    }

    @Test void aNamedPythonThatCannotServeIsAnErrorNotSkipped() throws IOException {
        var e = assertThrows(TorchException.class, () -> finder(Map.of("GLUELAB_PYTHON", noTorch.toString()), withTorch).find(null, PythonSource.FLAG));
        assertEquals(TorchException.Kind.MISSING, e.kind());
        assertTrue(e.getMessage().startsWith("GLUELAB_PYTHON " + noTorch + ": no torch (ModuleNotFoundError"), e.getMessage());
        assertTrue(e.getMessage().contains("order tried: --python"), e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), "one line: " + e.getMessage());

        Path notPython = script("not-python", "echo 'this is a shell script'");
        var shell = assertThrows(TorchException.class, () -> finder(Map.of(), withTorch).find(notPython.toString(), PythonSource.ARGUMENT));
        assertTrue(shell.getMessage().startsWith("lab.torch(PATH) " + notPython + ": is not a Python (exit 0: this is a shell script)"), shell.getMessage());

        var absent = assertThrows(TorchException.class, () -> finder(Map.of(), withTorch).find(dir.resolve("nope").toString(), PythonSource.FLAG));
        assertTrue(absent.getMessage().startsWith("--python " + dir.resolve("nope") + ": does not exist"), absent.getMessage());
        var unknownName = assertThrows(TorchException.class, () -> finder(Map.of("PATH", dir.toString()), withTorch).find("python9", PythonSource.FLAG));
        assertTrue(unknownName.getMessage().startsWith("--python python9: not found on PATH"), unknownName.getMessage());
    }

    @Test void theActiveVirtualEnvironmentThenPathThenTheSystemPythonThatImportsTorch() throws IOException {
        Path venv = binOf("venv", withTorch);
        Path noTorchPath = binOf("path-no-torch", noTorch);
        Path torchPath = binOf("path-torch", withTorch);
        var v = finder(Map.of("VIRTUAL_ENV", venv.toString(), "PATH", torchPath.resolve("bin").toString()), noTorch).find(null, PythonSource.FLAG);
        assertEquals(new PythonChoice(venv.resolve("bin/python"), PythonSource.VIRTUAL_ENV, v.torch()), v);

        var p = finder(Map.of("PATH", noTorchPath.resolve("bin") + ":" + torchPath.resolve("bin")), withTorch).find(null, PythonSource.FLAG);
        assertEquals(PythonSource.SYSTEM, p.source(), "only the first python3 on PATH counts; it has no torch, so the system one: " + p);
        assertEquals(withTorch, p.python());

        var onPath = finder(Map.of("PATH", torchPath.resolve("bin").toString()), noTorch).find(null, PythonSource.FLAG);
        assertEquals(new PythonChoice(torchPath.resolve("bin/python3"), PythonSource.PATH, onPath.torch()), onPath);

        Path venvNoTorch = binOf("venv-no-torch", noTorch);
        var past = finder(Map.of("VIRTUAL_ENV", venvNoTorch.toString(), "PATH", torchPath.resolve("bin").toString()), noTorch).find(null, PythonSource.FLAG);
        assertEquals(PythonSource.PATH, past.source(), "a virtual environment without torch is passed over: " + past);
    }

    @Test void noPythonWithTorchIsOneLineNamingEachOneTried() throws IOException {
        Path noTorchPath = binOf("path-none", noTorch);
        var e = assertThrows(TorchException.class, () -> finder(Map.of("PATH", noTorchPath.resolve("bin").toString()), noTorch).find(null, PythonSource.FLAG));
        assertEquals(TorchException.Kind.MISSING, e.kind());
        String m = e.getMessage();
        assertEquals(1, m.lines().count(), m);
        assertTrue(m.startsWith("no Python with torch found; GLUELAB_PYTHON is not set; no active virtual environment; "), m);
        assertTrue(m.contains(noTorchPath.resolve("bin/python3") + " (first python3 on PATH): no torch (ModuleNotFoundError"), m);
        assertTrue(m.contains(noTorch + " (/usr/bin/python3): no torch"), m);
        assertTrue(m.contains("use --python PATH"), m);
    }

    @Test void theChoiceIsAnnouncedOncePerProcess() {
        var choice = new PythonChoice(dir.resolve("announced/python"), PythonSource.VIRTUAL_ENV, "2.13.0");
        var out = new ByteArrayOutputStream();
        var print = new PrintStream(out, true, StandardCharsets.UTF_8);
        assertTrue(choice.announceOnce(print));
        assertFalse(choice.announceOnce(print));
        assertEquals("python: " + dir.resolve("announced/python") + " (active virtual environment)\n", out.toString(StandardCharsets.UTF_8));
    }

    @Test void torchVersionsCompareByMajorAndMinor() {
        assertTrue(PythonFinder.atLeast("2.13.0+cpu", new int[] {2, 0}));
        assertTrue(PythonFinder.atLeast("1.13.1", PythonFinder.MIN_TORCH));
        assertFalse(PythonFinder.atLeast("1.11.0", PythonFinder.MIN_TORCH));
        assertFalse(PythonFinder.atLeast("1.13.0", new int[] {2, 0}));
        assertTrue(PythonFinder.atLeast("2.6.0a0+git1234", new int[] {2, 6}));
    }
}
