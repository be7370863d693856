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
}
