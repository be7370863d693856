package gluelab.kernel.channel;

import org.dflib.jjava.jupyter.channels.JupyterConnection;
import org.dflib.jjava.jupyter.kernel.KernelConnectionProperties;
import org.dflib.jjava.jupyter.messages.Message;
import org.dflib.jjava.jupyter.messages.publish.PublishStatus;
import org.zeromq.ZMQ;

import java.lang.reflect.Field;

/**
 * jjava's connection with the shell and control channels replaced by {@link SafeShellChannel}s.
 * Sockets bind to the transport, IP and ports of the connection file, nowhere else.
 */
public final class GluelabConnection extends JupyterConnection {
    private final KernelConnectionProperties props;
    private final SafeShellChannel safeShell, safeControl;
    private boolean connected;

    public GluelabConnection(KernelConnectionProperties props) throws Exception {
        super(props);
        this.props = props;
        ZMQ.Context ctx = context();
        var hmac = props.createHMACGenerator();
        SeenMessages seen = new SeenMessages(SeenMessages.DEFAULT_CAPACITY);
        safeShell = new SafeShellChannel(ctx, hmac, false, this, seen);
        safeControl = new SafeShellChannel(ctx, hmac, true, this, seen);
    }

    private ZMQ.Context context() throws ReflectiveOperationException {
        Field f = JupyterConnection.class.getDeclaredField("ctx");
        f.setAccessible(true);
        return (ZMQ.Context) f.get(this);
    }

    public SafeShellChannel shellChannel() { return safeShell; }

    public SafeShellChannel controlChannel() { return safeControl; }

    @Override public void connect() {
        if (connected) return;
        heartbeat.bind(props);
        safeShell.bind(props);
        safeControl.bind(props);
        stdin.bind(props);
        iopub.bind(props);
        getIOPub().sendMessage(new Message<>(null, PublishStatus.MESSAGE_TYPE, PublishStatus.STARTING));
        connected = true;
    }

    @Override public void close() {
        safeShell.close();
        safeControl.close();
        super.close();
    }

    @Override public void waitUntilClose() {
        safeShell.waitUntilClose();
        safeControl.waitUntilClose();
        heartbeat.waitUntilClose();
    }
}
