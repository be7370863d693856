package gluelab.sweep.slurm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs Slurm's own client commands (sbatch, squeue, sacct, scontrol, scancel) with this process's
 * environment plus {@code env} (e.g. SLURM_CONF for a test cluster).
 */
public final class SlurmCommands {
    /** What a finished command printed. */
    public record Output(int exitCode, String stdout, String stderr) {}

    private final Map<String, String> env;

    public SlurmCommands(Map<String, String> env) { this.env = Map.copyOf(env); }

    public static SlurmCommands fromEnvironment() { return new SlurmCommands(Map.of()); }

    public Map<String, String> env() { return env; }

    /** Where {@code name} is found on PATH, or null. */
    public static Path which(String name) {
        String path = System.getenv("PATH");
        if (path == null) return null;
        for (String dir : path.split(java.io.File.pathSeparator)) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) return p;
        }
        return null;
    }

    public Output run(String... cmd) { return run(List.of(cmd)); }

    public Output run(List<String> cmd) {
        if (which(cmd.getFirst()) == null) {
            throw new IllegalStateException(cmd.getFirst() + " is not on PATH: this needs Slurm's client commands (Debian: apt-get install slurm-client)");
        }
        try {
            ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(cmd));
            pb.environment().putAll(env);
            Process p = pb.start();
            p.getOutputStream().close();
            var err = p.getErrorStream();
            var errText = new StringBuilder();
            Thread drain = Thread.ofVirtual().start(() -> {
                try {
                    errText.append(new String(err.readAllBytes(), StandardCharsets.UTF_8));
                } catch (IOException ignored) {
                    // The exit code tells the caller what went wrong.
                }
            });
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", cmd) + " did not finish within 60 s (is slurmctld reachable?)");
            }
            drain.join();
            return new Output(p.exitValue(), out, errText.toString().trim());
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + cmd.getFirst() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.util.concurrent.CancellationException("interrupted while running " + cmd.getFirst());
        }
    }

    /** Runs and returns stdout; a non-zero exit is an error quoting the command's stderr. */
    public String check(String... cmd) {
        Output o = run(cmd);
        if (o.exitCode() != 0) throw new IllegalStateException(String.join(" ", cmd) + " failed (exit " + o.exitCode() + "): " + o.stderr());
        return o.stdout();
    }
}
