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
        // jjava builds its iopub and stdin sockets itself, and every part of it uses these fields.
        replace("iopub", new RetryingIOPubChannel(ctx, hmac));
        replace("stdin", new RetryingStdinChannel(ctx, hmac));
        input = new FrontEndInput(ctx, stdin, hmac);
    }

    /** Puts {@code socket} in jjava's field {@code name} (a socket not yet bound), closing the one it held. */
    private void replace(String name, org.dflib.jjava.jupyter.channels.JupyterSocket socket) throws ReflectiveOperationException {
        Field f = JupyterConnection.class.getDeclaredField(name);
        f.setAccessible(true);
        ((org.dflib.jjava.jupyter.channels.JupyterSocket) f.get(this)).close();
        f.set(this, socket);
    }

    private final FrontEndInput input;

    /** Lines from the front end over the stdin channel, for a cell that reads System.in. */
    public FrontEndInput input() { return input; }

    private ZMQ.Context context() throws ReflectiveOperationException {
        Field f = JupyterConnection.class.getDeclaredField("ctx");
        f.setAccessible(true);
        return (ZMQ.Context) f.get(this);
    }

    public SafeShellChannel shellChannel() { return safeShell; }

    /** Where this connection binds, as the connection file said. */
    public KernelConnectionProperties properties() { return props; }

    public SafeShellChannel controlChannel() { return safeControl; }

    @Override public void connect() {
        if (connected) return;
        bind("hb_port", props.getHbPort(), () -> heartbeat.bind(props));
        bind("shell_port", props.getShellPort(), () -> safeShell.bind(props));
        bind("control_port", props.getControlPort(), () -> safeControl.bind(props));
        bind("stdin_port", props.getStdinPort(), () -> stdin.bind(props));
        bind("iopub_port", props.getIopubPort(), () -> iopub.bind(props));
        getIOPub().sendMessage(new Message<>(null, PublishStatus.MESSAGE_TYPE, PublishStatus.STARTING));
        connected = true;
    }

    /** A port that cannot be bound (in use, a bad address) is named by its connection-file field. */
    private void bind(String field, int port, Runnable bind) {
        try {
            bind.run();
        } catch (RuntimeException e) {
            String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            if (e instanceof org.zeromq.ZMQException z && z.getErrorCode() == ZMQ.Error.EADDRINUSE.getCode()) why = "the address is already in use";
            throw new IllegalStateException("cannot bind " + field + " " + port + " on " + props.getTransport() + "://" + props.getIp() + ": " + why, e);
        }
    }

    private final java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);

    @Override public void close() {
        try {
            safeShell.close();
            safeControl.close();
            super.close();
        } finally {
            closed.countDown();
        }
    }

    /** Waits until the connection is closed (a shutdown_request on either channel closes it). */
    public void awaitClosed() throws InterruptedException { closed.await(); }

    /** Waits at most {@code timeout} for the connection to close; true when it did. */
    public boolean awaitClosed(long timeout, java.util.concurrent.TimeUnit unit) throws InterruptedException { return closed.await(timeout, unit); }

    @Override public void waitUntilClose() {
        safeShell.waitUntilClose();
        safeControl.waitUntilClose();
        heartbeat.waitUntilClose();
    }
}
