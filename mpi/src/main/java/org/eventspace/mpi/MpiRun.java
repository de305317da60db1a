package org.eventspace.mpi;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;

import org.eventspace.comm.launch.Launcher;
import org.eventspace.events.TraceTupleFlyweight;

/**
 * Runs an unmodified MPI program under the system's {@code mpirun} with the interposition library preloaded, and the
 * node agents of this machine's hosts reading its trace files while it runs:
 * <pre>
 *   mpirun -np N -x LD_PRELOAD=libeventspace-mpi.so -x ES_MPI_DIR=DIR [-x ES_MPI_SIM_HOSTS ...] PROGRAM ARGS
 *   mpiexec -np N -genv LD_PRELOAD libeventspace-mpi.so -genv ES_MPI_DIR DIR ... PROGRAM ARGS        (MPICH's Hydra)
 * </pre>
 * The program's stdin, stdout and stderr are mpirun's, inherited untouched; its exit code is mpirun's. One agent
 * thread here runs a {@link NodeAgent} per host folder that appears in DIR (simulated hosts are folders here). With
 * {@link MpiRunConfig.Agents#PROCESSES} each host's agent is a {@link NodeAgentProcess} instead (started here, one per
 * simulated host; with {@link MpiRunConfig.Agents#LISTEN} started elsewhere, one per node), which that thread pulls
 * over TCP ({@link RemoteAgents}) into copies of the host folders under {@code DIR/mirror}, read as above.
 * Not thread-safe: one run per instance.
 */
public final class MpiRun {
    private final MpiRunConfig config;
    private ProcessBuilder.Redirect stdout = ProcessBuilder.Redirect.INHERIT;
    private ProcessBuilder.Redirect stderr = ProcessBuilder.Redirect.INHERIT;
    private java.io.PrintStream progress = System.err;
    private final MpiLiveView live;

    public MpiRun(MpiRunConfig config) {
        this.config = config;
        this.live = new MpiLiveView(Path.of(config.program()).getFileName().toString(), config.np(),
                Math.max(1, Math.min(config.np(), config.simHosts())), config.agents() != MpiRunConfig.Agents.THREAD);
    }

    /**
     * What the analysis holds while the program runs (published by the agent thread every
     * {@link MpiLiveView#PERIOD_MS} ms, with {@code --agent live}), and once it ended; any thread may read it, before
     * and during {@link #run()}.
     */
    public MpiLiveView live() {
        liveWatched = true;
        return live;
    }

    /**
     * Whether someone asked for {@link #live()}: only then does the agent thread build the blocks while the program
     * runs (a run nobody watches spends no agent time on them; the final blocks are made once, at the end, either way).
     */
    private volatile boolean liveWatched;

    private MpiCallListener listener;

    /** Hands every call the agents read to {@code l} as well (before {@link #run()}; null: none). */
    public MpiRun listen(MpiCallListener l) {
        this.listener = l;
        return this;
    }

    /** Where the program's output goes instead of ours (tests compare it). */
    MpiRun output(ProcessBuilder.Redirect out, ProcessBuilder.Redirect err) {
        this.stdout = out;
        this.stderr = err;
        return this;
    }

    /** Where the live progress lines go (stderr by default). */
    MpiRun progress(java.io.PrintStream to) {
        this.progress = to;
        return this;
    }

    /** The mpirun command line, for the library at {@code library}, under Open MPI's mpirun. */
    List<String> command(Path library) {
        return command(library, MpiImplementation.OPENMPI);
    }

    /**
     * The launcher's command line, for the library at {@code library}: Open MPI's {@code mpirun} takes each variable
     * as {@code -x VAR=VALUE} and more ranks than cores only with {@code --oversubscribe}; MPICH's Hydra
     * {@code mpiexec} takes {@code -genv VAR VALUE} and oversubscribes as it is.
     */
    List<String> command(Path library, MpiImplementation mpi) {
        List<String> c = new ArrayList<>(List.of(config.mpirun(), "-np", String.valueOf(config.np())));
        boolean oversubscribed = config.np() > Runtime.getRuntime().availableProcessors();
        if (mpi.needsOversubscribe() && oversubscribed && !config.mpirunArgs().contains("--oversubscribe")) {
            c.add("--oversubscribe");
        }
        String preload = System.getenv("LD_PRELOAD");
        c.addAll(mpi.environment("LD_PRELOAD", library + (preload == null || preload.isEmpty() ? "" : ":" + preload)));
        c.addAll(mpi.environment("ES_MPI_DIR", config.traceDir().toAbsolutePath().toString()));
        c.addAll(mpi.environment("ES_MPI_CAPACITY", String.valueOf(config.capacity())));
        if (config.simHosts() > 0) {
            c.addAll(mpi.environment("ES_MPI_SIM_HOSTS", String.valueOf(config.simHosts())));
            c.addAll(mpi.environment("ES_MPI_SIM_SKEW_NS", String.valueOf(config.simSkewNs())));
        }
        c.addAll(config.mpirunArgs());
        c.add(config.program());
        c.addAll(config.args());
        return c;
    }

    /**
     * Builds the library if needed, runs the program and analyses its trace.
     *
     * @throws IOException if the library cannot be built, the trace folder made, or mpirun started.
     * @throws IllegalArgumentException if the compiler and the launcher belong to different MPI implementations.
     */
    public MpiRunResult run() throws IOException, InterruptedException {
        // a configuration that names its implementation was checked by whoever settled it (eventspace mpirun)
        MpiImplementation mpi = config.mpi() != null ? config.mpi()
                : MpiImplementation.matching(config.mpirun(), config.mpicc(), null);
        Path library = NativeLibrary.ensureBuilt(config.mpicc(), mpi);
        Path dir = config.traceDir();
        Files.createDirectories(dir);
        removeOldRankFiles(dir);
        List<String> command = command(library, mpi);
        ProcessBuilder pb = new ProcessBuilder(command).inheritIO().redirectOutput(stdout).redirectError(stderr);
        if (mpi == MpiImplementation.OPENMPI && "root".equals(System.getProperty("user.name"))) {
            // Open MPI refuses root unless told; these two are its documented equivalent of --allow-run-as-root
            Map<String, String> env = pb.environment();
            env.put("OMPI_ALLOW_RUN_AS_ROOT", "1");
            env.put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        }
        MpiAnalysis analysis = new MpiAnalysis();
        if (config.filter() != null) {
            analysis.scope(new MpiScope(config.filter()));
        }
        List<String> errors = new ArrayList<>();
        RemoteAgents remote = null;
        Path agentsRead = dir;
        if (config.agents() != MpiRunConfig.Agents.THREAD) {
            // Each host's agent is a process of its own; what it pulls lands in a copy of its folder under mirror/,
            // which this JVM's agents read exactly as they read a local host's folder.
            agentsRead = dir.resolve(MIRROR);
            if (Files.isDirectory(agentsRead)) {
                removeOldRankFiles(agentsRead);
            }
            MpiRunConfig.AgentListen listen = config.listen();
            if (listen == null) {
                remote = new RemoteAgents(agentsRead, java.net.InetAddress.getLoopbackAddress(), 0, AGENT_ANSWER_MS);
                startAgentProcesses(remote, dir);
                remote.accept(agentProcesses.size(), AGENT_JOIN_MS);
            } else {
                // agents someone else starts, one per node, before or after this line
                remote = new RemoteAgents(agentsRead, java.net.InetAddress.getByName(listen.host()), listen.port(),
                        AGENT_ANSWER_MS, listen.secretHex());
                progress.println("eventspace: waiting up to " + AGENT_JOIN_MS / 1000 + " s for " + listen.hosts()
                        + " node agent(s) at " + listen.host() + ":" + listen.port());
                remote.accept(listen.hosts(), AGENT_JOIN_MS);
            }
            errors.addAll(remote.errors());
        }
        Hosts hosts = new Hosts(agentsRead, analysis, config.progressS(), progress, liveWatched ? live : null,
                config.monitors(), listener, remote);
        // The agent shares the machine with the ranks (which busy-poll in Open MPI): an idle agent parks 1-10 ms
        // rather than spinning; a rank's ring (131072 tuples by default) takes far longer than 10 ms to fill.
        AgentRunner runner = new AgentRunner(new BackoffIdleStrategy(1, 1, 1_000_000, 10_000_000), Throwable::printStackTrace,
                null, hosts);
        if (config.live()) {
            Thread agentThread = new Thread(runner, runner.agent().roleName());
            agentThread.setDaemon(true);
            agentThread.start();
        }
        long t0 = System.nanoTime();
        Integer exit = null;
        Process process;
        try {
            process = pb.start();
        } catch (IOException e) {
            stopAgentProcesses(remote);
            throw e;
        }
        // Ctrl-C ends this JVM, not necessarily mpirun (a signal sent to this process alone): it goes too
        Thread stopOnExit = new Thread(() -> stop(process), "es-mpirun-stop");
        Runtime.getRuntime().addShutdownHook(stopOnExit);
        try {
            if (process.waitFor(config.timeoutS(), TimeUnit.SECONDS)) {
                exit = process.exitValue();
            } else {
                errors.add("the program did not end within " + config.timeoutS() + " s; mpirun was stopped");
                process.destroy();
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(10, TimeUnit.SECONDS);
                }
            }
        } finally {
            if (process.isAlive()) {
                process.destroyForcibly();
            }
            try {
                Runtime.getRuntime().removeShutdownHook(stopOnExit);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running: it ends mpirun
            }
            if (config.live()) {
                runner.close();
            }
        }
        double wallS = (System.nanoTime() - t0) / 1e9;
        hosts.drain();
        if (remote != null) {
            for (String e : remote.errors()) {
                if (!errors.contains(e)) {
                    errors.add(e);
                }
            }
            stopAgentProcesses(remote);
        }
        analysis.finish(hosts.agents);
        // the final blocks map every timestamp between the MPI_Init and MPI_Finalize offsets (rings read again if need be)
        MpiAnalysis reported = analysis.reread(hosts.agents);
        MpiRunResult result = new MpiRunResult(config, command, exit, wallS, reported, hosts.written(), hosts.missed(),
                hosts.count(), errors, remote != null ? remote.traffic() : null);
        live.finished(LIVE_JSON.valueToTree(MonitorsBlock.live(reported, config.monitors(), live.tree(), hosts.missed(),
                        hosts.agentCpuNs())),
                reported.scope() != null ? reported.scope().toJson(LIVE_JSON) : null, result.model(), wallS);
        hosts.closeAll();
        return result;
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper LIVE_JSON = new com.fasterxml.jackson.databind.ObjectMapper();
    /** The folder under ES_MPI_DIR where the front-end keeps its copy of each agent process's host folder. */
    static final String MIRROR = "mirror";
    /** How long the agent processes may take to start and connect (a JVM each, on a loaded machine). */
    static final long AGENT_JOIN_MS = 60_000;
    /** How long a pull waits for one agent's answer before it drops that host. */
    static final int AGENT_ANSWER_MS = 10_000;

    private final List<Process> agentProcesses = new ArrayList<>();

    /** The agent processes of this run, in host order (tests kill one). */
    List<Process> agentProcesses() {
        synchronized (agentProcesses) {
            return List.copyOf(agentProcesses);
        }
    }

    /** One node-agent process per host folder the library will write: host-0 .. host-(H-1) with simulated hosts. */
    private void startAgentProcesses(RemoteAgents remote, Path dir) throws IOException {
        int hosts = Math.max(1, config.simHosts());
        List<String> java = Launcher.javaCommand(NodeAgentProcess.class.getName(), List.of());
        for (int h = 0; h < hosts; h++) {
            // the agent's own messages (it says nothing unless it fails) go to our stderr, never into the program's
            ProcessBuilder agent = new ProcessBuilder(java).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.INHERIT);
            agent.environment().putAll(remote.agentEnvironment());
            if (config.simHosts() > 0) {
                agent.environment().put("ES_MPI_AGENT_DIR", dir.resolve("host-" + h).toAbsolutePath().toString());
            } else {
                // the library's folder on a real host: host-<host name>, which the agent works out as the library does
                agent.environment().remove("ES_MPI_AGENT_DIR");
                agent.environment().put("ES_MPI_DIR", dir.toAbsolutePath().toString());
            }
            synchronized (agentProcesses) {
                agentProcesses.add(agent.start());
            }
        }
    }

    /** Ends mpirun (which ends its ranks), forcibly if it has not ended within 5 s. */
    private static void stop(Process mpirun) {
        mpirun.destroy();
        try {
            if (!mpirun.waitFor(5, TimeUnit.SECONDS)) {
                mpirun.destroyForcibly();
            }
        } catch (InterruptedException e) {
            mpirun.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** Waits (bounded) for the agents that got FIN to end, and ends those still running. */
    private void stopAgentProcesses(RemoteAgents remote) throws InterruptedException {
        for (Process p : agentProcesses()) {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
        if (remote != null) {
            remote.close();
        }
    }

    private static void removeOldRankFiles(Path dir) throws IOException {
        try (DirectoryStream<Path> hostDirs = Files.newDirectoryStream(dir, "host-*")) {
            for (Path h : hostDirs) {
                if (Files.isDirectory(h)) {
                    try (DirectoryStream<Path> files = Files.newDirectoryStream(h, "rank-*.{trace,meta}")) {
                        for (Path f : files) {
                            Files.delete(f);
                        }
                    }
                }
            }
        }
    }

    /** Finds host folders as they appear and runs a node agent for each, on the one agent thread. */
    private static final class Hosts implements Agent {
        private static final long RESCAN_NS = 100_000_000L;
        private final Path dir;
        private final MpiAnalysis analysis;
        private final List<NodeAgent> agents = new ArrayList<>();
        private final List<Path> seen = new ArrayList<>();
        private long lastScanNs;
        private boolean scanNow = true;
        private final long progressNs;
        private final java.io.PrintStream progress;
        private final long startNs = System.nanoTime();
        private long nextProgressNs;
        private static final long SCOPE_ROUND_NS = 200_000_000L;
        private long nextRoundNs = System.nanoTime() + SCOPE_ROUND_NS;
        private final MpiLiveView live;
        private final java.util.Set<String> kinds;
        private long nextPublishNs = System.nanoTime();
        /** The agent thread's CPU time at its last publication (read on that thread; the run reads it after it ended). */
        private volatile long agentCpuNs;
        private volatile Thread agentThread;

        /** The agent thread's CPU time: at its last publication, or now if it still runs (0 when not measurable). */
        long agentCpuNs() {
            java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
            Thread t = agentThread;
            long now = t != null && mx.isThreadCpuTimeSupported() ? mx.getThreadCpuTime(t.getId()) : -1;
            return Math.max(agentCpuNs, now);
        }

        /** What the agents hand their tuples to: the analysis, and the listener if there is one. */
        private final MpiTupleSink sink;

        /** The agent processes this thread pulls, or null when every host folder is local. */
        private final RemoteAgents remote;
        private static final long PULL_NS = 10_000_000L;
        private long nextPullNs;

        Hosts(Path dir, MpiAnalysis analysis, int progressS, java.io.PrintStream progress, MpiLiveView live,
              java.util.Set<String> kinds, MpiCallListener listener, RemoteAgents remote) {
            this.remote = remote;
            this.sink = listener == null ? analysis : new MpiTupleSink() {
                @Override
                public void onRank(int host, MpiRankFiles rank) {
                    analysis.onRank(host, rank);
                }

                @Override
                public void onCommunicator(int id, int size) {
                    analysis.onCommunicator(id, size);
                }

                @Override
                public boolean everyRankSeen() {
                    return analysis.everyRankSeen();
                }

                @Override
                public boolean holdBack(int rank) {
                    return analysis.holdBack(rank);
                }

                @Override
                public void onTuple(int host, int rank, TraceTupleFlyweight tuple) {
                    analysis.onTuple(host, rank, tuple);
                    listener.onCall(rank, tuple);
                }
            };
            this.live = live;
            this.kinds = kinds;
            this.dir = dir;
            this.analysis = analysis;
            this.progressNs = progressS * 1_000_000_000L;
            this.progress = progress;
            this.nextProgressNs = startNs + progressNs;
        }

        @Override
        public int doWork() throws IOException {
            int work = 0;
            long now = System.nanoTime();
            if (agentThread == null) {
                agentThread = Thread.currentThread();
            }
            boolean pulled = false;
            if (remote != null && now >= nextPullNs) {
                // one round over every agent process; its tuples land in the mirror, which the agents below read
                nextPullNs = now + PULL_NS;
                pulled = remote.pull() > 0;
                if (pulled) {
                    scanNow = true;
                    work++;
                }
            }
            if (scanNow || now - lastScanNs >= RESCAN_NS && !analysis.everyRankSeen()) {
                scanNow = false;
                lastScanNs = now;
                try (DirectoryStream<Path> hostDirs = Files.newDirectoryStream(dir, "host-*")) {
                    List<Path> found = new ArrayList<>();
                    hostDirs.forEach(found::add);
                    found.sort(null);
                    for (Path h : found) {
                        if (Files.isDirectory(h) && !seen.contains(h)) {
                            seen.add(h);
                            agents.add(new NodeAgent(h, hostIndex(h, agents.size()), sink));
                            work++;
                        }
                    }
                }
            }
            if (pulled) {
                // read the copies to their end now: the next pull may bring up to half a ring per rank
                NodeAgent.drain(agents);
            } else {
                int read = 0;
                for (NodeAgent a : agents) {
                    read += a.doWork();
                }
                if (read == 0) {
                    // the held-back ranks wait only while another rank has something to read
                    for (NodeAgent a : agents) {
                        read += a.read(true);
                    }
                }
                work += read;
            }
            if (analysis.scope() != null && now >= nextRoundNs) {
                nextRoundNs = now + SCOPE_ROUND_NS;
                analysis.scope().round();
            }
            if (live != null && now >= nextPublishNs) {
                // The dashboard's view: built here, where the analysis lives, and handed over as immutable JSON.
                nextPublishNs = now + MpiLiveView.PERIOD_MS * 1_000_000L;
                java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
                agentCpuNs = mx.isCurrentThreadCpuTimeSupported() ? mx.getCurrentThreadCpuTime() : 0;
                live.publish(LIVE_JSON.valueToTree(MonitorsBlock.live(analysis, kinds, live.tree(), missed(), agentCpuNs)),
                        analysis.scope() != null ? analysis.scope().toJson(LIVE_JSON) : null,
                        MpiModel.of(analysis, live.program(), live.ranks(), live.hosts(), null, (now - startNs) / 1e9,
                                List.of(), null, true, analysis.tuplesRead() + missed(), missed(), live.hosts()));
            }
            if (progressNs > 0 && now >= nextProgressNs) {
                nextProgressNs = now + progressNs;
                progress.println(String.format(java.util.Locale.ROOT, "eventspace: live %.1f s: %s, %d missed",
                        (now - startNs) / 1e9, MpiSummary.progress(analysis), missed()));
            }
            return work;
        }

        private static int hostIndex(Path h, int order) {
            String name = h.getFileName().toString().substring("host-".length());
            try {
                return Integer.parseInt(name);
            } catch (NumberFormatException e) {
                return order;
            }
        }

        void drain() throws IOException {
            if (remote != null) {
                remote.finish();
            }
            scanNow = true;
            doWork();
            NodeAgent.drain(agents);
        }

        long written() {
            // with agent processes, the hosts' own rings (the mirror holds only what arrived)
            return remote != null ? remote.written() : agents.stream().mapToLong(NodeAgent::written).sum();
        }

        long missed() {
            return agents.stream().mapToLong(NodeAgent::missed).sum() + (remote != null ? remote.missed() : 0);
        }

        int count() {
            return agents.size();
        }

        void closeAll() {
            agents.forEach(NodeAgent::onClose);
        }

        @Override
        public String roleName() {
            return "es-mpi-hosts";
        }
    }
}
