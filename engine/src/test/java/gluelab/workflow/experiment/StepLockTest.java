package gluelab.workflow.experiment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/** Two steps on one experiment ran at once (graphs twice, profile during baselines), the last to finish winning. */
class StepLockTest {
    /** Takes experiment {@code args[1]}'s lock under root {@code args[0]} for step 01, says "held", and holds it until killed or stdin closes. */
    public static final class Holder {
        public static void main(String[] args) throws Exception {
            try (var held = ExperimentFolder.open(args[1], Path.of(args[0])).running(Step.BASELINES)) {
                System.out.println("held");
                System.out.flush();
                while (System.in.read() >= 0) {
                    // holds until stdin closes
                }
            }
        }
    }

    @Test
    void aStepOfAnotherProcessIsRefusedAtOnceNamingItAndItsDeathFreesTheExperiment(@TempDir Path root) throws Exception {
        ExperimentFolder ex = ExperimentFolder.open("mlp", root);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Holder.class.getName(), root.toString(), "mlp")
                .redirectErrorStream(true).start();
        try {
            var out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("held", out.readLine());
            long start = System.nanoTime();
            var e = assertThrows(IllegalStateException.class, () -> ex.running(Step.PROFILE_DIFF));
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "refused at once, not after a wait");
            assertTrue(e.getMessage().matches("experiment 'mlp' is busy: step 01-baselines \\(pid " + child.pid()
                    + ", since \\d\\d:\\d\\d:\\d\\d\\) is running; wait for it or stop it"), e.getMessage());
        } finally {
            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        }
        // killed, not closed: the operating system dropped its lock, and the stale text in the lock file blocks no one
        try (var mine = ex.running(Step.PROFILE_DIFF)) {
            assertNotNull(mine);
        }
    }

    @Test
    void aSecondThreadIsRefusedWhileTheHoldingThreadMayTakeItAgainAndALaterStepGetsIt(@TempDir Path root) throws Exception {
        ExperimentFolder ex = ExperimentFolder.open("mlp", root);
        try (var pool = Executors.newSingleThreadExecutor()) {
            try (var graphs = ex.running(Step.GRAPH_BUDGET); var again = ExperimentFolder.open("mlp", root).running(Step.GRAPH_BUDGET)) {
                var refused = pool.submit(() -> ex.running(Step.GRAPH_BUDGET));
                var e = assertThrows(java.util.concurrent.ExecutionException.class, () -> refused.get(30, TimeUnit.SECONDS));
                assertTrue(e.getCause().getMessage().startsWith("experiment 'mlp' is busy: step 06-graph-budget (pid " + ProcessHandle.current().pid() + ", since "),
                        e.getCause().getMessage());
            }
            // a notebook kernel: the next step, on another thread, after the last one ended
            pool.submit(() -> {
                try (var confirm = ex.running(Step.CONFIRM)) {
                    assertNotNull(confirm);
                }
            }).get(30, TimeUnit.SECONDS);
        }
        try (var other = ExperimentFolder.open("other", root).running(Step.GRAPH_BUDGET); var mine = ex.running(Step.GRAPH_BUDGET)) {
            assertNotNull(other, "another experiment's lock is its own");
        }
    }
}
