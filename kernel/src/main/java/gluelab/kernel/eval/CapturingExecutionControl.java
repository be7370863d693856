package gluelab.kernel.eval;

import jdk.jshell.execution.LocalExecutionControl;
import jdk.jshell.spi.ExecutionControl;
import jdk.jshell.spi.ExecutionControlProvider;
import jdk.jshell.spi.ExecutionEnv;

import java.lang.reflect.Field;
import java.util.Map;

/**
 * In-process execution that keeps JDK's stop support (user bytecode instrumented with stop checks)
 * and also hands back the real objects: the value of a variable when JShell reads it, and the
 * original Throwable of a failed snippet, so renderers see Tables and charts, not strings.
 */
final class CapturingExecutionControl extends LocalExecutionControl {
    private volatile Object lastValue;
    private volatile Throwable lastThrown;
    /** While set, {@link #varValue} reads the value without making its text (no user toString runs). */
    private volatile boolean peeking;
    /** Set by {@link #varValue} when the value was read while peeking. */
    private volatile boolean peeked;
    final SnippetLoader loader;

    private CapturingExecutionControl(SnippetLoader loader) {
        super(loader);
        this.loader = loader;
    }

    CapturingExecutionControl(ClassLoader parent) { this(new SnippetLoader(parent)); }

    @Override public String varValue(String className, String varName) throws RunException, EngineTerminationException, InternalException {
        try {
            Field f = findClass(className).getDeclaredField(varName);
            f.setAccessible(true);
            lastValue = f.get(null);
            if (peeking) {
                peeked = true;
                return "";
            }
            return valueString(lastValue);
        } catch (ReflectiveOperationException e) {
            throw new InternalException("cannot read " + className + "." + varName + ": " + e);
        }
    }

    @Override protected String throwConvertedInvocationException(Throwable cause) throws RunException, InternalException {
        lastThrown = cause;
        return super.throwConvertedInvocationException(cause);
    }

    /**
     * Runs {@code read} (a JShell varValue call) with the value's text left unmade; true when it read the
     * value ({@link #takeValue()} has it), false when the read failed (JShell reports that as a text).
     */
    boolean peeking(Runnable read) {
        peeked = false;
        peeking = true;
        try {
            read.run();
        } finally {
            peeking = false;
        }
        return peeked;
    }

    Object takeValue() {
        Object v = lastValue;
        lastValue = null;
        return v;
    }

    Throwable takeThrown() {
        Throwable t = lastThrown;
        lastThrown = null;
        return t;
    }

    /** Hands JShell this control and remembers it for the evaluator. */
    static final class Provider implements ExecutionControlProvider {
        private final ClassLoader parent;
        CapturingExecutionControl control;

        Provider(ClassLoader parent) { this.parent = parent; }

        @Override public String name() { return "gluelab-capturing"; }

        @Override public ExecutionControl generate(ExecutionEnv env, Map<String, String> parameters) {
            control = new CapturingExecutionControl(parent);
            return control;
        }
    }
}
