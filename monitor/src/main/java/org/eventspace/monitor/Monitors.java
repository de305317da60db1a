package org.eventspace.monitor;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.agrona.concurrent.AgentRunner;
import org.eventspace.base.json.Json;
import org.eventspace.comm.pathmap.Entry;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.transport.AgentThreads;
import org.eventspace.events.CollectorKind;
import org.eventspace.events.EventSpace;
import org.eventspace.events.TraceBuffer;
import org.eventspace.job.MonitoredJob;
import org.eventspace.job.ScopeSnapshot;
import org.eventspace.scope.ResultBoard;
import org.eventspace.scope.filter.NewestResult;

/**
 * The monitors of one process's share of a job: one analysis thread per host this process runs
 * ({@link HostAnalysis}), each computing its greds' metrics from the host's own trace buffers while the job runs.
 * {@link #snapshot()} gives what they have now, from any thread; {@link #stop()} lets them join the last tuples and
 * ends them. Start it after the job and before its ranks, so the readers see every tuple from the first.
 *
 * <p>A gred is monitored when the collectors its metrics need are placed: one above every port and one below
 * (collectors on every edge, the default); the others are listed in {@link MonitorSnapshot#skipped()}.
 */
public final class Monitors implements AutoCloseable {
    /** NWS's window for the sliding median. */
    public static final int MEDIAN_WINDOW = 100;
    /** How long {@link #stop()} waits for an analysis thread to drain and end. */
    private static final Duration STOP_BOUND = Duration.ofSeconds(5);

    private final Set<MonitorKind> kinds;
    private final Pathmap pathmap;
    private final List<HostAnalysis> analyses = new ArrayList<>();
    /** Written by {@link #start}, read by the analysis threads when they publish. */
    private final List<AgentRunner> runners = new CopyOnWriteArrayList<>();
    private final List<String> skipped = new ArrayList<>();
    /** Per analysis (host), the slice of {@link #skipped} that concerns its host: {from, to}. */
    private final List<int[]> skippedOfHost = new ArrayList<>();
    /** Per analysis (host), its result board when the job's scope gathers results, else null. */
    private final List<ResultBoard> boards = new ArrayList<>();
    private volatile boolean stopped;

    private Monitors(Set<MonitorKind> kinds, Pathmap pathmap) {
        this.kinds = Set.copyOf(kinds);
        this.pathmap = pathmap;
    }

    /**
     * Starts an analysis thread for every host {@code job} runs in this process, released by the job's coscheduler if
     * it has one ({@link MonitoredJob#releaseListener()}).
     *
     * @throws IllegalArgumentException if the job has no collectors (the monitors read nothing else).
     */
    public static Monitors start(MonitoredJob job, Set<MonitorKind> kinds) {
        // A job started with a coscheduler (MonitoredJob.inJvm(config, pathmap -> Coscheduler.of(pathmap, strategy)))
        // releases the analysis threads; any other lets them run whenever they get a core.
        Coscheduler coscheduler = job.releaseListener() instanceof Coscheduler c ? c
                : Coscheduler.of(job.pathmap(), Coschedule.NONE);
        Monitors m = open(job, kinds);
        List<Integer> hosts = job.localHosts();
        for (int i = 0; i < m.analyses.size(); i++) {
            // Released by the communication system, an analysis pass must still not take the CPU from the threads that
            // release woke (the paper's order: communication, application, then analysis): coscheduled, it runs at
            // the lowest priority (LowestPriority).
            m.analyses.get(i).runAtLowestPriority(coscheduler.strategy() != Coschedule.NONE);
            if (coscheduler.strategy() != Coschedule.NONE) {
                // Where the host's threads wait anyway (a butterfly's exchange, after it sent), they run the analysis
                // themselves: at the lowest priority, a thread of its own gets no CPU from a rank that polls its link.
                // Only in calls of trees with collectors: an interleaved overhead run's bare tree must not do it.
                HostAnalysis analysis = m.analyses.get(i);
                for (int tree : treesWithCollectors(job.pathmap(), hosts.get(i))) {
                    // A call of this tree wrote this tree's tuples: its pass reads those only (the others' are read
                    // in their own calls), so it touches half the memory on a job that alternates two trees.
                    job.idleWork(hosts.get(i), tree).add(analysis.idleStepOf(tree));
                }
            }
            m.runners.add(AgentThreads.start(m.analyses.get(i), coscheduler.idleStrategy(hosts.get(i))));
        }
        return m;
    }

    /**
     * Starts the monitors where {@code analysis} says: {@link #start} for the distributed analysis; for the centralised
     * one, on the process that runs the event scope's front-end, {@link #startCentral}, and elsewhere nothing (null):
     * the scope's leaves read those hosts' tuples.
     */
    public static Monitors start(MonitoredJob job, Set<MonitorKind> kinds, Analysis analysis) {
        if (analysis == Analysis.DISTRIBUTED) {
            return start(job, kinds);
        }
        return job.runsFrontEnd() ? startCentral(job, kinds) : null;
    }

    /**
     * The centralised analysis (EventSpace paper §4.3): no analysis thread on any host; the job's event scope, which
     * must run the {@code tuples} filter, brings every tuple to this process (the front-end's), where each round is
     * joined into the same metrics as the distributed analysis computes ({@link CentralAnalysis}). Start it before
     * the ranks.
     *
     * @throws IllegalArgumentException if the job has no collectors or its scope does not gather raw tuples.
     * @throws IllegalStateException if this process does not run the scope's front-end.
     */
    public static Monitors startCentral(MonitoredJob job, Set<MonitorKind> kinds) {
        if (kinds.isEmpty()) {
            throw new IllegalArgumentException("no monitor chosen");
        }
        if (!job.config().collectors()) {
            throw new IllegalArgumentException("the monitors read the event collectors' traces: the job needs collectors on");
        }
        if (job.config().scope() == null || !job.config().scope().filter().newInstance().readsRawTuples()) {
            throw new IllegalArgumentException("the centralised analysis reads the tuples the job's event scope gathers: "
                    + "it needs a scope with the tuples filter");
        }
        Pathmap pathmap = job.pathmap();
        Monitors m = new Monitors(kinds, pathmap);
        CentralAnalysis central = new CentralAnalysis();
        List<LiveGred> greds = new ArrayList<>();
        for (Node n : pathmap.nodes()) {
            if (n.kind().equals(PathmapBuilder.GRED)) {
                Node[] collectors = m.collectorsOf(n);
                if (collectors != null) {
                    String[] contributors = new String[n.arity()];
                    for (int p = 0; p < contributors.length; p++) {
                        contributors[p] = m.contributor(collectors[p]);
                    }
                    LiveGred g = new LiveGred(n, contributors, kinds.contains(MonitorKind.STATS) ? MEDIAN_WINDOW : 0);
                    for (int c = 0; c < collectors.length; c++) {
                        central.feed(collectors[c].name(), g, c);
                    }
                    greds.add(g);
                }
            }
        }
        List<RankProfile> profiles = new ArrayList<>();
        for (int rank = 0; rank < pathmap.spec().ranks(); rank++) {
            for (int tree = 0; tree < pathmap.spec().trees(); tree++) {
                Node entry = pathmap.node(pathmap.entry(tree, rank).node());
                if (isCollector(entry)) {
                    RankProfile profile = new RankProfile(rank);
                    central.feed(entry.name(), profile);
                    profiles.add(profile);
                } else if (tree == 0) {
                    m.skipped.add("rank " + rank + ": no collector where its path enters, so no profile");
                }
            }
        }
        m.skippedOfHost.add(new int[] {0, m.skipped.size()});
        m.boards.add(null);
        m.analyses.add(new HostAnalysis("front-end", greds, profiles, () -> { }));
        m.central = central;
        m.job = job;
        job.onScopeRound(central);
        return m;
    }

    /** The centralised analysis, or null for the distributed one. */
    private CentralAnalysis central;
    private MonitoredJob job;

    /** Whether this is the centralised analysis ({@link #startCentral}). */
    public boolean central() {
        return central != null;
    }

    /**
     * Stops the monitors ({@link #stop}) and returns this process's part of the report ({@link MonitorSnapshot#toJson}).
     * For the centralised analysis, the scope's front-end is stopped first (its final pulls bring the last tuples), and
     * the part's {@code tuples_read}/{@code tuples_missed} are the scope's (tuples gathered, and overwritten before a
     * leaf read them), its analysis cost the front-end's CPU time in the analysis.
     */
    public ObjectNode finalPart(ObjectMapper json) {
        if (central != null) {
            Optional<ScopeSnapshot> scope = job.stopScope();
            ObjectNode part = stop().toJson(json);
            scope.ifPresent(s -> {
                part.put("tuples_read", s.recordsGathered());
                part.put("tuples_missed", s.recordsDropped());
            });
            ObjectNode analysis = (ObjectNode) part.path("analysis");
            analysis.put("threads", 0);
            analysis.put("cpu_ms", central.cpuNanos() / 1e6);
            analysis.put("where", "front-end");
            analysis.put("rounds", central.rounds());
            return part;
        }
        return stop().toJson(json);
    }

    private static java.util.SortedSet<Integer> treesWithCollectors(Pathmap pathmap, int host) {
        java.util.SortedSet<Integer> trees = new java.util.TreeSet<>();
        for (Node n : pathmap.nodesOn(host)) {
            if (isCollector(n) && n.tree() >= 0) {
                trees.add(n.tree());
            }
        }
        return trees;
    }

    /** As {@link #start} but runs no thread: a test steps {@link #drainOnce()} by hand. */
    static Monitors unstarted(MonitoredJob job, Set<MonitorKind> kinds) {
        return open(job, kinds);
    }

    private static Monitors open(MonitoredJob job, Set<MonitorKind> kinds) {
        if (kinds.isEmpty()) {
            throw new IllegalArgumentException("no monitor chosen");
        }
        if (!job.config().collectors()) {
            throw new IllegalArgumentException("the monitors read the event collectors' traces: the job needs collectors on");
        }
        Pathmap pathmap = job.pathmap();
        Monitors m = new Monitors(kinds, pathmap);
        boolean publishing = job.config().scope() != null && job.config().scope().filter().newInstance().readsResults();
        for (int host : job.localHosts()) {
            EventSpace space = job.eventSpace(host).orElseThrow();
            int skippedFrom = m.skipped.size();
            List<LiveGred> greds = new ArrayList<>();
            for (Node n : pathmap.nodesOn(host)) {
                if (n.kind().equals(PathmapBuilder.GRED)) {
                    LiveGred g = m.liveGred(n, space);
                    if (g != null) {
                        greds.add(g);
                    }
                }
            }
            List<RankProfile> profiles = new ArrayList<>();
            for (int rank : pathmap.spec().ranksOn(host)) {
                for (int tree = 0; tree < pathmap.spec().trees(); tree++) {
                    Node entry = pathmap.node(pathmap.entry(tree, rank).node());
                    if (isCollector(entry)) {
                        profiles.add(profileOf(rank, tree, space.buffer(CollectorKind.collectorId(entry)), greds));
                    } else if (tree == 0) {
                        m.skipped.add("rank " + rank + ": no collector where its path enters, so no profile");
                    }
                }
            }
            int index = m.analyses.size();
            m.skippedOfHost.add(new int[] {skippedFrom, m.skipped.size()});
            m.boards.add(publishing ? job.resultBoard(host).orElse(null) : null);
            m.analyses.add(new HostAnalysis(space.hostName(), greds, profiles, () -> m.publish(index)));
        }
        return m;
    }

    /**
     * Rank {@code rank}'s profile on {@code tree}: counted by the gred whose port collector is the rank's entry collector
     * (its reader reads each tuple once for both), else with a reader of its own.
     */
    private static RankProfile profileOf(int rank, int tree, TraceBuffer entry, List<LiveGred> greds) {
        for (LiveGred g : greds) {
            int port = g.portReading(entry);
            if (port >= 0) {
                RankProfile fed = RankProfile.fed(rank, tree);
                g.feeds(port, fed);
                return fed;
            }
        }
        return new RankProfile(rank, tree, entry);
    }

    /** The live join of gred {@code g}, or null (with the reason in {@link #skipped}) if a collector it needs is missing. */
    private LiveGred liveGred(Node g, EventSpace space) {
        Node[] collectors = collectorsOf(g);
        if (collectors == null) {
            return null;
        }
        int ports = g.arity();
        TraceBuffer[] buffers = new TraceBuffer[ports];
        String[] contributors = new String[ports];
        for (int p = 0; p < ports; p++) {
            buffers[p] = space.buffer(CollectorKind.collectorId(collectors[p]));
            contributors[p] = contributor(collectors[p]);
        }
        TraceBuffer t23 = space.buffer(CollectorKind.collectorId(collectors[ports]));
        return new LiveGred(g, contributors, buffers, t23, kinds.contains(MonitorKind.STATS) ? MEDIAN_WINDOW : 0);
    }

    /**
     * The collectors gred {@code g}'s metrics need: the one above each port (t1,i, t4,i), in port order, then the one
     * between it and its parent (t2, t3); null, with the reason in {@link #skipped}, if one is missing.
     */
    private Node[] collectorsOf(Node g) {
        Node below = g.parent() >= 0 ? pathmap.node(g.parent()) : null;
        if (below == null || !isCollector(below)) {
            skipped.add("gred " + g.name() + ": no collector between it and its parent (t2, t3)");
            return null;
        }
        Node[] collectors = new Node[g.arity() + 1];
        for (Node child : pathmap.children(g.id())) {
            if (isCollector(child) && child.parentPort() >= 0 && child.parentPort() < g.arity()) {
                collectors[child.parentPort()] = child;
            }
        }
        for (int p = 0; p < g.arity(); p++) {
            if (collectors[p] == null) {
                skipped.add("gred " + g.name() + ": no collector above port " + p + " (t1," + p + ", t4," + p + ")");
                return null;
            }
        }
        collectors[g.arity()] = below;
        return collectors;
    }

    private static boolean isCollector(Node n) {
        return n.kind().equals(CollectorKind.NAME);
    }

    /** Who calls collector {@code c}: the ranks whose paths enter there, or the wrapper below it. */
    private String contributor(Node c) {
        List<String> names = new ArrayList<>();
        for (Entry e : pathmap.entriesAt(c.id())) {
            names.add("rank " + e.rank());
        }
        for (Node n : pathmap.children(c.id())) {
            names.add(n.name());
        }
        return names.isEmpty() ? "?" : String.join(", ", names);
    }

    /** One pass of every host's analysis, on the caller's thread (for tests that step it). */
    int drainOnce() {
        int read = 0;
        for (HostAnalysis a : analyses) {
            read += a.drainOnce();
        }
        return read;
    }

    /** What every monitored gred of this process's hosts has now. Any thread, any time. */
    public MonitorSnapshot snapshot() {
        return snapshotOf(analyses, skipped, analysisCpuNanos(runners), analyses.size());
    }

    /**
     * Publishes what host {@code index} has now on its result board as records ({@link ResultRecords}), for the job's
     * event scope to gather; nothing when the scope does not gather results. Runs on the host's analysis thread (or on
     * the thread that stops the monitors, for the last set).
     */
    private void publish(int index) {
        publish(index, false);
    }

    private void publish(int index, boolean last) {
        ResultBoard board = boards.get(index);
        if (board == null) {
            return;
        }
        int[] slice = skippedOfHost.get(index);
        List<AgentRunner> own = index < runners.size() ? List.of(runners.get(index)) : List.of();
        MonitorSnapshot part = snapshotOf(List.of(analyses.get(index)), skipped.subList(slice[0], slice[1]),
                Math.max(analysisCpuNanos(own), cpuAtStop.length > index ? cpuAtStop[index] : 0), 1);
        board.publish(ResultRecords.flatten(part.toJson(PUBLISH_JSON), board.newest().version() + 1, last));
    }

    private static final ObjectMapper PUBLISH_JSON = Json.mapper();
    /** Each analysis thread's CPU time, read just before it ended (it cannot be read after). */
    private long[] cpuAtStop = new long[0];

    private MonitorSnapshot snapshotOf(List<HostAnalysis> of, List<String> skippedHere, long cpuNanos, int threads) {
        List<GredSnapshot> greds = new ArrayList<>();
        for (HostAnalysis a : of) {
            for (LiveGred g : a.greds()) {
                greds.add(g.snapshot());
            }
        }
        Map<Integer, long[][]> profiles = new TreeMap<>();
        for (HostAnalysis a : of) {
            for (RankProfile p : a.profiles()) {
                long[][] s = p.snapshot();
                long[][] sum = profiles.computeIfAbsent(p.rank(), r -> new long[2][RankProfile.operations()]);
                for (int op = 0; op < RankProfile.operations(); op++) {
                    sum[0][op] += s[0][op];
                    sum[1][op] += s[1][op];
                }
            }
        }
        int lowest = (int) of.stream().filter(HostAnalysis::atLowestPriority).count();
        long passes = 0;
        org.HdrHistogram.Histogram timed = null;
        for (HostAnalysis a : of) {
            passes += a.rankPasses();
            org.HdrHistogram.Histogram t = a.timedRankPasses();
            if (timed == null) {
                timed = t;
            } else {
                timed.add(t);
            }
        }
        return new MonitorSnapshot(kinds, greds, profiles, skippedHere, cpuNanos, threads, lowest,
                MonitorSnapshot.RankPasses.of(passes, timed));
    }

    /**
     * The {@code monitors} block of the whole job as its event scope has gathered it so far — every host's newest
     * published results merged as at the end ({@link MonitorSnapshot#report}) — with {@code live}: the scope round,
     * and each host's version and record count. Over TCP this is the only view of the other hosts' results while
     * the job runs. Empty unless this process runs the scope's front-end and the scope gathers results
     * ({@code newest}, the default with monitors); empty too before the first host published.
     */
    public static Optional<ObjectNode> live(MonitoredJob job, ObjectMapper json) {
        NewestResult result = gathered(job);
        if (result == null) {
            return Optional.empty();
        }
        List<JsonNode> parts = new ArrayList<>();
        result.records().forEach((host, records) -> parts.add(ResultRecords.unflatten(records, json)));
        ObjectNode report = MonitorSnapshot.report(parts, job.pathmap(), json);
        ObjectNode live = report.putObject("live");
        live.put("round", result.round());
        ObjectNode hosts = live.putObject("hosts");
        result.sets().forEach((host, set) -> {
            ObjectNode h = hosts.putObject(Integer.toString(host));
            h.put("version", set.version());
            h.put("records", set.records().size() - 1);
            h.put("final", ResultRecords.isFinal(set.records()));
        });
        return Optional.of(report);
    }

    /** What the job's scope has gathered of the hosts' results, or null (not the front-end, no results yet). */
    private static NewestResult gathered(MonitoredJob job) {
        return job.runsFrontEnd() && job.snapshot().map(ScopeSnapshot::result).orElse(null) instanceof NewestResult r
                && !r.sets().isEmpty() ? r : null;
    }

    /**
     * Waits, at most {@code bound}, until the job's scope has gathered the last set of every host that runs ranks
     * (each host publishes one when its monitors stop), so that {@link #live} then describes the whole run; returns
     * {@link #live} as it is then. Call it on the front-end's process after this process's monitors stopped and before
     * {@link MonitoredJob#stopScope()}: the scope keeps pulling meanwhile.
     */
    public static Optional<ObjectNode> awaitFinal(MonitoredJob job, ObjectMapper json, Duration bound) {
        long expected = Arrays.stream(job.pathmap().spec().rankHosts()).distinct().count();
        long deadline = System.nanoTime() + bound.toNanos();
        // Only the final marks are read while waiting; the report is built once, at the end.
        while (job.runsFrontEnd() && System.nanoTime() < deadline) {
            NewestResult result = gathered(job);
            if (result != null && result.sets().values().stream().filter(s -> ResultRecords.isFinal(s.records())).count() >= expected) {
                break;
            }
            LockSupport.parkNanos(2_000_000);
        }
        return live(job, json);
    }

    /** CPU time the threads of {@code of} used so far (0 where the JVM does not measure thread CPU time). */
    private static long analysisCpuNanos(List<AgentRunner> of) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long total = 0;
        for (AgentRunner r : of) {
            Thread t = r.thread();
            if (t != null && t != AgentRunner.TOMBSTONE && mx.isThreadCpuTimeSupported()) {
                long cpu = mx.getThreadCpuTime(t.getId());
                total += Math.max(0, cpu);
            }
        }
        return total;
    }

    /**
     * Lets every analysis thread read and join what is left, then ends it (bounded). Call once the ranks returned,
     * before the job closes its trace buffers. Idempotent.
     */
    public MonitorSnapshot stop() {
        if (!stopped) {
            stopped = true;
            MonitorSnapshot last = snapshot(); // thread CPU time is only measurable while the threads live
            long[] cpu = new long[runners.size()];
            for (int i = 0; i < cpu.length; i++) {
                cpu[i] = analysisCpuNanos(List.of(runners.get(i)));
            }
            cpuAtStop = cpu;
            for (HostAnalysis a : analyses) {
                a.stopWhenDrained();
            }
            for (AgentRunner r : runners) {
                AgentThreads.awaitEnd(r, STOP_BOUND);
            }
            if (runners.isEmpty()) {
                while (drainOnce() > 0) {
                    // Stepped by hand: join what is left on this thread.
                }
            }
            // The last set of every host, so a scope's final pulls gather the whole run.
            for (int i = 0; i < analyses.size(); i++) {
                publish(i, true);
            }
            finalSnapshot = snapshot().withCpuNanos(Math.max(last.analysisCpuNanos(), 0));
        }
        return finalSnapshot;
    }

    private MonitorSnapshot finalSnapshot;

    @Override
    public void close() {
        stop();
    }
}
