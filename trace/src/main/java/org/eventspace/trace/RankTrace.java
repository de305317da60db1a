package org.eventspace.trace;

import java.util.ArrayList;
import java.util.List;

/**
 * One rank's trace, compressed online into RSDs and power-RSDs as calls arrive (ScalaTrace's intra-node compression,
 * Ratn et al. §2, after Noeth et al., IPDPS 2007).
 *
 * <p>Each call is appended to the top-level sequence, then folded while it can be: (a) if the last {@code k}
 * elements repeat the body of the loop just before them, that loop gains an iteration and they are absorbed into its
 * body (their delta times added to the body's); (b) if the last {@code k} elements repeat the {@code k} before them,
 * the two runs become a loop of 2. {@code k} is tried from 1 up to the configured window, smallest first, and a fold
 * is retried after every fold, so loops nest (a loop whose body ends a bigger repetition folds into an outer loop).
 * Folding only ever replaces a repetition by a loop of exactly that repetition, so expansion gives back exactly the
 * recorded sequence: the compression is lossless. When nothing repeats exactly, both rules are tried again with the
 * calls' counts allowed to differ, for runs that hold a loop (a time step whose message sizes change at each
 * neighbour-list rebuild): the sizes are then kept occurrence by occurrence as runs ({@link CountRuns}), so this too
 * expands back exactly; runs of plain calls fold only when equal.
 *
 * <p>The common case allocates nothing: when the last top-level element is a loop, a new call is first compared with
 * the next call of one iteration of that loop (its body with inner loops unrolled), and if it matches, only its
 * deltas are kept (in arrays that grow to the longest iteration seen, up to {@link #HOLD_LIMIT} calls) until the
 * iteration completes; then they are added to the body's events and the loop gains an iteration — rule (a) for the
 * loop's whole body — and folding resumes. A call that does not match puts the held calls back as events, one by one
 * through the rules as if they had just arrived, and then itself. So a loop of a program, inner loops and all, is
 * recorded without an object per call once its second iteration has folded. The outcome is a deterministic function
 * of the calls, like the general rules', and lossless the same way; it can differ from the general rules' on one point: a call that starts
 * the body of the loop before it is held for that loop rather than folded into an older, enclosing one; that the
 * ranks of one job compress alike is what merging needs, and they do.
 *
 * <p>Memory is bounded by a node budget ({@link TraceConfig#maxNodes()}). A regular program stays far below it; when
 * an irregular one reaches it, the rank stops recording and counts what it could not keep — from which event on,
 * how many, of which ops — and the trace file says so ({@link Lost}). It never drops silently. The budget counts
 * every node the trace holds, nested ones included, each run of message sizes kept for a loop whose iterations
 * differ in them ({@link CountRuns}; counted when it starts, and again if a fold moves it: an upper bound), and each
 * call held for an iteration in progress (a node if the iteration does not complete); leaving the held calls out
 * made the counter lower than the nodes a rank's trace holds once they are put back (a property test walks the trace
 * against it).
 *
 * <p>Not thread-safe: one per rank, used by the rank's thread; read after the rank finished.
 */
public final class RankTrace {
    /** What a rank could not record: every event from {@code firstLost} on, {@code count} of them. */
    public record Lost(int rank, long firstLost, long count, long[] byOp) {
    }

    private final int rank;
    private final RankList self;
    private final TraceConfig config;
    private final ArrayList<Node> top = new ArrayList<>();
    private long recorded;
    private long lost;
    private long firstLost = -1;
    private final long[] lostByOp = new long[Op.values().length];
    private int live;
    /**
     * Runs of counts the trace keeps beside its nodes (message sizes that changed between iterations of a folded loop:
     * {@link CountRuns}); the node budget counts each as a node.
     */
    private int runs;
    private int previousSite;
    /** From when recording started to the end of the last call recorded (set by the recorder). */
    long spanNanos;
    /** Calls recorded before the program marked its timed phase ({@link TracingComm#markTimed}), or -1: no mark. */
    long timedFrom = -1;
    /** Where the timed phase began, from when recording started: the end of the last call before the mark. */
    long timedStartNanos;
    /** The loop at the end of {@link #top} whose next iteration the newest calls match; meaningful while held > 0. */
    private LoopNode open;
    /** Calls of {@link #open}'s next iteration held so far: their deltas and previous sites. */
    private int held;
    /**
     * {@link #open}'s body flattened into the calls of one iteration, inner loops unrolled ({@link #flatten}): the
     * call each held position expects. Valid for {@link #flattenedFor}; a loop's body never changes shape once made.
     */
    private EventNode[] expected;
    private int expectedLength;
    private LoopNode flattenedFor;
    private long[] heldCompute;
    private long[] heldComm;
    private int[] heldPrevious;
    /** The held calls' counts: an event whose counts vary takes a count other than its first ({@link CountRuns}). */
    private long[] heldCount;
    /** The most calls one iteration may hold: {@link #HOLD_LIMIT}, a quarter of the node budget, at least the window. */
    private final int holdLimit;

    /**
     * The longest iteration, in calls with inner loops unrolled, the allocation-free path holds: a warm-up round of a
     * hundred calls and a barrier, a time step's sweep over its neighbours. Longer ones take the slower path, which
     * folds them just as well at an object per call. The hold arrays grow to it on demand (once per new length,
     * not per call): 36 bytes a call, 144 KiB at the limit.
     */
    static final int HOLD_LIMIT = 4096;

    public RankTrace(int rank, TraceConfig config) {
        this.rank = rank;
        this.self = RankList.of(rank);
        this.config = config;
        this.holdLimit = Math.max(config.window(), Math.min(HOLD_LIMIT, config.maxNodes() / 4));
        int initial = Math.min(config.window(), holdLimit);
        this.expected = new EventNode[initial];
        this.heldCompute = new long[initial];
        this.heldComm = new long[initial];
        this.heldPrevious = new int[initial];
        this.heldCount = new long[initial];
    }

    /**
     * Records one call. {@code peer} is relative to this rank (dest − rank); {@code reduce} a
     * {@link org.eventspace.comm.path.ReduceOp} ordinal or −1; absent parameters are {@link EventNode#NONE}.
     */
    public void record(Op op, int site, int reduce, long peer, long count, long root, long computeNanos, long commNanos) {
        record(op, site, reduce, peer, count, root, EventNode.NONE, EventNode.NONE, computeNanos, commNanos);
    }

    /**
     * Records one MPI call with its tag (a wait's request count) and communicator id, {@link EventNode#NONE} where it
     * has none: calls that differ in either are different events.
     */
    public void record(Op op, int site, int reduce, long peer, long count, long root, long tag, long communicator,
                       long computeNanos, long commNanos) {
        long index = recorded + lost;
        if (firstLost >= 0 || live + runs >= config.maxNodes()) {
            if (firstLost < 0) {
                firstLost = index;
            }
            lost++;
            lostByOp[op.ordinal()]++;
            return;
        }
        recorded++;
        if (!extendOpenLoop(op, site, reduce, peer, count, root, tag, communicator, computeNanos, commNanos)) {
            putBackHeld();
            append(new EventNode(self, op, site, reduce, peer, count, root, tag, communicator, computeNanos, commNanos,
                    previousSite, rank));
        }
        previousSite = site;
    }

    /**
     * The allocation-free path: holds the call if it is the next call of an iteration of the loop ending {@link #top}
     * (its body flattened, inner loops unrolled, up to {@link #HOLD_LIMIT} calls: a stencil's halo exchange inside its
     * iteration is such an inner loop, and so is a warm-up round of a hundred calls); completes the iteration when it
     * is the last. Returns false if the call is not that one. Each held call's deltas go to the event that stands for it in the body, as the slower path's folding
     * (a new copy of the iteration absorbed into the loop) would put them.
     */
    private boolean extendOpenLoop(Op op, int site, int reduce, long peer, long count, long root, long tag,
                                   long communicator, long computeNanos, long commNanos) {
        if (held == 0) {
            int n = top.size();
            if (n == 0 || !(top.get(n - 1) instanceof LoopNode loop)) {
                return false;
            }
            if (loop != flattenedFor) {
                expectedLength = flatten(loop.body, 0);
                flattenedFor = loop;
            }
            if (expectedLength <= 0) {
                return false; // one iteration holds more calls than the hold limit: the slower path folds it
            }
            open = loop;
        }
        if (!expected[held].matches(op, site, reduce, peer, count, root, tag, communicator)) {
            return false;
        }
        heldCompute[held] = computeNanos;
        heldComm[held] = commNanos;
        heldPrevious[held] = previousSite;
        heldCount[held] = count;
        held++;
        live++;
        if (held == expectedLength) {
            for (int i = 0; i < held; i++) {
                runs += expected[i].addSample(heldCompute[i], heldComm[i], rank, heldPrevious[i], heldCount[i], config);
            }
            live -= held;
            held = 0;
            open.iters++;
            open.rehash();
            while (fold()) {
                // the loop's new count may complete an enclosing repetition
            }
        }
        return true;
    }

    /** Turns the held calls back into events, appended one by one as if they had just arrived. */
    private void putBackHeld() {
        int n = held;
        held = 0;
        live -= n; // each is counted again as it is appended
        for (int i = 0; i < n; i++) {
            EventNode e = expected[i];
            append(new EventNode(self, e.op, e.site, e.reduce, e.peer, heldCount[i], e.root, e.tag, e.communicator, heldCompute[i],
                    heldComm[i], heldPrevious[i], rank));
        }
    }

    /**
     * Writes {@code body}'s calls of one iteration into {@link #expected} from {@code at}, inner loops unrolled; returns
     * where they end, or -1 if they are more than {@link #holdLimit}.
     */
    private int flatten(List<Node> body, int at) {
        for (int b = 0; b < body.size(); b++) {
            Node node = body.get(b);
            if (node instanceof EventNode e) {
                if (at >= expected.length && !growHold()) {
                    return -1;
                }
                expected[at++] = e;
            } else {
                LoopNode inner = (LoopNode) node;
                for (long i = 0; i < inner.iters; i++) {
                    at = flatten(inner.body, at);
                    if (at < 0) {
                        return -1;
                    }
                }
            }
        }
        return at;
    }

    /** Doubles the hold arrays, up to {@link #holdLimit}; false if they are already that long. */
    private boolean growHold() {
        int n = expected.length;
        if (n >= holdLimit) {
            return false;
        }
        int m = Math.min(holdLimit, 2 * n);
        expected = java.util.Arrays.copyOf(expected, m);
        heldCompute = java.util.Arrays.copyOf(heldCompute, m);
        heldComm = java.util.Arrays.copyOf(heldComm, m);
        heldPrevious = java.util.Arrays.copyOf(heldPrevious, m);
        heldCount = java.util.Arrays.copyOf(heldCount, m);
        return true;
    }

    private void append(EventNode e) {
        top.add(e);
        live++;
        while (fold()) {
            // fold until nothing repeats
        }
    }

    /**
     * One fold, if the tail repeats: exactly first, over every run length; then, if nothing repeats exactly, allowing
     * the calls' counts to differ, but only for runs that hold a loop — iterations of a time step with an inner phase,
     * whose message sizes change from one to the next (a molecular-dynamics code's exchanges after each neighbour-list
     * rebuild). The differing counts are kept occurrence by occurrence ({@link CountRuns}), so nothing is lost. Runs of
     * plain calls keep exact matching: there a count that alternates (1 word, then 100) is better kept as two events.
     */
    private boolean fold() {
        return fold(false) || fold(true);
    }

    private boolean fold(boolean relaxed) {
        int n = top.size();
        Node last = top.get(n - 1);
        int lastHash = relaxed ? last.relaxedHash() : last.shapeHash();
        for (int k = 1; k <= config.window() && k < n; k++) {
            Node before = top.get(n - 1 - k);
            if (before instanceof LoopNode loop && loop.body.size() == k
                    && same(loop.body.get(k - 1), last, lastHash, relaxed) && runMatches(loop.body, 0, n - k, k, relaxed)
                    && (!relaxed || holdsLoop(n - k, k))) {
                for (int i = 0; i < k; i++) {
                    Node absorbed = top.get(n - k + i);
                    runs += loop.body.get(i).absorb(absorbed, config);
                    live -= absorbed.nodeCount();
                }
                removeTail(k);
                loop.iters++;
                loop.rehash();
                return true;
            }
            if (2 * k <= n && same(top.get(n - 1 - k), last, lastHash, relaxed)
                    && runMatches(top, n - 2 * k, n - k, k, relaxed) && (!relaxed || holdsLoop(n - k, k))) {
                List<Node> body = new ArrayList<>(top.subList(n - 2 * k, n - k));
                for (int i = 0; i < k; i++) {
                    Node absorbed = top.get(n - k + i);
                    runs += body.get(i).absorb(absorbed, config);
                    live -= absorbed.nodeCount();
                }
                removeTail(2 * k);
                top.add(new LoopNode(self, 2, body));
                live++;
                return true;
            }
        }
        return false;
    }

    /** {@code a} against {@code b} (whose hash of the kind compared is {@code bHash}): the hash first, then in full. */
    private static boolean same(Node a, Node b, int bHash, boolean relaxed) {
        return relaxed ? a.relaxedHash() == bHash && a.sameShapeRelaxed(b) : a.shapeHash() == bHash && a.sameShape(b);
    }

    /** Whether {@code a[from..from+k)} and {@code top[at..at+k)} have the same shape (counts aside if relaxed). */
    private boolean runMatches(List<Node> a, int from, int at, int k, boolean relaxed) {
        for (int i = 0; i < k; i++) {
            Node x = a.get(from + i);
            Node y = top.get(at + i);
            if (relaxed ? !x.sameShapeRelaxed(y) : !x.sameShape(y)) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code top[at..at+k)} holds a loop. */
    private boolean holdsLoop(int at, int k) {
        for (int i = at; i < at + k; i++) {
            if (top.get(i) instanceof LoopNode) {
                return true;
            }
        }
        return false;
    }

    private void removeTail(int k) {
        top.subList(top.size() - k, top.size()).clear();
    }

    /**
     * Sets the span from when recording started to the end of the last call recorded, for a recorder outside this
     * package (an MPI program's calls, recorded from their timestamps).
     */
    public void span(long nanos) {
        spanNanos = nanos;
    }

    public int rank() {
        return rank;
    }

    /** Events recorded (kept in the trace). */
    public long recorded() {
        return recorded;
    }

    /** What this rank could not keep, or null if it kept everything. */
    public Lost lost() {
        return firstLost < 0 ? null : new Lost(rank, firstLost, lost, lostByOp.clone());
    }

    /** Nanoseconds from when recording started to the end of the rank's last call. */
    public long spanNanos() {
        return spanNanos;
    }

    /** Calls recorded before the timed phase began, or -1 if the program marked none. */
    public long timedFrom() {
        return timedFrom;
    }

    /** Nanoseconds from the end of the last call before the timed phase to the end of the rank's last call. */
    public long timedSpanNanos() {
        return timedFrom < 0 ? 0 : spanNanos - timedStartNanos;
    }

    /** Trace nodes alive now, nested ones included, plus the calls held for an iteration in progress (what the budget counts). */
    public int liveNodes() {
        return live;
    }

    /** A walk of what the trace holds now: the top-level nodes and their bodies, and the calls held (for tests). */
    int walkedNodes() {
        int n = held;
        for (int i = 0; i < top.size(); i++) {
            n += top.get(i).nodeCount();
        }
        return n;
    }

    /** The top-level sequence so far (held calls put back first); for tests and {@link Trace#of}. */
    List<Node> nodes() {
        putBackHeld();
        return top;
    }

    TraceConfig config() {
        return config;
    }
}
