package gluelab.kernel;

import gluelab.kernel.channel.GluelabConnection;
import gluelab.kernel.channel.SafeShellChannel;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Over real ZeroMQ sockets: malformed shell traffic from one client (missing frames, no delimiter,
 * random bytes) is dropped with a log line and never costs another client's request its reply.
 */
@Tag("slow")
class MalformedFramesTest {
    static final String KEY = SignatureTest.KEY;

    /** Waits, up to a minute, until the shell channel has dropped {@code n} messages. */
    static void awaitRejected(GluelabConnection connection, int n) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (connection.shellChannel().rejectedMessages() < n && System.nanoTime() < deadline) Thread.sleep(20);
        assertEquals(n, connection.shellChannel().rejectedMessages(), "malformed messages dropped");
    }

    @Test
    void malformedMessagesAreDroppedAndTheNextRequestIsAnswered() throws Exception {
        List<String> logged = new ArrayList<>();
        Logger log = Logger.getLogger(SafeShellChannel.class.getName());
        Handler h = new Handler() {
            @Override public void publish(LogRecord r) { synchronized (logged) { logged.add(r.getMessage()); } }
            @Override public void flush() {}
            @Override public void close() {}
        };
        log.addHandler(h);
        GluelabConnection connection = TestPorts.serve(KEY).connection();
        try (ZContext ctx = new ZContext()) {
            String shellAddress = "tcp://127.0.0.1:" + connection.properties().getShellPort();
            ZMQ.Socket hostile = ctx.createSocket(SocketType.DEALER);
            hostile.connect(shellAddress);
            ZMQ.Socket client = ctx.createSocket(SocketType.DEALER);
            client.connect(shellAddress);
            client.setReceiveTimeOut(60_000);

            byte[][] good = SignatureTest.message("execute_request", SignatureTest.execute("1 + 1", false), KEY);
            List<byte[][]> bad = List.of(
                    Arrays.copyOfRange(good, 1, good.length),                 // no delimiter
                    Arrays.copyOfRange(good, 0, 2),                           // delimiter and signature only
                    new byte[][]{good[0], good[1], good[2]},                  // up to the header
                    new byte[][]{"garbage".getBytes(StandardCharsets.UTF_8)}, // one frame, no delimiter
                    new byte[][]{good[0]});                                   // the delimiter alone
            for (byte[][] frames : bad) {
                int before = connection.shellChannel().rejectedMessages();
                SignatureTest.send(hostile, frames);
                awaitRejected(connection, before + 1);
                SignatureTest.send(client, SignatureTest.message("execute_request", SignatureTest.execute("1 + 1", false), KEY));
                assertEquals("ok", SignatureTest.replyStatus(client), "the request after " + frames.length + " malformed frame(s)");
            }

            Random random = new Random(23);
            for (int i = 0; i < 200; i++) {
                byte[][] frames = new byte[1 + random.nextInt(7)][];
                for (int f = 0; f < frames.length; f++) {
                    frames[f] = new byte[random.nextInt(80)];
                    random.nextBytes(frames[f]);
                }
                if (i % 3 == 0) frames[0] = good[0]; // a delimiter, then noise
                SignatureTest.send(hostile, frames);
            }
            awaitRejected(connection, 205);
            SignatureTest.send(client, SignatureTest.message("execute_request", SignatureTest.execute("1 + 1", false), KEY));
            assertEquals("ok", SignatureTest.replyStatus(client), "the kernel answers after 200 random messages");
            synchronized (logged) {
                assertTrue(logged.stream().filter(m -> m.startsWith("dropped a malformed message on the shell channel")).count() >= 205, logged.toString());
            }
        } finally {
            connection.close();
            log.removeHandler(h);
        }
    }

    @Test
    void aSignedRequestWithBadContentGetsAnErrorReply() throws Exception {
        GluelabConnection connection = TestPorts.serve(KEY).connection();
        try (ZContext ctx = new ZContext()) {
            ZMQ.Socket client = ctx.createSocket(SocketType.DEALER);
            client.connect("tcp://127.0.0.1:" + connection.properties().getShellPort());
            client.setReceiveTimeOut(60_000);
            SignatureTest.send(client, SignatureTest.message("execute_request", "{}", KEY));
            String empty = content(client, "execute_reply");
            assertTrue(empty.contains("\"status\":\"error\"") && empty.contains("the field code must be a string, not missing"), empty);
            SignatureTest.send(client, SignatureTest.message("execute_request", "{\"code\": null, \"silent\": false}", KEY));
            String nul = content(client, "execute_reply");
            assertTrue(nul.contains("\"status\":\"error\"") && nul.contains("not null"), nul);
            SignatureTest.send(client, SignatureTest.message("history_request", "{\"hist_access_type\": \"bogus\", \"output\": false, \"raw\": true}", KEY));
            String history = content(client, "history_reply");
            assertTrue(history.contains("\"status\":\"error\"") && history.contains("tail, range or search"), history);
            SignatureTest.send(client, SignatureTest.message("execute_request", SignatureTest.execute("1 + 1", false), KEY));
            assertEquals("ok", SignatureTest.replyStatus(client), "the kernel runs the next request");
        } finally {
            connection.close();
        }
    }

    /** The content of the next reply of {@code type} on the socket. */
    static String content(ZMQ.Socket shell, String type) {
        while (true) {
            byte[] frame = shell.recv();
            assertNotNull(frame, "no " + type);
            if (!new String(frame, StandardCharsets.UTF_8).contains("\"" + type + "\"")) continue;
            shell.recv(); // parent header
            shell.recv(); // metadata
            String content = new String(shell.recv(), StandardCharsets.UTF_8);
            while (shell.hasReceiveMore()) shell.recv();
            return content;
        }
    }
}
