package gluelab.kernel;

import gluelab.kernel.channel.GluelabConnection;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Over real ZeroMQ frames: a shutdown_request on the shell channel, sent while a cell sleeps or
 * spins, is answered and closes the kernel's connection promptly (the cell runs on the shell thread,
 * so nothing read the shell socket until it ended).
 */
@Tag("slow")
class ShellShutdownTest {
    static final String KEY = SignatureTest.KEY;

    @ParameterizedTest
    @ValueSource(strings = {"Thread.sleep(600_000);", "while (true) { try { Thread.sleep(600_000); } catch (InterruptedException e) { } }"})
    void aShutdownRequestOnTheShellWhileACellRunsEndsTheKernel(String cell, @TempDir Path dir) throws Exception {
        Path started = dir.resolve("started");
        // The kernel runs in this JVM and swaps System.out while a cell runs: the figure goes to the stream the test started with.
        java.io.PrintStream report = System.out;
        GluelabConnection connection = TestPorts.serve(KEY).connection();
        try (ZContext ctx = new ZContext()) {
            ZMQ.Socket shell = ctx.createSocket(SocketType.DEALER);
            shell.connect("tcp://127.0.0.1:" + connection.properties().getShellPort());
            shell.setReceiveTimeOut(60_000);
            String code = "java.nio.file.Files.writeString(java.nio.file.Path.of(" + com.fasterxml.jackson.databind.node.TextNode.valueOf(started.toString())
                    + "), \"x\");\n" + cell;
            SignatureTest.send(shell, SignatureTest.message("execute_request", SignatureTest.execute(code, false), KEY));
            long deadline = System.nanoTime() + 120_000_000_000L;
            while (!Files.exists(started) && System.nanoTime() < deadline) Thread.sleep(20);
            assertTrue(Files.exists(started), "the cell did not start");

            long t0 = System.nanoTime();
            SignatureTest.send(shell, SignatureTest.message("shutdown_request", "{\"restart\": false}", KEY));
            String reply = MalformedFramesTest.content(shell, "shutdown_reply");
            double replied = (System.nanoTime() - t0) * 1e-9;
            assertTrue(reply.contains("\"restart\":false"), reply);
            assertTrue(connection.awaitClosed(60, TimeUnit.SECONDS), "the connection is still open 60 s after the shutdown_reply");
            double closed = (System.nanoTime() - t0) * 1e-9;
            report.printf("shutdown_request on the shell while `%s` runs: reply after %.2f s, closed after %.2f s%n", cell, replied, closed);
            // how fast is a benchmark's business; far past the kernel's grace (2 s) means the request waited for the cell
            assertTrue(closed < 30, "closed after " + closed + " s");
        } finally {
            connection.close();
        }
    }
}
