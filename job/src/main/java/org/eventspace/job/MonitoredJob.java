package org.eventspace.job;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.IntStream;

import org.eventspace.base.json.Json;
import org.eventspace.comm.Comm;
import org.eventspace.comm.launch.JobEnvironment;
import org.eventspace.comm.launch.RendezvousProtocol;
import org.eventspace.comm.launch.TcpHost;
import org.eventspace.comm.path.Gred;
import org.eventspace.comm.path.IdleWork;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.runtime.HostRuntime;
import org.eventspace.comm.runtime.InJvmCluster;
import org.eventspace.comm.runtime.PathExtension;
import org.eventspace.comm.traffic.TrafficCounters;
import org.eventspace.comm.traffic.TrafficScope;
import org.eventspace.events.CollectorPlacement;
import org.eventspace.events.EventSpace;
import org.eventspace.events.TraceBudget;
import org.eventspace.scope.ResultBoard;
import org.eventspace.scope.ScopeRound;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A monitored job, started and held as a value: the ranks' {@link Comm}s, the hosts' event spaces with a collector on
 * every (selected) edge, and the event scope's front-end, wired in one place, for the hosts this process runs. Three
 * ways a job comes to life:
 * <ul>
 *   <li>{@link #inJvm}: every host simulated in this JVM;</li>
 *   <li>{@link #join} with the environment {@link JobLauncher} gives its host processes: one host of a TCP job we
 *       launched;</li>
 *   <li>{@link #join} with {@link JobEnvironment#current()}: one host of a job {@code mpirun} or {@code srun} started,
 *       which finds its rank and the rendezvous in the launcher's variables.</li>
 * </ul>
 * While the ranks run, {@link #snapshot()} (any thread) gives what the scope's front-end has seen so far, on the process
 * that runs it (host 0). {@link #finish} ends the scope, reports this process's {@link HostResult} and, over TCP, waits
 * for every host; {@link #close} releases everything. With a trace dump, {@code pathmap.json} is written when the job
 * starts, so the trace files are readable whatever ends the job.
 *
 * <p>Threading: start, {@code runRanks}, {@code finish} and {@code close} from one thread; {@link #comm} from any; the
 * {@link Comm} of a rank from that rank's thread only.
 */
public final class MonitoredJob implements AutoCloseable {
    private static final ObjectMapper JSON = Json.mapper();
    /** How long a host whose ranks failed waits for the others at the end (its report is delivered at once). */
    static final Duration FAILED_FINISH_WAIT = Duration.ofSeconds(2);
    /** The bound of the scope's final pulls once a local rank failed. */
    static final Duration FAILED_SCOPE_STOP = Duration.ofMillis(1500);

    private final JobConfig config;
    private final Pathmap pathmap;
    private final HostEventSpaces spaces;
    private final InJvmCluster cluster;
    private final TcpHost tcpHost;
    private final ScopeFrontEnd frontEnd;
    private final List<Integer> localRanks;
    private boolean ranksReturned;
    private boolean ranksFailed;
    private final Gred.ReleaseListener releaseListener;
    private boolean finished;
    private boolean closed;
    /** What watches this job without the program asking ({@link JobObserver}: the dashboard a launcher asked for). */
    private List<JobObserver.Watch> watches = List.of();
    /** The job's {@link PathExtension} running in this process (its threads), or null. */
    private PathExtension.Started layer;

    private MonitoredJob(JobConfig config, Pathmap pathmap, HostEventSpaces spaces, InJvmCluster cluster, TcpHost tcpHost,
                         List<Integer> localRanks, Gred.ReleaseListener releaseListener) {
        this.config = config;
        this.releaseListener = releaseListener;
        this.pathmap = pathmap;
        this.spaces = spaces;
        this.cluster = cluster;
        this.tcpHost = tcpHost;
        this.localRanks = List.copyOf(localRanks);
        HostRuntime frontEndHost = cluster != null ? cluster.host(0) : tcpHost.host() == 0 ? tcpHost.runtime() : null;
        // The front-end opens the scope (INIT reaches every node) before any rank starts.
        this.frontEnd = config.scope() != null && frontEndHost != null
                ? ScopeFrontEnd.start(config.scope(), frontEndHost, headroom(config, pathmap)) : null;
    }

    /**
     * Starts every host of {@code config} simulated in this JVM; every rank runs here.
     *
     * @throws JobFootprint.TooLargeException before anything starts, if this JVM or machine cannot hold the job.
     */
    public static MonitoredJob inJvm(JobConfig config) {
        return inJvm(config, pathmap -> Gred.ReleaseListener.NONE);
    }

    /**
     * As {@link #inJvm(JobConfig)}, with the listener {@code listenerFor} makes of the job's pathmap told when each gred's
     * contributors all arrived and when it released them: how a coscheduler learns when a host's threads wait (EventSpace
     * paper §4.3). It is {@link #releaseListener()}.
     */
    public static MonitoredJob inJvm(JobConfig config, Function<Pathmap, Gred.ReleaseListener> listenerFor) {
        Pathmap pathmap = config.pathmap();
        Gred.ReleaseListener listener = listenerFor.apply(pathmap);
        JobFootprint.of(config, pathmap, JobFootprint.Program.MINIMAL).requireFits(MachineLimits.current());
        writeLayout(config, pathmap);
        CommOptions options = CommOptions.defaults(pathmap.busyThreads()).withTimeout(config.timeout())
                .withReleaseListener(listener).withTraffic(trafficScope(config));
        HostEventSpaces spaces = config.collectors()
                ? HostEventSpaces.open(config, pathmap, IntStream.range(0, config.hosts()).boxed().toList(), config.ranks())
                : null;
        InJvmCluster cluster = null;
        PathExtension.Started layer = null;
        try {
            CommOptions built = spaces != null ? spaces.apply(options) : options;
            if (config.extension() != null) {
                layer = config.extension().start(built.kinds());
                built = built.withKinds(layer.kinds());
            }
            cluster = InJvmCluster.start(pathmap, built);
            MonitoredJob job = new MonitoredJob(config, pathmap, spaces, cluster, null,
                    IntStream.range(0, config.ranks()).boxed().toList(), listener);
            job.layer = layer;
            return job;
        } catch (RuntimeException e) {
            abandon(cluster, spaces);
            closeLayer(layer);
            throw e;
        }
    }

    /**
     * Joins the TCP job {@code env} describes as its host {@code env.host()}: the environment our launcher gives its
     * processes, or {@code mpirun}'s, Slurm's or PMI's ({@link JobEnvironment#current()}). Blocks until every host
     * registered with the rendezvous and the hops are open (bounded by the rendezvous' own timeouts).
     *
     * @throws JobFootprint.TooLargeException before anything starts, if this process's share of the job does not fit
     *                                        this JVM or machine.
     */
    public static MonitoredJob join(JobConfig config, JobEnvironment env) {
        return join(config, env, pathmap -> Gred.ReleaseListener.NONE);
    }

    /** As {@link #join(JobConfig, JobEnvironment)}, with the listener {@code listenerFor} makes told of this host's greds' rounds. */
    public static MonitoredJob join(JobConfig config, JobEnvironment env, Function<Pathmap, Gred.ReleaseListener> listenerFor) {
        return join(config, env, listenerFor, System.getenv());
    }

    /** As above, with {@code processEnv} for the process's environment, which the {@link JobObserver}s read (tests). */
    static MonitoredJob join(JobConfig config, JobEnvironment env, Function<Pathmap, Gred.ReleaseListener> listenerFor,
                             java.util.Map<String, String> processEnv) {
        if (env.hosts() != config.hosts()) {
            throw new IllegalArgumentException("the job's pathmap has " + config.hosts() + " hosts but " + env.source()
                    + " started " + env.hosts() + " processes");
        }
        Pathmap pathmap = config.pathmap();
        JobFootprint.of(config, pathmap, JobFootprint.Program.MINIMAL).only(env.host()).requireFits(MachineLimits.current());
        List<Integer> local = pathmap.spec().ranksOn(env.host());
        if (env.host() == 0) {
            // A job mpirun or srun started has no launcher of ours to write the dump's layout: host 0 does.
            writeLayout(config, pathmap);
        }
        int busy = pathmap.busyThreads();
        Gred.ReleaseListener listener = listenerFor.apply(pathmap);
        // A rank waiting for a point-to-point message or in a gred waits on a thread of its own process: the service
        // thread of a hop (counted in busyThreads) or of a point-to-point link, one per host that receives (the
        // pathmap does not know those). Waits and reads that spin past them would take the CPU the message needs. A
        // butterfly's exchanges have no such thread: their reads poll by busy alone (tcpOptions below).
        int hostsWithRanks = (int) IntStream.range(0, config.hosts()).filter(h -> !pathmap.spec().ranksOn(h).isEmpty()).count();
        int waitingOnServices = busy + (hostsWithRanks > 1 ? hostsWithRanks : 0);
        CommOptions options = CommOptions.defaults(waitingOnServices).withTimeout(config.timeout()).withReleaseListener(listener)
                .withTraffic(trafficScope(config));
        HostEventSpaces spaces = config.collectors() ? HostEventSpaces.open(config, pathmap, List.of(env.host()), local.size()) : null;
        TcpHost host = null;
        MonitoredJob job;
        PathExtension.Started layer = null;
        try {
            CommOptions built = spaces != null ? spaces.apply(options) : options;
            if (config.extension() != null) {
                layer = config.extension().start(built.kinds());
                built = built.withKinds(layer.kinds());
            }
            host = TcpHost.start(pathmap, env, built, config.poll().tcpOptions(waitingOnServices, busy,
                    config.socketBufferBytes()));
            job = new MonitoredJob(config, pathmap, spaces, null, host, local, listener);
            job.layer = layer;
        } catch (RuntimeException e) {
            abandon(host, spaces);
            closeLayer(layer);
            throw e;
        }
        try {
            job.watches = JobObserver.watchAll(job, processEnv);
        } catch (RuntimeException e) {
            job.close();
            throw e;
        }
        return job;
    }

    /** A fresh scope for this process's hosts (it numbers the phases its ranks mark), or null when the job counts none. */
    private static TrafficScope trafficScope(JobConfig config) {
        return config.traffic() == null ? null : TrafficScope.parse(config.traffic());
    }

    /**
     * The traffic counters of this process's hosts, in {@link #localHosts()} order ({@link TrafficCounters#OFF} each when
     * the job counts no traffic): what the transports counted where messages left, readable any time.
     */
    public List<TrafficCounters> trafficCounters() {
        return cluster != null ? cluster.hosts().stream().map(HostRuntime::traffic).toList()
                : List.of(tcpHost.runtime().traffic());
    }

    private static void quiesceLayer(PathExtension.Started layer) {
        onLayer(layer, PathExtension.Started::quiesce, "waking the path extension's waiting threads failed");
    }

    private static void closeLayer(PathExtension.Started layer) {
        onLayer(layer, PathExtension.Started::close, "stopping the path extension failed");
    }

    /** Runs {@code step} on the layer if there is one; a failure is reported, not thrown: the hosts must still close. */
    private static void onLayer(PathExtension.Started layer, java.util.function.Consumer<PathExtension.Started> step,
                                String failed) {
        if (layer != null) {
            try {
                step.accept(layer);
            } catch (RuntimeException e) {
                System.err.println("es-job: " + failed + ": " + e.getMessage());
            }
        }
    }

    /** The job's {@link PathExtension} as it runs in this process (e.g. the WAN gateways' figures), if it has one. */
    public Optional<PathExtension.Started> extension() {
        return Optional.ofNullable(layer);
    }

    /** A start that failed half-way: closes what was started (null if nothing was) and the event spaces opened for it. */
    private static void abandon(AutoCloseable hosts, HostEventSpaces spaces) {
        try {
            if (hosts != null) {
                hosts.close();
            }
        } catch (Exception e) {
            System.err.println("es-job: closing after a failed start failed too: " + e.getMessage());
        }
        if (spaces != null) {
            spaces.close(true);
        }
    }

    /**
     * What bounds the scope front-end's adaptive pause in this job: its leaf hosts, the collectors one call of a tree
     * passes, and the fewest tuples a trace buffer holds (each host's buffers are sized by {@link TraceBudget}).
     */
    static ScopeFrontEnd.Headroom headroom(JobConfig config, Pathmap pathmap) {
        int leaves = config.scope().toSpec(config.timeout(), config.spec()).leafHosts().size();
        int collectors = CollectorPlacement.count(pathmap);
        int perTree = Math.max(1, collectors / config.spec().trees());
        int fewest = Integer.MAX_VALUE;
        for (int h = 0; h < config.hosts(); h++) {
            int on = CollectorPlacement.countOn(pathmap, h);
            if (on > 0) {
                fewest = Math.min(fewest, TraceBudget.capacityFor(on, EventSpace.DEFAULT_BUDGET_BYTES, EventSpace.DEFAULT_CAPACITY));
            }
        }
        if (config.collectorSettings().capacity() > 0) {
            fewest = Math.min(fewest, config.collectorSettings().capacity());
        }
        return new ScopeFrontEnd.Headroom(Math.max(1, leaves), perTree, fewest == Integer.MAX_VALUE ? 1 : fewest);
    }

    /** Writes the layout a trace dump needs before anything can write a tuple (no-op without a dump). */
    static void writeLayout(JobConfig config, Pathmap pathmap) {
        if (config.traceDump() != null) {
            HostEventSpaces.writePathmap(config.traceDump(), pathmap);
        }
    }

    public JobConfig config() {
        return config;
    }

    /** The pathmap the job runs: its trees, collectors and scope nodes. */
    public Pathmap pathmap() {
        return pathmap;
    }

    /** The ranks whose threads run in this process. */
    public List<Integer> localRanks() {
        return localRanks;
    }

    /** This process's host in a TCP job, or -1 for a job simulated in this JVM (which runs every host). */
    public int host() {
        return tcpHost != null ? tcpHost.host() : -1;
    }

    /** The communication API of {@code rank}, one of {@link #localRanks()}; use it from that rank's thread only. */
    public Comm comm(int rank) {
        return cluster != null ? cluster.comm(rank) : tcpHost.comm(rank);
    }

    /** Tell it when ranks start and end their timed part (for bytes per call); {@link TimedWindow#NONE} without collectors. */
    public TimedWindow timedWindow() {
        return spaces != null ? spaces : TimedWindow.NONE;
    }

    /** The event spaces of this process's hosts, or null with collectors off. */
    HostEventSpaces eventSpaces() {
        return spaces;
    }

    /** Who hears of the greds' rounds in this process (a coscheduler), {@link Gred.ReleaseListener#NONE} by default. */
    public Gred.ReleaseListener releaseListener() {
        return releaseListener;
    }

    /** The hosts this process runs: every host of a job simulated in this JVM, its own host in a TCP job. */
    public List<Integer> localHosts() {
        return cluster != null ? IntStream.range(0, config.hosts()).boxed().toList() : List.of(tcpHost.host());
    }

    /**
     * The event space of {@code host}, one of {@link #localHosts()}: where its collectors write, for an analysis thread
     * on that host to read (EventSpace paper §4.3). Empty with collectors off.
     */
    public Optional<EventSpace> eventSpace(int host) {
        if (!localHosts().contains(host)) {
            throw new IllegalArgumentException("host " + host + " is not run by this process; its hosts are " + localHosts());
        }
        return spaces == null ? Optional.empty() : Optional.of(spaces.space(host));
    }

    /**
     * The result board of {@code host} (one this process runs), where its analysis threads publish for an event scope
     * whose filter gathers results ({@code newest}); empty without collectors.
     */
    public Optional<ResultBoard> resultBoard(int host) {
        if (!localHosts().contains(host)) {
            throw new IllegalArgumentException("host " + host + " is not run by this process; its hosts are " + localHosts());
        }
        return spaces == null ? Optional.empty() : Optional.of(spaces.board(host));
    }

    /** Whether this process runs the event scope's front-end (and so has {@link #snapshot()}s). */
    public boolean runsFrontEnd() {
        return frontEnd != null;
    }

    /**
     * What the event scope's front-end has seen so far: counters over every round and the newest result with data.
     * Empty where this process runs no front-end (no scope, or not host 0). Any thread, any time, while the job runs.
     */
    public Optional<ScopeSnapshot> snapshot() {
        return frontEnd == null ? Optional.empty() : Optional.of(frontEnd.snapshot());
    }

    /**
     * Has {@code listener} called with every round the scope's front-end pulls from now on, on its thread
     * ({@link ScopeFrontEnd#onRound}); register before the ranks start.
     *
     * @throws IllegalStateException if this process does not run the front-end.
     */
    public void onScopeRound(java.util.function.Consumer<ScopeRound> listener) {
        if (frontEnd == null) {
            throw new IllegalStateException("this process does not run the event scope's front-end (host 0 does, with a scope)");
        }
        frontEnd.onRound(listener);
    }

    /**
     * Stops the event scope's front-end if this process runs it: no more pulls after its final ones, which gather what
     * the ranks and analysis threads wrote last; returns its last snapshot (the same on every call). {@link #finish}
     * does this itself; call it first to read the complete scope before the job reports.
     */
    public Optional<ScopeSnapshot> stopScope() {
        if (frontEnd == null) {
            return Optional.empty();
        }
        if (stoppedScope == null) {
            // After a failure the final pulls get a short bound: a dead host will not answer, and what the front-end
            // already gathered must reach the report before the launcher stops this process (Launcher.REPORT_GRACE).
            stoppedScope = frontEnd.stop(ranksFailed ? Math.min(config.timeout().toMillis(), FAILED_SCOPE_STOP.toMillis())
                    : config.timeout().toMillis() * 2);
        }
        return Optional.of(stoppedScope);
    }

    private ScopeSnapshot stoppedScope;

    /** What the event spaces of this process's hosts recorded so far (empty with collectors off). */
    public List<HostTrace> traces() {
        return spaces != null ? spaces.results() : List.of();
    }

    /** Whether a local rank failed in {@link #runRanks} (the job failed: nothing more will come from a dead peer). */
    public boolean ranksFailed() {
        return ranksFailed;
    }

    /**
     * Runs {@code task} for every local rank, a thread each, and waits at most {@code limit}; see {@link RankThreads}.
     * Remembers whether every rank returned, so that {@link #close} knows whether the trace buffers may be unmapped.
     */
    public <T> List<RankThreads.Outcome<T>> runRanks(RankThreads.RankTask<T> task, Duration limit) {
        List<RankThreads.Outcome<T>> outcomes = RankThreads.run(localRanks, task, limit);
        ranksReturned = RankThreads.allReturned(outcomes);
        ranksFailed = outcomes.stream().anyMatch(o -> !o.ok());
        return outcomes;
    }

    /**
     * What local host {@code host}'s wrappers of tree {@code tree} put off until one of its threads waits anyway in a
     * call of that tree ({@link IdleWork}; a butterfly's exchange runs it after it sent). Add to it before the ranks start.
     */
    public IdleWork idleWork(int host, int tree) {
        if (cluster != null) {
            return cluster.host(host).idleWork(tree);
        }
        if (host != tcpHost.host()) {
            throw new IllegalArgumentException("host " + host + " does not run in this process (host " + tcpHost.host() + " does)");
        }
        return tcpHost.runtime().idleWork(tree);
    }

    /**
     * Ends the job for this process, once its ranks returned: stops the scope's front-end (its last pulls still reach
     * the other hosts, which serve its hops until every host finished), takes what the event spaces recorded and, over
     * TCP, reports it with {@code program} (what the program wants its launcher to know) and waits for every host.
     *
     * @return what this process reports; its {@code scope} is the scope block where this process ran the front-end.
     * @throws org.eventspace.comm.path.CommException over TCP, if the job was aborted or a host did not finish in time.
     */
    public HostResult finish(JsonNode program) {
        if (finished) {
            throw new IllegalStateException("the job already finished");
        }
        finished = true;
        // Every local rank returned: the tuples a butterfly's collectors left for their exchange's next wait go in now,
        // before the scope's last pull and the traces read the buffers.
        if (cluster != null) {
            cluster.hosts().forEach(HostRuntime::ranksReturned);
        } else {
            tcpHost.runtime().ranksReturned();
        }
        watches.forEach(JobObserver.Watch::finishing);
        JsonNode scope = stopScope().map(s -> s.toJson(JSON)).orElse(null);
        if (cluster != null) {
            // Every rank of the job returned (all of them run here): nothing the layer's wrappers wait for will come.
            quiesceLayer(layer);
            // Close the simulated hosts first: their service threads are gone, so every tuple is in place.
            cluster.close();
            return new HostResult(traces(), scope, program);
        }
        // Every local rank returned; a tuple a service thread of this host writes for a remote rank's last call may still
        // be on its way (at most one per serving collector).
        HostResult result = new HostResult(traces(), scope, program);
        // Ranks that failed mean the job failed: report, then wait only briefly for the others, so a peer that
        // stopped answering cannot hold this host (and the launcher waiting for it) for the rendezvous' full bound.
        // A line the rendezvous cannot carry loses its largest parts, named in left_out, never the whole result.
        HostResult sent = result.fitting(JSON, RendezvousProtocol.MAX_RESULT_BYTES);
        tcpHost.finish(sent.encode(JSON), ranksFailed ? FAILED_FINISH_WAIT : null);
        return sent;
    }

    /**
     * Releases the hosts, their threads and sockets, and the event spaces (unmapping the trace files, which stay, once
     * no rank can still write). Without {@link #finish} first, over TCP this aborts the job for every host.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        watches.forEach(JobObserver.Watch::close);
        RuntimeException failure = null;
        if (frontEnd != null && !finished) {
            frontEnd.stop(config.timeout().toMillis());
        }
        try {
            if (cluster != null) {
                if (!finished) {
                    quiesceLayer(layer);
                    cluster.close();
                }
            } else {
                // After finish every host finished; without it the job is aborted: either way no rank waits any more.
                quiesceLayer(layer);
                tcpHost.close();
            }
        } catch (RuntimeException e) {
            failure = e;
        }
        // After the hosts: no hop's thread waits in the layer's wrappers any more.
        closeLayer(layer);
        if (spaces != null) {
            spaces.close(ranksReturned);
        }
        if (failure != null) {
            throw failure;
        }
    }
}
