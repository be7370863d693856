package gluelab.kernel.channel;

import org.zeromq.ZMQ;
import org.zeromq.ZMQException;

import java.util.function.BooleanSupplier;

/**
 * A ZeroMQ send from a thread with its interrupt flag set fails with EINTR (jeromq takes the flag as
 * a signal to give up and clears it), and jjava's sendMessage then loses the message. A cell runs on
 * the shell thread, which an interrupt request interrupts while the cell may be printing: its output,
 * error or reply would be lost. Here the frame is sent again (the failed frame was not queued, the
 * frames before it were) and the flag is set again afterwards, so the cell's own code still sees
 * the interrupt.
 */
final class InterruptedSends {
    /** Sends retried in a row; the interrupt thread interrupts every 100 ms at most, so more means something else fails. */
    static final int ATTEMPTS = 10;

    private InterruptedSends() {}

    static boolean retryOnEintr(BooleanSupplier send) {
        boolean interrupted = false;
        try {
            for (int attempt = 1; ; attempt++) {
                try {
                    return send.getAsBoolean();
                } catch (ZMQException e) {
                    if (e.getErrorCode() != ZMQ.Error.EINTR.getCode() || attempt == ATTEMPTS) throw e;
                    interrupted = true;
                    Thread.interrupted();
                }
            }
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }
}
