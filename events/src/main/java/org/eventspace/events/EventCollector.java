package org.eventspace.events;

import org.eventspace.comm.path.IdleWork;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.Wrapper;

/**
 * An event collector: called by one thread at a time (its buffer's single writer); allocates nothing.
 *
 * <p>A wrapper (EventSpace paper §4.1–4.2) that times the rest of the path below it and records one trace
 * tuple per operation in its {@link TraceBuffer}. t_down is {@code System.nanoTime()} just before calling the
 * next wrapper, t_up just after it returned; in the allreduce of dissertation §7.1 the collectors on the contributors'
 * paths give t1,i/t4,i and the one the gred calls gives t2/t3.
 *
 * <p>Each call must happen-before the next: it is made by the thread of its path position, or by the last
 * arriver of the gred that calls it (the gred's release orders successive rounds), or by a hop's one service
 * thread. It takes no lock; its cost is its two clock reads and one 40-byte store (the paper's collector took
 * a mutex and 1.1 µs, §6.1).
 *
 * <p>The tuple is written on the way up, so its sequence is the one the core assigned to this call — the
 * same in every contributor's message — and its value is the result. A call that fails below is recorded
 * with {@link TraceOp#FLAG_FAILED} and the failure is rethrown.
 */
public final class EventCollector implements Wrapper {
    private final int collectorId;
    private final TraceBuffer buffer;
    private final Wrapper next;
    private final ClockSharing sharing;
    /** Takes the t3 the collector below its gred handed up (decided once: the hot path only tests a field). */
    private final boolean takesUpClock;
    /** Hands its t3 up to the collector above its gred. */
    private final boolean offersUpClock;
    private final boolean offersDownClock;
    private final boolean takesDownClock;
    /** Leaves its tuples on the host's {@link IdleWork} instead of writing them on the way up. */
    private final boolean putsOff;
    private boolean pending;
    private int pendingOp;
    private int pendingFlags;
    private long pendingSequence;
    private long pendingValue;
    private long pendingDown;
    private long pendingUp;

    /**
     * Where a collector sits relative to a gred, which decides which clock readings it may share with the
     * collector on the other side of that gred (one read shared by the collectors that meet at a
     * wrapper boundary; the dissertation's §7.1 t1,i/t4,i above a gred and t2/t3 below it).
     */
    public enum ClockSharing {
        /** Reads the clock twice per call. */
        NONE,
        /**
         * Calls a gred: when its caller turned out to be the last arriver, takes the t3 of the collector below the
         * gred as its t4 (t3 was read just before the release, so t3 ≤ t4,i still holds for every waiter). Waiters
         * read their own t4.
         */
        ABOVE_GRED,
        /**
         * Is called by a gred (so only by its last arriver): offers its t3 back up as the last arriver's t4, so the
         * last arriver reads the clock three times per gred instead of four, and its up latency (its release)
         * reads 0. Its t2 it reads itself: t2 must follow every contributor's t1 (dissertation §7.1, t1,i ≤ t2), and the
         * thread that completes a join is not always the one that read its t1 last (a preempted arriver).
         */
        BELOW_GRED,
        /** Both: between two greds on one host. */
        BETWEEN_GREDS;

        /** Clock reads this collector makes on the critical path of a call (its last arriver's): 1 if it takes t4 from below. */
        public int criticalPathClockReads() {
            return this == ABOVE_GRED || this == BETWEEN_GREDS ? 1 : 2;
        }
    }

    public EventCollector(int collectorId, TraceBuffer buffer, Wrapper next) {
        this(collectorId, buffer, next, ClockSharing.NONE);
    }

    public EventCollector(int collectorId, TraceBuffer buffer, Wrapper next, ClockSharing sharing) {
        this(collectorId, buffer, next, sharing, false, false, null);
    }

    /**
     * @param offersDownClock calls a gred of one port whose downstream is a collector: hands its t1 down as that
     *                        collector's t2 (the rank's thread passes straight through the gred).
     * @param takesDownClock  is that collector: takes the t2 offered from above instead of reading the clock.
     * @param putOff          null to write each tuple on the way back up; else the host's {@link IdleWork}, on which this
     *                        collector leaves its newest tuple to be written while a thread waits anyway (a butterfly's
     *                        exchange runs it after it sent). A tuple left there is written at the latest when this
     *                        collector records its next one.
     */
    public EventCollector(int collectorId, TraceBuffer buffer, Wrapper next, ClockSharing sharing, boolean offersDownClock,
                          boolean takesDownClock, IdleWork putOff) {
        if (collectorId < 0) {
            throw new IllegalArgumentException("collector id must be >= 0, collectorId=" + collectorId);
        }
        if (buffer == null || next == null) {
            throw new IllegalArgumentException("collector " + collectorId + " needs a buffer and a next wrapper, buffer="
                    + buffer + ", next=" + next);
        }
        this.collectorId = collectorId;
        this.buffer = buffer;
        this.next = next;
        this.sharing = sharing;
        this.takesUpClock = sharing == ClockSharing.ABOVE_GRED || sharing == ClockSharing.BETWEEN_GREDS;
        this.offersUpClock = sharing == ClockSharing.BELOW_GRED || sharing == ClockSharing.BETWEEN_GREDS;
        this.offersDownClock = offersDownClock;
        this.takesDownClock = takesDownClock;
        this.putsOff = putOff != null;
        if (putOff != null) {
            putOff.add(this::writePutOff);
        }
    }

    @Override
    public void call(Message message) {
        long offered = takesDownClock ? message.takeDownClock() : 0;
        long down = offered != 0 ? offered : System.nanoTime();
        if (offersDownClock) {
            message.offerDownClock(down);
        }
        try {
            next.call(message);
        } catch (RuntimeException e) {
            message.takeUpClock();
            message.takeDownClock();
            writePutOff();
            buffer.write(collectorId, TraceOp.of(message), TraceOp.flags(message) | TraceOp.FLAG_FAILED, message.sequence(),
                    TraceOp.value(message), down, System.nanoTime());
            throw e;
        }
        long taken = takesUpClock ? message.takeUpClock() : 0;
        long up = taken != 0 ? taken : System.nanoTime();
        if (offersUpClock) {
            message.offerUpClock(up);
        }
        if (putsOff) {
            putOff(message, down, up);
        } else {
            buffer.write(collectorId, TraceOp.of(message), TraceOp.flags(message), message.sequence(), TraceOp.value(message),
                    down, up);
        }
    }

    /** Leaves the tuple for {@link #writePutOff} (writing the one left before, if no wait ran since). */
    private void putOff(Message message, long down, long up) {
        writePutOff();
        pendingOp = TraceOp.of(message);
        pendingFlags = TraceOp.flags(message);
        pendingSequence = message.sequence();
        pendingValue = TraceOp.value(message);
        pendingDown = down;
        pendingUp = up;
        pending = true;
    }

    /**
     * Writes the tuple left by the last call, if any. Runs on the thread that recorded it, or on the thread that runs
     * the host's put-off work: a host's threads reach that work only after every rank of the host arrived at the call
     * being made (the butterfly's exchange is below the host's gred), so after this collector's last call returned.
     */
    private void writePutOff() {
        if (pending) {
            pending = false;
            buffer.write(collectorId, pendingOp, pendingFlags, pendingSequence, pendingValue, pendingDown, pendingUp);
        }
    }

    public int collectorId() {
        return collectorId;
    }

    public ClockSharing sharing() {
        return sharing;
    }

    public TraceBuffer buffer() {
        return buffer;
    }

    @Override
    public String toString() {
        return "EventCollector{id=" + collectorId + ", " + buffer + '}';
    }
}
