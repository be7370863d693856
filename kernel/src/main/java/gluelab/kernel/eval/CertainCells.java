package gluelab.kernel.eval;

import jdk.jshell.ImportSnippet;
import jdk.jshell.JShell;
import jdk.jshell.Snippet;
import jdk.jshell.VarSnippet;

import java.lang.reflect.Field;
import java.math.BigInteger;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Cells whose value is certain without compiling them, answered without javac: JShell runs five
 * javac tasks even for {@code 1}, most of a trivial cell's round trip.
 *
 * <p>Two kinds of cell, the whole cell (Java whitespace around it allowed, no comment, no semicolon):
 * <ul>
 * <li>a literal: a decimal {@code int} or {@code long} (suffix {@code L}) without underscores, either
 *     with a leading minus; a decimal {@code double} {@code digits.digits}, with an optional minus; {@code true},
 *     {@code false}; a string or char literal of printable ASCII without a backslash. Its value is the boxed
 *     constant javac would make ({@code Integer}, {@code Long}, {@code Double}, {@code Boolean},
 *     {@code Character}, the interned {@code String}); one out of range or that javac would reject
 *     ({@code 2147483648}, a double too large, a nonzero one that rounds to zero) goes to JShell.</li>
 * <li>the name of a session variable that is valid and holds null, a {@code String} or a boxed primitive
 *     (a primitive variable), whose value is read from JShell's state. A variable of any other type goes to
 *     JShell, whose reading calls the object's {@code toString}; so does a name a user's static import could
 *     also mean, and a contextual keyword ({@code var}, {@code record}, ...).</li>
 * </ul>
 *
 * <p>What JShell would record is mirrored: it would name the expression's temporary {@code $N} and give the
 * snippet a key, and key numbers name the wrapper classes in later stack traces ({@code REPL.$JShell$14}),
 * so both counters move as JShell's would. That needs JShell's internals (the opens ShellCompactor needs):
 * without them every cell goes to JShell.
 */
final class CertainCells {
    /** A cell's certain value (null included). */
    record Certain(Object value) {}

    private static final Pattern INT = Pattern.compile("(-?)(0|[1-9][0-9]*)");
    private static final Pattern LONG = Pattern.compile("(-?)(0|[1-9][0-9]*)[lL]");
    private static final Pattern DOUBLE = Pattern.compile("(-?)([0-9]+\\.[0-9]+)");
    private static final Pattern STRING = Pattern.compile("\"([ !#-\\[\\]-~]*)\"");
    private static final Pattern CHAR = Pattern.compile("'([ -&(-\\[\\]-~])'");
    private static final Pattern NAME = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*");
    /** Names JShell's parser may read as the start of a declaration or statement rather than as a variable. */
    private static final Set<String> CONTEXTUAL = Set.of("exports", "module", "non", "open", "opens", "permits", "provides", "record",
            "requires", "sealed", "to", "transitive", "uses", "var", "when", "with", "yield", "_");
    private static final BigInteger INT_LIMIT = BigInteger.valueOf(Integer.MAX_VALUE), LONG_LIMIT = BigInteger.valueOf(Long.MAX_VALUE);

    private final JShell shell;
    private final CapturingExecutionControl control;
    private final Counters counters;

    CertainCells(JShell shell, CapturingExecutionControl control) {
        this.shell = shell;
        this.control = control;
        Counters c = null;
        try {
            c = new Counters(shell);
        } catch (ReflectiveOperationException | RuntimeException e) {
            System.err.println("gluelab: cannot follow JShell's snippet numbering (" + e + "); every cell is compiled");
        }
        counters = c;
    }

    /** The cell's value when it is certain without javac, else null (JShell must compile the cell). */
    Certain value(String cell) {
        if (counters == null) return null;
        String code = javaStrip(cell);
        Object literal = literal(code);
        if (literal != null) {
            counters.temporaryNamed();
            return new Certain(literal);
        }
        if (!NAME.matcher(code).matches() || CONTEXTUAL.contains(code) || importedStatically(code)) return null;
        VarSnippet v = shell.variables().filter(vs -> vs.name().equals(code)).reduce((a, b) -> b).orElse(null);
        if (v == null || shell.status(v) != Snippet.Status.VALID) return null;
        boolean read = control.peeking(() -> shell.varValue(v));
        Object value = control.takeValue();
        if (!read) return null;
        if (!(value == null || value instanceof String || value instanceof Number && isBox(value) || value instanceof Boolean
                || value instanceof Character)) {
            return null;
        }
        counters.expressionKeyed();
        return new Certain(value);
    }

    /** The boxed value javac would give a literal, or null when {@code code} is not one this class knows to be valid. */
    static Object literal(String code) {
        switch (code) {
            case "true" -> { return Boolean.TRUE; }
            case "false" -> { return Boolean.FALSE; }
            default -> { }
        }
        Matcher m;
        if ((m = INT.matcher(code)).matches()) {
            BigInteger v = new BigInteger(m.group(2));
            boolean negative = !m.group(1).isEmpty();
            if (v.compareTo(negative ? INT_LIMIT.add(BigInteger.ONE) : INT_LIMIT) > 0) return null;
            return negative ? v.negate().intValue() : v.intValue();
        }
        if ((m = LONG.matcher(code)).matches()) {
            BigInteger v = new BigInteger(m.group(2));
            boolean negative = !m.group(1).isEmpty();
            if (v.compareTo(negative ? LONG_LIMIT.add(BigInteger.ONE) : LONG_LIMIT) > 0) return null;
            return negative ? v.negate().longValue() : v.longValue();
        }
        if ((m = DOUBLE.matcher(code)).matches()) {
            double v = Double.parseDouble(m.group(2));
            // javac rejects a literal that overflows, and a nonzero one that rounds to zero.
            if (Double.isInfinite(v) || v == 0 && !m.group(2).matches("[0.]+")) return null;
            return m.group(1).isEmpty() ? v : -v;
        }
        if ((m = STRING.matcher(code)).matches()) return m.group(1).intern();
        if ((m = CHAR.matcher(code)).matches()) return m.group(1).charAt(0);
        return null;
    }

    private static boolean isBox(Object n) {
        return n instanceof Integer || n instanceof Long || n instanceof Double || n instanceof Float || n instanceof Short || n instanceof Byte;
    }

    /** True when a user's static import names {@code name} (it could then be what the name means). */
    private boolean importedStatically(String name) {
        return shell.imports().anyMatch(i -> i.isStatic() && (i.name().equals(name) || i.fullname().endsWith("." + name)));
    }

    /** Java's whitespace (space, tab, form feed, line ends) off both ends; other Unicode spaces are javac's to reject. */
    static String javaStrip(String s) {
        int start = 0, end = s.length();
        while (start < end && " \t\f\n\r".indexOf(s.charAt(start)) >= 0) start++;
        while (end > start && " \t\f\n\r".indexOf(s.charAt(end - 1)) >= 0) end--;
        return s.substring(start, end);
    }

    /** JShell's key and temporary-name counters, moved as its own evaluation of the cell would move them. */
    static final class Counters {
        private final JShell shell;
        private final Object eval;
        private final Map<?, ?> varKeys;
        private final Field nextKeyIndex, varNumber;

        Counters(JShell shell) throws ReflectiveOperationException {
            this.shell = shell;
            nextKeyIndex = field(JShell.class, "nextKeyIndex");
            Field evalField = field(JShell.class, "eval");
            eval = evalField.get(shell);
            varNumber = field(eval.getClass(), "varNumber");
            Object keyMap = field(JShell.class, "keyMap").get(shell);
            varKeys = (Map<?, ?>) field(keyMap.getClass(), "varMap").get(keyMap);
        }

        /** An expression's temporary: the next free {@code $N}, then a new key for it (Eval.processExpression). */
        void temporaryNamed() {
            try {
                int n = varNumber.getInt(eval);
                do n++; while (varKeys.get("$" + n) != null);
                varNumber.setInt(eval, n);
                expressionKeyed();
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }

        /** A new key (a variable's value shown by name takes one, no temporary). */
        void expressionKeyed() {
            try {
                nextKeyIndex.setInt(shell, nextKeyIndex.getInt(shell) + 1);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }

        /** "nextKeyIndex/varNumber", for tests. */
        String state() {
            try {
                return nextKeyIndex.getInt(shell) + "/" + varNumber.getInt(eval);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }

        private static Field field(Class<?> c, String name) throws NoSuchFieldException {
            Field f = c.getDeclaredField(name);
            f.setAccessible(true);
            return f;
        }
    }
}
