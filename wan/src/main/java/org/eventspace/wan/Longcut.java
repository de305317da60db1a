package org.eventspace.wan;

import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.Wrapper;

/**
 * The Longcut WAN-emulation wrapper (dissertation §8.1 §III, Figure 1): placed on a site's gateway, it delays a message
 * going down by the outgoing link it is about to cross, or the reply coming back up by the outgoing link the reply is
 * about to cross, then lets it go on. The delay is the link's latency plus the message's size over its bandwidth, after
 * the messages before it on that link have left ({@link LinkSchedule}); the gateway's one scheduler thread wakes it at
 * that time ({@link GatewayScheduler}).
 *
 * <p>A message's size is its payload: 8 bytes per 64-bit word ({@link Message#length()}); an 8-byte allreduce is 8 B.
 *
 * <p>One caller at a time (a pathmap edge has one caller: the service thread of the hop that enters the gateway).
 * Allocates nothing per call.
 */
public final class Longcut implements Wrapper {
    private final Wrapper next;
    private final GatewayScheduler.Waiter waiter;
    private final int down;
    private final int up;

    /**
     * @param next   the wrapper below.
     * @param waiter this connection's place in the gateway's schedule.
     * @param down   the outgoing link the message crosses going down (index in the gateway's scheduler), or -1.
     * @param up     the outgoing link the reply crosses coming up, or -1.
     */
    public Longcut(Wrapper next, GatewayScheduler.Waiter waiter, int down, int up) {
        this.next = next;
        this.waiter = waiter;
        this.down = down;
        this.up = up;
    }

    /** A message's size in bytes on an emulated link. */
    public static long bytes(Message message) {
        return 8L * message.length();
    }

    @Override
    public void call(Message message) {
        if (down >= 0) {
            waiter.delay(down, bytes(message));
        }
        next.call(message);
        if (up >= 0) {
            waiter.delay(up, bytes(message));
        }
    }
}
