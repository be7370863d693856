package gluelab.kernel.channel;

import org.dflib.jjava.jupyter.channels.JupyterConnection;
import org.dflib.jjava.jupyter.channels.ShellChannel;
import org.dflib.jjava.jupyter.channels.ShellHandler;
import org.dflib.jjava.jupyter.channels.ShellReplyEnvironment;
import org.dflib.jjava.jupyter.kernel.KernelConnectionProperties;
import org.dflib.jjava.jupyter.messages.HMACGenerator;
import org.dflib.jjava.jupyter.messages.ContentType;
import org.dflib.jjava.jupyter.messages.Message;
import org.dflib.jjava.jupyter.messages.MessageType;
import org.dflib.jjava.jupyter.messages.ReplyType;
import org.dflib.jjava.jupyter.messages.reply.ErrorReply;
import org.dflib.jjava.jupyter.messages.request.ExecuteRequest;
import org.dflib.jjava.jupyter.messages.request.ShutdownRequest;
import org.zeromq.ZMQ;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A shell (or control) channel that reads each multipart message whole ({@link WireMessage}: a
 * malformed one is dropped with a log line and never takes frames of the next), that blocks on its socket instead of sleeping between polls (jjava's
 * loop sleeps 50 ms), and that drops and logs a message with a missing or wrong HMAC signature
 * instead of letting the exception end the channel's thread. Nothing unsigned is ever executed,
 * and nothing signed twice: a replayed message (one whose signed header was seen before) is
 * dropped, as Jupyter's own Session does with its digest history. After a failed execute request
 * that asked to stop on error, the execute requests already queued are answered "aborted"
 * without running, as ipykernel does.
 *
 * <p>Cells run on the shell thread, so while one runs nobody reads the shell socket: a
 * {@link RunningWatch} reads it meanwhile, handles a shutdown_request at once (it stops the cell)
 * and keeps every other message, in order, for the shell thread once the request ends.
 */
public final class SafeShellChannel extends ShellChannel {
    private static final Logger LOG = Logger.getLogger(SafeShellChannel.class.getName());

    private final boolean control;
    private final JupyterConnection connection;
    private volatile boolean running;
    private Thread thread;
    private volatile int rejected, replayed, aborted;
    private final SeenMessages seen;
    private volatile BooleanSupplier abortQueued = () -> false;
    /** Messages the watch read while a request ran, for the shell thread, in arrival order. */
    private final java.util.concurrent.ConcurrentLinkedQueue<WireMessage> readWhileBusy = new java.util.concurrent.ConcurrentLinkedQueue<>();

    private final HMACGenerator hmac;

    public SafeShellChannel(ZMQ.Context ctx, HMACGenerator hmac, boolean control, JupyterConnection connection, SeenMessages seen) {
        super(ctx, hmac, control, connection);
        this.hmac = hmac;
        this.control = control;
        this.connection = connection;
        this.seen = seen;
    }

    public int rejectedMessages() { return rejected; }

    public int replayedMessages() { return replayed; }

    public int abortedRequests() { return aborted; }

    /** Asked after each request; true means: answer the queued execute requests "aborted". */
    public void abortQueuedWhen(BooleanSupplier abort) { abortQueued = abort; }

    @Override @SuppressWarnings({"unchecked", "rawtypes"})
    public void bind(KernelConnectionProperties props) {
        String address = props.getTransport() + "://" + props.getIp() + ":" + (control ? props.getControlPort() : props.getShellPort());
        bind(address);
        ZMQ.Poller poller = ctx.poller(1);
        poller.register(this, ZMQ.Poller.POLLIN);
        running = true;
        thread = new Thread(() -> {
            while (running) {
                if (readWhileBusy.isEmpty() && poller.poll(200) <= 0) continue;
                WireMessage read = readWhileBusy.isEmpty() ? next() : readWhileBusy.poll();
                Message<?> message = switch (read) {
                    case WireMessage.Request r -> r.message();
                    case WireMessage.Malformed m -> {
                        rejected++;
                        LOG.warning("dropped a malformed message on the " + name() + " channel: " + m.why());
                        yield null;
                    }
                    case WireMessage.BadContent b -> {
                        rejected++;
                        LOG.warning("answered a bad request on the " + name() + " channel with an error: " + b.why());
                        answerBadContent(b);
                        yield null;
                    }
                    case null -> null;
                };
                if (message == null) continue;
                if (!seen.firstTime(message.getHeader())) {
                    replayed++;
                    LOG.warning("dropped a replayed message (" + message.getHeader().getType().getName() + " " + message.getHeader().getId() + ") on the " + (control ? "control" : "shell") + " channel");
                    continue;
                }
                ShellHandler handler = connection.getHandler(message.getHeader().getType());
                if (handler == null) {
                    LOG.fine("no handler for " + message.getHeader().getType().getName());
                    continue;
                }
                ShellReplyEnvironment env = connection.prepareReplyEnv(this, message);
                java.util.List<Message<?>> toAbort = java.util.List.of();
                // Only a cell runs long enough to need the watch; short requests keep their reply path as it was.
                RunningWatch watch = control || message.getHeader().getType() != ExecuteRequest.MESSAGE_TYPE ? null : RunningWatch.start(this);
                try {
                    handler.handle(env, message);
                } catch (Exception e) {
                    LOG.log(Level.WARNING, "handling " + message.getHeader().getType().getName() + " failed", e);
                } finally {
                    if (watch != null) watch.stop();
                    // The queue is taken before this request's idle status goes out: a client that
                    // waits for idle before sending its next request is never caught in the abort.
                    if (!control && !env.isMarkedForShutdown() && abortQueued.getAsBoolean()) toAbort = queued(poller);
                    env.resolveDeferrals();
                }
                if (env.isMarkedForShutdown()) {
                    running = false;
                    connection.close();
                } else if (!toAbort.isEmpty()) {
                    answerAborted(toAbort);
                }
            }
        }, control ? "gluelab-control" : "gluelab-shell");
        thread.setDaemon(false);
        thread.start();
    }

    /**
     * The next message: every frame of one multipart message is read before it is judged, so a
     * malformed one never takes frames of the next. Null when the socket is closed or has nothing.
     */
    private synchronized WireMessage next() {
        List<byte[]> frames = new ArrayList<>();
        try {
            byte[] first = recv(ZMQ.DONTWAIT);
            if (first == null) return null;
            frames.add(first);
            while (hasReceiveMore()) frames.add(recv());
        } catch (RuntimeException e) {
            if (!running) return null;
            return new WireMessage.Malformed("the socket failed while reading (" + e.getMessage() + ")");
        }
        return WireMessage.parse(frames, hmac);
    }

    /**
     * Reads the shell socket while the shell thread handles a request (a cell may run for minutes):
     * a shutdown_request is handled here at once, everything else is kept for the shell thread.
     * Every read and send of the socket holds its monitor (jjava's sendMessage is synchronized), so
     * the socket is used by one thread at a time.
     */
    private static final class RunningWatch {
        private final SafeShellChannel channel;
        private final Thread thread;
        private volatile boolean done, shuttingDown;

        private RunningWatch(SafeShellChannel channel) {
            this.channel = channel;
            this.thread = Thread.ofPlatform().daemon().name("gluelab-shell-watch").unstarted(this::watch);
        }

        static RunningWatch start(SafeShellChannel channel) {
            RunningWatch w = new RunningWatch(channel);
            w.thread.start();
            return w;
        }

        private void watch() {
            while (!done && channel.running) {
                WireMessage w = channel.next();
                if (w == null) {
                    // Parked, not slept: stop() unparks it, so the cell's reply does not wait out the interval
                    // (and no interrupt reaches the socket's NIO channels, which an interrupt would close).
                    java.util.concurrent.locks.LockSupport.parkNanos(WATCH_INTERVAL_MS * 1_000_000L);
                } else if (w instanceof WireMessage.Request r && r.message().getHeader().getType() == ShutdownRequest.MESSAGE_TYPE) {
                    shuttingDown = true;
                    channel.shutDownWhileBusy(r.message());
                    return;
                } else {
                    channel.readWhileBusy.add(w);
                }
            }
        }

        /**
         * Returns once the watch no longer reads: what it read is in readWhileBusy. A watch shutting the
         * kernel down is not waited for: it closes the channel, which waits for the shell thread.
         */
        void stop() {
            done = true;
            java.util.concurrent.locks.LockSupport.unpark(thread);
            if (shuttingDown || thread == Thread.currentThread()) return;
            try {
                // a shutdown read just now sets shuttingDown after this check: look again while waiting
                while (thread.isAlive() && !shuttingDown) thread.join(WATCH_INTERVAL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static final long WATCH_INTERVAL_MS = 10;

    /** A shutdown_request that came while a cell ran: the kernel stops the cell, replies, and the connection closes. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private void shutDownWhileBusy(Message<?> message) {
        if (!seen.firstTime(message.getHeader())) {
            replayed++;
            LOG.warning("dropped a replayed shutdown_request " + message.getHeader().getId() + " on the shell channel");
            return;
        }
        ShellHandler handler = connection.getHandler(message.getHeader().getType());
        if (handler == null) return;
        ShellReplyEnvironment env = connection.prepareReplyEnv(this, message);
        try {
            handler.handle(env, message);
        } catch (Exception e) {
            LOG.log(Level.WARNING, "handling shutdown_request failed", e);
        } finally {
            env.resolveDeferrals();
        }
        if (env.isMarkedForShutdown()) {
            running = false;
            connection.close();
        }
    }

    /** A frame an interrupt made fail is sent again (see {@link InterruptedSends}): the cell's reply is not lost. */
    @Override public boolean send(byte[] data, int flags) { return InterruptedSends.retryOnEintr(() -> super.send(data, flags)); }

    /** jjava's reader would take frames across message boundaries; the shell and control channels read through {@link #next()}. */
    @Override public synchronized Message<?> readMessage() {
        return next() instanceof WireMessage.Request r ? r.message() : null;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void answerBadContent(WireMessage.BadContent b) {
        if (b.replyType() == null) return;
        ShellReplyEnvironment env = connection.prepareReplyEnv(this, b.context());
        try {
            env.setBusyDeferIdle();
            env.replyError(b.replyType().error(), new ErrorReply("BadRequest", b.why(), List.of()));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "answering a bad request failed", e);
        } finally {
            env.resolveDeferrals();
        }
    }

    private String name() { return control ? "control" : "shell"; }

    /** The requests already waiting on the socket, read to the end of the queue. */
    private java.util.List<Message<?>> queued(ZMQ.Poller poller) {
        java.util.List<Message<?>> queued = new java.util.ArrayList<>();
        while (running && (!readWhileBusy.isEmpty() || poller.poll(0) > 0)) {
            WireMessage w = readWhileBusy.isEmpty() ? next() : readWhileBusy.poll();
            if (w instanceof WireMessage.Request r && seen.firstTime(r.message().getHeader())) queued.add(r.message());
            else if (w instanceof WireMessage.BadContent b) answerBadContent(b);
            else if (w instanceof WireMessage.Malformed m) {
                rejected++;
                LOG.warning("dropped a malformed message on the " + name() + " channel while aborting: " + m.why());
            }
        }
        return queued;
    }

    /** Answers queued execute requests "aborted"; other requests are handled as usual. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private void answerAborted(java.util.List<Message<?>> queued) {
        for (Message<?> message : queued) {
            ShellReplyEnvironment env = connection.prepareReplyEnv(this, message);
            try {
                if (message.getHeader().getType() == ExecuteRequest.MESSAGE_TYPE) {
                    aborted++;
                    env.setBusyDeferIdle();
                    env.reply(new AbortedReply());
                } else {
                    ShellHandler handler = connection.getHandler(message.getHeader().getType());
                    if (handler != null) handler.handle(env, message);
                }
            } catch (Exception e) {
                LOG.log(Level.WARNING, "handling " + message.getHeader().getType().getName() + " failed", e);
            } finally {
                env.resolveDeferrals();
            }
        }
    }

    /** The content of an execute_reply for a request that was not run. */
    static final class AbortedReply implements ContentType<AbortedReply>, ReplyType<ExecuteRequest> {
        @SuppressWarnings("unused") private final String status = "aborted";

        @Override @SuppressWarnings({"unchecked", "rawtypes"}) public MessageType<AbortedReply> getType() { return (MessageType) ExecuteRequest.REPLY_MESSAGE_TYPE; }

        @Override public MessageType<ExecuteRequest> getRequestType() { return ExecuteRequest.MESSAGE_TYPE; }
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
