package org.eventspace.comm.path;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

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
 *
 * <p>Memory layout, because a gred between two cores is a cache-line protocol: a small contribution (one
 * word, gsum's 8 bytes) is written into the padded <em>join line</em> next to the arrival count, so the line
 * that counts arrivals carries the data too and the last arriver pulls no other line; larger ones go to the
 * port's own overflow array. The last arriver reduces into its own message (no shared accumulator), and the
 * result, its sequence and the release generation share one padded array, so a released waiter pulls one
 * line for all three. Nothing is allocated per round once the arrays fit the largest payload seen.
 */
public final class Gred {
    /** Longs of padding on each side of a hot array region: a 64-byte cache line, twice for adjacent-line prefetch. */
    private static final int PAD = 16;
    /** In the result: the release generation. */
    private static final int GENERATION = PAD;
    /** In the result: the sequence number the core assigned. */
    private static final int SEQUENCE = PAD + 1;
    /** In the result: the result's length in words. */
    private static final int LENGTH = PAD + 2;
    /** In the result: first payload word. */
    private static final int WORDS = PAD + 3;
    /** In the join line: the arrival count; each port's header and inline words follow. */
    private static final int COUNT = PAD;
    /** Payload words a port carries inside the join line; longer payloads go to the port's overflow slot. */
    private static final int INLINE_WORDS = 1;
    private static final int STRIDE = 1 + INLINE_WORDS;
    /** Header bit: this port's words are in its overflow slot, not in the join line. */
    private static final long OVERFLOW = 1L << 62;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    private final String name;
    private final int arity;
    private final Wrapper next;
    private final WaitPolicy policy;
    private final SpinYieldPark wait;
    private final ReleaseListener listener;
    private final Wrapper[] ports;
    private final long[] joinLine;
    private final long[][] overflow;
    private volatile long[] result;
    private final AtomicReference<CommException> failure = new AtomicReference<>();
    private final AtomicReferenceArray<Thread> parked;

    /**
     * Told when every contributor of a round has arrived and the last is about to send the message on toward the root
     * ({@link #allArrived}: coscheduling strategy (i) of the EventSpace paper §4.3, the moment a host's threads start
     * waiting for the rest of the tree), and when the result came back and the waiters were released ({@link #released}:
     * strategy (ii), after the application threads). How higher layers learn that a host is idle; called on the last
     * arriver's thread, so an implementation must be short and must not block.
     */
    @FunctionalInterface
    public interface ReleaseListener {
        ReleaseListener NONE = (gred, round) -> { };

        void released(Gred gred, long round);

        /** Every contributor of {@code round} arrived; the message goes on toward the root next. */
        default void allArrived(Gred gred, long round) {
        }
    }

    public Gred(String name, int arity, Wrapper next, WaitPolicy policy, ReleaseListener listener) {
        if (arity < 1) {
            throw new IllegalArgumentException("gred " + name + " needs at least one contributor, arity=" + arity);
        }
        this.name = name;
        this.arity = arity;
        this.next = next;
        this.policy = policy;
        this.wait = new SpinYieldPark(policy);
        this.listener = listener;
        this.joinLine = new long[PAD + 1 + arity * STRIDE + PAD];
        this.overflow = new long[arity][];
        this.ports = new Wrapper[arity];
        this.parked = new AtomicReferenceArray<>(arity);
        for (int i = 0; i < arity; i++) {
            final int port = i;
            overflow[i] = new long[0];
            ports[i] = message -> join(port, message);
        }
        this.result = paddedResult(INLINE_WORDS);
    }

    private static long[] paddedResult(int words) {
        return new long[WORDS + words + PAD];
    }

    private static long header(Message m) {
        return ((long) m.length() << 16) | ((long) m.type().ordinal() << 8) | m.op().ordinal();
    }

    private static int base(int port) {
        return COUNT + 1 + port * STRIDE;
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
            long[] r = result;
            LONGS.setVolatile(r, GENERATION, (long) LONGS.getAcquire(r, GENERATION) + 1);
            unparkAll();
        }
    }

    private void join(int port, Message message) {
        long[] r = result;
        long generation = (long) LONGS.getAcquire(r, GENERATION);
        checkFailure();
        int length = message.length();
        int base = base(port);
        if (length <= INLINE_WORDS) {
            joinLine[base] = header(message);
            System.arraycopy(message.words(), 0, joinLine, base + 1, length);
        } else {
            long[] slot = overflow[port];
            if (slot.length < length) {
                slot = new long[length];
                overflow[port] = slot;
            }
            System.arraycopy(message.words(), 0, slot, 0, length);
            joinLine[base] = header(message) | OVERFLOW;
        }
        if ((long) LONGS.getAndAdd(joinLine, COUNT, 1L) + 1 == arity) {
            reduceAndDescend(generation, message);
            return;
        }
        awaitRelease(port, r, generation);
        checkFailure();
        r = result;
        int resultLength = (int) r[LENGTH];
        message.sequence(r[SEQUENCE]).length(resultLength);
        System.arraycopy(r, WORDS, message.words(), 0, resultLength);
    }

    /**
     * The last arriver: reduces every port's contribution, in port order, into its own message (its own
     * contribution is safe in the join line), calls down, publishes the result and releases the others.
     */
    private void reduceAndDescend(long generation, Message message) {
        long[] r = result;
        try {
            long header = joinLine[base(0)] & ~OVERFLOW;
            for (int i = 1; i < arity; i++) {
                long h = joinLine[base(i)] & ~OVERFLOW;
                if (h != header) {
                    throw new CommException("gred " + name + ": port " + i + " contributed " + describe(h)
                            + " but port 0 contributed " + describe(header) + "; all contributors must call the same collective");
                }
            }
            int length = message.length();
            ReduceOp op = message.op();
            ValueType type = message.type();
            long[] acc = message.words();
            if (length <= INLINE_WORDS) {
                System.arraycopy(joinLine, base(0) + 1, acc, 0, length);
                for (int i = 1; i < arity; i++) {
                    op.combine(type, acc, joinLine, base(i) + 1, length);
                }
            } else {
                System.arraycopy(overflow[0], 0, acc, 0, length);
                for (int i = 1; i < arity; i++) {
                    op.combine(type, acc, overflow[i], 0, length);
                }
            }
            message.sequence(generation);
            checkFailure();
            listener.allArrived(this, generation);
            next.call(message);
            length = message.length();
            long[] target = r;
            if (r.length - WORDS - PAD < length) {
                target = paddedResult(length);
                target[GENERATION] = generation;
            }
            target[SEQUENCE] = message.sequence();
            target[LENGTH] = length;
            System.arraycopy(message.words(), 0, target, WORDS, length);
            if (target != r) {
                result = target;
                LONGS.setRelease(target, GENERATION, generation + 1);
            }
        } catch (RuntimeException e) {
            // Whatever failed below (a lost hop, a full element, a bug in a wrapper), the waiters must hear of it
            // now rather than at their timeout.
            LONGS.setRelease(joinLine, COUNT, 0L);
            CommException cause = e instanceof CommException c ? c
                    : new CommException("gred " + name + ": the wrapper below failed: " + e, e);
            fail(cause);
            throw cause;
        }
        LONGS.setRelease(joinLine, COUNT, 0L);
        LONGS.setVolatile(r, GENERATION, generation + 1);
        unparkAll();
        listener.released(this, generation);
    }

    /**
     * Spin, yield, then park until the generation moves ({@link SpinYieldPark}); on timeout, fail the gred for
     * everyone.
     */
    private void awaitRelease(int port, long[] r, long generation) {
        for (int i = 0; ; i++) {
            if ((long) LONGS.getAcquire(r, GENERATION) != generation) {
                return;
            }
            if (!wait.spin(i)) {
                break;
            }
        }
        // The timeout counts from here: a yield may cost a whole time slice when the cores are shared, so the
        // yield phase must not delay the start of the timeout, and stops when the deadline passes.
        long deadline = wait.deadlineFromNow();
        for (int i = 0; ; i++) {
            if ((long) LONGS.getAcquire(r, GENERATION) != generation) {
                return;
            }
            if (!wait.yield(i, deadline)) {
                break;
            }
        }
        // Register, then re-check (the loop condition reads the generation after the set): the last arriver
        // bumps the generation before it looks for parked ports, so no wake-up is lost.
        parked.set(port, Thread.currentThread());
        try {
            while ((long) LONGS.getVolatile(r, GENERATION) == generation) {
                boolean timedOut = SpinYieldPark.passed(deadline);
                if (timedOut && (long) LONGS.getVolatile(joinLine, COUNT) == arity) {
                    // Every contributor is here: the last arriver is below us and comes back with the result or
                    // a failure, and each gred below keeps its own timeout. Failing here would blame a missing
                    // contributor that is not missing, and would beat (by the microseconds it took the last
                    // arriver to get there) the timeout of the gred below that really misses one.
                    deadline = wait.deadlineFromNow();
                    continue;
                }
                if (Thread.currentThread().isInterrupted()) {
                    // An interrupted thread's park returns at once; rather than spin to the deadline, give up the
                    // round for everyone: this contributor is leaving it.
                    fail(new CommException("gred " + name + ": a contributor on port " + port + " was interrupted while waiting"));
                    return;
                }
                if (timedOut) {
                    fail(new CommException("gred " + name + ": timed out after " + policy.timeoutNanos() / 1_000_000
                            + " ms with " + (long) LONGS.getVolatile(joinLine, COUNT) + " of " + arity
                            + " contributors arrived (a rank died, never called, or called a different collective)"));
                    return;
                }
                SpinYieldPark.park(this, deadline, SpinYieldPark.UNTIL_DEADLINE);
            }
        } finally {
            parked.set(port, null);
        }
    }

    private void unparkAll() {
        for (int i = 0; i < arity; i++) {
            Thread t = parked.get(i);
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    private static String describe(long header) {
        return ReduceOp.ofCode((int) (header & 0xFF)) + " of " + ((header >>> 16) & 0xFFFF_FFFFL) + " "
                + ValueType.ofCode((int) ((header >>> 8) & 0xFF)) + " words";
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
