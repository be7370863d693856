package gluelab.kernel;

import gluelab.kernel.channel.GluelabConnection;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.*;

/** Over real ZMQ sockets: a badly signed or unsigned execute_request is dropped, never run; the kernel keeps serving. */
class SignatureTest {
    static final String KEY = "a0436f6c-1916-498b-8eb9-e81ab9368e84";

    static byte[][] message(String type, String content, String key) throws Exception {
        String header = "{\"msg_id\": \"" + UUID.randomUUID() + "\", \"username\": \"test\", \"session\": \"s\", \"date\": \"2026-11-29T00:00:00Z\", "
                + "\"msg_type\": \"" + type + "\", \"version\": \"5.3\"}";
        byte[][] parts = {header.getBytes(StandardCharsets.UTF_8), "{}".getBytes(), "{}".getBytes(), content.getBytes(StandardCharsets.UTF_8)};
        String sig;
        if (key == null) sig = "";
        else {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            for (byte[] p : parts) mac.update(p);
            sig = HexFormat.of().formatHex(mac.doFinal());
        }
        return new byte[][]{"<IDS|MSG>".getBytes(), sig.getBytes(), parts[0], parts[1], parts[2], parts[3]};
    }

    static void send(ZMQ.Socket s, byte[][] frames) {
        for (int i = 0; i < frames.length; i++) {
            if (i < frames.length - 1) s.sendMore(frames[i]);
            else s.send(frames[i]);
        }
    }

    @Test
    void unsignedAndBadlySignedRequestsNeverRun(@TempDir Path dir) throws Exception {
        Path marker = dir.resolve("MARKER");
        GluelabConnection connection = TestPorts.serve(KEY).connection();
        try (ZContext ctx = new ZContext()) {
            ZMQ.Socket shell = ctx.createSocket(SocketType.DEALER);
            shell.connect("tcp://127.0.0.1:" + connection.properties().getShellPort());
            String code = "java.nio.file.Files.writeString(java.nio.file.Path.of(" + com.fasterxml.jackson.databind.node.TextNode.valueOf(marker.toString()) + "), \\\"ran\\\")";
            String content = "{\"code\": \"" + code + "\", \"silent\": false, \"store_history\": true, \"user_expressions\": {}, \"allow_stdin\": false}";
            send(shell, message("execute_request", content, "wrong-key"));
            send(shell, message("execute_request", content, null));
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (connection.shellChannel().rejectedMessages() < 2 && System.nanoTime() < deadline) Thread.sleep(50);
            assertEquals(2, connection.shellChannel().rejectedMessages());
            Thread.sleep(500);
            assertFalse(Files.exists(marker), "a request with a bad signature ran");

            send(shell, message("kernel_info_request", "{}", KEY));
            shell.setReceiveTimeOut(30_000);
            String reply = null;
            for (int i = 0; i < 10 && reply == null; i++) {
                byte[] frame = shell.recv();
                assertNotNull(frame, "no reply to a correctly signed request");
                String s = new String(frame, StandardCharsets.UTF_8);
                if (s.contains("kernel_info_reply")) {
                    while (shell.hasReceiveMore()) s += "|" + new String(shell.recv(), StandardCharsets.UTF_8);
                    reply = s;
                }
            }
            assertNotNull(reply);
            assertTrue(reply.contains("\"status\":\"ok\""), reply);
        } finally {
            connection.close();
        }
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void aValidlySignedMessageReplayedIsDroppedAndQueuedRequestsAreAbortedAfterAnError(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("runs.txt");
        GluelabConnection connection = TestPorts.serve(KEY).connection();
        try (ZContext ctx = new ZContext()) {
            ZMQ.Socket shell = ctx.createSocket(SocketType.DEALER);
            shell.connect("tcp://127.0.0.1:" + connection.properties().getShellPort());
            shell.setReceiveTimeOut(60_000);
            String append = "java.nio.file.Files.writeString(java.nio.file.Path.of(" + com.fasterxml.jackson.databind.node.TextNode.valueOf(log.toString())
                    + "), \"x\", java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);";
            byte[][] once = message("execute_request", execute(append, true), KEY);
            send(shell, once);
            assertEquals("ok", replyStatus(shell));
            send(shell, once);
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (connection.shellChannel().replayedMessages() < 1 && System.nanoTime() < deadline) Thread.sleep(50);
            assertEquals(1, connection.shellChannel().replayedMessages());
            assertEquals("x", Files.readString(log), "the replayed request did not run again");

            // Run All: a failing cell that asks to stop on error, then two queued cells.
            send(shell, message("execute_request", execute("Thread.sleep(1500); throw new IllegalStateException(\"planned\");", true), KEY));
            send(shell, message("execute_request", execute(append, true), KEY));
            send(shell, message("execute_request", execute(append, true), KEY));
            assertEquals("error", replyStatus(shell));
            assertEquals("aborted", replyStatus(shell));
            assertEquals("aborted", replyStatus(shell));
            assertEquals("x", Files.readString(log), "queued cells after the error did not run");
            send(shell, message("execute_request", execute(append, true), KEY));
            assertEquals("ok", replyStatus(shell), "the next request after the abort runs");
            assertEquals("xx", Files.readString(log));
        } finally {
            connection.close();
        }
    }

    static String execute(String code, boolean stopOnError) throws Exception {
        var c = gluelab.files.Json.MAPPER.createObjectNode().put("code", code).put("silent", false).put("store_history", true).put("allow_stdin", false)
                .put("stop_on_error", stopOnError);
        c.putObject("user_expressions");
        return c.toString();
    }

    /** The status of the next execute_reply on the socket. */
    static String replyStatus(ZMQ.Socket shell) {
        while (true) {
            byte[] frame = shell.recv();
            assertNotNull(frame, "no reply");
            String s = new String(frame, StandardCharsets.UTF_8);
            if (!s.contains("\"execute_reply\"")) continue;
            shell.recv(); // parent header
            shell.recv(); // metadata
            String content = new String(shell.recv(), StandardCharsets.UTF_8);
            while (shell.hasReceiveMore()) shell.recv();
            var m = java.util.regex.Pattern.compile("\"status\"\\s*:\\s*\"(\\w+)\"").matcher(content);
            assertTrue(m.find(), content);
            return m.group(1);
        }
    }
}
