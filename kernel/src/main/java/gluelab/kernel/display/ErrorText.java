package gluelab.kernel.display;

import gluelab.kernel.eval.CompileError;
import gluelab.kernel.eval.Evaluator;
import gluelab.kernel.eval.UserCodeError;

import java.util.ArrayList;
import java.util.List;

/**
 * How a failed cell reads: the user's exception first (type, message once, cell line), then the
 * user's own frames, without the evaluator's, JShell's or reflection's frames; causes likewise,
 * shortened. Compile errors and bad-input errors are their message alone.
 */
public final class ErrorText {
    /** Frames shown per exception before "... N more". */
    static final int FRAMES = 12;

    private ErrorText() {}

    /** The error's name as a notebook shows it (ename): the user's exception type, not a wrapper. */
    public static String name(Throwable e) {
        Class<?> c = shown(e).getClass();
        return c.getSimpleName().isEmpty() ? c.getName() : c.getSimpleName();
    }

    /** The error's message (evalue), once. */
    public static String message(Throwable e) {
        if (e instanceof UserCodeError u) {
            String m = u.getCause().getMessage();
            return (m == null ? "" : m) + " (cell line " + u.line() + ")";
        }
        return String.valueOf(e.getMessage());
    }

    /** The traceback lines. */
    public static List<String> lines(Throwable e) {
        if (plain(e)) return e.getMessage() == null ? List.of(e.getClass().getSimpleName()) : e.getMessage().lines().toList();
        List<String> out = new ArrayList<>();
        Throwable shown = shown(e);
        out.add(shown.getClass().getName() + ": " + message(e));
        frames(out, shown);
        Throwable cause = shown.getCause();
        for (int depth = 0; cause != null && depth < 5; depth++, cause = cause.getCause()) {
            out.add("Caused by: " + cause);
            frames(out, cause);
        }
        return out;
    }

    private static boolean plain(Throwable e) {
        return e instanceof CompileError || e instanceof Evaluator.InterruptedCellException || e instanceof IllegalArgumentException
                || e instanceof IllegalStateException && e.getCause() == null && e.getStackTrace().length == 0;
    }

    private static Throwable shown(Throwable e) {
        return e instanceof UserCodeError && e.getCause() != null ? e.getCause() : e;
    }

    /**
     * The frames of the user's cells (snippet wrappers and the methods a session declared), in order;
     * when the exception was thrown outside them and outside the JDK (a library's own bug, not a
     * bad argument), the frame that threw comes first. The JDK's frames between them (streams,
     * reflection, JShell) are never shown.
     */
    private static void frames(List<String> out, Throwable t) {
        StackTraceElement[] st = t.getStackTrace();
        if (st.length > 0 && !user(st[0]) && !jdk(st[0]) && !internal(st[0]) && !(t instanceof IllegalArgumentException)) {
            out.add("    at " + st[0]);
        }
        int shown = 0, rest = 0;
        String last = null;
        for (StackTraceElement f : st) {
            if (!user(f)) continue;
            String line = "    at " + frame(f);
            if (line.equals(last)) continue; // JShell's helper methods of one snippet read as one <cell> frame
            last = line;
            if (shown < FRAMES) {
                out.add(line);
                shown++;
            } else {
                rest++;
            }
        }
        if (rest > 0) out.add("    ... " + rest + " more");
    }

    /** Code the user wrote in a cell: JShell compiles each snippet into package REPL. */
    private static boolean user(StackTraceElement f) { return f.getClassName().startsWith("REPL."); }

    private static boolean jdk(StackTraceElement f) {
        String c = f.getClassName();
        return c.startsWith("java.") || c.startsWith("javax.") || c.startsWith("jdk.") || c.startsWith("sun.") || c.startsWith("com.sun.");
    }

    /** The kernel's own code, which runs the cells. */
    private static boolean internal(StackTraceElement f) { return f.getClassName().startsWith("gluelab.kernel."); }

    /** A snippet frame as "cell code" rather than JShell's wrapper class names. */
    private static String frame(StackTraceElement f) {
        String c = f.getClassName();
        if (c.startsWith("REPL.$JShell$")) {
            int dollar = c.indexOf('$', "REPL.$JShell$".length());
            String inner = dollar < 0 ? "" : c.substring(dollar + 1) + ".";
            String method = f.getMethodName().startsWith("do_it$") ? "<cell>" : f.getMethodName();
            return inner + method + "(cell code)";
        }
        return f.toString();
    }
}
