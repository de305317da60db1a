package org.eventspace.mpi;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import org.eventspace.events.TraceBufferReader;
import org.eventspace.events.TraceTupleFlyweight;
import org.eventspace.trace.CallTimeline;
import org.eventspace.trace.Op;
import org.eventspace.trace.Otf2Export;

/**
 * An MPI run's rank files ({@code mpirun --trace-dir DIR}) as a {@link CallTimeline} for an OTF2 archive — the exact
 * one, as {@link MpiTimeline} reads the same files for Perfetto: every call's own entry and exit, mapped onto rank 0's
 * clock as the PMPI analysis maps them ({@link HostClocks}), ns from the run's first call (the archive's global offset
 * is that call's time on rank 0's monotonic clock). One system-tree node per host (the rank's host name), one location
 * group and one location per rank.
 *
 * <p>Records, from what the PMPI library wrote: a blocking send's MpiSend at its entry (the communicator, the peer's
 * rank in it, the tag, the bytes); MPI_Recv's MpiRecv at its exit with the source and tag that matched; an MPI_Irecv's
 * MpiIrecvRequest at its entry and MpiIrecv at the exit of the wait or test whose receive record completes it (source,
 * tag, bytes from the status); MPI_Sendrecv a send at its entry and, from its receive record, a receive at its exit.
 * An MPI_Isend's MpiIsend is at its entry and its MpiIsendComplete at its exit: the library does not record which wait
 * completed a send request. A collective is MpiCollectiveBegin at its entry and MpiCollectiveEnd at its exit with its
 * OTF2 operation, communicator, root (its rank in the communicator) and the call's one recorded volume as both bytes
 * sent and received; a non-blocking collective's whole exchange is drawn in its i-call. MPI_Init and MPI_Finalize are
 * plain regions.
 *
 * <p>Communicators: MPI_COMM_WORLD over every rank, and each communicator the ranks' meta files list, its members the
 * ranks that list it, in world-rank order (the files do not hold a communicator's own rank order: a split with
 * reordering keys maps peers to the wrong member). A record on a communicator not defined so (MPI_COMM_SELF, a window,
 * one a rank could not list) is not written: its call stays an Enter/Leave pair, and it is counted. A rank whose ring
 * overwrote calls is exported from what is left (counted). A rank whose other threads called MPI (each has a ring of
 * its own) gets a location per such thread in its location group, since one location's calls must nest; the rank's
 * MPI rank is its main thread's location.
 */
public final class MpiOtf2Export {
    /**
     * What the timeline left out or could not place.
     *
     * @param ranks                 ranks whose files were read
     * @param calls                 calls exported (Enter/Leave pairs)
     * @param tuplesLost            calls the rings overwrote before the run ended
     * @param threadLocations       locations of ranks' other threads (their calls came from rings of their own)
     * @param recordsWithoutComm    message or collective records left out: their communicator is not defined
     * @param irecvsNotCompleted    MPI_Irecv requests no receive record completed (request without an MpiIrecv)
     * @param truncated             some rank had more calls than the limit
     */
    public record Summary(int ranks, long calls, long tuplesLost, int threadLocations, long recordsWithoutComm,
                          long irecvsNotCompleted, boolean truncated) {
    }

    /** The timeline and what it left out. */
    public record Result(CallTimeline timeline, Summary summary) {
    }

    private MpiOtf2Export() {
    }

    /** One call as read: times on rank 0's clock (ns), its receive record if one followed it. */
    private record Call(int op, int flags, long sequence, long value, long entryNs, long exitNs, int irecvLink,
                        List<long[]> receives) {
    }

    /**
     * Reads every rank's files under {@code dir} (at most {@code limitPerRank} calls per rank).
     *
     * @throws IOException naming the folder if it holds no rank files, or a file if it is not one of this version.
     */
    public static Result read(Path dir, long limitPerRank) throws IOException {
        if (limitPerRank < 1) {
            throw new IllegalArgumentException("the limit of calls per rank must be >= 1, got " + limitPerRank);
        }
        try (MpiRankFolder folder = MpiRankFolder.open(dir)) {
            return new Build(folder.worldSize(), limitPerRank).run(folder.byRank(), folder.clocks());
        }
    }

    private static final class Build {
        private final int worldSize;
        private final long limit;
        private final CallTimeline timeline;
        /** Our communicator id (from the library's id): 0 is MPI_COMM_WORLD. */
        private final Map<Integer, Integer> commIds = new HashMap<>();
        private final Map<Integer, List<Integer>> commMembers = new HashMap<>();
        private long calls;
        private long lost;
        private int threads;
        private long withoutComm;
        private long irecvsOpen;
        private boolean truncated;

        Build(int worldSize, long limit) {
            this.worldSize = worldSize;
            this.limit = limit;
            this.timeline = new CallTimeline("MPI program, " + worldSize + " ranks", worldSize);
        }

        Result run(Map<Integer, MpiRankFiles> byRank, HostClocks clocks) {
            communicators(byRank);
            Map<Integer, List<List<Call>>> calls = new TreeMap<>();
            long origin = Long.MAX_VALUE;
            TraceTupleFlyweight t = new TraceTupleFlyweight();
            for (var e : byRank.entrySet()) {
                List<List<Call>> rings = read(e.getValue(), clocks, t);
                calls.put(e.getKey(), rings);
                for (List<Call> list : rings) {
                    if (!list.isEmpty()) {
                        origin = Math.min(origin, list.get(0).entryNs);
                    }
                }
            }
            timeline.originNs(origin == Long.MAX_VALUE ? 0 : origin);
            for (var e : calls.entrySet()) {
                int rank = e.getKey();
                timeline.placeRank(rank, byRank.get(rank).hostName());
                List<List<Call>> rings = e.getValue();
                for (int ring = 0; ring < rings.size(); ring++) {
                    if (ring > 0 && rings.get(ring).isEmpty()) {
                        continue;
                    }
                    events(ring == 0 ? rank : timeline.thread(rank), rings.get(ring), timeline.originNs());
                    threads += ring > 0 ? 1 : 0;
                }
            }
            return new Result(timeline, new Summary(byRank.size(), this.calls, lost, threads, withoutComm,
                    irecvsOpen, truncated));
        }

        /** MPI_COMM_WORLD, then every communicator some rank lists, members the ranks that list it. */
        private void communicators(Map<Integer, MpiRankFiles> byRank) {
            List<Integer> world = new ArrayList<>();
            for (int r = 0; r < worldSize; r++) {
                world.add(r);
            }
            commIds.put(MpiTuple.COMM_WORLD_ID, 0);
            commMembers.put(MpiTuple.COMM_WORLD_ID, world);
            timeline.communicator(new CallTimeline.Communicator(0, "MPI_COMM_WORLD", world));
            Map<Integer, TreeSet<Integer>> listed = new TreeMap<>();
            List<Integer> order = new ArrayList<>();
            for (var e : byRank.entrySet()) {
                MpiRankFiles f = e.getValue();
                int n = f.communicators();
                for (int i = 0; i < n; i++) {
                    int id = f.communicatorId(i);
                    if (id == MpiTuple.COMM_WORLD_ID || id == MpiTuple.COMM_SELF_ID || id == MpiTuple.COMM_UNKNOWN_ID) {
                        continue;
                    }
                    listed.computeIfAbsent(id, k -> {
                        order.add(k);
                        return new TreeSet<>();
                    }).add(e.getKey());
                }
            }
            for (int id : order) {
                List<Integer> members = new ArrayList<>(listed.get(id));
                int ours = commIds.size();
                commIds.put(id, ours);
                commMembers.put(id, members);
                timeline.communicator(new CallTimeline.Communicator(ours,
                        String.format("communicator %08x", id), members));
            }
        }

        /** Each ring's calls (the rank's main thread's first, then one ring per other thread that called MPI). */
        private List<List<Call>> read(MpiRankFiles f, HostClocks clocks, TraceTupleFlyweight t) {
            List<List<Call>> rings = new ArrayList<>();
            long read = 0;
            for (TraceBufferReader reader : f.rings()) {
                List<Call> list = new ArrayList<>();
                rings.add(list);
                boolean cut = false;
                while (reader.readNext(t)) {
                    read++;
                    ClockMap clock = clocks.mapTuple(f.host());
                    int op = t.opType();
                    if (op == MpiTuple.RECORD_RECEIVE) {
                        if (!list.isEmpty() && !cut) {
                            list.get(list.size() - 1).receives.add(new long[] {t.flags(), t.collectorId(),
                                    t.sequence(), t.value()});
                        }
                        continue;
                    }
                    if (op == MpiTuple.RECORD_COLLECTIVE_DONE) {
                        continue;
                    }
                    if (list.size() == limit) {
                        truncated = true;
                        cut = true;
                        continue;
                    }
                    list.add(new Call(op, t.flags(), t.sequence(), t.value(), clock.toBase(t.startNs()),
                            clock.toBase(t.endNs()), (int) t.startNs(), new ArrayList<>(1)));
                }
            }
            long missed = f.written() - read;
            if (missed > 0) {
                lost += missed;
            }
            return rings;
        }

        /** One location's events: a ring's calls, each an Enter/Leave pair with its records. */
        private void events(int location, List<Call> list, long originNs) {
            Map<Integer, Long> irecvRequests = new HashMap<>();
            long last = 0;
            for (int i = 0; i < list.size(); i++) {
                Call c = list.get(i);
                // Clock maps are monotonic; the clamp only guards a location's order against a map's rounding.
                long entry = Math.max(last, c.entryNs - originNs);
                long exit = Math.max(entry, c.exitNs - originNs);
                last = exit;
                calls++;
                String name = MpiOp.name(c.op);
                Op op = Op.ofMpiName(name);
                int region = timeline.region(name, Otf2Export.role(op), true);
                timeline.add(location, new CallTimeline.Enter(entry, region));
                List<CallTimeline.Event> atExit = new ArrayList<>(2);
                boolean failed = (c.flags & MpiTuple.FLAG_FAILED) != 0;
                int peer = MpiTuple.peer(c.value);
                int libraryComm = MpiTuple.comm(c.sequence);
                int tag = MpiTuple.low(c.sequence);
                long bytes = MpiTuple.bytes(c.value);
                if (!failed && MpiOp.sends(c.op) && peer >= 0 && (c.flags & MpiTuple.FLAG_PROC_NULL) == 0) {
                    Integer comm = commIds.get(libraryComm);
                    int inComm = comm == null ? -1 : commMembers.get(libraryComm).indexOf(peer);
                    if (inComm < 0) {
                        withoutComm++;
                    } else if (name.startsWith("MPI_I")) {
                        timeline.add(location, new CallTimeline.Isend(entry, inComm, comm, tag, bytes, i));
                        atExit.add(new CallTimeline.IsendComplete(exit, i));
                    } else {
                        timeline.add(location, new CallTimeline.Send(entry, inComm, comm, tag, bytes));
                    }
                } else if (!failed && c.op == MpiOp.RECV && peer >= 0 && (c.flags & MpiTuple.FLAG_PROC_NULL) == 0) {
                    receive(libraryComm, peer, tag, bytes, exit, -1, atExit);
                } else if (!failed && c.op == MpiOp.IRECV) {
                    timeline.add(location, new CallTimeline.IrecvRequest(entry, i));
                    irecvRequests.put(c.irecvLink, (long) i);
                } else if (!failed && (c.flags & MpiTuple.FLAG_COLLECTIVE) != 0 && c.op != MpiOp.INIT
                        && c.op != MpiOp.INIT_THREAD && c.op != MpiOp.FINALIZE) {
                    Integer comm = commIds.get(libraryComm);
                    if (comm == null) {
                        withoutComm++;
                    } else {
                        int root = peer < 0 ? -1 : commMembers.get(libraryComm).indexOf(peer);
                        timeline.add(location, new CallTimeline.CollectiveBegin(entry));
                        atExit.add(new CallTimeline.CollectiveEnd(exit, Otf2Export.collectiveKind(name), comm, root,
                                bytes, bytes));
                    }
                }
                // Receives that completed inside this call: an MPI_Irecv's (in a wait or test), a sendrecv's half.
                for (long[] r : c.receives) {
                    int flags = (int) r[0];
                    long seq = r[2];
                    int source = MpiTuple.peer(r[3]);
                    if (source < 0) {
                        continue;
                    }
                    if ((flags & MpiTuple.FLAG_NONBLOCKING) != 0) {
                        Long request = irecvRequests.remove((int) r[1]);
                        if (request == null) {
                            continue; // its MPI_Irecv is not in the export (lost or past the limit)
                        }
                        receive(MpiTuple.comm(seq), source, MpiTuple.low(seq), MpiTuple.bytes(r[3]), exit, request,
                                atExit);
                    } else {
                        receive(MpiTuple.comm(seq), source, MpiTuple.low(seq), MpiTuple.bytes(r[3]), exit, -1, atExit);
                    }
                }
                atExit.forEach(x -> timeline.add(location, x));
                timeline.add(location, new CallTimeline.Leave(exit, region));
            }
            irecvsOpen += irecvRequests.size();
        }

        /** A receive's record ({@code request} >= 0: a non-blocking one's MpiIrecv), or counted without a comm. */
        private void receive(int libraryComm, int source, int tag, long bytes, long at, long request,
                             List<CallTimeline.Event> out) {
            Integer comm = commIds.get(libraryComm);
            int inComm = comm == null ? -1 : commMembers.get(libraryComm).indexOf(source);
            if (inComm < 0) {
                withoutComm++;
            } else if (request >= 0) {
                out.add(new CallTimeline.Irecv(at, inComm, comm, tag, bytes, request));
            } else {
                out.add(new CallTimeline.Receive(at, inComm, comm, tag, bytes));
            }
        }
    }
}
