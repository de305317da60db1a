package org.eventspace.scope;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.eventspace.comm.path.SpinYieldPark;
import org.eventspace.comm.path.WaitPolicy;
import org.eventspace.scope.filter.ScopeRecord;

/**
 * A host's data stream into an event scope: producers (rank threads) push records at their own pace — a profile
 * offload every iteration or every T ms — and the scope's leaf on the host drains them when the front-end pulls
 * (ToM §2.2: "the instrumented applications push data into the transport, which is in turn drained out by the
 * monitor"). Any number of producer threads may {@link #offer} at once; one scope leaf drains it, one pull at a
 * time.
 *
 * <p>Bounded: when it is full a producer either waits ({@link Policy#BLOCK}, bounded by a timeout that fails
 * with a clear message, so an application never hangs on a monitor that stopped pulling) or drops the record and
 * counts it exactly ({@link Policy#DROP}), and the count reaches the front-end as records dropped. The hot path
 * is one offer to Agrona's lock-free {@link ManyToOneConcurrentArrayQueue}: no lock, and nothing allocated
 * beyond the caller's record.
 */
public final class PushBuffer {
    /** What a producer does when the buffer is full. */
    public enum Policy {
        /** Wait for room, at most the buffer's block timeout, then fail. */
        BLOCK,
        /** Drop the record and count it. */
        DROP
    }

    /** Polls before a blocked producer starts to yield, yields before it starts to park. */
    private static final int SPINS = 64;
    private static final int YIELDS = 64;
    private static final long PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

    private final String name;
    private final Policy policy;
    private final long blockTimeoutNanos;
    private final SpinYieldPark wait;
    private final ManyToOneConcurrentArrayQueue<ScopeRecord> queue;
    private final AtomicLong dropped = new AtomicLong();

    /**
     * @param name         what errors call the buffer, e.g. its host's name.
     * @param capacity     records held at most; rounded up to a power of two.
     * @param policy       what a producer does when it is full.
     * @param blockTimeout how long a {@link Policy#BLOCK} producer waits for room before it fails.
     */
    public PushBuffer(String name, int capacity, Policy policy, Duration blockTimeout) {
        this.name = Objects.requireNonNull(name, "name");
        this.policy = Objects.requireNonNull(policy, "policy");
        if (capacity < 1 || capacity > (1 << 30)) {
            throw new IllegalArgumentException("push buffer " + name + ": capacity must be in [1, 2^30], capacity=" + capacity);
        }
        if (blockTimeout.isNegative() || blockTimeout.isZero()) {
            throw new IllegalArgumentException("push buffer " + name + ": block timeout must be > 0, blockTimeout=" + blockTimeout);
        }
        this.blockTimeoutNanos = blockTimeout.toNanos();
        this.wait = new SpinYieldPark(new WaitPolicy(SPINS, YIELDS, blockTimeoutNanos));
        this.queue = new ManyToOneConcurrentArrayQueue<>(capacity);
    }

    /**
     * Pushes one record. Under {@link Policy#DROP} a full buffer drops it and counts the drop; under
     * {@link Policy#BLOCK} the caller waits for the scope to drain.
     *
     * @return true if the record was queued, false if it was dropped.
     * @throws IllegalStateException under {@link Policy#BLOCK}, if the buffer stayed full for the block timeout.
     */
    public boolean offer(ScopeRecord record) {
        Objects.requireNonNull(record, "record");
        if (queue.offer(record)) {
            return true;
        }
        if (policy == Policy.DROP) {
            dropped.incrementAndGet();
            return false;
        }
        return block(record);
    }

    /**
     * Pushes {@code records} in order, as {@link #offer(ScopeRecord)} does each.
     *
     * @return how many were queued (the rest were dropped).
     */
    public int offer(List<ScopeRecord> records) {
        int queued = 0;
        for (int i = 0; i < records.size(); i++) {
            if (offer(records.get(i))) {
                queued++;
            }
        }
        return queued;
    }

    /**
     * Waits for room with the wait strategy comm's waiters share. The drainer wakes nobody, so the park phase
     * polls in {@link #PARK_NANOS} slices. The timeout counts from the first failed offer.
     */
    private boolean block(ScopeRecord record) {
        long deadline = System.nanoTime() + blockTimeoutNanos;
        for (int i = 0; ; i++) {
            if (queue.offer(record)) {
                return true;
            }
            if (!wait.spin(i)) {
                break;
            }
        }
        for (int i = 0; ; i++) {
            if (queue.offer(record)) {
                return true;
            }
            if (!wait.yield(i, deadline)) {
                break;
            }
        }
        while (!queue.offer(record)) {
            if (!SpinYieldPark.park(this, deadline, PARK_NANOS)) {
                throw new IllegalStateException("push buffer " + name + " stayed full for "
                        + TimeUnit.NANOSECONDS.toMillis(blockTimeoutNanos) + " ms (capacity " + queue.capacity()
                        + " records, policy BLOCK): no event scope is pulling it; open one, pull more often, or use DROP");
            }
        }
        return true;
    }

    /**
     * Moves up to {@code limit} queued records into {@code into}, oldest first. One caller at a time (the scope
     * leaf of the host).
     *
     * @return the records moved.
     */
    int drain(List<ScopeRecord> into, int limit) {
        return queue.drain(into::add, limit);
    }

    /** Records ever queued (drained or not). */
    long queued() {
        return queue.addedCount();
    }

    /** Records ever drained. */
    long drained() {
        return queue.removedCount();
    }

    /** Records dropped because the buffer was full ({@link Policy#DROP}). */
    public long dropped() {
        return dropped.get();
    }

    /** Records pushed so far: queued plus dropped. */
    public long offered() {
        return queue.addedCount() + dropped.get();
    }

    /** Records waiting to be drained. */
    public int size() {
        return queue.size();
    }

    public int capacity() {
        return queue.capacity();
    }

    public Policy policy() {
        return policy;
    }

    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return "PushBuffer{" + name + ", " + policy + ", capacity=" + queue.capacity() + ", waiting=" + queue.size()
                + ", dropped=" + dropped.get() + '}';
    }
}
