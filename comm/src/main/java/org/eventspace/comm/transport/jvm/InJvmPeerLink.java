package org.eventspace.comm.transport.jvm;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.Signal;
import org.eventspace.comm.path.SpinYieldPark;
import org.eventspace.comm.path.WaitPolicy;
import org.eventspace.comm.traffic.TrafficCounters;
import org.eventspace.comm.transport.PeerLink;

/**
 * One end of a butterfly's exchange between two simulated hosts in one JVM: each direction is a ring of
 * {@value #SLOTS} messages, written by one end's calling thread and read by the other's, with a {@link Signal} for
 * what was sent and one for what was taken. A partner is at most two messages ahead on a link (it cannot start a
 * call's second exchange with this host before this host finished the call before it), so a full ring only waits.
 *
 * <p>One calling thread per end; {@link #close()} from any thread fails both ends' waits. Allocates nothing while
 * messages fit the slots (a slot grows once for a larger payload).
 */
final class InJvmPeerLink implements PeerLink {
    static final int SLOTS = 4;

    private final String name;
    private final Direction out;
    private final Direction in;
    private final SpinYieldPark wait;
    private final long timeoutNanos;
    private final TrafficCounters.Channel traffic;

    private InJvmPeerLink(String name, Direction out, Direction in, WaitPolicy policy, TrafficCounters.Channel traffic) {
        this.name = name;
        this.out = out;
        this.in = in;
        this.wait = new SpinYieldPark(policy);
        this.timeoutNanos = policy.timeoutNanos();
        this.traffic = traffic;
    }

    /**
     * The two ends of a new link: [0] for the host that opened it, [1] for its partner.
     *
     * @param openerTraffic  the opener's channel, counting as a hop's calling end.
     * @param partnerTraffic the partner's channel, counting as a hop's serving end.
     */
    static InJvmPeerLink[] open(String name, WaitPolicy openerPolicy, WaitPolicy partnerPolicy,
                                TrafficCounters.Channel openerTraffic, TrafficCounters.Channel partnerTraffic) {
        Direction there = new Direction();
        Direction back = new Direction();
        return new InJvmPeerLink[] {
            new InJvmPeerLink(name, there, back, openerPolicy, openerTraffic),
            new InJvmPeerLink(name, back, there, partnerPolicy, partnerTraffic)
        };
    }

    /** One direction: slots written at {@code sent % SLOTS}, read at {@code taken % SLOTS}. */
    private static final class Direction {
        final Message[] slots = new Message[SLOTS];
        final Signal sent = new Signal(1);
        final Signal taken = new Signal(1);
        volatile String closedBecause;

        Direction() {
            for (int i = 0; i < SLOTS; i++) {
                slots[i] = new Message(1);
            }
        }
    }

    @Override
    public void send(Message message) {
        long sent = out.sent.get();
        long deadline = System.nanoTime() + timeoutNanos;
        long taken = out.taken.get();
        while (sent - taken >= SLOTS) {
            check(out);
            long now = out.taken.awaitChange(taken, 0, wait, deadline);
            check(out);
            if (now == taken) {
                throw fail("the partner took none of " + SLOTS + " messages within " + timeoutNanos / 1_000_000 + " ms");
            }
            taken = now;
        }
        check(out);
        out.slots[(int) (sent % SLOTS)].copyFrom(message);
        out.sent.advance(sent + 1);
        traffic.sent(message);
    }

    @Override
    public void receive(Message into) {
        long taken = in.taken.get();
        long deadline = System.nanoTime() + timeoutNanos;
        long sent = in.sent.get();
        while (sent == taken) {
            check(in);
            long now = in.sent.awaitChange(sent, 0, wait, deadline);
            check(in);
            if (now == sent) {
                throw fail("no message from the partner within " + timeoutNanos / 1_000_000 + " ms");
            }
            sent = now;
        }
        into.copyFrom(in.slots[(int) (taken % SLOTS)]);
        in.taken.advance(taken + 1);
        traffic.received(into);
    }

    private void check(Direction d) {
        String why = d.closedBecause;
        if (why != null) {
            throw new CommException("exchange " + name + ": " + why);
        }
    }

    private CommException fail(String why) {
        close();
        return new CommException("exchange " + name + ": " + why);
    }

    /**
     * Closes both directions and wakes a waiting end (this one's or the partner's): the counters move by a step no
     * message makes, and every wait checks for a closed direction before it trusts them.
     */
    @Override
    public void close() {
        close("closed");
    }

    @Override
    public void close(String why) {
        closeDirection(in, why);
        closeDirection(out, why);
    }

    private static void closeDirection(Direction d, String why) {
        if (d.closedBecause == null) {
            d.closedBecause = why;
        }
        d.sent.advance(d.sent.get() + CLOSED_STEP);
        d.taken.advance(d.taken.get() + CLOSED_STEP);
    }

    /** How far {@link #close} moves a counter: more than any wait could take for a message. */
    private static final long CLOSED_STEP = 1L << 40;
}
