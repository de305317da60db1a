package org.eventspace.wan.cluster;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Condition;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.path.SpinYieldPark;
import org.eventspace.comm.path.ValueType;
import org.eventspace.comm.path.WaitPolicy;
import org.eventspace.comm.path.Wrapper;

/**
 * The root of one cluster's tree in a multi-cluster allreduce (dissertation appendix 7.3 §IV; MagPIe): the last local
 * arriver's message comes down with the cluster's partial result; this stores it (the core below) and publishes it for
 * the other roots' prefetch threads, then combines it with every remote cluster's partial result of the same call,
 * read from the one-tuple caches its own prefetch threads fill, in cluster order, so every cluster computes the same
 * bits, and returns the result up the cluster's tree (the local broadcast).
 *
 * <p>A conditional call ({@link Message#until()} set, {@code Comm.allreduceUntil}) is decided as soon as it can be:
 * after the local result and after each cache read, the condition is tested on what has been combined so far (partial
 * results move one way only, so "holds" on a part means "holds" on the whole); a cache that already holds a
 * <em>newer</em> call of cluster B means B decided this call without waiting for ours, which it can only have done by
 * finding the condition true, unless it decided it false with every partial result (its tuple's {@code lastFalse}
 * says so) — the sequence-number rule, which lets one cached tuple per remote cluster suffice. Otherwise the full
 * all-to-all. Up comes word 0 = 1 (holds) or 0.
 *
 * <p>Called by one thread at a time (a tree's calls are in order and the cluster's gred releases no one before this
 * returns). Allocates nothing per call.
 *
 * <p>Between passes over the caches it waits through a {@link SpinYieldPark}: in the job, {@link #paperWait}'s, which
 * yields between reads up to the host's timeout, as the paper's root did (the caches' reads are between yields); the
 * park phase, in slices of {@value #POLL_NANOS} ns (no prefetch thread unparks the root), serves a policy that ends
 * its yields earlier.
 */
final class ClusterRoot implements Wrapper {
    private final String name;
    private final Wrapper next;
    private final ClusterState state;
    private final Condition condition;
    private final double constant;
    /** Park slice once the policy's spins and yields are spent: a small fraction of any WAN latency. */
    static final long POLL_NANOS = 50_000;
    private final SpinYieldPark waiting;
    private final Runnable startPrefetch;
    private final long[][] partials;
    private final boolean[] have;
    private final long[] acc;
    private long calls;
    private boolean started;
    /** Conditional calls decided on local data, by a cache read, by the rule, and by the full exchange. */
    final long[] decided = new long[4];

    /**
     * The paper's wait at a cluster root: no spinning, a yield between reads of the caches until {@code timeoutNanos}
     * passed. A root waits a WAN latency for the other clusters; spinning through it would take the core its own
     * prefetch threads and the hops' service threads need, and parking would add a wake-up to every call.
     */
    static SpinYieldPark paperWait(long timeoutNanos) {
        return new SpinYieldPark(new WaitPolicy(0, Integer.MAX_VALUE, timeoutNanos));
    }

    ClusterRoot(String name, Wrapper next, ClusterState state, Condition condition, double constant,
                SpinYieldPark waiting, int maxWords, Runnable startPrefetch) {
        this.name = name;
        this.next = next;
        this.state = state;
        this.condition = condition;
        this.constant = constant;
        this.waiting = waiting;
        this.startPrefetch = startPrefetch;
        this.partials = new long[state.clusters][maxWords];
        this.have = new boolean[state.clusters];
        this.acc = new long[maxWords];
    }

    @Override
    public void call(Message m) {
        if (!started) {
            started = true;
            startPrefetch.run();
        }
        long s = calls++;
        Condition until = Condition.ofCode(m.until());
        if (until != null && until != condition) {
            throw new CommException(name + ": a conditional call asks " + until + " but this tree decides "
                    + (condition == null ? "no condition (not laid out with --allreduce conditional)" : condition));
        }
        next.call(m);
        state.publish(s, m, until == null);
        int length = m.length();
        if (until != null && holds(m.word(0))) {
            decide(m, s, true, 0);
            return;
        }
        System.arraycopy(m.words(), 0, partials[state.cluster], 0, length);
        java.util.Arrays.fill(have, false);
        have[state.cluster] = true;
        int pending = state.clusters - 1;
        double sofar = Double.longBitsToDouble(m.word(0));
        long deadline = waiting.deadlineFromNow();
        int spinStep = 0;
        int yieldStep = 0;
        while (pending > 0) {
            for (int b = 0; b < state.clusters; b++) {
                if (have[b]) {
                    continue;
                }
                ClusterState.Cache cache = state.caches[b];
                int got = cache.take(s, partials[b]);
                if (got == ClusterState.NOT_YET) {
                    CommException failed = cache.failure();
                    if (failed != null) {
                        throw new CommException(name + ": the prefetch from cluster " + b + " failed: "
                                + failed.getMessage(), failed);
                    }
                    continue;
                }
                if (got < 0) {
                    if (until == null) {
                        throw new CommException(name + ": cluster " + b + " is past call " + s + " without this "
                                + "cluster's partial result; a plain allreduce cannot be decided early");
                    }
                    decide(m, s, got == ClusterState.TRUE_BY_RULE, 2);
                    return;
                }
                have[b] = true;
                pending--;
                if (until != null) {
                    sofar = combine(m.op(), sofar, Double.longBitsToDouble(partials[b][0]));
                    if (condition.holds(sofar, constant)) {
                        decide(m, s, true, 1);
                        return;
                    }
                }
            }
            if (pending > 0 && !waiting.spin(spinStep++) && !waiting.yield(yieldStep++, deadline)
                    && !SpinYieldPark.park(this, deadline, POLL_NANOS)) {
                throw new CommException(name + ": call " + s + " waited " + waiting.policy().timeoutNanos() / 1_000_000
                        + " ms for the other clusters' partial results");
            }
        }
        // Every partial result of call s: combine them in cluster order, the same on every cluster.
        ReduceOp op = m.op();
        ValueType type = m.type();
        System.arraycopy(partials[0], 0, acc, 0, length);
        for (int b = 1; b < state.clusters; b++) {
            op.combine(type, acc, partials[b], length);
        }
        if (until != null) {
            boolean holds = condition.holds(Double.longBitsToDouble(acc[0]), constant);
            if (!holds) {
                state.lastFalse = s;
            }
            decide(m, s, holds, 3);
            return;
        }
        System.arraycopy(acc, 0, m.words(), 0, length);
        state.finished(s);
    }

    private boolean holds(long bits) {
        return condition.holds(Double.longBitsToDouble(bits), constant);
    }

    private static double combine(ReduceOp op, double a, double b) {
        return switch (op) {
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            default -> a + b;
        };
    }

    private void decide(Message m, long s, boolean holds, int how) {
        decided[how]++;
        m.length(1).word(0, holds ? 1L : 0L);
        state.finished(s);
    }
}
