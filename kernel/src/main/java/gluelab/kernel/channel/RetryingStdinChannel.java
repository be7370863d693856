package gluelab.kernel.channel;

import org.dflib.jjava.jupyter.channels.StdinChannel;
import org.dflib.jjava.jupyter.messages.HMACGenerator;
import org.zeromq.ZMQ;

/** jjava's stdin channel whose frames are sent again when an interrupt made the send fail (see {@link InterruptedSends}). */
final class RetryingStdinChannel extends StdinChannel {
    RetryingStdinChannel(ZMQ.Context ctx, HMACGenerator hmac) { super(ctx, hmac); }

    @Override public boolean send(byte[] data, int flags) { return InterruptedSends.retryOnEintr(() -> super.send(data, flags)); }
}
