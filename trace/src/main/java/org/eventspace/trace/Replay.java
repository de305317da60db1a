package org.eventspace.trace;

import java.util.List;
import java.util.concurrent.locks.LockSupport;

import org.eventspace.comm.Comm;
import org.eventspace.comm.path.ReduceOp;

/**
 * Timed replay (Ratn et al., ICS 2008, §3.4): one rank re-issues its calls in order, with their parameters and sizes,
 * waiting its compute deltas between them, interpreting the compressed trace without expanding it ("when it
 * encounters an RSD or PRSD, it issues calls iteratively observing the structure, frequency and parameters").
 *
 * <p>Which compute delta is waited: with statistics, the mean ("we simply replay the average times"); with histograms,
 * bin averages in proportion to the bins' frequencies ("we select replay delays to reflect the distribution across
 * bins"), each bin drawn over the ranks together exactly as often as it was filled, spread over the iterations and
 * differently on each rank; path-sensitive, the histogram of the previous call's site ({@link DeltaSampler}, which the
 * timeline export shares); all of it from the rank's own rank group's timing where the event's ranks timed
 * differently ({@link DeltaTiming#byRanks}). Message contents are zeros: the replay reproduces the communication,
 * not the data. Compute is emulated by spinning on the clock ({@link Compute#SPIN}, as the paper does on BG/L) or by
 * parking ({@link Compute#SLEEP}, its {@code nanosleep}).
 *
 * <p>How a compute delta is re-enacted faithfully: the recorder measured it from the end of one call to the start of
 * the next, so the replay waits until <em>the previous call's end plus the delta</em> (a deadline), not for the delta
 * after its own work: the interpreter's time between two calls (loop counters, the histogram choice, parameters) is
 * absorbed into the wait instead of added to it. Where the deadline has already passed (a delta shorter than the
 * interpreter's own time, or a wait that overshot — a park overshoots by tens of µs), the lateness is carried as a
 * debt and taken off the next deadlines, so the rank's compute time summed over the run is what was recorded, to
 * the cost of a clock read or two per call. Communication is never waited: each call is re-issued on the job's
 * {@code Comm}, so its time — and the waits for late ranks at collectives — arise again.
 *
 * <p>Not thread-safe: one {@code Replay} per rank.
 */
public final class Replay {
    public enum Compute { SPIN, SLEEP }

    private final Trace trace;
    private final Comm comm;
    private final Compute compute;
    private final int rank;
    private final DeltaSampler sampler;
    private final Step[] steps;
    private long[] buffer = new long[1];
    private long[] recvBuffer = new long[1];
    private double[] doubles = new double[1];
    private int previousSite = CallSite.UNMARKED;
    /**
     * The comm as a recorder, when the replay is itself recorded ({@code trace replay --record}): each call is marked
     * with the original's call site and the timed phase where the original's began, so the replay's trace has the
     * original's shape and timed span; null when not recorded.
     */
    private final TracingComm recording;
    private long calls;
    /** When the previous call returned (or the replay started). */
    private long lastEnd;
    /** Nanoseconds the replay is behind the recorded compute: taken off the next deadlines. */
    private long debt;
    /** The compute deltas drawn so far, summed: what this rank was to wait. */
    private long computeDrawn;
    /** Calls re-issued before the trace's timed phase began for this rank ({@link Trace#timedFrom}), or -1. */
    private final long timedFrom;
    /** When the timed phase began in this replay: the end of call {@link #timedFrom} (or the start, for 0). */
    private long timedStart;
    /** Per {@link Op} (by ordinal): nanoseconds from a call's issue to its return, summed; what the replay's calls took. */
    private final long[] communicated = new long[Op.values().length];

    public Replay(Trace trace, Comm comm, Compute compute) {
        if (comm.size() != trace.ranks()) {
            throw new IllegalArgumentException("the trace is of " + trace.ranks() + " ranks, the job has " + comm.size());
        }
        checkReplayable(trace);
        this.trace = trace;
        this.comm = comm;
        this.compute = compute;
        this.rank = comm.rank();
        this.sampler = new DeltaSampler(trace.encoding(), rank);
        this.steps = compile(trace.nodes(), rank, trace.encoding() == TimeEncoding.PATH);
        this.timedFrom = trace.timedFrom(rank);
        this.recording = comm instanceof TracingComm t ? t : null;
    }

    /**
     * Refuses a trace this replay cannot re-issue: one of an MPI program's calls (a replay issues calls of our
     * communication system, and MPI calls are not mapped onto them yet).
     *
     * @throws IllegalArgumentException naming the first MPI call found.
     */
    public static void checkReplayable(Trace trace) {
        for (Op op : opsOf(trace.nodes(), java.util.EnumSet.noneOf(Op.class))) {
            if (op.mpi()) {
                throw new IllegalArgumentException("the trace holds an MPI program's calls (" + op.fileName() + ", …): a replay "
                        + "re-issues calls of our communication system, and MPI calls are not replayed yet; trace show, "
                        + "stats, search and export read it");
            }
        }
    }

    /**
     * What a replay of a trace would do, known before it starts from the trace's own structure and timing: the calls
     * it would re-issue over all ranks (each event's ranks times its enclosing loops' iterations; saturated at
     * {@link Long#MAX_VALUE}) and about how long the longest rank would take (each event's mean compute and
     * communicate deltas times those iterations). A compressed trace shows a loop of 2^62 iterations in a few bytes,
     * and is searched and exported in a second; re-issuing it would never end, so a replay says this up front and
     * its caller refuses past a limit. Where an event's ranks' timings differ ({@link DeltaTiming#byRanks}) it counts
     * its slowest rank group's means: an upper bound, as a limit wants.
     *
     * @param calls        calls re-issued over all ranks.
     * @param longestNanos nanoseconds the longest rank would take, by the recorded means (a double: it may
     *                     exceed a long's range).
     */
    public record Plan(long calls, double longestNanos) {
    }

    /**
     * The {@link Plan} of {@code trace}, in time linear in the compressed trace's size times the ranks a node names
     * (loops are not expanded): each rank's time is summed over the nodes that name it, since ranks of one aligned
     * trace skip different nodes.
     */
    public static Plan plan(Trace trace) {
        double[] calls = new double[1];
        double[] perRank = new double[trace.ranks()];
        plan(trace.nodes(), 1, calls, perRank);
        double longest = 0;
        for (double t : perRank) {
            longest = Math.max(longest, t);
        }
        return new Plan(saturatedAdd(0, calls[0]), longest);
    }

    private static void plan(List<Node> nodes, double iterations, double[] calls, double[] perRank) {
        for (Node n : nodes) {
            if (n instanceof LoopNode l) {
                plan(l.body, iterations * l.iterations(), calls, perRank);
            } else {
                EventNode e = (EventNode) n;
                calls[0] += iterations * e.ranks().size();
                double t = iterations * (slowest(e.computeDelta()) + slowest(e.communicateDelta()));
                for (int r : e.ranks().ranks()) {
                    if (r < perRank.length) {
                        perRank[r] += t;
                    }
                }
            }
        }
    }

    /** The mean delta of the slowest rank group of {@code t} ({@link DeltaTiming#byRanks}), or its mean. */
    private static double slowest(DeltaTiming t) {
        double m = t.stats().mean();
        for (DeltaTiming g : t.byRanks()) {
            m = Math.max(m, g.stats().mean());
        }
        return m;
    }

    private static long saturatedAdd(long a, double b) {
        double sum = (double) a + b;
        return sum >= Long.MAX_VALUE ? Long.MAX_VALUE : a + (long) b;
    }

    /** Replays this rank's calls; returns the nanoseconds from the start to the end of its last call. */
    public long run() {
        long start = System.nanoTime();
        lastEnd = start;
        timedStart = start;
        debt = 0;
        replay(steps);
        return lastEnd - start;
    }

    /**
     * Nanoseconds from the start of the trace's timed phase (the end of the last call before it, as the recorder
     * measured it) to the end of this rank's last call, in the replay just run; -1 if the trace marks no timed phase.
     * The calls before the mark (the original's warm-up) are re-issued first, untimed, so the replay's own JIT has
     * compiled its interpreter and the job's paths before the span compared with {@link Trace#timedNanos} begins.
     */
    public long timedNanos() {
        return timedFrom < 0 ? -1 : lastEnd - timedStart;
    }

    public long calls() {
        return calls;
    }

    /**
     * The compute deltas this rank drew and waited (to deadlines, lateness repaid: see the class comment), summed; over
     * the ranks together, what the trace recorded ({@link DeltaSampler}).
     */
    public long computeNanos() {
        return computeDrawn;
    }

    /**
     * The time this rank's calls of {@code op} took in the replay, from issue to return, summed: set beside the
     * communicate deltas the trace recorded ({@link Trace#deltaSums}), it says which operations a replay runs faster or
     * slower than the original did.
     */
    public long communicateNanos(Op op) {
        return communicated[op.ordinal()];
    }

    private void replay(Step[] steps) {
        for (Step step : steps) {
            if (step instanceof LoopStep l) {
                for (long i = 0; i < l.iters; i++) {
                    replay(l.body);
                }
            } else {
                CallStep c = (CallStep) step;
                long delta = c.compute(sampler, previousSite);
                computeDrawn += Math.max(0, delta);
                long issued = waitUntil(lastEnd, delta);
                if (recording != null) {
                    recording.site(c.event.site);
                }
                issue(c);
                // Recorded, the call ended where the recorder says: its own work after the call is then inside the
                // next compute wait, as it was inside the original's next compute delta, and not paid twice.
                lastEnd = recording == null ? System.nanoTime() : recording.lastEnd();
                communicated[c.op.ordinal()] += lastEnd - issued;
                previousSite = c.event.site;
                if (++calls == timedFrom) {
                    // The timed phase starts here, as the original's did after its barrier: lateness of the warm-up
                    // (a cold JIT) is not repaid out of the timed phase's compute.
                    timedStart = lastEnd;
                    debt = 0;
                    if (recording != null) {
                        TracingComm.markTimed(recording);
                    }
                }
            }
        }
    }

    /**
     * This rank's part of the trace, resolved once before the replay starts: the loops and calls it executes, each
     * call with its parameters for this rank and its own occurrence counter. Walking it per call costs no ranklist
     * test, no parameter lookup and no map: fine-grained programs (gsum: calls of a fraction of a µs) need the
     * interpreter's own time per call below the compute delta it re-enacts.
     */
    private abstract static sealed class Step permits LoopStep, CallStep {
    }

    private static final class LoopStep extends Step {
        final long iters;
        final Step[] body;

        LoopStep(long iters, Step[] body) {
            this.iters = iters;
            this.body = body;
        }
    }

    private static final class CallStep extends Step {
        final EventNode event;
        final Op op;
        final ReduceOp reduce;
        final int words;
        /** This rank's counts occurrence by occurrence, if they vary ({@link CountRuns}); else {@link #words} each time. */
        final CountRuns.Cursor varyingWords;
        final int peer;
        final int root;
        final boolean pathSensitive;
        /** This rank's compute timing: its rank group's where the event's ranks' timings differ. */
        final DeltaTiming timing;
        /** The ranks {@link #timing} holds, over which the draws are permuted ({@link DeltaSampler}). */
        final RankList drawRanks;
        final long mean;
        /** This rank's draws from the histogram last used, and the previous site that chose it (path-sensitive). */
        DeltaSampler.Draw draw;
        int drawSite;

        CallStep(EventNode e, int rank, boolean pathSensitive) {
            this.event = e;
            this.op = e.op;
            this.reduce = e.reduce < 0 ? null : REDUCE_OPS[e.reduce];
            this.words = Math.max(1, value(e.countParams, rank, 1));
            this.varyingWords = e.counts(rank);
            this.peer = rank + value(e.peerParams, rank, 0);
            this.root = value(e.rootParams, rank, 0);
            this.pathSensitive = pathSensitive;
            this.timing = e.compute.forRank(rank);
            this.drawRanks = DeltaSampler.ranksOf(e, e.compute, timing);
            this.mean = Math.round(timing.stats().mean());
        }

        /**
         * The compute delta to wait before this call this time ({@link DeltaSampler}); the histogram's draws are
         * looked up only when the previous site changed, so a call in a loop costs no map.
         */
        long compute(DeltaSampler sampler, int previousSite) {
            if (draw == null || (pathSensitive && previousSite != drawSite)) {
                DeltaHistogram h = sampler.histogram(timing, previousSite);
                if (h == null) {
                    return mean;
                }
                draw = sampler.draw(h, drawRanks);
                drawSite = previousSite;
            }
            return draw.next();
        }
    }

    private static final ReduceOp[] REDUCE_OPS = ReduceOp.values();

    private static java.util.Set<Op> opsOf(List<Node> nodes, java.util.Set<Op> into) {
        for (Node n : nodes) {
            if (n instanceof LoopNode l) {
                opsOf(l.body, into);
            } else {
                into.add(((EventNode) n).op());
            }
        }
        return into;
    }

    private static Step[] compile(List<Node> nodes, int rank, boolean pathSensitive) {
        java.util.ArrayList<Step> out = new java.util.ArrayList<>();
        for (Node n : nodes) {
            if (!n.ranks().contains(rank)) {
                continue;
            }
            out.add(n instanceof LoopNode l ? new LoopStep(l.iters, compile(l.body, rank, pathSensitive))
                    : new CallStep((EventNode) n, rank, pathSensitive));
        }
        return out.toArray(new Step[0]);
    }

    /** The compute delta to wait before {@code e} this time, per the trace's time encoding ({@link DeltaSampler}). */
    long computeDelta(EventNode e) {
        return sampler.next(e, e.compute, previousSite);
    }

    /**
     * Waits until {@code from + nanos − debt} (see the class comment); returns when the wait ended and leaves in
     * {@link #debt} how late that was.
     */
    long waitUntil(long from, long nanos) {
        long target = from + Math.max(0, nanos) - debt;
        long now = System.nanoTime();
        if (now - target < 0) {
            if (compute == Compute.SLEEP) {
                LockSupport.parkNanos(target - now);
                now = System.nanoTime();
            } else {
                while ((now = System.nanoTime()) - target < 0) {
                    Thread.onSpinWait();
                }
            }
        }
        debt = now - target;
        return now;
    }

    /** Nanoseconds the replay's compute is behind the recorded compute (for tests). */
    long debt() {
        return debt;
    }

    private static int value(Params p, int rank, int otherwise) {
        if (p == null) {
            return otherwise;
        }
        long v = p.valueFor(rank);
        return v == EventNode.NONE ? otherwise : (int) v;
    }

    private long[] buffer(int words) {
        if (buffer.length < words) {
            buffer = new long[words];
        }
        return buffer;
    }

    private long[] recvBuffer(int words) {
        if (recvBuffer.length < words) {
            recvBuffer = new long[words];
        }
        return recvBuffer;
    }

    private void issue(CallStep c) {
        int words = c.varyingWords == null ? c.words : (int) Math.max(1, c.varyingWords.next());
        int size = comm.size();
        ReduceOp op = c.reduce;
        switch (c.op) {
            case ALLREDUCE_LONG -> comm.allreduce(0L, op);
            case ALLREDUCE_DOUBLE -> comm.allreduce(0.0, op);
            case ALLREDUCE_LONGS -> comm.allreduce(buffer(words), words, op);
            case ALLREDUCE_DOUBLES -> {
                if (doubles.length < words) {
                    doubles = new double[words];
                }
                comm.allreduce(doubles, words, op);
            }
            case BARRIER -> comm.barrier();
            case BROADCAST -> comm.broadcast(buffer(words), words, c.root);
            case GATHER -> comm.gather(buffer(words), words, recvBuffer(words * size), c.root);
            case ALLGATHER -> comm.allgather(buffer(words), words, recvBuffer(words * size));
            case SCATTER -> comm.scatter(buffer(words * size), words, recvBuffer(words), c.root);
            case ALLTOALL -> comm.alltoall(buffer(words * size), words, recvBuffer(words * size));
            case SEND -> comm.send(c.peer, buffer(words), words);
            case RECV -> comm.recv(c.peer, recvBuffer(words));
        }
    }
}
