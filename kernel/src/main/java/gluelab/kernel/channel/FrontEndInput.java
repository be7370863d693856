package gluelab.kernel.channel;

import org.dflib.jjava.jupyter.channels.StdinChannel;
import org.dflib.jjava.jupyter.messages.HMACGenerator;
import org.dflib.jjava.jupyter.messages.Message;
import org.dflib.jjava.jupyter.messages.MessageContext;
import org.dflib.jjava.jupyter.messages.reply.InputReply;
import org.dflib.jjava.jupyter.messages.request.InputRequest;
import org.zeromq.ZMQ;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.logging.Logger;

/**
 * Asks the front end for a line over the stdin channel (input_request, input_reply). jjava's
 * StdinChannel blocks in ZeroMQ until a reply comes, which no interrupt reaches; this waits in
 * short polls, so an interrupt or a shutdown ends the wait, and reads each reply whole.
 */
public final class FrontEndInput {
    private static final Logger LOG = Logger.getLogger(FrontEndInput.class.getName());

    private final StdinChannel stdin;
    private final HMACGenerator hmac;
    private final ZMQ.Poller poller;

    FrontEndInput(ZMQ.Context ctx, StdinChannel stdin, HMACGenerator hmac) {
        this.stdin = stdin;
        this.hmac = hmac;
        this.poller = ctx.poller(1);
        poller.register(stdin, ZMQ.Poller.POLLIN);
    }

    /** Thrown when the wait for the front end's reply is given up (an interrupt or a shutdown). */
    public static final class Cancelled extends RuntimeException {
        Cancelled() { super("stopped while waiting for input from the front end"); }
    }

    /** The line the front end sends for {@code prompt}, on behalf of the request {@code context}. */
    public synchronized String read(MessageContext context, String prompt, boolean password, BooleanSupplier cancelled) {
        stdin.sendMessage(new Message<>(context, InputRequest.MESSAGE_TYPE, new InputRequest(prompt, password)));
        while (true) {
            if (cancelled.getAsBoolean()) throw new Cancelled();
            if (poller.poll(100) <= 0) continue;
            List<byte[]> frames = new ArrayList<>();
            byte[] first = stdin.recv(ZMQ.DONTWAIT);
            if (first == null) continue;
            frames.add(first);
            while (stdin.hasReceiveMore()) frames.add(stdin.recv());
            if (WireMessage.parse(frames, hmac) instanceof WireMessage.Request r && r.message().getContent() instanceof InputReply reply) {
                return reply.getValue();
            }
            LOG.warning("dropped a message on the stdin channel that is not an input_reply");
        }
    }
}
