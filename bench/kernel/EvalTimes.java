import gluelab.kernel.eval.Evaluator;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How long gluelab's Evaluator takes for each of some cells, in one JVM, the cells alternating
 * (docs/benchmarks.md, the kernel's latency). No Jupyter messages: the evaluation alone.
 *
 * <pre>
 * CP="$(ls kernel/target/gluelab-kernel-*.jar):kernel/target/lib/*"
 * java --add-opens jdk.jshell/jdk.jshell=ALL-UNNAMED --add-opens jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED \
 *   --add-opens jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED -cp "$CP" bench/kernel/EvalTimes.java CELL...
 * </pre>
 * Each cell runs 1,500 times as warm-up and 1,500 times measured (EVAL_TIMES_ROUNDS=N for N of each).
 */
public class EvalTimes {
    public static void main(String[] cells) {
        int rounds = Integer.parseInt(System.getenv().getOrDefault("EVAL_TIMES_ROUNDS", "1500"));
        Map<String, List<Long>> times = new LinkedHashMap<>();
        for (String c : cells) times.put(c, new ArrayList<>());
        try (Evaluator e = new Evaluator()) {
            for (int i = 0; i < 2 * rounds; i++) {
                for (String c : cells) {
                    long t0 = System.nanoTime();
                    e.eval(c);
                    long t = System.nanoTime() - t0;
                    if (i >= rounds) times.get(c).add(t);
                }
            }
        }
        for (var entry : times.entrySet()) {
            List<Long> t = entry.getValue();
            Collections.sort(t);
            System.out.printf("%s: median %.2f ms (p10 %.2f, p90 %.2f) over %d%n", entry.getKey(), t.get(t.size() / 2) / 1e6,
                    t.get(t.size() / 10) / 1e6, t.get(t.size() * 9 / 10) / 1e6, t.size());
        }
        System.out.printf("load average (1 min) at the end: %.1f%n", java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        System.exit(0);
    }
}
