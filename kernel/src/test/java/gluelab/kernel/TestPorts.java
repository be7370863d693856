package gluelab.kernel;

import org.dflib.jjava.jupyter.kernel.KernelConnectionProperties;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Free loopback ports for kernels started in tests. */
final class TestPorts {
    private TestPorts() {}

    /** {@code n} distinct ports: all are held open together, so none is handed out twice. */
    static int[] distinct(int n) {
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
                try { s.close(); } catch (IOException ignored) { }
            }
        }
    }

    static int one() {
        return distinct(1)[0];
    }

    /**
     * A kernel serving fresh ports. Another process may take a port between our probe and the kernel's bind; that
     * race is retried with new ports, a few times, and only for "already in use".
     */
    static KernelMain.Served serve(String key) throws Exception {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            int[] p = distinct(5);
            var props = new KernelConnectionProperties("127.0.0.1", p[0], p[1], p[2], p[3], p[4], "tcp", "hmac-sha256", key);
            try {
                return KernelMain.serve(props);
            } catch (IllegalStateException e) {
                if (e.getMessage() == null || !e.getMessage().contains("already in use")) throw e;
                last = e;
            }
        }
        throw last;
    }
}
