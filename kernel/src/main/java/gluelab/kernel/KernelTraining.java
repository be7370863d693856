package gluelab.kernel;

import org.dflib.jjava.jupyter.kernel.KernelConnectionProperties;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * The workload `gluelab kernel install` runs once in a JVM that writes an AOT cache (JEP 483, 514,
 * 515): a kernel served on loopback ports, as Jupyter starts it, and the kinds of cell a notebook
 * runs (expressions, declarations, output, a display, compile and runtime errors, a completion), so
 * the cache holds the classes and method profiles of a start and of a session's first cells.
 */
public final class KernelTraining {
    private KernelTraining() {}

    static final List<String> CELLS = List.of("1", "int trained = 2;", "trained + 1", "System.out.println(\"line \" + trained);",
            "List.of(1, 2, 3).stream().map(v -> \"v\" + v).collect(Collectors.joining(\",\"))", "display(Table.create(\"t\"))",
            "var trainedLab = Gluelab.open(\"cpu\");", "trained.nope()", "Integer.parseInt(\"z\")");

    public static void main(String[] args) throws Exception {
        int[] p = freePorts(5);
        var props = new KernelConnectionProperties("127.0.0.1", p[0], p[1], p[2], p[3], p[4], "tcp", "hmac-sha256", "gluelab-training");
        KernelMain.Served served = KernelMain.serve(props);
        try {
            GluelabKernel kernel = served.kernel();
            for (int round = 0; round < 3; round++) {
                for (String cell : CELLS) {
                    try {
                        kernel.eval(cell);
                    } catch (RuntimeException e) {
                        kernel.formatError(e);
                    }
                }
                kernel.complete("Math.ma", "Math.ma".length());
                kernel.isComplete("int f() {");
            }
        } finally {
            served.connection().close();
        }
        System.exit(0);
    }

    /** {@code n} distinct free loopback ports, held open together so none is handed out twice (the tests' kernels take theirs here too). */
    static int[] freePorts(int n) {
        List<ServerSocket> held = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                held.add(s);
                ports[i] = s.getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket s : held) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // the port is free either way
                }
            }
        }
    }
}
