package gluelab.kernel;

import gluelab.kernel.channel.ConnectionFile;
import gluelab.kernel.channel.GluelabConnection;
import org.dflib.jjava.jupyter.kernel.KernelConnectionProperties;

import java.nio.file.Path;

/** Starts the kernel on the connection file Jupyter passes: {@code KernelMain CONNECTION_FILE}. */
public final class KernelMain {
    private KernelMain() {}

    static final long EXIT_GRACE_MS = 5_000;

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: KernelMain CONNECTION_FILE");
            System.exit(2);
        }
        Path file = Path.of(args[0]);
        KernelConnectionProperties props;
        try {
            props = ConnectionFile.read(file);
        } catch (IllegalArgumentException e) {
            System.err.println("gluelab kernel: " + e.getMessage());
            System.exit(2);
            return;
        }
        ConnectionFile.unsignedWarning(file, props).ifPresent(w -> System.err.println("gluelab kernel: " + w));
        Served served;
        try {
            served = serve(props);
        } catch (IllegalStateException e) {
            System.err.println("gluelab kernel: connection file " + file + ": " + e.getMessage());
            System.exit(2);
            return;
        }
        served.kernel().onStartup(); // registers this JVM's one notebook kernel (jjava allows one)
        // A cell that ignores the interrupt keeps the shell thread busy: after a shutdown_request the
        // process ends anyway, and a shutdown hook that hangs cannot keep it alive past EXIT_GRACE_MS.
        served.connection().awaitClosed();
        Thread halt = new Thread(() -> {
            try {
                Thread.sleep(EXIT_GRACE_MS);
            } catch (InterruptedException ignored) {
                return;
            }
            Runtime.getRuntime().halt(0);
        }, "gluelab-exit");
        halt.setDaemon(true);
        halt.start();
        System.exit(0);
    }

    /** A kernel and the connection it serves. */
    public record Served(GluelabKernel kernel, GluelabConnection connection) {}

    /** A kernel serving the connection's sockets; the caller closes the connection. */
    public static Served serve(KernelConnectionProperties props) throws Exception {
        GluelabKernel kernel = new GluelabKernel();
        GluelabConnection connection = new GluelabConnection(props);
        kernel.becomeHandlerForConnection(connection);
        connection.shellChannel().abortQueuedWhen(kernel::takeAbortQueued);
        try {
            connection.connect();
        } catch (RuntimeException e) {
            connection.close(); // the ports bound before the failing one are released
            throw e;
        }
        return new Served(kernel, connection);
    }
}
