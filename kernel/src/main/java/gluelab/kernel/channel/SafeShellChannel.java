package gluelab.kernel.channel;

import org.dflib.jjava.jupyter.channels.JupyterConnection;
import org.dflib.jjava.jupyter.channels.ShellChannel;
import org.dflib.jjava.jupyter.channels.ShellHandler;
import org.dflib.jjava.jupyter.channels.ShellReplyEnvironment;
import org.dflib.jjava.jupyter.kernel.KernelConnectionProperties;
import org.dflib.jjava.jupyter.messages.HMACGenerator;
import org.dflib.jjava.jupyter.messages.Message;
import org.zeromq.ZMQ;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A shell (or control) channel that blocks on its socket instead of sleeping between polls (jjava's
 * loop sleeps 50 ms), and that drops and logs a message with a missing or wrong HMAC signature
 * instead of letting the exception end the channel's thread. Nothing unsigned is ever executed.
 */
public final class SafeShellChannel extends ShellChannel {
    private static final Logger LOG = Logger.getLogger(SafeShellChannel.class.getName());

    private final boolean control;
    private final JupyterConnection connection;
    private volatile boolean running;
    private Thread thread;
    private volatile int rejected;

    public SafeShellChannel(ZMQ.Context ctx, HMACGenerator hmac, boolean control, JupyterConnection connection) {
        super(ctx, hmac, control, connection);
        this.control = control;
        this.connection = connection;
    }

    public int rejectedMessages() { return rejected; }

    @Override @SuppressWarnings({"unchecked", "rawtypes"})
    public void bind(KernelConnectionProperties props) {
        String address = props.getTransport() + "://" + props.getIp() + ":" + (control ? props.getControlPort() : props.getShellPort());
        bind(address);
        ZMQ.Poller poller = ctx.poller(1);
        poller.register(this, ZMQ.Poller.POLLIN);
        running = true;
        thread = new Thread(() -> {
            while (running) {
                if (poller.poll(200) <= 0) continue;
                Message<?> message;
                try {
                    message = readMessage();
                } catch (SecurityException e) {
                    rejected++;
                    LOG.warning("dropped a message with a missing or invalid signature on the " + (control ? "control" : "shell") + " channel");
                    continue;
                } catch (RuntimeException e) {
                    if (!running) break;
                    LOG.log(Level.WARNING, "dropped an unreadable message", e);
                    continue;
                }
                if (message == null) continue;
                ShellHandler handler = connection.getHandler(message.getHeader().getType());
                if (handler == null) {
                    LOG.fine("no handler for " + message.getHeader().getType().getName());
                    continue;
                }
                ShellReplyEnvironment env = connection.prepareReplyEnv(this, message);
                try {
                    handler.handle(env, message);
                } catch (Exception e) {
                    LOG.log(Level.WARNING, "handling " + message.getHeader().getType().getName() + " failed", e);
                } finally {
                    env.resolveDeferrals();
                }
                if (env.isMarkedForShutdown()) {
                    running = false;
                    connection.close();
                }
            }
        }, control ? "gluelab-control" : "gluelab-shell");
        thread.setDaemon(false);
        thread.start();
    }

    /** The thread that runs cells (the shell's), for interrupts. */
    public Thread thread() { return thread; }

    @Override public void close() {
        running = false;
        // A ZMQ socket belongs to one thread: let the loop leave its poll before the socket closes.
        if (thread != null && thread != Thread.currentThread()) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        super.close();
    }

    @Override public void waitUntilClose() {
        if (thread == null || thread == Thread.currentThread()) return;
        try {
            thread.join();
        } catch (InterruptedException ignored) {
            Thread.currentThread().interrupt();
        }
    }
}
