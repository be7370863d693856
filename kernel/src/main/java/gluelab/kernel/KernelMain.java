package gluelab.kernel;

import gluelab.kernel.channel.GluelabConnection;
import org.dflib.jjava.jupyter.kernel.KernelConnectionProperties;

import java.nio.file.Files;
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
        if (!Files.isRegularFile(file)) {
            System.err.println("gluelab kernel: no connection file at " + file);
            System.exit(2);
        }
        KernelConnectionProperties props = KernelConnectionProperties.parse(Files.readString(file));
        GluelabKernel kernel = new GluelabKernel();
        GluelabConnection connection = new GluelabConnection(props);
        kernel.becomeHandlerForConnection(connection);
        connection.shellChannel().abortQueuedWhen(kernel::takeAbortQueued);
        connection.connect();
        kernel.onStartup();
        connection.waitUntilClose();
        System.exit(0);
    }
}
