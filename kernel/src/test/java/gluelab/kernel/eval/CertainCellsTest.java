package gluelab.kernel.eval;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import static org.junit.jupiter.api.Assertions.*;

/** The cells answered without javac give what JShell gives: the same value, error and snippet numbering. */
@Tag("slow")
class CertainCellsTest {
    static Evaluator certain;

    static final List<String> SESSION = List.of("int x = 41;", "long big = 1L << 40;", "String s = \"hi\";", "String nothing = null;",
            "double d = 0.1;", "char c = 'q';", "boolean b = true;", "Integer boxed = 7;", "List<Integer> list = List.of(1, 2);",
            "float f = 1.5f;", "byte by = 3;", "int $3 = 99;" /* the temporaries' numbering skips it */, "Object o = \"obj\";");

    /** Cells whose value is certain without javac. */
    static final List<String> CERTAIN = List.of("1", "0", "-1", "2147483647", "-2147483648", "1L", "-7l", "9223372036854775807L",
            "-9223372036854775808L", "0.1", "-0.0", "00.5", "1.7976931348623157", "0.000", "3.14159265358979323846264338327950288",
            "true", "false", "'a'", "' '", "'\"'", "\"hello world\"", "\"\"", "\"a//b\"", "\"'\"", "  1  \n", "\t\"x\"\n",
            "x", "s", "nothing", "d", "c", "b", "boxed", "f", "by", "big", "o");

    /** Cells JShell must compile: not literals this class knows, other expressions, errors, names of other kinds. */
    static final List<String> COMPILED = List.of("2147483648", "-2147483649", "9223372036854775808L", "1" + "0".repeat(400) + ".0",
            "0." + "0".repeat(400) + "1", "\"a\\nb\"", "'\\n'", "1;", "01", "0x10", "1_000", "1.5f", "1e3", "- 1", "1 // one",
            "null", "list", "undefinedName", "x + 1", "1/0", "display", "var", "x\u2003");

    @BeforeAll static void open() {
        certain = new Evaluator();
        SESSION.forEach(certain::eval);
    }

    @AfterAll static void close() { certain.close(); }

    @Test
    void everyCellGivesWhatJShellGivesWithTheSameNumbering() {
        try (Evaluator fast = new Evaluator(); Evaluator compiled = new Evaluator(false)) {
            for (String cell : SESSION) assertEquals(outcome(compiled, cell), outcome(fast, cell), cell);
            List<String> cells = new ArrayList<>(CERTAIN);
            cells.addAll(COMPILED);
            // An error in between, and the certain cells again after it: the numbering stays in step.
            cells.addAll(List.of("1/0", "1", "x", "1/0"));
            // A user's static import of a variable's name: the name goes to JShell.
            cells.addAll(List.of("int PI = 3;", "PI", "import static java.lang.Math.PI;", "PI", "1/0"));
            for (String cell : cells) {
                assertEquals(outcome(compiled, cell), outcome(fast, cell), cell);
                assertEquals(compiled.countersState(), fast.countersState(), "JShell's counters after " + cell);
            }
            assertEquals(0, compiled.certainCells());
        }
    }

    @Test
    void theCertainCellsSkipJavacAndTheOthersDoNot() {
        for (String cell : CERTAIN) {
            int before = certain.certainCells();
            certain.eval(cell);
            assertEquals(before + 1, certain.certainCells(), cell + " is answered without javac");
        }
        for (String cell : COMPILED) {
            int before = certain.certainCells();
            outcome(certain, cell);
            assertEquals(before, certain.certainCells(), cell + " goes to JShell");
        }
    }

    @Test
    void aRedefinedVariableShowsItsNewValueAndOneOfAnotherTypeGoesToJShell() {
        certain.eval("int y = 1;");
        assertEquals(1, certain.eval("y"));
        certain.eval("y = 5;");
        assertEquals(5, certain.eval("y"));
        certain.eval("String y = \"now text\";");
        assertEquals("now text", certain.eval("y"));
        int before = certain.certainCells();
        certain.eval("List<String> y = List.of(\"a\");");
        assertEquals(List.of("a"), certain.eval("y"));
        assertEquals(before, certain.certainCells(), "a list's text is its toString, which JShell calls");
    }

    @Test
    void aStaticImportOfTheSameNameSendsTheNameToJShell() {
        certain.eval("int E = 3;");
        int before = certain.certainCells();
        assertEquals(3, certain.eval("E"));
        assertEquals(before + 1, certain.certainCells());
        certain.eval("import static java.lang.Math.E;");
        outcome(certain, "E");
        assertEquals(before + 1, certain.certainCells());
    }

    @Test
    void literalsHaveJavacsValues() {
        assertEquals(Integer.MIN_VALUE, CertainCells.literal("-2147483648"));
        assertEquals(Long.MIN_VALUE, CertainCells.literal("-9223372036854775808L"));
        assertEquals(Double.valueOf(-0.0), CertainCells.literal("-0.0"));
        assertEquals('a', CertainCells.literal("'a'"));
        assertSame("interned".intern(), CertainCells.literal("\"interned\""));
        assertNull(CertainCells.literal("2147483648"));
        assertNull(CertainCells.literal("1e3"));
    }

    /** The value (its class and text, arrays by content) or the error (its class, message and REPL frames) a cell gives. */
    static String outcome(Evaluator e, String cell) {
        try {
            Object v = e.eval(cell);
            return v == null ? "null" : v.getClass().getName() + ":" + (v.getClass().isArray() ? Arrays.deepToString(new Object[]{v}) : Objects.toString(v));
        } catch (RuntimeException t) {
            StringBuilder sb = new StringBuilder(t.getClass().getName() + ":" + t.getMessage());
            Throwable cause = t.getCause();
            if (cause != null) sb.append(" cause ").append(cause.getClass().getName()).append(":").append(cause.getMessage());
            for (StackTraceElement f : t.getStackTrace()) if (f.getClassName().startsWith("REPL.")) sb.append(" at ").append(f);
            return sb.toString();
        }
    }
}
