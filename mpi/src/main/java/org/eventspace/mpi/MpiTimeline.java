package org.eventspace.mpi;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.eventspace.events.TraceBufferReader;
import org.eventspace.events.TraceTupleFlyweight;
import org.eventspace.trace.PerfettoExport;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

/**
 * An MPI run's rank files ({@code mpirun --trace-dir DIR}: {@code host-<h>/rank-<R>.trace} and {@code .meta}) as a
 * timeline in the Chrome JSON trace-event format that Perfetto and {@code chrome://tracing} open — the exact one: every
 * slice is one call's real entry and exit, mapped onto rank 0's clock as the PMPI analysis maps them
 * ({@link HostClocks}: per host the MPI_Init and MPI_Finalize offsets, drift interpolated), in µs from the run's first
 * MPI_Init. The compressed trace ({@code --trace FILE}) keeps delta times merged over the ranks (ScalaTrace §3), so its
 * export ({@code trace.PerfettoExport}) shows every rank with the same compute; this one keeps each rank's own, so a
 * rank that computes longer is visibly the one that does.
 *
 * <p>One process, one thread track per rank. A message is a flow from its send's slice to the slice its receive
 * completed in: the k-th send on (communicator, source, destination, tag) matches the k-th receive on it in the order
 * the receives were posted (MPI's non-overtaking rule); an MPI_Recv is its own slice, an MPI_Irecv ends in the wait or
 * test whose receive record names its source, tag and bytes (the record's link to the MPI_Irecv gives the post
 * order), and MPI_Sendrecv is both a send and a receive. A send to MPI_PROC_NULL has no peer and no flow. A collective
 * instance (communicator id and its sequence, the same on every member) carries {@code args.instance} and a chain of
 * flows through its members in rank order, so one click follows it over every track.
 *
 * <p>Every flow drawn has both ends, each at the middle of its slice (Perfetto binds a flow event to the slice that
 * encloses it on its track); what could not be matched is counted, never drawn half: a send whose receive is not in
 * the files (or past the limit), a receive whose send is not, and every message of a rank whose ring overwrote tuples
 * (the k-th counting is off there). Layout in docs/TRACE-FORMAT.md. Not thread-safe; one export per call.
 */
public final class MpiTimeline {
    public static final String SCHEMA = "eventspace.mpi-timeline/1";

    /** Flow ids start here: Perfetto reads a flow's id as a number (a string as hex), so ids are plain integers. */
    private static final long FIRST_FLOW_ID = 1;
    private static final int PROBE = MpiOp.code("MPI_Probe");
    private static final int IPROBE = MpiOp.code("MPI_Iprobe");

    /**
     * What was written.
     *
     * @param ranks             ranks whose files were read
     * @param slices            calls written (complete events)
     * @param messageFlows      messages drawn from send to receive (each one {@code s} and one {@code f})
     * @param collectiveFlows   links of collective instances' chains (member to next member)
     * @param unmatchedSends    sends with a peer whose receive was not found (not drawn)
     * @param unmatchedReceives receives whose send was not found (not drawn)
     * @param tuplesLost        tuples the ranks' rings overwrote before the run ended (their ranks' messages not drawn)
     * @param truncated         some rank had more calls than the limit
     */
    public record Summary(int ranks, long slices, long messageFlows, long collectiveFlows, long unmatchedSends,
                          long unmatchedReceives, long tuplesLost, boolean truncated) {
    }

    private MpiTimeline() {
    }

    /** One call of one rank, its times on rank 0's clock (ns). */
    private record Call(int op, int flags, int site, long sequence, long value, long entryNs, long exitNs) {
        boolean failed() {
            return (flags & MpiTuple.FLAG_FAILED) != 0;
        }

        boolean collective() {
            return (flags & MpiTuple.FLAG_COLLECTIVE) != 0;
        }

        long midNs() {
            return entryNs + (exitNs - entryNs) / 2;
        }
    }

    /** One end of a message: the rank, the call (slice) it is drawn on, and its place in the matching order. */
    private record End(int rank, int call, long order) {
    }

    /** (communicator, source, destination, tag): MPI's matching key. */
    private record Channel(int comm, int source, int destination, int tag) {
    }

    /**
     * Reads every rank's files under {@code dir} and writes the timeline to {@code out} (not closed), at most
     * {@code limitPerRank} calls per rank.
     *
     * @throws IOException naming the folder if it holds no rank files, or a file if it is not one of this version.
     */
    public static Summary write(Path dir, OutputStream out, long limitPerRank) throws IOException {
        if (limitPerRank < 1) {
            throw new IllegalArgumentException("the limit of calls per rank must be >= 1, got " + limitPerRank);
        }
        try (MpiRankFolder folder = MpiRankFolder.open(dir)) {
            return new Export(folder.worldSize(), folder.byRank(), folder.clocks(), limitPerRank).write(out);
        }
    }

    /** One export: every rank's calls read and mapped, then matched, then written. */
    private static final class Export {
        private final int worldSize;
        private final long limit;
        private final Map<Integer, List<Call>> calls = new TreeMap<>();
        private final Map<Channel, List<End>> sends = new HashMap<>();
        private final Map<Channel, List<End>> receives = new HashMap<>();
        private final Map<Integer, Long> lost = new HashMap<>();
        private long originNs = Long.MAX_VALUE;
        private long anyEntryNs = Long.MAX_VALUE;
        private long unboundRecords;
        private boolean truncated;

        Export(int worldSize, Map<Integer, MpiRankFiles> byRank, HostClocks clocks, long limit) {
            this.worldSize = worldSize;
            this.limit = limit;
            TraceTupleFlyweight t = new TraceTupleFlyweight();
            for (var e : byRank.entrySet()) {
                read(e.getKey(), e.getValue(), clocks, t);
            }
            if (originNs == Long.MAX_VALUE) {
                originNs = anyEntryNs == Long.MAX_VALUE ? 0 : anyEntryNs;
            }
        }

        private void read(int rank, MpiRankFiles f, HostClocks clocks, TraceTupleFlyweight t) {
            List<Call> list = new ArrayList<>();
            // The low 32 bits of each MPI_Irecv's start (a receive record's link to it) -> the MPI_Irecv's call index.
            Map<Integer, Integer> irecvs = new HashMap<>();
            long read = 0;
            for (TraceBufferReader ring : f.rings()) {
                while (ring.readNext(t)) {
                    read++;
                    ClockMap clock = clocks.mapTuple(f.host());
                    int op = t.opType();
                    if (op == MpiTuple.RECORD_RECEIVE) {
                        receiveRecord(rank, list, irecvs, t);
                        continue;
                    }
                    if (op == MpiTuple.RECORD_COLLECTIVE_DONE) {
                        continue; // the i-call's slice stays the call itself; its completion is the wait's slice
                    }
                    Call c = new Call(op, t.flags(), t.collectorId(), t.sequence(), t.value(), clock.toBase(t.startNs()),
                            clock.toBase(t.endNs()));
                    int index = list.size();
                    list.add(c);
                    anyEntryNs = Math.min(anyEntryNs, c.entryNs);
                    if (op == MpiOp.INIT || op == MpiOp.INIT_THREAD) {
                        originNs = Math.min(originNs, c.entryNs);
                    }
                    if (c.failed()) {
                        continue;
                    }
                    int peer = MpiTuple.peer(c.value);
                    int comm = MpiTuple.comm(c.sequence);
                    int tag = MpiTuple.low(c.sequence);
                    if (MpiOp.sends(op) && peer >= 0) {
                        sends.computeIfAbsent(new Channel(comm, rank, peer, tag), k -> new ArrayList<>())
                                .add(new End(rank, index, index));
                    } else if (op == MpiOp.RECV && peer >= 0) {
                        receives.computeIfAbsent(new Channel(comm, peer, rank, tag), k -> new ArrayList<>())
                                .add(new End(rank, index, index));
                    } else if (op == MpiOp.IRECV) {
                        irecvs.put((int) t.startNs(), index);
                    }
                }
            }
            // The reader starts at the oldest tuple the ring still holds: what the rank wrote before it is lost.
            long missed = f.written() - read;
            if (missed > 0) {
                lost.put(rank, missed);
            }
            if (list.size() > limit) {
                truncated = true;
            }
            calls.put(rank, list);
        }

        /**
         * A receive that completed inside the call before it (a wait or test, or the sendrecv itself): drawn on that
         * call's slice, matched in the order its receive was posted.
         */
        private void receiveRecord(int rank, List<Call> list, Map<Integer, Integer> irecvs, TraceTupleFlyweight t) {
            int source = MpiTuple.peer(t.value());
            if (list.isEmpty() || source < 0) {
                unboundRecords += list.isEmpty() ? 1 : 0;
                return;
            }
            int call = list.size() - 1;
            long order = call;
            if ((t.flags() & MpiTuple.FLAG_NONBLOCKING) != 0) {
                Integer posted = irecvs.remove(t.collectorId());
                if (posted == null) {
                    unboundRecords++;
                    return;
                }
                order = posted;
            }
            long seq = t.sequence();
            receives.computeIfAbsent(new Channel(MpiTuple.comm(seq), source, rank, MpiTuple.low(seq)),
                    k -> new ArrayList<>()).add(new End(rank, call, order));
        }

        private boolean exported(End e) {
            return e.call < limit;
        }

        private double us(long ns) {
            return (ns - originNs) / 1000.0;
        }

        Summary write(OutputStream out) throws IOException {
            // Match first, so that only flows with both ends are written.
            List<End[]> messages = new ArrayList<>();
            long unmatchedSends = 0;
            long unmatchedReceives = 0;
            for (var e : sends.entrySet()) {
                Channel ch = e.getKey();
                List<End> s = e.getValue();
                List<End> r = receives.getOrDefault(ch, List.of());
                if (lost.containsKey(ch.source) || lost.containsKey(ch.destination)) {
                    unmatchedSends += s.size();
                    continue;
                }
                r = new ArrayList<>(r);
                r.sort((a, b) -> Long.compare(a.order, b.order));
                int n = Math.min(s.size(), r.size());
                for (int k = 0; k < n; k++) {
                    if (exported(s.get(k)) && exported(r.get(k))) {
                        messages.add(new End[] {s.get(k), r.get(k)});
                    }
                }
                unmatchedSends += s.size() - n;
            }
            for (var e : receives.entrySet()) {
                Channel ch = e.getKey();
                int sent = lost.containsKey(ch.source) || lost.containsKey(ch.destination) ? 0
                        : sends.getOrDefault(ch, List.of()).size();
                unmatchedReceives += Math.max(0, e.getValue().size() - sent);
            }
            messages.sort((a, b) -> Long.compare(calls.get(a[0].rank).get(a[0].call).entryNs,
                    calls.get(b[0].rank).get(b[0].call).entryNs));
            // Collective instances: (communicator, sequence) -> members in rank order.
            Map<Long, List<End>> instances = new HashMap<>();
            List<Long> instanceOrder = new ArrayList<>();
            for (var e : calls.entrySet()) {
                List<Call> list = e.getValue();
                for (int i = 0; i < list.size() && i < limit; i++) {
                    Call c = list.get(i);
                    if (instanceCall(c)) {
                        List<End> members = instances.computeIfAbsent(c.sequence, k -> {
                            instanceOrder.add(k);
                            return new ArrayList<>();
                        });
                        members.add(new End(e.getKey(), i, 0));
                    }
                }
            }

            JsonGenerator g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8);
            g.writeStartObject();
            g.writeStringField("displayTimeUnit", "ns");
            g.writeObjectFieldStart("otherData");
            g.writeStringField("schema", SCHEMA);
            g.writeNumberField("ranks", worldSize);
            g.writeNumberField("ranks_with_files", calls.size());
            g.writeStringField("time_base", "rank 0's clock, µs from the first MPI_Init");
            g.writeNumberField("tuples_lost", lost.values().stream().mapToLong(Long::longValue).sum());
            g.writeNumberField("unmatched_sends", unmatchedSends);
            g.writeNumberField("unmatched_receives", unmatchedReceives);
            g.writeNumberField("receive_records_unbound", unboundRecords);
            g.writeNumberField("limit_per_rank", limit);
            g.writeEndObject();
            g.writeArrayFieldStart("traceEvents");
            PerfettoExport.processName(g, "MPI program, " + worldSize + " ranks");
            long slices = 0;
            for (var e : calls.entrySet()) {
                int rank = e.getKey();
                PerfettoExport.rankTrack(g, rank);
                List<Call> list = e.getValue();
                for (int i = 0; i < list.size() && i < limit; i++) {
                    slice(g, rank, list.get(i));
                    slices++;
                }
            }
            long id = FIRST_FLOW_ID;
            for (End[] m : messages) {
                flow(g, "message", "p2p", 's', id, m[0]);
                flow(g, "message", "p2p", 'f', id, m[1]);
                id++;
            }
            long links = 0;
            for (long key : instanceOrder) {
                List<End> members = instances.get(key);
                for (int i = 0; i + 1 < members.size(); i++) {
                    flow(g, "collective", "collective", 's', id, members.get(i));
                    flow(g, "collective", "collective", 'f', id, members.get(i + 1));
                    id++;
                    links++;
                }
            }
            g.writeEndArray();
            g.writeEndObject();
            g.flush();
            return new Summary(calls.size(), slices, messages.size(), links, unmatchedSends, unmatchedReceives,
                    lost.values().stream().mapToLong(Long::longValue).sum(), truncated);
        }

        /** A collective that takes a place in its communicator's sequence (MPI_Init and MPI_Finalize are not linked). */
        private static boolean instanceCall(Call c) {
            return c.collective() && !c.failed() && c.op != MpiOp.INIT && c.op != MpiOp.INIT_THREAD
                    && c.op != MpiOp.FINALIZE && MpiTuple.comm(c.sequence) != MpiTuple.COMM_UNKNOWN_ID;
        }

        private void slice(JsonGenerator g, int rank, Call c) throws IOException {
            String name = MpiOp.name(c.op);
            boolean pointToPoint = MpiOp.sends(c.op) || MpiOp.receives(c.op) || c.op == PROBE || c.op == IPROBE;
            boolean completes = name.startsWith("MPI_Wait") || name.startsWith("MPI_Test");
            g.writeStartObject();
            g.writeStringField("name", name);
            g.writeStringField("cat", c.collective() ? "collective" : pointToPoint ? "p2p" : "other");
            g.writeStringField("ph", "X");
            g.writeNumberField("pid", 0);
            g.writeNumberField("tid", rank);
            g.writeNumberField("ts", us(c.entryNs));
            g.writeNumberField("dur", Math.max(0, c.exitNs - c.entryNs) / 1000.0);
            g.writeObjectFieldStart("args");
            g.writeNumberField("bytes", MpiTuple.bytes(c.value));
            int peer = MpiTuple.peer(c.value);
            int comm = MpiTuple.comm(c.sequence);
            if (peer >= 0) {
                g.writeNumberField(c.collective() ? "root" : "peer", peer);
            }
            if (comm != MpiTuple.COMM_UNKNOWN_ID) {
                g.writeNumberField("comm", comm);
            }
            if (instanceCall(c)) {
                g.writeStringField("instance", comm + ":" + MpiTuple.low(c.sequence));
            } else if (pointToPoint) {
                g.writeNumberField("tag", MpiTuple.low(c.sequence));
            } else if (completes) {
                g.writeNumberField("requests", MpiTuple.low(c.sequence));
            }
            g.writeStringField("site", String.format(Locale.ROOT, "%08x", c.site));
            if (c.failed()) {
                g.writeBooleanField("failed", true);
            }
            g.writeEndObject();
            g.writeEndObject();
        }

        /** One end of a flow at the middle of its slice ({@code bp: e}: bound to the slice that encloses it). */
        private void flow(JsonGenerator g, String name, String cat, char ph, long id, End at) throws IOException {
            Call c = calls.get(at.rank).get(at.call);
            g.writeStartObject();
            g.writeStringField("name", name);
            g.writeStringField("cat", cat);
            g.writeStringField("ph", String.valueOf(ph));
            if (ph == 'f') {
                g.writeStringField("bp", "e");
            }
            g.writeNumberField("id", id);
            g.writeNumberField("pid", 0);
            g.writeNumberField("tid", at.rank);
            g.writeNumberField("ts", us(c.midNs()));
            g.writeEndObject();
        }
    }
}
