package gluelab.timing;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/** Whether the JVM's JIT has finished a compilation lately (its total compile time moves when one ends). */
final class JitWatch {
    private final CompilationMXBean bean;
    private long lastTotal = -1, lastChange;

    private JitWatch(CompilationMXBean bean) {
        this.bean = bean;
        this.lastChange = System.nanoTime();
    }

    /** A watch from now; one that always reads quiet where the JVM does not report compile time. */
    static JitWatch start() {
        CompilationMXBean b = ManagementFactory.getCompilationMXBean();
        return new JitWatch(b != null && b.isCompilationTimeMonitoringSupported() ? b : null);
    }

    /** True when no compilation has ended for {@code seconds}. */
    boolean quietFor(double seconds) {
        if (bean == null) return true;
        long total = bean.getTotalCompilationTime(), now = System.nanoTime();
        if (total != lastTotal) {
            lastTotal = total;
            lastChange = now;
        }
        return (now - lastChange) * 1e-9 >= seconds;
    }
}
