package gluelab.kernel;

import gluelab.kernel.eval.CompileError;
import gluelab.kernel.eval.Evaluator;
import gluelab.kernel.eval.ExitGuard;
import gluelab.kernel.eval.UserCodeError;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

@Tag("slow")
class EvaluatorTest {
    static Evaluator e;

    @BeforeAll static void open() { e = new Evaluator(); }

    @AfterAll static void close() { e.close(); }

    @Test
    void aDeclarationShowsNothingAndItsNameShowsItsValue() {
        assertNull(e.eval("String paramDevice = \"auto\";"), "a parameters cell echoes nothing");
        assertEquals("auto", e.eval("paramDevice"));
        assertEquals(3, e.eval("1 + 2"));
    }

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
        // JShell's stop reaches only code already running: a stop that lands while the cell still compiles (a slow,
        // loaded machine) does nothing, so it is repeated until the cell ends, as the kernel's interrupt does.
        var ended = new java.util.concurrent.CountDownLatch(1);
        Thread stopper = new Thread(() -> {
            try {
                while (!ended.await(200, java.util.concurrent.TimeUnit.MILLISECONDS)) e.stop();
            } catch (InterruptedException ignored) {
                // the cell ended
            }
        });
        stopper.start();
        long t0 = System.nanoTime();
        try {
            // The statement after the loop must not run once the loop was stopped.
            assertThrows(Evaluator.InterruptedCellException.class, () -> e.eval("long n = 0; while (true) { n++; }\nString after = \"ran\";"));
        } finally {
            ended.countDown();
            stopper.join();
        }
        assertTrue((System.nanoTime() - t0) / 1e9 < 120, "the loop was stopped");
        assertThrows(CompileError.class, () -> e.eval("after"), "the rest of the stopped cell did not run");
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
    void oneShotCellsAreForgottenWhileDeclarationsKeepWorking() {
        try (Evaluator ev = new Evaluator()) {
            ev.eval("int x = 0;");
            ev.eval("Runnable bump = null;");
            ev.eval("bump = () -> x += 1000;"); // the lambda's body lives in a one-shot class
            ev.eval("int twice(int v) { return 2 * v; }");
            int declared = ev.recordedSnippets();
            assertTrue(declared > 0, "compaction is available with the opens the build gives the test JVM");
            int rounds = 60; // 360 cells: crosses a rebuild of javac's contexts
            for (int i = 0; i < rounds; i++) {
                ev.eval("x++;");
                assertEquals(i + 2, ev.eval("x + 1"));
                assertEquals(i + 1, ev.eval("x"));
                assertThrows(CompileError.class, () -> ev.eval("x.nope()"));
                assertThrows(UserCodeError.class, () -> ev.eval("Integer.parseInt(\"z\")"));
                ev.eval("new Runnable() { public void run() { x += 0; } }.run();");
            }
            assertEquals(declared, ev.recordedSnippets(), "one-shot cells leave nothing in JShell's records");
            ev.eval("bump.run();");
            assertEquals(rounds + 1000, ev.eval("x"));
            assertEquals(2 * (rounds + 1000), ev.eval("twice(x)"));
            ev.eval("int twice(int v) { return 3 * v; }");
            assertEquals(3, ev.eval("twice(1)"));
        }
    }

    @Test
    void aVariableWhoseNameStartsWithADollarIsADeclaration() {
        e.eval("int $total = 5;");
        assertEquals(5, e.eval("$total"));
        assertEquals(6, e.eval("$total + 1"));
    }

    @Test
    void oneShotCellsSeeUserTypesAndTheirClassesAreUnloaded() {
        try (Evaluator ev = new Evaluator()) {
            ev.eval("class P { int a; P(int a) { this.a = a; } int twice() { return 2 * a; } }");
            ev.eval("enum Color { RED, GREEN }");
            ev.eval("P p = new P(3);");
            assertEquals(6, ev.eval("p.twice()"));
            ev.eval("p.a = 5;");
            assertEquals(5, ev.eval("p.a"));
            assertEquals(10, ev.eval("new P(5).twice()"));
            assertEquals("green", ev.eval("switch (Color.GREEN) { case RED -> \"red\"; case GREEN -> \"green\"; }"));
            var classes = java.lang.management.ManagementFactory.getClassLoadingMXBean();
            long before = classes.getUnloadedClassCount();
            for (int i = 0; i < 50; i++) assertEquals(i * 2, ev.eval("java.util.stream.IntStream.of(" + i + ").map(v -> v * 2).sum()"));
            ev.eval("1");
            System.gc();
            assertTrue(classes.getUnloadedClassCount() - before >= 50, "a one-shot cell's classes are unloaded once it ran");
            assertEquals(5, ev.eval("p.a"), "declarations survive");
        }
    }

    @Test
    void badClasspathEntriesAreNamed() {
        var err = assertThrows(IllegalArgumentException.class, () -> e.addToClasspath("/no/such.jar"));
        assertTrue(err.getMessage().contains("/no/such.jar"));
    }

    @Test
    void exitAndHaltInACellRaiseAnErrorAndTheSessionGoesOn() {
        for (String call : List.of("System.exit(3);", "Runtime.getRuntime().exit(0);", "Runtime.getRuntime().halt(1);",
                "java.util.function.IntConsumer bye = System::exit; bye.accept(1);", "java.util.function.IntConsumer h = Runtime.getRuntime()::halt; h.accept(2);")) {
            var err = assertThrows(UserCodeError.class, () -> e.eval(call), call);
            assertInstanceOf(ExitGuard.ExitNotAllowed.class, err.getCause(), call);
            assertTrue(err.getMessage().contains(ExitGuard.MESSAGE), err.getMessage());
        }
        e.eval("class Quitter { static void now() { System.exit(2); } }");
        assertThrows(UserCodeError.class, () -> e.eval("Quitter.now()"));
        Object fromThread = e.eval("""
                var seen = new java.util.concurrent.atomic.AtomicReference<Throwable>();
                Thread t = new Thread(() -> System.exit(4));
                t.setUncaughtExceptionHandler((th, ex) -> seen.set(ex));
                t.start();
                t.join();
                seen.get().getMessage()""");
        assertTrue(String.valueOf(fromThread).contains(ExitGuard.MESSAGE), String.valueOf(fromThread));
        assertEquals(2, e.eval("1 + 1"));
    }

    @Test
    void exitThroughReflectionOrAMethodHandleIsContainedAndOtherReflectionStillWorks() {
        String mt = "java.lang.invoke.MethodType.methodType(void.class, int.class)";
        for (String call : List.of(
                "System.class.getMethod(\"exit\", int.class).invoke(null, 0);",
                "Class.forName(\"java.lang.Runtime\").getMethod(\"halt\", int.class).invoke(Runtime.getRuntime(), 0);",
                "java.lang.reflect.Method.class.getMethod(\"invoke\", Object.class, Object[].class).invoke(System.class.getMethod(\"exit\", int.class), null, new Object[]{0});",
                "java.lang.invoke.MethodHandles.lookup().findVirtual(Runtime.class, \"halt\", " + mt + ").invoke(Runtime.getRuntime(), 0);",
                "java.lang.invoke.MethodHandles.publicLookup().findStatic(System.class, \"exit\", " + mt + ").invokeExact(0);",
                "java.lang.invoke.MethodHandles.lookup().unreflect(System.class.getMethod(\"exit\", int.class)).invoke(0);",
                "java.lang.invoke.MethodHandles.lookup().bind(Runtime.getRuntime(), \"halt\", " + mt + ").invoke(0);")) {
            var err = assertThrows(UserCodeError.class, () -> e.eval(call), call);
            assertInstanceOf(ExitGuard.ExitNotAllowed.class, err.getCause(), call);
            assertTrue(err.getMessage().contains(ExitGuard.MESSAGE), err.getMessage());
        }
        assertEquals(3, e.eval("String.class.getMethod(\"length\").invoke(\"abc\")"));
        assertEquals(4, e.eval("(int) java.lang.invoke.MethodHandles.lookup().findVirtual(String.class, \"length\", java.lang.invoke.MethodType.methodType(int.class)).invoke(\"abcd\")"));
        e.eval("class Secret { private static int answer() { return 42; } }");
        assertEquals(42, e.eval("var m = Secret.class.getDeclaredMethod(\"answer\"); m.setAccessible(true); m.invoke(null)"));
    }

    @Test
    void exitInAClassAddedToTheClasspathIsGuardedToo(@TempDir Path dir) throws Exception {
        Path src = Files.writeString(dir.resolve("Bye.java"), "package ext; public class Bye { public static void now() { System.exit(5); } }");
        Path classes = Files.createDirectories(dir.resolve("classes"));
        int rc = javax.tools.ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", classes.toString(), src.toString());
        assertEquals(0, rc);
        try (Evaluator ev = new Evaluator()) {
            ev.addToClasspath(classes.toString());
            var err = assertThrows(UserCodeError.class, () -> ev.eval("ext.Bye.now();"));
            assertInstanceOf(ExitGuard.ExitNotAllowed.class, err.getCause());
            assertEquals(3, ev.eval("1 + 2"));
        }
    }

    /** javac's index of the class path is kept between cells (IndexKeepingFileManager): a jar added later must still be seen. */
    @Test
    void aJarAddedAfterCellsRanIsSeenByTheNextCell(@TempDir Path dir) throws Exception {
        Path src = Files.writeString(dir.resolve("Later.java"), "package later; public class Later { public static int answer() { return 42; } }");
        Path classes = Files.createDirectories(dir.resolve("classes"));
        assertEquals(0, javax.tools.ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", classes.toString(), src.toString()));
        Path jar = dir.resolve("later.jar");
        try (var out = new java.util.jar.JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new java.util.jar.JarEntry("later/Later.class"));
            out.write(Files.readAllBytes(classes.resolve("later/Later.class")));
            out.closeEntry();
        }
        try (Evaluator ev = new Evaluator()) {
            for (int i = 0; i < 3; i++) assertEquals(i + 1, ev.eval((i + 1) + ""));
            assertThrows(CompileError.class, () -> ev.eval("later.Later.answer()"));
            ev.addToClasspath(jar.toString());
            assertEquals(42, ev.eval("later.Later.answer()"));
            assertEquals(43, ev.eval("import later.*;\nLater.answer() + 1"));
        }
    }

    @Test
    void inspectionGivesSignaturesAndJavadocSummariesForJdkUserAndGluelabNames() {
        String max = e.inspect("Math.max", 6);
        assertTrue(max.contains("int Math.max(int a, int b)") && max.contains("double Math.max(double a, double b)"), max);
        assertTrue(max.contains("Returns the greater of two int values."), max);
        e.eval("int inspected = 4096;");
        assertEquals("inspected:int = 4096", e.inspect("inspected + 1", 3));
        e.eval("var labi = Gluelab.open(\"cpu\");");
        String floors = e.inspect("labi.floors(", 12);
        assertTrue(floors.contains("Table Gluelab.floors(String model, long... tokens)"), floors);
        assertTrue(floors.contains("The ideal-time table"), "gluelab's own Javadoc: " + floors);
        assertNull(e.inspect("   ", 1));
    }

    @Test
    void completionAfterADotOffersTheReceiversApiBeforeObjectsMethods() {
        e.eval("var completedLab = Gluelab.open(\"cpu\");");
        int[] anchor = new int[1];
        List<String> all = e.complete("completedLab.", 13, anchor);
        assertTrue(all.contains("bench(") && all.contains("floor("), all.toString());
        assertTrue(all.stream().noneMatch(o -> o.startsWith("wait(") || o.startsWith("notify") || o.startsWith("hashCode") || o.startsWith("getClass")), all.toString());
        List<String> e2 = e.complete("completedLab.e", 14, anchor);
        assertTrue(e2.indexOf("experiment(") >= 0 && e2.indexOf("experiment(") < e2.indexOf("equals("), e2.toString());
        assertEquals(List.of("hashCode()"), e.complete("completedLab.has", 16, anchor), "typed, Object's method is still offered");
    }

    @Test
    void inspectionShowsTheJavadocSummaryAndParametersOfGluelabsApi() {
        e.eval("var inspectedLab = Gluelab.open(\"cpu\");");
        String bench = e.inspect("inspectedLab.bench(", 19);
        assertTrue(bench.contains("Gluelab.bench(String... ops)") && bench.contains("Starts a benchmark of catalogue ops") && bench.contains("ops: catalogue op names"), bench);
        String floor = e.inspect("inspectedLab.floor(", 19);
        assertTrue(floor.contains("The bandwidth floor of one op") && floor.contains("pass: \"fwd\" or \"bwd\""), floor);
    }
}
