package org.eventspace.mpi;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.eventspace.events.TraceTupleFlyweight;
import org.eventspace.base.stats.RunningStatistics;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The PMPI analysis of one MPI run, fed by the node agents: per collective instance the last arriver and every
 * rank's wait ({@link CollectiveWaits}), late senders and receivers ({@link PointToPointWaits}), each rank's profile
 * (calls and time per MPI function, min/mean/max across ranks and the imbalance) and the clock alignment.
 *
 * <p>Time base: rank 0's clock. Ranks on one host share its clock, so a host's timestamps are moved by one
 * {@link ClockMap}: the identity on rank 0's host, else the offsets to rank 0 measured at MPI_Init and at
 * MPI_Finalize, each the one with the shortest round trip among the host's ranks (Cristian's algorithm, best of 10
 * ping-pongs per rank; within half that round trip), interpolated linearly between the two (drift applied). A
 * host's map is fixed at its first tuple: while the program runs the MPI_Finalize offsets do not exist yet, so the
 * live analysis maps with the MPI_Init offset alone, and {@link #reread} reads the rings again afterwards, as
 * Scalasca interpolates post-mortem, for the report.
 *
 * <p>Not thread-safe: fed by one agent thread; read by {@link #report} after the agents stopped.
 */
final class MpiAnalysis implements MpiTupleSink {
    private int worldSize = -1;
    private final List<MpiRankFiles> rankFiles = new ArrayList<>();
    private final List<int[]> pendingComms = new ArrayList<>();
    private MpiRankFiles[] byRank = new MpiRankFiles[0];
    private int[] hostOf = new int[0];
    private final java.util.Map<Integer, HostClock> hostClocks = new java.util.HashMap<>();
    private long[][] timeNs = new long[0][];
    private long[][] tupleCalls = new long[0][];
    private int[] lastOp = new int[0];
    private long[] lastEndNs = new long[0];
    private RunningStatistics[] durationUs = new RunningStatistics[MpiOp.END - MpiOp.FIRST];
    /** Per rank, the duration of its collective calls (µs): a port's total time in the live view. */
    private RunningStatistics[] collectiveUs = new RunningStatistics[0];
    private CollectiveWaits collectives;
    private PointToPointWaits pointToPoint;
    private long tuplesRead;
    private MpiScope scope;
    private List<RankSnapshot> snapshots = List.of();
    private RankSnapshot[] snapshotByRank = new RankSnapshot[0];
    private long unknownOps;
    private long receiveRecords;
    private long tuplesMappedLinear;
    private long tuplesMappedInitOnly;
    /** A reread's: the live analysis' scope, reported but not fed again. */
    private MpiScope reportScope;
    private String driftNote = "";
    private long sizesUnknown;

    @Override
    public void onRank(int host, MpiRankFiles rank) {
        if (worldSize < 0) {
            worldSize = Math.max(1, rank.size());
            byRank = new MpiRankFiles[worldSize];
            hostOf = new int[worldSize];
            timeNs = new long[worldSize][MpiOp.END - MpiOp.FIRST];
            tupleCalls = new long[worldSize][MpiOp.END - MpiOp.FIRST];
            lastOp = new int[worldSize];
            lastEndNs = new long[worldSize];
            collectiveUs = new RunningStatistics[worldSize];
            for (int c = 0; c < worldSize; c++) {
                collectiveUs[c] = new RunningStatistics();
            }
            collectives = new CollectiveWaits(worldSize);
            pointToPoint = new PointToPointWaits(worldSize);
            for (int[] c : pendingComms) {
                collectives.communicator(c[0], c[1]);
            }
        }
        rankFiles.add(rank);
        int r = rank.rank();
        if (r >= 0 && r < worldSize) {
            byRank[r] = rank;
            hostOf[r] = host;
            HostClock clock = hostClocks.computeIfAbsent(host, h -> new HostClock());
            clock.ranks.add(rank);
            clock.rank0 |= r == 0;
        }
    }

    /**
     * The ranks of one host share its clock, so one map serves them all: the identity on rank 0's host, else built
     * from the measurements with the shortest round trip among the host's ranks (the tightest bounds, ±rtt/2), at
     * MPI_Init and, once they exist, at MPI_Finalize. Fixed at the host's first tuple, so every tuple of a host is
     * mapped alike.
     */
    private static final class HostClock {
        boolean rank0;
        final List<MpiRankFiles> ranks = new ArrayList<>();
        ClockMap map;
        boolean initMeasured;

        ClockMap map() {
            if (map == null) {
                map = build();
            }
            return map;
        }

        /** The map as the files stand now (for the report of a host that has no tuple). */
        ClockMap build() {
            initMeasured = false;
            if (rank0) {
                initMeasured = true;
                return ClockMap.IDENTITY;
            }
            MpiRankFiles init = null;
            MpiRankFiles fin = null;
            for (MpiRankFiles f : ranks) {
                if (f.initOffsetNs() != MpiRankMetaLayout.NO_OFFSET && (init == null || f.initRttNs() < init.initRttNs())) {
                    init = f;
                }
                if (f.finalizeOffsetNs() != MpiRankMetaLayout.NO_OFFSET
                        && (fin == null || f.finalizeRttNs() < fin.finalizeRttNs())) {
                    fin = f;
                }
            }
            if (init == null) {
                return ClockMap.IDENTITY;
            }
            initMeasured = true;
            if (fin == null) {
                return ClockMap.constant(init.initNs(), init.initOffsetNs(), init.initRttNs());
            }
            return ClockMap.linear(init.initNs(), init.initOffsetNs(), init.initRttNs(), fin.finalizeNs(),
                    fin.finalizeOffsetNs(), fin.finalizeRttNs());
        }
    }

    /** The clock map of {@code rank}'s host, counting the tuple it maps. */
    private ClockMap clockOf(int rank) {
        HostClock h = hostClocks.get(hostOf[rank]);
        ClockMap m = h.map();
        if (m.linear()) {
            tuplesMappedLinear++;
        } else if (!h.rank0) {
            tuplesMappedInitOnly++;
        }
        return m;
    }

    /** Runs ToM's filter of {@code scope} over every call from now on. */
    void scope(MpiScope scope) {
        this.scope = scope;
    }

    MpiScope scope() {
        return scope != null ? scope : reportScope;
    }

    /**
     * The analysis for the report, after the program ended and {@link #finish} ran: this one if every tuple was
     * mapped with its host's drift (read after MPI_Finalize, as with {@code --agent after}, or all on rank 0's host);
     * else a new analysis that reads the rings of {@code agents}' hosts again, from the start, now that the
     * MPI_Finalize offsets are in the meta files — if the rings still hold every tuple this one read (else this one,
     * with the MPI_Init offsets alone, and a note saying so). The scope of ToM's filter is this one's, not fed twice.
     */
    MpiAnalysis reread(List<NodeAgent> agents) {
        if (tuplesMappedInitOnly == 0) {
            return this;
        }
        MpiAnalysis again = new MpiAnalysis();
        again.reportScope = scope;
        List<NodeAgent> readers = new ArrayList<>();
        try {
            for (NodeAgent a : agents) {
                NodeAgent r = a.rereading(again);
                readers.add(r);
                r.drain();
            }
            again.finish();
        } finally {
            readers.forEach(NodeAgent::onClose);
        }
        if (again.tuplesRead != tuplesRead) {
            driftNote = "not applied: the rings no longer hold every tuple the live analysis read (" + again.tuplesRead
                    + " of " + tuplesRead + "); MPI_Init offsets only";
            return this;
        }
        if (again.tuplesMappedInitOnly != 0) {
            again.driftNote = "not applied on hosts none of whose ranks measured an MPI_Finalize offset (they did not "
                    + "reach it): MPI_Init offset only there";
        }
        return again;
    }

    @Override
    public boolean everyRankSeen() {
        return worldSize > 0 && rankFiles.size() >= worldSize;
    }

    @Override
    public void onCommunicator(int id, int size) {
        if (collectives == null) {
            pendingComms.add(new int[] {id, size});
        } else {
            collectives.communicator(id, size);
        }
    }

    @Override
    public void onTuple(int host, int rank, TraceTupleFlyweight t) {
        tuplesRead++;
        int op = t.opType();
        if (op == MpiTuple.RECORD_RECEIVE && rank >= 0 && rank < worldSize) {
            receiveRecords++;
            onReceiveRecord(rank, clockOf(rank), t);
            return;
        }
        if (!MpiOp.known(op) || rank < 0 || rank >= worldSize) {
            unknownOps++;
            return;
        }
        int i = op - MpiOp.FIRST;
        long duration = t.endNs() - t.startNs();
        timeNs[rank][i] += duration;
        tupleCalls[rank][i]++;
        RunningStatistics s = durationUs[i];
        if (s == null) {
            s = durationUs[i] = new RunningStatistics();
        }
        s.add(duration / 1000.0);
        lastOp[rank] = op;
        lastEndNs[rank] = t.endNs();
        if (scope != null) {
            scope.add(host, rank, MpiOp.name(op), duration / 1000.0);
        }
        ClockMap clock = clockOf(rank);
        long entry = clock.toBase(t.startNs());
        long exit = clock.toBase(t.endNs());
        long seq = t.sequence();
        int comm = MpiTuple.comm(seq);
        if (MpiTuple.collective(t)) {
            if (op != MpiOp.INIT && op != MpiOp.INIT_THREAD && op != MpiOp.FINALIZE && !MpiOp.neighbourhood(op)) {
                collectiveUs[rank].add(duration / 1000.0);
                collectives.arrive(comm, MpiTuple.low(seq), rank, entry);
            }
        } else if (MpiOp.sends(op)) {
            int peer = MpiTuple.peer(t.value());
            if (peer >= 0) {
                pointToPoint.send(comm, rank, peer, MpiTuple.low(seq), entry, exit,
                        op != MpiOp.SENDRECV && op != MpiOp.SENDRECV_REPLACE);
            }
        } else if (op == MpiOp.RECV) {
            int peer = MpiTuple.peer(t.value());
            if (peer >= 0) {
                pointToPoint.receive(comm, peer, rank, MpiTuple.low(seq), entry, exit);
            }
        } else if (op == MpiOp.IRECV && (t.flags() & MpiTuple.FLAG_FAILED) == 0) {
            pointToPoint.post(comm, MpiTuple.peer(t.value()), rank, MpiTuple.low(seq), entry, (int) t.startNs());
        }
    }

    /** A receive that completed inside a call: a sendrecv's receive half, or an MPI_Irecv a wait or test completed. */
    private void onReceiveRecord(int rank, ClockMap clock, TraceTupleFlyweight t) {
        int peer = MpiTuple.peer(t.value());
        if (peer < 0) {
            return;
        }
        long seq = t.sequence();
        long entry = clock.toBase(t.startNs());
        long exit = clock.toBase(t.endNs());
        if ((t.flags() & MpiTuple.FLAG_NONBLOCKING) != 0) {
            pointToPoint.complete(MpiTuple.comm(seq), peer, rank, MpiTuple.low(seq), t.collectorId(), entry, exit);
        } else {
            pointToPoint.receive(MpiTuple.comm(seq), peer, rank, MpiTuple.low(seq), entry, exit);
        }
    }

    /** The end of the run (agents drained): instances still missing a member are counted incomplete. */
    void finish() {
        if (scope != null) {
            scope.finish();
        }
        snapshots = new ArrayList<>();
        snapshotByRank = new RankSnapshot[Math.max(0, worldSize)];
        for (MpiRankFiles f : rankFiles) {
            RankSnapshot snapshot = RankSnapshot.of(f);
            snapshots.add(snapshot);
            if (snapshot.rank() >= 0 && snapshot.rank() < snapshotByRank.length) {
                snapshotByRank[snapshot.rank()] = snapshot;
            }
        }
        if (collectives != null) {
            collectives.finish(true);
        }
    }

    int worldSize() {
        return worldSize;
    }

    /** The rank that arrived last most often at collectives (a tie: the one that caused the larger wait), or −1. */
    int slowestRank() {
        if (collectives == null) {
            return -1;
        }
        int best = -1;
        for (int r = 0; r < worldSize; r++) {
            if (collectives.lastArrivals[r] == 0) {
                continue;
            }
            if (best < 0 || collectives.lastArrivals[r] > collectives.lastArrivals[best]
                    || collectives.lastArrivals[r] == collectives.lastArrivals[best]
                    && collectives.waitCausedNs[r] > collectives.waitCausedNs[best]) {
                best = r;
            }
        }
        return best;
    }

    /** z of rank r's last arrivals against chance (each instance of P members: last with probability 1/P). */
    double lastArrivalZ(int r) {
        double var = collectives.varianceLast[r];
        return var <= 0 ? 0 : (collectives.lastArrivals[r] - collectives.expectedLast[r]) / Math.sqrt(var);
    }

    long calls(int op) {
        long n = 0;
        for (RankSnapshot f : snapshots) {
            n += f.calls(op - MpiOp.FIRST);
        }
        return n;
    }

    long bytesSent() {
        long b = 0;
        for (RankSnapshot f : snapshots) {
            for (int i = 0; i < f.bytes().length; i++) {
                if (MpiOp.sends(MpiOp.FIRST + i)) {
                    b += f.bytes(i);
                }
            }
        }
        return b;
    }

    List<Integer> unfinishedRanks() {
        List<Integer> out = new ArrayList<>();
        for (int r = 0; r < worldSize; r++) {
            if (r >= snapshotByRank.length || snapshotByRank[r] == null || !snapshotByRank[r].finalized()) {
                out.add(r);
            }
        }
        return out;
    }

    /** The {@code mpi} block of the report; {@code written} and {@code missed} from the agents. */
    ObjectNode mpiJson(ObjectMapper json, long written, long missed, int hosts) {
        ObjectNode mpi = json.createObjectNode();
        mpi.put("ranks", Math.max(0, worldSize));
        mpi.put("ranks_traced", snapshots.size());
        mpi.put("hosts", hosts);
        ObjectNode calls = mpi.putObject("calls");
        long total = 0;
        for (int op = MpiOp.FIRST; op < MpiOp.END; op++) {
            long n = calls(op);
            if (n > 0) {
                calls.put(MpiOp.name(op), n);
                total += n;
            }
        }
        mpi.put("calls_total", total);
        mpi.put("bytes_sent", bytesSent());
        mpi.put("tuples_written", written);
        mpi.put("tuples_read", tuplesRead);
        mpi.put("tuples_missed", missed);
        long untraced = 0;
        for (RankSnapshot f : snapshots) {
            untraced += f.untracedCalls();
        }
        mpi.put("untraced_calls", untraced);
        ArrayNode unfinished = mpi.putArray("unfinished_ranks");
        for (int r : unfinishedRanks()) {
            ObjectNode u = unfinished.addObject();
            u.put("rank", r);
            if (snapshotByRank[r] == null) {
                u.put("state", "no trace files (the rank never reached MPI_Init, or its host's agent did not run)");
            } else {
                u.put("state", "no MPI_Finalize");
                u.put("pid", snapshotByRank[r].pid());
                u.put("last_call", lastOp[r] == 0 ? null : MpiOp.name(lastOp[r]));
                u.put("last_call_end_ns", lastEndNs[r]);
                u.put("tuples_written", snapshotByRank[r].tuplesWritten());
            }
        }
        if (collectives != null) {
            ObjectNode c = mpi.putObject("collectives");
            c.put("instances", collectives.instances);
            c.put("incomplete", collectives.incomplete);
            c.put("unknown_communicator_calls", collectives.unknownCommunicator);
            ObjectNode p = mpi.putObject("point_to_point");
            p.put("matched", pointToPoint.matched);
            p.put("unmatched", pointToPoint.unmatched());
            p.put("receive_records", receiveRecords);
            p.put("completions_without_post", pointToPoint.completionsWithoutPost);
            long untracked = 0;
            for (RankSnapshot f : snapshots) {
                untracked += f.untrackedRequests();
            }
            p.put("untracked_requests", untracked);
            ObjectNode ls = p.putObject("late_sender_wait_us");
            ObjectNode lsn = p.putObject("late_sender_calls");
            ObjectNode lc = p.putObject("late_sender_caused_us");
            ObjectNode lr = p.putObject("late_receiver_wait_us");
            for (int r = 0; r < worldSize; r++) {
                ls.put(String.valueOf(r), round(pointToPoint.lateSenderNs[r] / 1000.0));
                lsn.put(String.valueOf(r), pointToPoint.lateSenderCount[r]);
                lc.put(String.valueOf(r), round(pointToPoint.lateSenderCausedNs[r] / 1000.0));
                lr.put(String.valueOf(r), round(pointToPoint.lateReceiverNs[r] / 1000.0));
            }
        }
        mpi.set("clock", clockJson(json));
        return mpi;
    }

    /**
     * Each rank's host (its node agent's index, 0 .. hosts-1; a rank that left no files is put on host 0) and the
     * hosts' names by index (a machine that holds several simulated hosts gives each its index after a {@code #}).
     * Valid once the run ended.
     */
    /** Per rank, how many clock synchronisations with rank 0 it completed (0, 1 or 2: at MPI_Init, at MPI_Finalize). */
    int[] clockSyncs() {
        int[] syncs = new int[Math.max(0, worldSize)];
        for (RankSnapshot f : snapshots) {
            if (f.rank() > 0 && f.rank() < syncs.length) {
                syncs[f.rank()] = (f.initOffsetNs() != MpiRankMetaLayout.NO_OFFSET ? 1 : 0)
                        + (f.finalizeOffsetNs() != MpiRankMetaLayout.NO_OFFSET ? 1 : 0);
            }
        }
        return syncs;
    }

    MpiHostLayout hostLayout() {
        int hosts = 1;
        for (RankSnapshot f : snapshots) {
            hosts = Math.max(hosts, f.host() + 1);
        }
        int[] rankHosts = new int[Math.max(0, worldSize)];
        String[] names = new String[hosts];
        for (RankSnapshot f : snapshots) {
            if (f.rank() >= 0 && f.rank() < rankHosts.length && f.host() >= 0) {
                rankHosts[f.rank()] = f.host();
                names[f.host()] = f.hostName();
            }
        }
        List<String> hostNames = new ArrayList<>();
        for (int h = 0; h < hosts; h++) {
            String n = names[h] == null ? "host-" + h : names[h];
            boolean shared = false;
            for (int g = 0; g < hosts; g++) {
                shared |= g != h && n.equals(names[g]);
            }
            hostNames.add(shared ? n + "#" + h : n);
        }
        return new MpiHostLayout(rankHosts, hostNames);
    }

    private ObjectNode clockJson(ObjectMapper json) {
        ObjectNode clock = json.createObjectNode();
        clock.put("time_base", "rank 0's CLOCK_MONOTONIC; per host the offsets at MPI_Init and MPI_Finalize (Cristian, "
                + "best of 10 round trips each), interpolated linearly between the two");
        clock.put("drift_applied", tuplesMappedInitOnly == 0);
        if (!driftNote.isEmpty()) {
            clock.put("drift_note", driftNote);
        }
        clock.put("tuples_mapped_with_drift", tuplesMappedLinear);
        clock.put("tuples_mapped_init_offset_only", tuplesMappedInitOnly);
        ArrayNode ranks = clock.putArray("ranks");
        for (RankSnapshot f : snapshots) {
            ObjectNode o = ranks.addObject();
            o.put("rank", f.rank());
            o.put("host", f.host());
            o.put("host_name", f.hostName());
            long oi = f.initOffsetNs();
            long of = f.finalizeOffsetNs();
            o.put("offset_init_ns", oi == MpiRankMetaLayout.NO_OFFSET ? null : oi);
            o.put("rtt_init_ns", f.initRttNs());
            o.put("offset_finalize_ns", of == MpiRankMetaLayout.NO_OFFSET ? null : of);
            o.put("rtt_finalize_ns", of == MpiRankMetaLayout.NO_OFFSET ? null : f.finalizeRttNs());
            if (oi != MpiRankMetaLayout.NO_OFFSET && of != MpiRankMetaLayout.NO_OFFSET) {
                ClockMap m = ClockMap.linear(f.initNs(), oi, f.initRttNs(), f.finalizeNs(), of, f.finalizeRttNs());
                o.put("drift_ns", m.driftNs());
                o.put("drift_ppm", round(m.driftPpm()));
                o.put("error_bound_ns", m.errorBoundNs());
            }
            if (f.skewNs() != 0) {
                o.put("simulated_skew_ns", f.skewNs());
            }
        }
        long bound = 0;
        long drift = 0;
        ArrayNode hostsNode = clock.putArray("hosts");
        for (var e : new java.util.TreeMap<>(hostClocks).entrySet()) {
            HostClock hc = e.getValue();
            ClockMap m = hc.map != null ? hc.map : hc.build();
            boolean measured = hc.map != null || hc.initMeasured;
            ObjectNode h = hostsNode.addObject();
            h.put("host", e.getKey());
            h.put("mapping", hc.rank0 ? "identity (rank 0's host)" : !measured ? "none (no offset measured)"
                    : m.linear() ? "linear (drift applied)" : "MPI_Init offset only");
            h.put("offset_ns", m.offsetInitNs());
            h.put("offset_init_ns", m.offsetInitNs());
            h.put("offset_finalize_ns", m.linear() ? m.offsetFinalizeNs() : null);
            h.put("drift_ns", m.driftNs());
            h.put("drift_ppm", round(m.driftPpm()));
            h.put("span_ns", m.finalizeAtNs() - m.initAtNs());
            if (!measured) {
                h.putNull("accuracy_ns");
                h.putNull("error_bound_ns");
            } else {
                h.put("accuracy_ns", m.rttInitNs() / 2);
                h.put("error_bound_ns", m.errorBoundNs());
                if (!hc.rank0) {
                    bound = Math.max(bound, m.errorBoundNs());
                    drift = Math.max(drift, Math.abs(m.driftNs()));
                }
            }
        }
        clock.put("cross_host_accuracy_ns", bound);
        clock.put("cross_host_drift_ns", drift);
        return clock;
    }

    /** The {@code monitors} block, as {@code run} writes it, with the kinds asked for. */
    ObjectNode monitorsJson(ObjectMapper json, Set<String> kinds) {
        ObjectNode m = json.createObjectNode();
        ArrayNode k = m.putArray("kinds");
        kinds.stream().sorted().forEach(k::add);
        if (collectives == null) {
            return m;
        }
        if (kinds.contains("loadbalance")) {
            ObjectNode lb = m.putObject("loadbalance");
            int slowest = slowestRank();
            lb.put("slowest_rank", slowest < 0 ? null : slowest);
            if (slowest >= 0) {
                lb.put("slowest_rank_last_share", round((double) collectives.lastArrivals[slowest]
                        / Math.max(1, collectives.participations[slowest])));
                double z = lastArrivalZ(slowest);
                lb.put("slowest_rank_z", round(z));
                lb.put("slowest_rank_beyond_chance", z > 3.0);
            }
            lb.put("collective_instances", collectives.instances);
            ObjectNode wait = lb.putObject("wait_us");
            ObjectNode caused = lb.putObject("wait_caused_us");
            ObjectNode last = lb.putObject("last_arrivals");
            for (int r = 0; r < worldSize; r++) {
                wait.put(String.valueOf(r), round(collectives.waitNs[r] / 1000.0));
                caused.put(String.valueOf(r), round(collectives.waitCausedNs[r] / 1000.0));
                last.put(String.valueOf(r), collectives.lastArrivals[r]);
            }
        }
        if (kinds.contains("stats")) {
            ObjectNode st = m.putObject("stats").putObject("call_duration_us");
            for (int i = 0; i < durationUs.length; i++) {
                if (durationUs[i] != null) {
                    st.set(MpiOp.name(MpiOp.FIRST + i), json.valueToTree(durationUs[i].summary()));
                }
            }
        }
        m.set("profile", profileJson(json));
        return m;
    }

    /**
     * The {@code monitors} block with what a job's monitors add for the dashboard ({@code MonitorSnapshot.report}'s shape),
     * over {@code tree}: the one flat gred at which PMPI's view joins every collective instance. {@code loadbalance}
     * gains {@code greds} (per port, i.e. per rank: last arrivals and mean wait), {@code trees}, {@code heaviest_path}
     * (root to the slowest rank) and {@code slowest_rank_gred}; {@code stats} gains {@code wrappers} (per port the wait
     * at N×N and the collective calls' durations as statistics, and the arrival orders); and the agent's own figures:
     * {@code tuples_read}, {@code tuples_missed}, {@code gather_rate}, {@code calls_joined} (complete instances),
     * {@code analysis} (the agent thread's CPU). Called on the agent's thread while the program runs, and after.
     */
    ObjectNode liveMonitorsJson(ObjectMapper json, Set<String> kinds, MpiPathmap tree, long missed, long agentCpuNs) {
        ObjectNode m = monitorsJson(json, kinds);
        m.put("tuples_read", tuplesRead);
        m.put("tuples_missed", missed);
        m.put("gather_rate", tuplesRead + missed == 0 ? 1.0 : (double) tuplesRead / (tuplesRead + missed));
        m.put("calls_joined", collectives == null ? 0 : collectives.instances);
        ObjectNode analysis = m.putObject("analysis");
        analysis.put("cpu_ms", round(agentCpuNs / 1e6));
        analysis.put("threads", 1);
        if (collectives == null || worldSize != tree.pathmap().spec().ranks()) {
            return m;
        }
        int ports = worldSize;
        String g = tree.gred();
        if (m.get("loadbalance") instanceof ObjectNode lb) {
            int slowest = slowestRank();
            ObjectNode gred = lb.putObject("greds").putObject(g);
            ArrayNode contributors = gred.putArray("contributors");
            tree.contributors().forEach(contributors::add);
            long[] last = new long[ports];
            double[] meanWait = new double[ports];
            for (int r = 0; r < worldSize; r++) {
                last[tree.port(r)] = collectives.lastArrivals[r];
                meanWait[tree.port(r)] = collectives.waitUs[r].count() == 0 ? 0 : round(collectives.waitUs[r].mean());
            }
            ArrayNode lastNode = gred.putArray("last_arrivals");
            ArrayNode waitNode = gred.putArray("mean_arrival_wait_us");
            for (int p = 0; p < ports; p++) {
                lastNode.add(last[p]);
                waitNode.add(meanWait[p]);
            }
            gred.put("calls", collectives.instances);
            if (slowest >= 0) {
                double weight = round((double) collectives.lastArrivals[slowest] / Math.max(1, collectives.instances));
                ArrayNode path = json.createArrayNode();
                tree.pathFromRoot(slowest).forEach(path::add);
                lb.put("slowest_rank_gred", g);
                lb.set("heaviest_path", path);
                lb.put("heaviest_path_weight", weight);
                lb.put("heaviest_path_rank", slowest);
                ObjectNode t = lb.putArray("trees").addObject();
                t.put("tree", 0);
                t.put("slowest_rank", slowest);
                t.put("weight", weight);
                t.set("heaviest_path", path.deepCopy());
            }
        }
        if (m.get("stats") instanceof ObjectNode stats) {
            ObjectNode gred = stats.putObject("wrappers").putObject(g);
            gred.put("host", tree.pathmap().nodes().stream().filter(n -> n.name().equals(g)).findFirst().orElseThrow().host());
            gred.put("tree", 0);
            gred.put("calls", collectives.instances);
            ObjectNode[] byPort = new ObjectNode[ports];
            for (int r = 0; r < worldSize; r++) {
                ObjectNode p = json.createObjectNode();
                p.put("port", tree.port(r));
                p.put("contributor", "rank " + r);
                p.set("arrival_wait", json.valueToTree(collectives.waitUs[r].summary()));
                p.set("total", json.valueToTree(collectiveUs[r].summary()));
                if (collectives.arrivalOrder != null) {
                    ArrayNode order = p.putArray("arrival_order");
                    for (long c : collectives.arrivalOrder[r]) {
                        order.add(c);
                    }
                }
                byPort[tree.port(r)] = p;
            }
            ArrayNode portsNode = gred.putArray("ports");
            for (ObjectNode p : byPort) {
                portsNode.add(p);
            }
        }
        return m;
    }

    private ObjectNode profileJson(ObjectMapper json) {
        ObjectNode profile = json.createObjectNode();
        ObjectNode ranks = profile.putObject("ranks");
        for (int r = 0; r < worldSize; r++) {
            ObjectNode rank = ranks.putObject(String.valueOf(r));
            for (int i = 0; i < MpiOp.END - MpiOp.FIRST; i++) {
                long calls = r < snapshotByRank.length && snapshotByRank[r] != null ? snapshotByRank[r].calls(i) : tupleCalls[r][i];
                if (calls > 0) {
                    ObjectNode o = rank.putObject(MpiOp.name(MpiOp.FIRST + i));
                    o.put("calls", calls);
                    o.put("time_us", round(timeNs[r][i] / 1000.0));
                }
            }
        }
        ObjectNode operations = profile.putObject("operations");
        for (int i = 0; i < MpiOp.END - MpiOp.FIRST; i++) {
            int n = 0;
            double sum = 0;
            int minRank = -1;
            int maxRank = -1;
            for (int r = 0; r < worldSize; r++) {
                if (tupleCalls[r][i] == 0) {
                    continue;
                }
                n++;
                sum += timeNs[r][i];
                if (minRank < 0 || timeNs[r][i] < timeNs[minRank][i]) {
                    minRank = r;
                }
                if (maxRank < 0 || timeNs[r][i] > timeNs[maxRank][i]) {
                    maxRank = r;
                }
            }
            if (n == 0) {
                continue;
            }
            double mean = sum / n;
            ObjectNode o = operations.putObject(MpiOp.name(MpiOp.FIRST + i));
            o.put("ranks", n);
            o.put("min_us", round(timeNs[minRank][i] / 1000.0));
            o.put("min_rank", minRank);
            o.put("mean_us", round(mean / 1000.0));
            o.put("max_us", round(timeNs[maxRank][i] / 1000.0));
            o.put("max_rank", maxRank);
            o.put("imbalance_pct", mean > 0 ? round((timeNs[maxRank][i] / mean - 1) * 100) : 0.0);
        }
        return profile;
    }

    /** One line of what the analysis has seen so far, for the live progress (the agent's thread). */
    String progress() {
        if (collectives == null) {
            return "no rank has reached MPI_Init yet";
        }
        int slowest = slowestRank();
        return String.format(Locale.ROOT, "%d ranks mapped, %d calls read, %d collective instances, slowest rank so far %s",
                rankFiles.size(), tuplesRead, collectives.instances,
                slowest < 0 ? "none" : slowest + " (last at " + collectives.lastArrivals[slowest] + ")");
    }

    /** Lines for people, slowest rank first. */
    List<String> summary() {
        List<String> lines = new ArrayList<>();
        if (collectives == null) {
            lines.add("no rank wrote trace files (was the program an MPI program, and did it reach MPI_Init?)");
            return lines;
        }
        int slowest = slowestRank();
        if (slowest >= 0) {
            lines.add(String.format(Locale.ROOT,
                    "slowest rank: %d (last at %d of %d collective instances, z %.1f); it made the others wait %.1f µs in total",
                    slowest, collectives.lastArrivals[slowest], collectives.participations[slowest], lastArrivalZ(slowest),
                    collectives.waitCausedNs[slowest] / 1000.0));
        } else {
            lines.add("slowest rank: none (no complete collective instance with more than one rank)");
        }
        StringBuilder waits = new StringBuilder("wait at collectives per rank (µs):");
        for (int r = 0; r < worldSize; r++) {
            waits.append(String.format(Locale.ROOT, " %d:%.1f", r, collectives.waitNs[r] / 1000.0));
        }
        lines.add(waits.toString());
        long ls = Arrays.stream(pointToPoint.lateSenderNs).sum();
        long lr = Arrays.stream(pointToPoint.lateReceiverNs).sum();
        int causer = 0;
        for (int r = 1; r < worldSize; r++) {
            if (pointToPoint.lateSenderCausedNs[r] > pointToPoint.lateSenderCausedNs[causer]) {
                causer = r;
            }
        }
        lines.add(String.format(Locale.ROOT, "point-to-point: %d matched, late sender %.1f µs%s, late receiver %.1f µs",
                pointToPoint.matched, ls / 1000.0, ls == 0 ? "" : String.format(Locale.ROOT, " (%.1f µs of it caused by rank %d)",
                        pointToPoint.lateSenderCausedNs[causer] / 1000.0, causer), lr / 1000.0));
        if (hostClocks.size() > 1) {
            long bound = 0;
            long drift = 0;
            for (HostClock h : hostClocks.values()) {
                ClockMap m = h.map != null ? h.map : h.build();
                if (!h.rank0) {
                    bound = Math.max(bound, m.errorBoundNs());
                    drift = Math.max(drift, Math.abs(m.driftNs()));
                }
            }
            lines.add(String.format(Locale.ROOT, "clocks: %d hosts on rank 0's, %s; largest drift %.1f µs, error bound %.1f µs",
                    hostClocks.size(), tuplesMappedInitOnly == 0 ? "drift applied" : "MPI_Init offsets only (" + driftNote + ")",
                    drift / 1000.0, bound / 1000.0));
        }
        return lines;
    }

    static double round(double x) {
        return Math.round(x * 10.0) / 10.0;
    }
}
