package org.eventspace.comm.path;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A partial allreduce: joins {@code arity} paths into one (dissertation §7.1, "gred").
 *
 * <p>Every contributor enters through its own {@link #port(int) port}. All arrivers but the last block; the
 * last reduces every contribution in port order (so a double sum is the same every round), stamps the round
 * number as the sequence, calls the next wrapper down, and, when the result comes back up, releases the
 * others, who copy it into their own messages.
 *
 * <p>Each port may be called by one thread at a time; different ports from different threads at once. A
 * contributor that does not arrive within the wait policy's timeout, a mismatched contribution or a failure
 * below makes every waiting and later contributor fail with a {@link CommException} naming the gred; the gred
 * stays failed (a collective that lost a member cannot be resumed).
 */
public final class Gred {
    private final String name;
    private final int arity;
    private final Wrapper next;
    private final WaitPolicy policy;
    private final Message[] contributions;
    private final Message accumulator;
    private final Wrapper[] ports;
    private final AtomicInteger arrived = new AtomicInteger();
    private final AtomicReference<CommException> failure = new AtomicReference<>();
    private final Signal released;
    private final ReleaseListener listener;
    private long round;

    /** Told when a gred released its waiters; how higher layers (coscheduling) learn that a host is idle. */
    @FunctionalInterface
    public interface ReleaseListener {
        ReleaseListener NONE = (gred, round) -> { };

        void released(Gred gred, long round);
    }

    public Gred(String name, int arity, Wrapper next, WaitPolicy policy, ReleaseListener listener) {
        if (arity < 1) {
            throw new IllegalArgumentException("gred " + name + " needs at least one contributor, arity=" + arity);
        }
        this.name = name;
        this.arity = arity;
        this.next = next;
        this.policy = policy;
        this.listener = listener;
        this.contributions = new Message[arity];
        this.accumulator = new Message(1);
        this.released = new Signal(arity);
        this.ports = new Wrapper[arity];
        for (int i = 0; i < arity; i++) {
            final int port = i;
            ports[i] = message -> join(port, message);
        }
    }

    public String name() {
        return name;
    }

    public int arity() {
        return arity;
    }

    /** The wrapper a contributor on port {@code i} calls. */
    public Wrapper port(int i) {
        if (i < 0 || i >= arity) {
            throw new IllegalArgumentException("gred " + name + " has ports 0.." + (arity - 1) + ", port=" + i);
        }
        return ports[i];
    }

    /** Fails every current and future contributor, e.g. because the host feeding one port disconnected. */
    public void fail(CommException cause) {
        if (failure.compareAndSet(null, cause)) {
            released.advance(released.get() + 1);
        }
    }

    private void join(int port, Message message) {
        long generation = released.get();
        checkFailure();
        contributions[port] = message;
        if (arrived.incrementAndGet() == arity) {
            reduceAndDescend(generation);
        } else {
            long now = released.awaitChange(generation, port, policy, policy.deadlineFromNow());
            if (now == generation) {
                fail(new CommException("gred " + name + ": timed out after " + policy.timeoutNanos() / 1_000_000
                        + " ms with " + arrived.get() + " of " + arity + " contributors arrived"
                        + " (a rank died, never called, or called a different collective)"));
            }
            checkFailure();
        }
        contributions[port] = null;
        message.copyPayloadFrom(accumulator);
    }

    private void reduceAndDescend(long generation) {
        Message first = contributions[0];
        accumulator.copyFrom(first);
        try {
            for (int i = 1; i < arity; i++) {
                Message m = contributions[i];
                if (m.op() != first.op() || m.type() != first.type() || m.length() != first.length()) {
                    throw new CommException("gred " + name + ": port " + i + " contributed " + m
                            + " but port 0 contributed " + first + "; all contributors must call the same collective");
                }
                first.op().combine(first.type(), accumulator.words(), m.words(), m.length());
            }
            accumulator.sequence(round);
            checkFailure();
            next.call(accumulator);
        } catch (CommException e) {
            arrived.set(0);
            fail(e);
            throw e;
        }
        arrived.set(0);
        released.advance(generation + 1);
        listener.released(this, round++);
    }

    private void checkFailure() {
        CommException cause = failure.get();
        if (cause != null) {
            throw new CommException(cause.getMessage(), cause);
        }
    }

    @Override
    public String toString() {
        return "Gred{" + name + ", arity=" + arity + '}';
    }
}
