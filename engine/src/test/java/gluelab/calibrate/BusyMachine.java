package gluelab.calibrate;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** A deliberately loaded machine for tests: spinning shells, twice as many as the cores, each ended by {@link #close()} or by timeout(1) at the latest. */
public final class BusyMachine implements AutoCloseable {
    private final List<Process> spinners = new ArrayList<>();

    public BusyMachine() throws IOException {
        try {
            for (int i = 0; i < 2 * Runtime.getRuntime().availableProcessors(); i++) {
                spinners.add(new ProcessBuilder("timeout", "300", "sh", "-c", "while :; do :; done").redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
            }
        } catch (IOException e) {
            close();
            throw e;
        }
    }

    public int size() { return spinners.size(); }

    @Override public void close() {
        for (Process p : spinners) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }
}
