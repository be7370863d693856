package gluelab.kernel;

import gluelab.kernel.channel.ConnectionFile;
import gluelab.kernel.channel.GluelabConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

class ConnectionFileTest {
    static String file(int shell, String iopub) {
        int[] p = TestPorts.distinct(3);
        return "{\"shell_port\": " + shell + ", \"iopub_port\": " + iopub + ", \"stdin_port\": " + p[0] + ", \"control_port\": "
                + p[1] + ", \"hb_port\": " + p[2] + ", \"ip\": \"127.0.0.1\", \"key\": \"k\", "
                + "\"transport\": \"tcp\", \"signature_scheme\": \"hmac-sha256\"}";
    }

    @Test
    void badFilesNameTheFileAndTheField(@TempDir Path dir) throws Exception {
        Path missing = Files.writeString(dir.resolve("kernel-1.json"), "{\"shell_port\": 1, \"ip\": \"127.0.0.1\"}");
        var e = assertThrows(IllegalArgumentException.class, () -> ConnectionFile.read(missing));
        assertTrue(e.getMessage().contains("kernel-1.json") && e.getMessage().contains("'iopub_port'") && e.getMessage().contains("missing"), e.getMessage());
        Path text = Files.writeString(dir.resolve("kernel-2.json"), file(5000, "\"many\""));
        e = assertThrows(IllegalArgumentException.class, () -> ConnectionFile.read(text));
        assertTrue(e.getMessage().contains("kernel-2.json") && e.getMessage().contains("'iopub_port'"), e.getMessage());
        Path notJson = Files.writeString(dir.resolve("kernel-3.json"), "{");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ConnectionFile.read(notJson)).getMessage().contains("kernel-3.json"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ConnectionFile.read(dir.resolve("none.json"))).getMessage().contains("none.json"));
    }

    @Test
    void aPortInUseIsNamedByItsField(@TempDir Path dir) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            Path f = Files.writeString(dir.resolve("kernel-4.json"), file(taken.getLocalPort(), String.valueOf(TestPorts.one())));
            GluelabConnection c = new GluelabConnection(ConnectionFile.read(f));
            try {
                var e = assertThrows(IllegalStateException.class, c::connect);
                assertTrue(e.getMessage().contains("shell_port " + taken.getLocalPort()) && e.getMessage().contains("in use"), e.getMessage());
            } finally {
                c.close();
            }
        }
    }


    @Test
    void aKernelThatCannotBindOnePortReleasesTheOthers() throws Exception {
        int[] p = TestPorts.distinct(5);
        // jjava's order: control, shell, stdin, hb, iopub; the kernel binds hb, shell, then control.
        try (ServerSocket taken = new ServerSocket(p[0], 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            var props = new org.dflib.jjava.jupyter.kernel.KernelConnectionProperties("127.0.0.1", p[0], p[1], p[2], p[3], p[4], "tcp", "hmac-sha256", "k");
            var e = assertThrows(IllegalStateException.class, () -> KernelMain.serve(props));
            assertTrue(e.getMessage().contains("control_port " + p[0]), e.getMessage());
        }
        // hb (p[3]) and shell (p[1]) were bound before control failed; both are free again.
        for (int port : new int[]{p[3], p[1]}) {
            try (ServerSocket again = new ServerSocket(port, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
                assertEquals(port, again.getLocalPort());
            }
        }
    }
}
