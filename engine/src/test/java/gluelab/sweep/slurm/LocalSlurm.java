package gluelab.sweep.slurm;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A real one-node Slurm cluster (munged, slurmctld, slurmd) on 127.0.0.1, started by
 * bin/lib/slurm-local.sh with its state in a temporary folder, for the tests that submit to it.
 */
final class LocalSlurm implements AutoCloseable {
    private final Path script, dir;
    private final Map<String, String> env;

    private LocalSlurm(Path script, Path dir, Path conf) {
        this.script = script;
        this.dir = dir;
        this.env = Map.of("SLURM_CONF", conf.toString());
    }

    /** Why no local cluster can start here (Slurm or munge not installed, not root), or empty. */
    static Optional<String> unavailableReason() {
        List<String> missing = new ArrayList<>();
        for (String b : List.of("munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "scontrol", "sacct")) {
            if (SlurmCommands.which(b) == null) missing.add(b);
        }
        if (!missing.isEmpty()) return Optional.of("Slurm is not installed here (missing " + missing + "; Debian: apt-get install slurm-wlm munge)");
        if (!"root".equals(System.getProperty("user.name"))) return Optional.of("starting slurmd needs root");
        if (script() == null) return Optional.of("bin/lib/slurm-local.sh not found above " + Path.of("").toAbsolutePath());
        return Optional.empty();
    }

    /**
     * Starts the cluster on two free ports. Another process may take a port between our probe and the daemon's bind:
     * that race is retried with new ports, a few times, and only for "Address already in use".
     */
    static LocalSlurm start(Path dir) throws IOException, InterruptedException {
        Path script = script();
        String out = "";
        for (int attempt = 0; attempt < 3; attempt++) {
            int[] ports = twoFreePorts();
            Process p = new ProcessBuilder(script.toString(), "start", dir.toString(), Integer.toString(ports[0]), Integer.toString(ports[1]))
                    .redirectErrorStream(true).start();
            out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor() == 0) return started(script, dir, out);
            if (!out.contains("Address already in use")) break;
        }
        throw new IllegalStateException("the local Slurm cluster did not start:\n" + out);
    }

    private static LocalSlurm started(Path script, Path dir, String out) {
        String conf = out.lines().filter(l -> l.startsWith("SLURM_CONF=")).findFirst()
                .orElseThrow(() -> new IllegalStateException("slurm-local.sh printed no SLURM_CONF:\n" + out)).substring("SLURM_CONF=".length());
        return new LocalSlurm(script, dir, Path.of(conf));
    }

    Map<String, String> env() { return env; }

    @Override public void close() throws IOException, InterruptedException {
        new ProcessBuilder(script.toString(), "stop", dir.toString()).inheritIO().start().waitFor();
    }

    private static Path script() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path s = d.resolve("bin/lib/slurm-local.sh");
            if (Files.isExecutable(s)) return s;
        }
        return null;
    }

    /** slurmctld's and slurmd's ports: both probes are held open together, so the two always differ. */
    private static int[] twoFreePorts() throws IOException {
        try (ServerSocket a = new ServerSocket(0); ServerSocket b = new ServerSocket(0)) {
            return new int[]{a.getLocalPort(), b.getLocalPort()};
        }
    }
}
