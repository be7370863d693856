package gluelab.torch;

import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.lab.Gluelab;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Labs of one JVM share one harness per Python and device kind (the notebooks of one `gluelab run`):
 * the last holder to close ends it, a dead one is replaced, and {@link TorchSide#start} stays a
 * process of its own. Real Python processes with the torch the product's rule finds.
 */
@Tag("slow")
class SharedHarnessesTest {
    static PythonChoice python;
    static Device cpu;

    @BeforeAll static void find() {
        PythonChoice found = TorchPython.find();
        assumeTrue(found != null, () -> "no Python with torch for the torch tests: " + TorchPython.whyMissing());
        // The same interpreter under a path of its own (BIN/../BIN/python): other test classes' labs in this JVM share the
        // harness of the plain path, so here this class holds the only ones, and "the last holder" is one of ours.
        Path p = found.python();
        python = new PythonChoice(p.getParent().resolve("../" + p.getParent().getFileName() + "/" + p.getFileName()), found.source(), found.torch());
        cpu = Devices.open("cpu");
    }

    @AfterAll static void close() {
        if (cpu != null) cpu.close();
    }

    @Test void twoHoldersShareOneProcessAndTheLastToCloseEndsIt() throws Exception {
        TorchSide a = TorchSide.shared(python, cpu), b = TorchSide.shared(python, cpu);
        Process process = a.bridge().process();
        assertSame(a.bridge(), b.bridge());
        try (TorchSide own = TorchSide.start(python, cpu)) {
            assertNotEquals(a.bridge().pid(), own.bridge().pid(), "start() is a process of its own");
        }
        a.close();
        assertTrue(b.bridge().alive(), "b still holds it");
        TorchException e = assertThrows(TorchException.class, () -> b.bridge().call(TorchBridge.request("no_such_request"), "a call after a's close"));
        assertTrue(e.getMessage().contains("unknown request 'no_such_request'"), "the harness still answers: " + e.getMessage());
        b.close();
        assertTrue(process.waitFor(10, TimeUnit.SECONDS), "the harness ended with its last holder");
    }

    @Test void theLastHolderEndsItAndTheNextStartsAnother() throws Exception {
        TorchSide a = TorchSide.shared(python, cpu);
        Process first = a.bridge().process();
        a.close();
        assertTrue(first.waitFor(10, TimeUnit.SECONDS), "the harness ended with its last holder");
        try (TorchSide again = TorchSide.shared(python, cpu)) {
            assertNotEquals(first.pid(), again.bridge().pid());
            assertTrue(again.bridge().alive());
        }
    }

    @Test void aDeadHarnessIsReplacedAndClosingTheDeadOneLeavesTheNewOne() throws Exception {
        TorchSide a = TorchSide.shared(python, cpu);
        a.bridge().process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        TorchSide b = TorchSide.shared(python, cpu);
        assertNotSame(a.bridge(), b.bridge());
        assertTrue(b.bridge().alive());
        a.close();
        assertTrue(b.bridge().alive(), "closing the dead one's holder does not end its replacement");
        b.close();
        assertTrue(b.bridge().process().waitFor(10, TimeUnit.SECONDS));
    }

    @Test void labsOfOneJvmTalkToOneHarness() {
        try (Gluelab one = Gluelab.open("cpu"); Gluelab two = Gluelab.open("cpu")) {
            assertEquals(TorchPython.find(), two.torchPython(), "found without a harness");
            assertEquals(one.torch().bridge().pid(), two.torch().bridge().pid());
            assertEquals(one.torch().python(), two.torchPython());
        }
    }
}
