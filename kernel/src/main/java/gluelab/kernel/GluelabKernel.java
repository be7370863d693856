package gluelab.kernel;

import gluelab.kernel.display.ErrorText;
import gluelab.kernel.display.Renderers;
import gluelab.kernel.eval.Evaluator;
import gluelab.kernel.eval.UserCodeError;
import gluelab.progress.Progress;
import org.dflib.jjava.jupyter.channels.ShellReplyEnvironment;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.JupyterIO;
import org.dflib.jjava.jupyter.kernel.LanguageInfo;
import org.dflib.jjava.jupyter.kernel.ReplacementOptions;
import org.dflib.jjava.jupyter.kernel.comm.CommManager;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.dflib.jjava.jupyter.kernel.display.Renderer;
import org.dflib.jjava.jupyter.kernel.magic.MagicParser;
import org.dflib.jjava.jupyter.kernel.magic.MagicsRegistry;
import org.dflib.jjava.jupyter.kernel.util.StringStyler;
import org.dflib.jjava.jupyter.messages.Header;
import org.dflib.jjava.jupyter.messages.Message;
import org.dflib.jjava.jupyter.messages.reply.KernelInfoReply;
import org.dflib.jjava.jupyter.messages.request.ExecuteRequest;
import org.dflib.jjava.jupyter.messages.request.KernelInfoRequest;

import gluelab.kernel.channel.GluelabConnection;
import gluelab.kernel.stream.CellInput;
import gluelab.kernel.stream.CellOutput;

import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The Jupyter kernel: jjava's protocol layer (BaseKernel) over gluelab's evaluator, cell runner and
 * renderers. Cells run on the shell thread; an interrupt (message mode, on the control channel)
 * stops the running snippet and interrupts engine work, and the next cell runs normally.
 */
public final class GluelabKernel extends BaseKernel {
    public static final String VERSION = gluelab.record.Environment.VERSION;

    /** JShell takes most of a second to start: it is built in the background so kernel_info answers at once. */
    private final java.util.concurrent.CompletableFuture<Evaluator> evaluator;
    private final java.util.concurrent.CompletableFuture<CellRunner> cells;
    private final History history;
    /** The notebook session the magics and user code share. */
    private final Session session;
    private volatile Thread executing;
    private volatile boolean interrupted;
    private volatile boolean failed;
    private volatile boolean shuttingDown;
    private volatile UserCodeError lastUserError;

    public GluelabKernel() {
        this(new History(), new JupyterIO(StandardCharsets.UTF_8), new Renderer(), new MagicsRegistry());
    }

    /** {@code magics} is filled by the cell runner once JShell is up (gluelab's magics, see GluelabMagics). */
    private GluelabKernel(History history, JupyterIO io, Renderer renderer, MagicsRegistry magics) {
        super("gluelab", VERSION,
                new LanguageInfo("java", Runtime.version().toString(), "text/x-java-source", ".jshell", "java", "java", "script"),
                List.of(), history, io, new CommManager(), renderer, new MagicParser("(?<=(?:^|=))\\s*%", "%%", null), magics, false,
                new StringStyler.Builder().build());
        this.history = history;
        this.session = new Session(o -> {
            drainStreams();
            io.display.display(renderSafely(o));
        });
        this.evaluator = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            Evaluator e = new Evaluator();
            e.warmUpCompletion();
            return e;
        });
        this.cells = evaluator.thenApply(ev -> new CellRunner(ev, session, magics));
        Renderers.install(renderer);
        // "device auto: using the CPU (...)" is shown on the lab's and device's cards, not as a stderr block in cells.
        gluelab.device.Devices.notices(note -> {});
        // Which Python the torch rows use is said once, as an ordinary output line (stderr reads as an error in a notebook).
        gluelab.torch.PythonChoice.notices(System.out::println);
        Progress.DEFAULT.set(new NotebookProgress(d -> {
            drainStreams();
            io.display.display(d);
        }, (id, d) -> io.display.updateDisplay(id, d)));
        Thread.ofPlatform().daemon().name("gluelab-stream-flush").start(this::flushStreamsForever);
    }

    @Override public String getBanner() {
        return "gluelab " + VERSION + ": Java " + Runtime.version() + " with the gluelab engine; `var lab = Gluelab.open();` to start";
    }

    /** A cell's stdout and stderr, coalesced and bounded (see CellOutput); its stdin (see CellInput). */
    private final CellOutput stdout = new CellOutput(CellOutput.limitFromEnvironment()), stderr = new CellOutput(CellOutput.limitFromEnvironment());
    private final PrintStream stdoutPrint = new PrintStream(stdout, true, StandardCharsets.UTF_8), stderrPrint = new PrintStream(stderr, true, StandardCharsets.UTF_8);
    private final CellInput stdin = new CellInput();
    private volatile GluelabConnection connection;
    private volatile boolean allowStdin;

    @Override public void becomeHandlerForConnection(org.dflib.jjava.jupyter.channels.JupyterConnection connection) {
        super.becomeHandlerForConnection(connection);
        if (connection instanceof GluelabConnection g) this.connection = g;
    }

    /** jjava's streams send one message per println; a cell's go through CellOutput and CellInput instead. */
    @Override protected void replaceOutputStreams(ShellReplyEnvironment env) {
        PrintStream oldOut = System.out, oldErr = System.err;
        InputStream oldIn = System.in;
        stdout.start(env::writeToStdOut);
        stderr.start(env::writeToStdErr);
        GluelabConnection c = connection;
        stdin.start(allowStdin && c != null
                ? () -> c.input().read(env.getContext(), "", false, () -> interrupted || shuttingDown)
                : null);
        System.setOut(stdoutPrint);
        System.setErr(stderrPrint);
        System.setIn(stdin);
        env.defer(() -> {
            endStreams();
            System.setOut(oldOut);
            System.setErr(oldErr);
            System.setIn(oldIn);
        });
    }

    /** Sends what the cell printed, before a display or its result, so they arrive in order. */
    private void drainStreams() {
        stdout.drain();
        stderr.drain();
    }

    private void endStreams() {
        stdout.finish();
        stderr.finish();
        stdin.finish();
    }

    private void flushStreamsForever() {
        while (true) {
            try {
                Thread.sleep(CellOutput.FLUSH_INTERVAL_MS);
                drainStreams();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                // a send that failed (the connection closing) is not the flusher's to report
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Exception> E sneaky(Exception e) throws E { throw (E) e; }

    @Override public Object evalRaw(String code) {
        lastUserError = null;
        synchronized (interruptLock) {
            executing = Thread.currentThread();
            cell++;
        }
        interrupted = false;
        try {
            CellRunner runner = cells.join();
            if (interrupted) throw new Evaluator.InterruptedCellException();
            Object v = runner.run(code);
            if (interrupted) throw new Evaluator.InterruptedCellException();
            history.add(code);
            return v;
        } catch (UserCodeError e) {
            history.add(code);
            failed = true;
            if (interrupted) throw new Evaluator.InterruptedCellException();
            // The user's own exception is what the error reply names (ename, evalue); formatError
            // finds the cell line and trimmed frames through lastUserError.
            lastUserError = e;
            if (e.getCause() instanceof Exception real) {
                real.setStackTrace(e.getStackTrace()); // the user's frames only, also in the execute_reply
                throw GluelabKernel.<RuntimeException>sneaky(real);
            }
            throw e;
        } catch (RuntimeException e) {
            history.add(code);
            failed = true;
            if (interrupted) throw new Evaluator.InterruptedCellException();
            throw e;
        } catch (Exception e) {
            history.add(code);
            failed = true;
            throw new IllegalStateException(e.getMessage(), e);
        } finally {
            // The interrupt ends first (its retries stop, the thread's flag is cleared), so the cell's
            // last output, sent next, before its result, error or reply, is not sent while interrupted.
            synchronized (interruptLock) {
                executing = null;
                Thread.interrupted();
            }
            endStreams();
        }
    }

    /** Renders a value; a renderer that throws falls back to text and the cell still succeeds. */
    @Override public DisplayData eval(String code) {
        Object v = evalRaw(code);
        return v == null ? null : renderSafely(v);
    }

    DisplayData renderSafely(Object v) { return Renderers.render(getRenderer(), v); }

    @Override public DisplayData inspect(String code, int at, boolean extraDetail) {
        String doc = evaluator().inspect(code, at);
        return doc == null ? null : new DisplayData(doc);
    }

    @Override public ReplacementOptions complete(String code, int at) {
        int[] anchor = new int[1];
        List<String> options = evaluator().complete(code, at, anchor);
        return options.isEmpty() ? null : new ReplacementOptions(options, anchor[0], at);
    }

    @Override public String isComplete(String code) {
        return switch (evaluator().isComplete(code)) {
            case "complete" -> IS_COMPLETE_YES;
            case "incomplete" -> "    ";
            default -> IS_COMPLETE_BAD;
        };
    }

    /**
     * Stops the running cell. JShell's stop only reaches user code already running, so an interrupt
     * that lands while the cell is still being compiled (or while JShell is still starting) is
     * repeated every 100 ms until the cell ends, for up to {@link #INTERRUPT_RETRY_MS}.
     */
    @Override public void interrupt() {
        interrupted = true;
        Thread t;
        long target;
        synchronized (interruptLock) {
            t = executing;
            target = cell;
        }
        if (t == null) return;
        Thread.ofVirtual().name("gluelab-interrupt").start(() -> {
            long until = System.nanoTime() + INTERRUPT_RETRY_MS * 1_000_000L;
            while (System.nanoTime() < until) {
                synchronized (interruptLock) {
                    // Cells share the shell thread: the retries belong to the cell that was running.
                    if (executing != t || cell != target) return;
                    if (evaluator.isDone()) evaluator().stop();
                    t.interrupt();
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    static final long INTERRUPT_RETRY_MS = 5_000;
    static final long SHUTDOWN_GRACE_MS = 2_000;
    /** Held while interrupting and while a cell starts or ends, so no interrupt outlives its cell. */
    private final Object interruptLock = new Object();
    /** Counts cells, guarded by interruptLock: an interrupt's retries stop when their cell has ended. */
    private long cell;

    /**
     * A shutdown_request arrives on the control channel while a cell may still run on the shell
     * thread: the cell is stopped first (as an interrupt), and given {@link #SHUTDOWN_GRACE_MS} to
     * end, so the kernel exits promptly even when the cell sleeps or waits.
     */
    @Override public void onShutdown(boolean restarting) {
        shuttingDown = true;
        interrupt();
        long until = System.nanoTime() + SHUTDOWN_GRACE_MS * 1_000_000L;
        while (executing != null && System.nanoTime() < until) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        session.close();
        evaluator().close();
        super.onShutdown(restarting);
    }

    @Override public List<String> formatError(Throwable e) {
        UserCodeError u = lastUserError;
        return ErrorText.lines(u != null && u.getCause() == e ? u : e);
    }

    /** After a failed execute request that asked to stop on error, the queued ones are aborted. */
    @Override protected synchronized void handleExecuteRequest(ShellReplyEnvironment env, Message<ExecuteRequest> message) {
        failed = false;
        allowStdin = message.getContent().isStdinEnabled();
        super.handleExecuteRequest(env, message);
        if (failed && message.getContent().shouldStopOnError()) abortQueued = true;
    }

    private volatile boolean abortQueued;

    /** True once after an execute request that asked to stop on error failed: the shell channel then aborts what is queued. */
    public boolean takeAbortQueued() {
        boolean a = abortQueued;
        abortQueued = false;
        return a;
    }

    /** kernel_info_reply with "status": "ok", which jjava 1.0-a6 leaves out. */
    @Override protected void handleKernelInfoRequest(ShellReplyEnvironment env, Message<KernelInfoRequest> request) {
        env.setBusyDeferIdle();
        env.reply(new StatusKernelInfoReply(Header.PROTOCOL_VERISON, getName(), getVersion(), getLanguageInfo(), getBanner(), getHelpLinks()));
    }

    /**
     * history_reply as the protocol has it: "status": "ok" and entries as [session, line, input]
     * (or [session, line, [input, output]]); jjava 1.0-a6 leaves out the status and writes objects.
     */
    @Override protected void handleHistoryRequest(ShellReplyEnvironment env, Message<org.dflib.jjava.jupyter.messages.request.HistoryRequest> request) {
        var r = request.getContent();
        env.setBusyDeferIdle();
        var none = java.util.EnumSet.noneOf(org.dflib.jjava.jupyter.kernel.history.HistoryManager.ResultFlag.class);
        List<org.dflib.jjava.jupyter.kernel.history.HistoryEntry> entries = switch (r.getAccessType()) {
            case TAIL -> history.lookupTail(((org.dflib.jjava.jupyter.messages.request.HistoryRequest.Tail) r).getMaxReturnLength(), none);
            case RANGE -> {
                var range = (org.dflib.jjava.jupyter.messages.request.HistoryRequest.Range) r;
                yield history.lookupRange(range.getSessionIndex(), range.getStart(), range.getStop(), none);
            }
            case SEARCH -> {
                var search = (org.dflib.jjava.jupyter.messages.request.HistoryRequest.Search) r;
                var found = history.search(search.getPattern(), search.filterUnique() ? Integer.MAX_VALUE : search.getMaxReturnLength(), none);
                if (search.filterUnique()) {
                    java.util.LinkedHashMap<String, org.dflib.jjava.jupyter.kernel.history.HistoryEntry> last = new java.util.LinkedHashMap<>();
                    for (var e : found) {
                        last.remove(e.getInput());
                        last.put(e.getInput(), e);
                    }
                    found = new ArrayList<>(last.values());
                    int max = search.getMaxReturnLength();
                    if (max > 0 && found.size() > max) found = found.subList(found.size() - max, found.size());
                }
                yield found;
            }
        };
        List<List<Object>> rows = new ArrayList<>();
        for (var e : entries) {
            rows.add(List.of(e.getSession(), e.getCellNumber(), r.includeOutput() ? java.util.Arrays.asList(e.getInput(), null) : e.getInput()));
        }
        env.reply(new HistoryRows(rows));
    }

    /** The content of a history_reply. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static final class HistoryRows implements org.dflib.jjava.jupyter.messages.ContentType<HistoryRows>,
            org.dflib.jjava.jupyter.messages.ReplyType<org.dflib.jjava.jupyter.messages.request.HistoryRequest> {
        @SuppressWarnings("unused") private final String status = "ok";
        @SuppressWarnings("unused") private final List<List<Object>> history;

        HistoryRows(List<List<Object>> history) { this.history = history; }

        @Override public org.dflib.jjava.jupyter.messages.MessageType<HistoryRows> getType() {
            return (org.dflib.jjava.jupyter.messages.MessageType) org.dflib.jjava.jupyter.messages.reply.HistoryReply.MESSAGE_TYPE;
        }

        @Override public org.dflib.jjava.jupyter.messages.MessageType<org.dflib.jjava.jupyter.messages.request.HistoryRequest> getRequestType() {
            return org.dflib.jjava.jupyter.messages.reply.HistoryReply.REQUEST_MESSAGE_TYPE;
        }
    }

    static final class StatusKernelInfoReply extends KernelInfoReply {
        @SuppressWarnings("unused") private final String status = "ok";

        StatusKernelInfoReply(String protocol, String name, String version, LanguageInfo info, String banner, List<org.dflib.jjava.jupyter.kernel.HelpLink> links) {
            super(protocol, name, version, info, banner, links);
        }
    }

    Evaluator evaluator() { return evaluator.join(); }
}
