package gluelab.kernel;

import gluelab.kernel.channel.ConnectionFile;
import gluelab.kernel.channel.GluelabConnection;
import org.dflib.jjava.jupyter.kernel.KernelConnectionProperties;

import java.nio.file.Path;

/** Starts the kernel on the connection file Jupyter passes: {@code KernelMain CONNECTION_FILE}. */
public final class KernelMain {
    private KernelMain() {}

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
        GluelabConnection connection;
        try {
            connection = serve(props);
        } catch (IllegalStateException e) {
            System.err.println("gluelab kernel: connection file " + file + ": " + e.getMessage());
            System.exit(2);
            return;
        }
        connection.waitUntilClose();
        System.exit(0);
    }

    /** A kernel serving the connection's sockets; the caller closes the connection. */
    public static GluelabConnection serve(KernelConnectionProperties props) throws Exception {
        GluelabKernel kernel = new GluelabKernel();
        GluelabConnection connection = new GluelabConnection(props);
        kernel.becomeHandlerForConnection(connection);
        connection.shellChannel().abortQueuedWhen(kernel::takeAbortQueued);
        connection.connect();
        kernel.onStartup();
        return connection;
    }
}
