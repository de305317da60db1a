package org.eventspace.mpi;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.eventspace.trace.CountRuns;
import org.eventspace.trace.DeltaHistogram;
import org.eventspace.trace.DeltaSampler;
import org.eventspace.trace.DeltaTiming;
import org.eventspace.trace.EventNode;
import org.eventspace.trace.LoopNode;
import org.eventspace.trace.Node;
import org.eventspace.trace.Op;
import org.eventspace.trace.Params;
import org.eventspace.trace.RankTrace;
import org.eventspace.trace.TimeEncoding;
import org.eventspace.trace.Trace;

/**
 * One rank's part of a merged MPI trace as the program {@code native/replay/es_replay.c} interprets under mpirun:
 * ScalaTrace's replay (Ratn et al. §3.4) keeps the compressed trace's loops as loops, so a program is as small as the
 * trace, whatever the iterations. Java decides every parameter here (absolute peers, tags, each occurrence's bytes,
 * which compute delta to wait) and refuses what the replayer cannot issue ({@link #refusals}); the C only walks it.
 *
 * <p>The form, {@value #FORMAT}, whitespace-separated text (docs/MPI.md, "Replay on MPI"):
 * <pre>
 *   eventspace.mpi-replay/1 RANK RANKS BUFFER_BYTES CALLS INSTRUCTIONS
 *   loop ITERATIONS            … end
 *   call OP SITE PEER TAG ROOT  RUNS (BYTES LENGTH)×RUNS  MEAN_NS  TABLES (PREV N STEP POSITION BINS (FREQ AVG_NS)×BINS)×TABLES
 * </pre>
 * PEER: an MPI_COMM_WORLD rank, −1 any source, −2 MPI_PROC_NULL; TAG: −1 any tag (a wait's or waitall's request count);
 * ROOT: −1 none. The bytes of the call's occurrences are runs ({@link CountRuns}). The compute delta before the call is
 * drawn as {@code DeltaSampler} draws it: the mean without tables (time encoding stats), else one histogram (PREV −1,
 * encoding hist) or one per previous call site (encoding path), each walked from POSITION by STEP over its N sample
 * positions (the permutation that gives every rank of the event its share of every bin).
 */
public final class MpiReplayProgram {
    public static final String FORMAT = "eventspace.mpi-replay/1";

    /** The calls es_replay.c issues (its OP_NAMES); a call of another op refuses the replay. */
    static final Set<Op> ISSUED = EnumSet.of(Op.MPI_INIT, Op.MPI_INIT_THREAD, Op.MPI_FINALIZE, Op.MPI_SEND, Op.MPI_BSEND,
            Op.MPI_SSEND, Op.MPI_RSEND, Op.MPI_ISEND, Op.MPI_IBSEND, Op.MPI_ISSEND, Op.MPI_IRSEND, Op.MPI_RECV, Op.MPI_IRECV,
            Op.MPI_SENDRECV, Op.MPI_SENDRECV_REPLACE, Op.MPI_WAIT, Op.MPI_WAITALL, Op.MPI_PROBE, Op.MPI_IPROBE,
            Op.MPI_BARRIER, Op.MPI_BCAST, Op.MPI_REDUCE, Op.MPI_ALLREDUCE, Op.MPI_SCAN, Op.MPI_EXSCAN, Op.MPI_GATHER,
            Op.MPI_GATHERV, Op.MPI_SCATTER, Op.MPI_SCATTERV, Op.MPI_ALLGATHER, Op.MPI_ALLGATHERV, Op.MPI_ALLTOALL,
            Op.MPI_ALLTOALLV);
    /** Calls whose buffer at some rank holds every rank's block (gather's receive, scatter's send). */
    private static final Set<Op> ALL_BLOCKS = EnumSet.of(Op.MPI_GATHER, Op.MPI_GATHERV, Op.MPI_SCATTER, Op.MPI_SCATTERV,
            Op.MPI_ALLGATHER, Op.MPI_ALLGATHERV);
    private static final Set<Op> VARIANTS = EnumSet.of(Op.MPI_GATHERV, Op.MPI_SCATTERV, Op.MPI_ALLGATHERV, Op.MPI_ALLTOALLV);
    private static final Set<Op> NO_COMMUNICATOR = EnumSet.of(Op.MPI_INIT, Op.MPI_INIT_THREAD, Op.MPI_FINALIZE,
            Op.MPI_WAIT, Op.MPI_WAITALL);

    private final int rank;
    private final String text;
    private final Map<Op, Long> calls;
    private final long bufferBytes;

    private MpiReplayProgram(int rank, String text, Map<Op, Long> calls, long bufferBytes) {
        this.rank = rank;
        this.text = text;
        this.calls = calls;
        this.bufferBytes = bufferBytes;
    }

    /** Whether {@code trace} holds an MPI program's calls (mpirun --trace) rather than one of our workloads'. */
    public static boolean isMpi(Trace trace) {
        return anyMpi(trace.nodes());
    }

    private static boolean anyMpi(List<Node> nodes) {
        for (Node n : nodes) {
            if (n instanceof LoopNode l ? anyMpi(l.body()) : ((EventNode) n).op().mpi()) {
                return true;
            }
        }
        return false;
    }

    /**
     * What stops a replay of {@code trace} on MPI: one line per op and reason, with how many calls (over all ranks) it
     * concerns; empty if every call can be re-issued.
     */
    public static List<String> refusals(Trace trace) {
        Map<String, Long> counts = new TreeMap<>();
        refusals(trace.nodes(), 1, trace.ranks(), counts);
        List<String> out = new ArrayList<>();
        for (RankTrace.Lost lost : trace.lost()) {
            out.add("rank " + lost.rank() + " ×" + lost.count() + ": calls the trace lost (from call " + lost.firstLost()
                    + " on, past the recorder's node budget): their partners would wait for them");
        }
        counts.forEach((what, n) -> {
            int split = what.indexOf('\0');
            out.add(what.substring(0, split) + " ×" + n + ": " + what.substring(split + 1));
        });
        return out;
    }

    private static void refusals(List<Node> nodes, long times, int ranks, Map<String, Long> counts) {
        for (Node n : nodes) {
            if (n instanceof LoopNode l) {
                refusals(l.body(), saturatedTimes(times, l.iterations()), ranks, counts);
                continue;
            }
            EventNode e = (EventNode) n;
            String reason = refusal(e, ranks);
            if (reason != null) {
                counts.merge(e.op().fileName() + '\0' + reason, saturatedTimes(times, e.ranks().size()), MpiReplayProgram::sum);
            }
        }
    }

    private static long sum(long a, long b) {
        long s = a + b;
        return s < 0 ? Long.MAX_VALUE : s;
    }

    private static long saturatedTimes(long a, long b) {
        long p = a * b;
        return a != 0 && (p / a != b || p < 0) ? Long.MAX_VALUE : p;
    }

    /** Why the replayer cannot issue {@code e}, or null. */
    static String refusal(EventNode e, int ranks) {
        Op op = e.op();
        if (!ISSUED.contains(op)) {
            return "the MPI replayer does not issue this call (it issues " + ISSUED.size()
                    + " point-to-point, completion and collective calls: docs/MPI.md, \"Replay on MPI\")";
        }
        if (!NO_COMMUNICATOR.contains(op) && e.communicator() == null
                || (op.pointToPoint() || op == Op.MPI_WAITALL) && e.tag() == null) {
            return "recorded without its communicator and tag (a trace of an older eventspace): record the program again";
        }
        if (e.communicator() != null) {
            for (Params.Entry c : e.communicator().entries()) {
                if (c.value() == MpiTraceRecorder.COMM_UNKNOWN) {
                    return "on a communicator the interposition library could not name (its table was full)";
                }
                if (c.value() != MpiTuple.COMM_WORLD_ID) {
                    return "on a communicator other than MPI_COMM_WORLD (id " + c.value() + "): the trace names "
                            + "communicators but not how they were made (a split's colour and key), so the replayer "
                            + "re-creates none";
                }
            }
        }
        if (op.pointToPoint() && (op == Op.MPI_SEND || op == Op.MPI_BSEND || op == Op.MPI_SSEND || op == Op.MPI_RSEND
                || op == Op.MPI_ISEND || op == Op.MPI_IBSEND || op == Op.MPI_ISSEND || op == Op.MPI_IRSEND
                || op == Op.MPI_SENDRECV || op == Op.MPI_SENDRECV_REPLACE)
                && (e.peer() == null || e.peer().entries().stream().anyMatch(p -> p.value() == EventNode.NONE))) {
            return "a send whose destination the trace does not hold";
        }
        long max = 0;
        boolean uniform;
        if (e.countRuns() != null) {
            uniform = e.countRuns().size() == 1;
            for (EventNode.RunsEntry r : e.countRuns()) {
                max = Math.max(max, r.runs().max());
            }
        } else {
            uniform = e.count() == null || e.count().uniform();
            if (e.count() != null) {
                for (Params.Entry c : e.count().entries()) {
                    max = Math.max(max, c.value());
                }
            }
        }
        long factor = ALL_BLOCKS.contains(op) ? ranks : 1;
        if (max > Integer.MAX_VALUE / Math.max(1, factor)) {
            return "more than 2^31 bytes in one call (" + max + " bytes" + (factor > 1 ? " per rank" : "") + ")";
        }
        if (VARIANTS.contains(op) && !uniform) {
            return "a v-variant whose counts differ between ranks (the replayer issues it with equal counts)";
        }
        if ((op == Op.MPI_ALLTOALL || op == Op.MPI_ALLTOALLV) && uniform && max % ranks != 0) {
            return "bytes not a multiple of the " + ranks + " ranks (the replayer sends each rank an equal block)";
        }
        return null;
    }

    /**
     * Rank {@code rank}'s program. The trace must have no {@link #refusals}.
     *
     * @throws IllegalArgumentException if it has: the first refusal.
     */
    public static MpiReplayProgram of(Trace trace, int rank) {
        List<String> refused = refusals(trace);
        if (!refused.isEmpty()) {
            throw new IllegalArgumentException(refused.get(0));
        }
        Compiler c = new Compiler(trace, rank);
        c.compile(trace.nodes(), 1);
        String header = FORMAT + " " + rank + " " + trace.ranks() + " " + Math.max(8, c.buffer) + " " + c.total + " "
                + c.instructions + "\n";
        return new MpiReplayProgram(rank, header + c.body, c.calls, Math.max(8, c.buffer));
    }

    /** The program's text, ending in a newline. */
    public String text() {
        return text;
    }

    public int rank() {
        return rank;
    }

    /** The calls this rank re-issues, per op (what the replayer's report must count), in the order first issued. */
    public Map<Op, Long> calls() {
        return calls;
    }

    /** Every call this rank re-issues. */
    public long totalCalls() {
        long n = 0;
        for (long v : calls.values()) {
            n += v;
        }
        return n;
    }

    /** The send and the receive buffer's size: the largest call's. */
    public long bufferBytes() {
        return bufferBytes;
    }

    /** DeltaSampler's golden-ratio stride, so both draw alike. */
    static long stride(long n) {
        return DeltaSampler.goldenStride(n);
    }

    private static final class Compiler {
        final Trace trace;
        final int rank;
        final StringBuilder body = new StringBuilder();
        final Map<Op, Long> calls = new LinkedHashMap<>();
        long total;
        long buffer;
        int instructions;

        Compiler(Trace trace, int rank) {
            this.trace = trace;
            this.rank = rank;
        }

        void compile(List<Node> nodes, long times) {
            for (Node n : nodes) {
                if (!n.ranks().contains(rank)) {
                    continue;
                }
                if (n instanceof LoopNode l) {
                    body.append("loop ").append(l.iterations()).append('\n');
                    instructions++;
                    compile(l.body(), saturatedTimes(times, l.iterations()));
                    body.append("end\n");
                    instructions++;
                } else {
                    call((EventNode) n, times);
                }
            }
        }

        private void call(EventNode e, long times) {
            Op op = e.op();
            calls.merge(op, times, MpiReplayProgram::sum);
            total = sum(total, times);
            instructions++;
            long peer = value(e.peer());
            long absolute = peer == EventNode.PROC_NULL ? -2 : peer == EventNode.NONE ? -1 : rank + peer;
            long tag = value(e.tag());
            long root = value(e.root());
            body.append("call ").append(op.fileName()).append(' ').append(e.site()).append(' ').append(absolute)
                    .append(' ').append(tag == EventNode.NONE ? -1 : tag).append(' ')
                    .append(root == EventNode.NONE ? -1 : root).append(' ');
            long factor = ALL_BLOCKS.contains(op) ? trace.ranks() : 1;
            CountRuns runs = runsOf(e);
            if (runs != null) {
                long[] pairs = runs.pairs();
                body.append(pairs.length / 2);
                for (long v : pairs) {
                    body.append(' ').append(v);
                }
                buffer = Math.max(buffer, runs.max() * factor);
            } else {
                long bytes = value(e.count());
                bytes = bytes == EventNode.NONE ? 0 : bytes;
                body.append("1 ").append(bytes).append(' ').append(Long.MAX_VALUE);
                buffer = Math.max(buffer, bytes * factor);
            }
            DeltaTiming t = e.computeDelta();
            body.append(' ').append(Math.round(t.stats().mean()));
            List<String> tables = new ArrayList<>();
            if (trace.encoding() == TimeEncoding.HIST && t.histogram() != null && t.histogram().total() > 0) {
                tables.add(table(-1, t.histogram(), e));
            } else if (trace.encoding() == TimeEncoding.PATH) {
                t.paths().forEach((site, h) -> {
                    if (h.total() > 0) {
                        tables.add(table(site, h, e));
                    }
                });
            }
            body.append(' ').append(tables.size());
            tables.forEach(s -> body.append(' ').append(s));
            body.append('\n');
        }

        /** {@code e}'s bytes on this rank as runs, if they vary between occurrences; else null. */
        private CountRuns runsOf(EventNode e) {
            if (e.countRuns() == null) {
                return null;
            }
            for (EventNode.RunsEntry r : e.countRuns()) {
                if (r.ranks().contains(rank)) {
                    return r.runs();
                }
            }
            return null;
        }

        /** One histogram's draws for this rank, as DeltaSampler.Draw starts them. */
        private String table(long previous, DeltaHistogram h, EventNode e) {
            long n = h.total();
            int[] members = e.ranks().ranks();
            int r = Math.max(1, members.length);
            int j = Math.max(0, java.util.Arrays.binarySearch(members, rank));
            long a = stride(n);
            long step = Math.floorMod((long) r % n * a, n);
            long position = Math.floorMod((long) j % n * a, n);
            StringBuilder s = new StringBuilder().append(previous).append(' ').append(n).append(' ').append(step)
                    .append(' ').append(position).append(' ').append(h.bins());
            for (int b = 0; b < h.bins(); b++) {
                s.append(' ').append(h.binFreq(b)).append(' ').append(Math.round(h.binAvg(b)));
            }
            return s.toString();
        }

        private long value(Params p) {
            if (p == null) {
                return EventNode.NONE;
            }
            return p.valueFor(rank);
        }
    }
}
