package gluelab.kernel;

import gluelab.kernel.eval.CompileError;
import gluelab.kernel.eval.Evaluator;
import gluelab.kernel.eval.UserCodeError;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class EvaluatorTest {
    static Evaluator e;

    @BeforeAll static void open() { e = new Evaluator(); }

    @AfterAll static void close() { e.close(); }

    @Test
    void multiSnippetCellsReturnTheLastValueAsARealObject() {
        assertEquals(7, e.eval("int a = 3;\nint b = 4;\na + b"));
        Object t = e.eval("var lab = Gluelab.open(\"cpu\");\nlab.ops()");
        assertInstanceOf(Table.class, t);
        assertNull(e.eval("int c = 1;\nvoid f() {}"));
    }

    @Test
    void redefinitionsReplaceEarlierSnippets() {
        e.eval("int twice(int x) { return 2 * x; }");
        assertEquals(10, e.eval("twice(5)"));
        e.eval("int twice(int x) { return 3 * x; }");
        assertEquals(15, e.eval("twice(5)"));
    }

    @Test
    void compileErrorsGiveLineColumnAndSource() {
        var err = assertThrows(CompileError.class, () -> e.eval("int ok = 1;\nString s = 5;"));
        assertEquals(2, err.line());
        assertTrue(err.getMessage().contains("String s = 5;") && err.getMessage().contains("^"), err.getMessage());
    }

    @Test
    void runtimeExceptionsKeepTheRealTypeWithUserFramesFirst() {
        var err = assertThrows(UserCodeError.class, () -> e.eval("int[] z = new int[1];\nz[3] = 1;"));
        assertInstanceOf(ArrayIndexOutOfBoundsException.class, err.getCause());
        assertTrue(err.getStackTrace().length >= 1);
        assertTrue(err.getStackTrace()[0].getClassName().startsWith("REPL."), err.getStackTrace()[0].toString());
        assertTrue(err.getMessage().contains("cell line 2"), err.getMessage());
    }

    @Test
    void aRunningLoopStopsAndTheNextCellWorks() throws Exception {
        Thread stopper = new Thread(() -> {
            try {
                Thread.sleep(500);
            } catch (InterruptedException ignored) {
                return;
            }
            e.stop();
        });
        stopper.start();
        long t0 = System.nanoTime();
        e.eval("long n = 0; while (true) { n++; }");
        assertTrue((System.nanoTime() - t0) / 1e9 < 30, "the loop was stopped");
        assertEquals(2, e.eval("1 + 1"));
    }

    @Test
    void completenessCompletionAndInspection() {
        assertEquals("incomplete", e.isComplete("for (int i = 0; i < 3; i++) {"));
        assertEquals("complete", e.isComplete("int q = 1;"));
        assertEquals("invalid", e.isComplete("int q = ;"));
        e.eval("var labc = Gluelab.open(\"cpu\");");
        List<String> c = e.complete("labc.calib", 10, new int[1]);
        assertTrue(c.contains("calibrate()") && c.contains("calibration()"), c.toString());
        String doc = e.inspect("Math.max(1, 2)", 9);
        assertNotNull(doc);
        assertTrue(doc.contains("max"), doc);
    }

    @Test
    void badClasspathEntriesAreNamed() {
        var err = assertThrows(IllegalArgumentException.class, () -> e.addToClasspath("/no/such.jar"));
        assertTrue(err.getMessage().contains("/no/such.jar"));
    }
}
