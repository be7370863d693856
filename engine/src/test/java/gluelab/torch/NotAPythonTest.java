package gluelab.torch;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** A --python that is not Python ended with "its last output:" and nothing after it (issue 23's probe). */
class NotAPythonTest {
    @Test
    void aProgramThatIsNotPythonIsNamedAndTheWayOutGiven() {
        assumeTrue(Files.isExecutable(Path.of("/bin/true")));
        var e = assertThrows(TorchException.class, () -> TorchBridge.start("/bin/true", "cpu"));
        String m = e.getMessage();
        assertTrue(m.contains("'/bin/true' did not start gluelab's torch harness; is it a Python?"), m);
        assertTrue(m.contains("exited with code 0, writing nothing on stderr") && m.contains("--python PATH"), m);
        assertFalse(m.contains("\n"), "one line: " + m);
    }

    /** Ctrl-C or a timeout's SIGTERM reaches the harness as it starts: a stopped start, not a program that is no Python. */
    @Test
    void aHarnessStoppedBySigtermAsItStartsIsNotCalledNotAPython(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/bin/sh")));
        Path python = Files.writeString(dir.resolve("python"), "#!/bin/sh\nkill -TERM $$\n");
        assertTrue(python.toFile().setExecutable(true));
        String m = assertThrows(TorchException.class, () -> TorchBridge.start(python.toString(), "cpu")).getMessage();
        assertFalse(m.contains("is it a Python?"), m);
        assertTrue(m.contains("the torch harness process was stopped by SIGTERM (exit code 143)"), m);
    }
}
