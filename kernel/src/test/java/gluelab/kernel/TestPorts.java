package gluelab.kernel;

import org.dflib.jjava.jupyter.kernel.KernelConnectionProperties;

/** Free loopback ports for kernels started in tests. */
final class TestPorts {
    private TestPorts() {}

    /** {@code n} distinct ports: all are held open together, so none is handed out twice. */
    static int[] distinct(int n) {
        return KernelTraining.freePorts(n);
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
