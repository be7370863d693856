package gluelab.kernel;

import gluelab.kernel.channel.GluelabConnection;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Over real ZeroMQ frames: an interrupt_request while {@code %bench} measures 16k tokens on the CPU
 * stops the cell (an InterruptedCellException reply), and the next cell answers. How fast it stops
 * is measured in docs/benchmarks.md's kernel section; the bound here only catches a bench that was
 * not stopped at all (before every loop checked the interrupt it took 10.8 s).
 */
@Tag("slow")
class BenchInterruptTest {
    static final String KEY = SignatureTest.KEY;

    @Test
    void interruptingABenchAt16kTokensStopsItAndTheNextCellAnswers() throws Exception {
        // The kernel runs in this JVM and swaps System.out while a cell runs: the figure goes to the stream the test started with.
        java.io.PrintStream report = System.out;
        GluelabConnection connection = TestPorts.serve(KEY).connection();
        try (ZContext ctx = new ZContext()) {
            ZMQ.Socket iopub = ctx.createSocket(SocketType.SUB);
            iopub.subscribe(new byte[0]);
            iopub.connect("tcp://127.0.0.1:" + connection.properties().getIopubPort());
            iopub.setReceiveTimeOut(600_000);
            ZMQ.Socket shell = ctx.createSocket(SocketType.DEALER);
            shell.connect("tcp://127.0.0.1:" + connection.properties().getShellPort());
            shell.setReceiveTimeOut(120_000);
            ZMQ.Socket control = ctx.createSocket(SocketType.DEALER);
            control.connect("tcp://127.0.0.1:" + connection.properties().getControlPort());
            control.setReceiveTimeOut(60_000);
            // A subscriber misses what is published before it is connected: wait until kernel_info's busy status arrives.
            awaitSubscribed(shell, iopub);

            SignatureTest.send(shell, SignatureTest.message("execute_request", SignatureTest.execute("%bench rmsnorm --tokens 16k --device cpu", false), KEY));
            // The timing loop has begun (calibration and checks are behind it): its progress line is "bench 0/1 rmsnorm fwd T=16384",
            // and jjava's Gson writes "=" as \u003d.
            awaitFrame(iopub, "bench 0/", "rmsnorm fwd T", "16384");

            long t0 = System.nanoTime();
            SignatureTest.send(control, SignatureTest.message("interrupt_request", "{}", KEY));
            String reply = MalformedFramesTest.content(shell, "execute_reply");
            double stopped = (System.nanoTime() - t0) * 1e-9;
            report.printf("%%bench rmsnorm --tokens 16k on the CPU: stopped %.2f s after the interrupt_request%n", stopped);
            assertTrue(reply.contains("\"status\":\"error\"") && reply.contains("InterruptedCellException"), reply);
            assertTrue(stopped < 60, "stopped " + stopped + " s after the interrupt");

            SignatureTest.send(shell, SignatureTest.message("execute_request", SignatureTest.execute("1 + 1", false), KEY));
            assertEquals("ok", SignatureTest.replyStatus(shell), "the cell after the interrupted bench");
        } finally {
            connection.close();
        }
    }

    /** Sends kernel_info requests until one's status shows up on iopub (ZeroMQ subscriptions take a moment to reach the publisher). */
    static void awaitSubscribed(ZMQ.Socket shell, ZMQ.Socket iopub) throws Exception {
        long deadline = System.nanoTime() + 120_000_000_000L;
        iopub.setReceiveTimeOut(500);
        try {
            while (System.nanoTime() < deadline) {
                SignatureTest.send(shell, SignatureTest.message("kernel_info_request", "{}", KEY));
                MalformedFramesTest.content(shell, "kernel_info_reply");
                for (byte[] f; (f = iopub.recv()) != null; ) {
                    if (new String(f, StandardCharsets.UTF_8).contains("\"status\"")) {
                        while (iopub.hasReceiveMore()) iopub.recv();
                        return;
                    }
                }
            }
            fail("no status message on iopub in 120 s");
        } finally {
            iopub.setReceiveTimeOut(600_000);
        }
    }

    /** Reads iopub frames until one holds every part; fails after 10 minutes, or at the cell's error, naming what came. */
    static void awaitFrame(ZMQ.Socket iopub, String... parts) {
        java.util.Deque<String> recent = new java.util.ArrayDeque<>();
        long deadline = System.nanoTime() + 600_000_000_000L;
        while (System.nanoTime() < deadline) {
            byte[] f = iopub.recv();
            if (f == null) break;
            String s = new String(f, StandardCharsets.UTF_8);
            boolean all = true;
            for (String p : parts) all &= s.contains(p);
            if (all) return;
            if (s.contains("\"ename\"")) fail("the cell failed before its timing loop: " + s);
            if (s.startsWith("{\"") && !s.contains("\"execution_state\"")) {
                recent.addLast(s.length() > 300 ? s.substring(0, 300) : s);
                if (recent.size() > 5) recent.removeFirst();
            }
        }
        fail("no iopub frame holding " + String.join(" and ", parts) + "; the last ones: " + recent);
    }
}
