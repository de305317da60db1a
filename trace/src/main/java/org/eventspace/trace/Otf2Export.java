package org.eventspace.trace;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * A compressed trace as a {@link CallTimeline} for an OTF2 archive ({@link Otf2Writer}): ScalaTrace's point that its
 * traces serve timeline-based trace analysis tools (Ratn et al. §1, §3.4), here Vampir and Scalasca through OTF2, the
 * format they read. Each rank's calls are expanded in order (up to {@code limitPerRank}) and timed exactly as
 * {@link PerfettoExport} times them — the same {@link DeltaSampler}s drawn in the same order, the same µs arithmetic —
 * so both exports put a call at the same time (to the ns this one rounds to): an Enter after the call's compute delta,
 * a Leave its communicate delta later.
 *
 * <p>The records of a call: a blocking send's MpiSend at its Enter; a blocking receive's MpiRecv at its Leave (the
 * message arrived in the call); an MPI_Isend's MpiIsend at its Enter and MpiIsendComplete at its Leave and an
 * MPI_Irecv's MpiIrecvRequest at its Enter and MpiIrecv at its Leave (the trace does not tie a request to the wait or
 * test that completed it); MPI_Sendrecv both a send and a receive, its source the rank whose sendrecv at the same call
 * site sends here (as {@link PerfettoExport} finds it; none found: no receive record, counted). A collective is
 * MpiCollectiveBegin at its Enter and MpiCollectiveEnd at its Leave with its OTF2 operation, its root and its volume.
 * One communicator, MPI_COMM_WORLD over every rank: the trace keeps no other (peer and root are world ranks); the tag
 * is 0 (not in the trace). Volumes are bytes for MPI calls; our own {@code Comm}'s counts are words of 8 bytes (longs
 * or doubles). A collective's one recorded volume stands for both bytes sent and bytes received.
 *
 * <p>No hosts are in the trace: every rank is placed on one system-tree node. Not thread-safe; one export per instance.
 */
public final class Otf2Export {
    /** The communicator id of MPI_COMM_WORLD in the timeline. */
    public static final int WORLD = 0;

    /**
     * What the timeline holds beyond its events.
     *
     * @param calls               calls expanded (Enter/Leave pairs)
     * @param sendrecvsWithoutSource sendrecv receive halves whose source the trace does not name (no record written)
     * @param truncated           some rank's calls were cut at the limit
     */
    public record Summary(long calls, long sendrecvsWithoutSource, boolean truncated) {
    }

    private final Trace trace;
    private final long limitPerRank;
    private final CallTimeline timeline;
    private final Map<Integer, List<EventNode>> sendrecvsBySite = new HashMap<>();
    private long calls;
    private long withoutSource;
    private boolean truncated;
    private boolean built;

    public Otf2Export(Trace trace, long limitPerRank) {
        if (limitPerRank < 1) {
            throw new IllegalArgumentException("the limit of events per rank must be >= 1, got " + limitPerRank);
        }
        this.trace = trace;
        this.limitPerRank = limitPerRank;
        this.timeline = new CallTimeline("eventspace job, " + trace.ranks() + " ranks", trace.ranks());
    }

    /** Expands every rank's calls into the timeline (once; later calls return the same). */
    public CallTimeline timeline() {
        if (!built) {
            built = true;
            timeline.host("hosts not recorded in the trace");
            timeline.communicator(new CallTimeline.Communicator(WORLD, "MPI_COMM_WORLD",
                    IntStream.range(0, trace.ranks()).boxed().toList()));
            collectSendrecvs(trace.nodes());
            for (int rank = 0; rank < trace.ranks(); rank++) {
                new RankWalk(rank).walk(trace.nodes());
            }
        }
        return timeline;
    }

    /** What {@link #timeline()} counted. */
    public Summary summary() {
        timeline();
        return new Summary(calls, withoutSource, truncated);
    }

    /** The region name of {@code op}: an MPI function's own spelling ({@code MPI_Allreduce}), else the trace's name. */
    public static String regionName(Op op) {
        String f = op.fileName();
        if (op.mpi() && f.startsWith("mpi_") && f.length() > 4) {
            return "MPI_" + Character.toUpperCase(f.charAt(4)) + f.substring(5);
        }
        return f;
    }

    /**
     * Whether {@code op} is written as a collective: the trace's collectives and MPI_Comm_free, which MPI defines as
     * collective over the communicator it frees (OTF2's DESTROY_HANDLE) and the PMPI library records as one, so the
     * rank files' export and this one count the same collectives.
     */
    public static boolean collective(Op op) {
        return op.collective() || op == Op.MPI_COMM_FREE;
    }

    /** OTF2's region role of {@code op}. */
    public static CallTimeline.Role role(Op op) {
        if (op.pointToPoint()) {
            return CallTimeline.Role.POINT2POINT;
        }
        if (!collective(op)) {
            return CallTimeline.Role.FUNCTION;
        }
        String kind = collectiveKind(regionName(op));
        return switch (kind) {
            case "BARRIER" -> CallTimeline.Role.BARRIER;
            case "BCAST", "SCATTER", "SCATTERV" -> CallTimeline.Role.ONE2ALL;
            case "GATHER", "GATHERV", "REDUCE" -> CallTimeline.Role.ALL2ONE;
            case "CREATE_HANDLE", "DESTROY_HANDLE" -> CallTimeline.Role.OTHER;
            default -> CallTimeline.Role.ALL2ALL;
        };
    }

    /**
     * OTF2's collective operation (its name without {@code OTF2_COLLECTIVE_OP_}) of a collective's name, ours
     * ({@code allreduce_long}, {@code broadcast}) or MPI's ({@code MPI_Iallreduce}: a non-blocking one is its blocking
     * kind; {@code MPI_Neighbor_alltoall}: its pattern's; {@code MPI_Comm_split}: {@code CREATE_HANDLE}).
     */
    public static String collectiveKind(String name) {
        String n = name.toUpperCase(Locale.ROOT);
        if (n.startsWith("MPI_")) {
            n = n.substring(4);
            if (n.startsWith("COMM_") || n.startsWith("CART_") || n.startsWith("GRAPH_") || n.startsWith("DIST_GRAPH")
                    || n.startsWith("INTERCOMM_")) {
                return n.endsWith("FREE") ? "DESTROY_HANDLE" : "CREATE_HANDLE";
            }
            if (n.startsWith("WIN_")) {
                return n.equals("WIN_FENCE") ? "BARRIER" : n.equals("WIN_FREE") ? "DESTROY_HANDLE" : "CREATE_HANDLE";
            }
            if (n.startsWith("INEIGHBOR_")) {
                n = n.substring("INEIGHBOR_".length());
            } else if (n.startsWith("NEIGHBOR_")) {
                n = n.substring("NEIGHBOR_".length());
            } else if (n.startsWith("I") && !n.startsWith("INIT")) {
                n = n.substring(1);
            }
        } else {
            int cut = n.indexOf('_');
            n = cut > 0 ? n.substring(0, cut) : n;
            if (n.equals("BROADCAST")) {
                n = "BCAST";
            }
        }
        return switch (n) {
            case "BARRIER", "BCAST", "GATHER", "GATHERV", "SCATTER", "SCATTERV", "ALLGATHER", "ALLGATHERV", "ALLTOALL",
                    "ALLTOALLV", "ALLTOALLW", "ALLREDUCE", "REDUCE", "REDUCE_SCATTER", "SCAN", "EXSCAN",
                    "REDUCE_SCATTER_BLOCK" -> n;
            default -> "ALLTOALL";
        };
    }

    private final class RankWalk {
        private final int rank;
        private final DeltaSampler compute;
        private final DeltaSampler communicate;
        private final Map<EventNode, CountRuns.Cursor> counts = new IdentityHashMap<>();
        private double nowUs;
        private int previousSite = CallSite.UNMARKED;
        private long events;
        private long requests;

        RankWalk(int rank) {
            this.rank = rank;
            this.compute = new DeltaSampler(trace.encoding(), rank);
            this.communicate = new DeltaSampler(trace.encoding(), rank);
        }

        boolean walk(List<Node> nodes) {
            return RankCalls.forEach(nodes, rank, e -> {
                if (events == limitPerRank) {
                    truncated = true;
                    return false;
                }
                event(e);
                return true;
            });
        }

        private void event(EventNode e) {
            long peer = value(e.peerParams);
            long words = value(e.countParams);
            if (e.countRunsParams != null) {
                CountRuns.Cursor c = counts.computeIfAbsent(e, x -> x.counts(rank));
                words = c == null ? EventNode.NONE : c.next();
            }
            events++;
            calls++;
            // The same arithmetic as PerfettoExport's, so that both put the call at the same µs.
            nowUs += Math.max(0, compute.next(e, e.compute, previousSite)) / 1000.0;
            double durUs = Math.max(0, communicate.next(e, e.comm, previousSite)) / 1000.0;
            previousSite = e.site;
            long enterNs = Math.round(nowUs * 1000);
            long leaveNs = Math.max(enterNs, Math.round((nowUs + durUs) * 1000));
            nowUs += durUs;
            long bytes = words == EventNode.NONE ? 0 : e.op.mpi() ? words : words * Long.BYTES;

            int region = timeline.region(regionName(e.op), role(e.op), true);
            timeline.add(rank, new CallTimeline.Enter(enterNs, region));
            List<CallTimeline.Event> atLeave = new ArrayList<>(2);
            if (e.op.pointToPoint() && peer != EventNode.NONE && peer != EventNode.PROC_NULL && peer != 0) {
                int other = (int) (rank + peer);
                boolean inside = other >= 0 && other < trace.ranks();
                if (inside && PerfettoExport.sends(e.op)) {
                    if (nonBlocking(e.op)) {
                        long request = requests++;
                        timeline.add(rank, new CallTimeline.Isend(enterNs, other, WORLD, 0, bytes, request));
                        atLeave.add(new CallTimeline.IsendComplete(leaveNs, request));
                    } else {
                        timeline.add(rank, new CallTimeline.Send(enterNs, other, WORLD, 0, bytes));
                    }
                } else if (inside && e.op == Op.MPI_IRECV) {
                    long request = requests++;
                    timeline.add(rank, new CallTimeline.IrecvRequest(enterNs, request));
                    atLeave.add(new CallTimeline.Irecv(leaveNs, other, WORLD, 0, bytes, request));
                } else if (inside && PerfettoExport.receives(e.op)) {
                    atLeave.add(new CallTimeline.Receive(leaveNs, other, WORLD, 0, bytes));
                }
                if (e.op == Op.MPI_SENDRECV || e.op == Op.MPI_SENDRECV_REPLACE) {
                    int source = sendrecvSource(e);
                    if (source >= 0) {
                        atLeave.add(new CallTimeline.Receive(leaveNs, source, WORLD, 0, bytes));
                    } else {
                        withoutSource++;
                    }
                }
            } else if (collective(e.op)) {
                long root = value(e.rootParams);
                timeline.add(rank, new CallTimeline.CollectiveBegin(enterNs));
                atLeave.add(new CallTimeline.CollectiveEnd(leaveNs, collectiveKind(regionName(e.op)), WORLD,
                        root == EventNode.NONE || root < 0 || root >= trace.ranks() ? -1 : (int) root, bytes, bytes));
            }
            atLeave.forEach(x -> timeline.add(rank, x));
            timeline.add(rank, new CallTimeline.Leave(leaveNs, region));
        }

        /** As PerfettoExport's: the one rank whose sendrecv at the same call site sends here, or −1. */
        private int sendrecvSource(EventNode e) {
            return RankCalls.sendrecvSource(sendrecvsBySite.getOrDefault(e.site, List.of()), rank, trace.ranks());
        }

        private long value(Params p) {
            return p == null ? EventNode.NONE : p.valueFor(rank);
        }
    }

    private static boolean nonBlocking(Op op) {
        return op == Op.MPI_ISEND || op == Op.MPI_IBSEND || op == Op.MPI_ISSEND || op == Op.MPI_IRSEND;
    }

    private void collectSendrecvs(List<Node> nodes) {
        for (Node n : nodes) {
            if (n instanceof LoopNode l) {
                collectSendrecvs(l.body);
            } else if (n instanceof EventNode e && (e.op == Op.MPI_SENDRECV || e.op == Op.MPI_SENDRECV_REPLACE)) {
                sendrecvsBySite.computeIfAbsent(e.site, k -> new ArrayList<>()).add(e);
            }
        }
    }
}
