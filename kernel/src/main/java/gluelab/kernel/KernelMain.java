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
        GluelabKernel kernel = new GluelabKernel();
        GluelabConnection connection = new GluelabConnection(props);
        kernel.becomeHandlerForConnection(connection);
        connection.shellChannel().abortQueuedWhen(kernel::takeAbortQueued);
        try {
            connection.connect();
        } catch (IllegalStateException e) {
            System.err.println("gluelab kernel: connection file " + file + ": " + e.getMessage());
            System.exit(2);
        }
        kernel.onStartup();
        connection.waitUntilClose();
        System.exit(0);
    }
}
