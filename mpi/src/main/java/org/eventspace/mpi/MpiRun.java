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

import org.eventspace.base.json.Json;
import org.eventspace.comm.launch.Launcher;
import org.eventspace.events.TraceTupleFlyweight;

import com.fasterxml.jackson.databind.JsonNode;

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
    private ProcessBuilder.Redirect stdin = ProcessBuilder.Redirect.INHERIT;
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

    /** {@code --stall-timeout}: seconds, 0 for the default of {@link RankStalls}. */
    private long stallTimeoutS;
    /** {@code --on-stall kill}: the first stall observed ends the job. */
    private boolean killOnStall;
    /** The stall that ends the job (set on the agent thread, read by the run's). */
    private volatile RankStalls.Stall stallStop;

    /**
     * How stalled ranks are treated (before {@link #run()}): named after {@code timeoutS} seconds without a call while
     * others wait on them (0: {@link RankStalls}'s default), and with {@code kill} the job is ended at the first.
     */
    public MpiRun onStall(long timeoutS, boolean kill) {
        if (timeoutS < 0) {
            throw new IllegalArgumentException("the stall timeout must be >= 0 s (0: the default), got " + timeoutS);
        }
        this.stallTimeoutS = timeoutS;
        this.killOnStall = kill;
        return this;
    }

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

    /**
     * Where the program's input comes from instead of ours. Tests give it /dev/null: a test JVM's stdin is the test
     * runner's command pipe, which MPICH's Hydra would read and forward to rank 0, and when the runner wrote to it
     * after rank 0 had ended, Hydra failed the job ("unable to write to downstream stdin", exit 255).
     */
    MpiRun input(ProcessBuilder.Redirect in) {
        this.stdin = in;
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
        if (config.agents() != MpiRunConfig.Agents.LISTEN) {
            // the ranks' watchdog ends them if this JVM dies without stopping them (SIGKILL): see JobControl
            c.addAll(JobControl.watchdogArgs(mpi));
        }
        if (config.simHosts() > 0) {
            c.addAll(mpi.environment("ES_MPI_SIM_HOSTS", String.valueOf(config.simHosts())));
            c.addAll(mpi.environment("ES_MPI_SIM_SKEW_NS", String.valueOf(config.simSkewNs())));
        }
        c.addAll(config.mpirunArgs());
        c.add(config.program());
        c.addAll(config.args());
        return c;
    }

    /** Lets Open MPI's launcher start ranks as root, where this runs as root (a container); the same for every launch. */
    static void allowRoot(ProcessBuilder pb, MpiImplementation mpi) {
        if (mpi == MpiImplementation.OPENMPI && "root".equals(System.getProperty("user.name"))) {
            // Open MPI refuses root unless told; these two are its documented equivalent of --allow-run-as-root
            Map<String, String> env = pb.environment();
            env.put("OMPI_ALLOW_RUN_AS_ROOT", "1");
            env.put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        }
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
        JobControl.writeJob(dir, config, command);
        ProcessBuilder pb = new ProcessBuilder(JobControl.ownSession(command)).inheritIO().redirectOutput(stdout)
                .redirectError(stderr).redirectInput(stdin);
        allowRoot(pb, mpi);
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
        hosts.watchStalls(new RankStalls(stallTimeoutS), live, stall -> {
            if (killOnStall) {
                stallStop = stall;
            }
        });
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
        JobControl job = new JobControl();
        try {
            process = pb.start();
        } catch (IOException e) {
            stopAgentProcesses(remote);
            throw e;
        }
        // SIGTERM, SIGINT (Ctrl-C: mpirun is in a session of its own and does not see it) and SIGHUP to this JVM stop
        // the job and let the run end normally, with the report of what was read; a second one ends the JVM at once
        job.catchSignals();
        // should this JVM end some other way (System.exit elsewhere), the job goes with it
        Thread stopOnExit = new Thread(() -> JobControl.stop(process, JobControl.GRACE_MS), "es-mpirun-stop");
        Runtime.getRuntime().addShutdownHook(stopOnExit);
        try {
            long deadline = t0 + config.timeoutS() * 1_000_000_000L;
            while (!process.waitFor(JobControl.POLL_MS, TimeUnit.MILLISECONDS)) {
                RankStalls.Stall stalled = stallStop;
                if (job.signal() != 0) {
                    errors.add("eventspace mpirun received " + RankExit.signalName(job.signal())
                            + "; the job was stopped before it ended (the report holds what was read until then)");
                    JobControl.stop(process, JobControl.GRACE_MS);
                    break;
                } else if (stalled != null) {
                    errors.add("--on-stall kill stopped the job: " + stalled.words());
                    JobControl.stop(process, JobControl.GRACE_MS);
                    break;
                } else if (System.nanoTime() - deadline > 0) {
                    errors.add("the program did not end within " + config.timeoutS() + " s; mpirun was stopped");
                    JobControl.stop(process, 10_000);
                    break;
                }
            }
            if (job.signal() == 0 && stallStop == null && !process.isAlive() && errors.stream()
                    .noneMatch(e -> e.startsWith("the program did not end within"))) {
                exit = process.exitValue();
            }
        } finally {
            if (process.isAlive()) {
                JobControl.stop(process, JobControl.GRACE_MS);
            }
            job.restoreSignals();
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
                hosts.count(), errors, remote != null ? remote.traffic() : null,
                new MpiRunResult.Ending(exit != null, job.signal(), hosts.stalls()));
        live.finished(LIVE_JSON.valueToTree(MonitorsBlock.live(reported, config.monitors(), live.tree(), hosts.missed(),
                        hosts.agentCpuNs())),
                reported.scope() != null ? reported.scope().toJson(LIVE_JSON) : null, result.model(), wallS);
        hosts.closeAll();
        return result;
    }

    /**
     * The report of a job whose front-end died (SIGKILL, a lost login node) from the rank files it left in
     * {@code dir} (a {@code --trace-dir}, or a temporary folder its shutdown hook could not remove): how each rank
     * ended as its meta file says, the calls its ring still holds, {@code complete: false}. {@code DIR/job.json}
     * names the program; without it the program is {@code unknown} and the ranks are those found.
     *
     * @throws IOException if {@code dir} holds no rank files (naming it and what was expected), or they cannot be read.
     */
    public static MpiRunResult recover(Path dir, java.util.Set<String> monitors) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new IOException(dir + " is not a folder (expected a trace folder with host-*/rank-*.meta)");
        }
        int found = 0;
        int highest = -1;
        try (DirectoryStream<Path> hostDirs = Files.newDirectoryStream(dir, "host-*")) {
            for (Path h : hostDirs) {
                if (Files.isDirectory(h)) {
                    try (DirectoryStream<Path> metas = Files.newDirectoryStream(h, "rank-*.meta")) {
                        for (Path m : metas) {
                            found++;
                            String n = m.getFileName().toString();
                            try {
                                highest = Math.max(highest, Integer.parseInt(n.substring(5, n.length() - 5)));
                            } catch (NumberFormatException e) {
                                // counted; NodeAgent says what is wrong with it
                            }
                        }
                    }
                }
            }
        }
        if (found == 0) {
            throw new IOException(dir + " holds no rank files (expected host-*/rank-<R>.meta and .trace, as the "
                    + "interposition library writes them into ES_MPI_DIR)");
        }
        Path jobFile = dir.resolve(JobControl.JOB_FILE);
        String program = "unknown";
        List<String> args = List.of();
        List<String> command = List.of();
        int np = highest + 1;
        int simHosts = 0;
        if (Files.isRegularFile(jobFile)) {
            JsonNode job = Json.mapper().readTree(jobFile.toFile());
            if (job == null || !job.path("program").isTextual() || !job.path("ranks").canConvertToInt()) {
                throw new IOException(jobFile + ": expected an object with program (text) and ranks (number)");
            }
            program = job.get("program").asText();
            args = new ArrayList<>();
            for (JsonNode a : job.path("program_args")) {
                args.add(a.asText());
            }
            command = new ArrayList<>();
            for (JsonNode a : job.path("mpirun_command")) {
                command.add(a.asText());
            }
            np = Math.max(np, job.get("ranks").asInt());
            simHosts = Math.min(np, Math.max(0, job.path("sim_hosts").asInt(0)));
        }
        MpiRunConfig config = new MpiRunConfig(Math.max(1, np), program, args, dir, MpiRunConfig.DEFAULT_CAPACITY,
                simHosts, 0, "mpirun", "mpicc", List.of(), 1, monitors, false, 0, null);
        MpiAnalysis analysis = new MpiAnalysis();
        Hosts hosts = new Hosts(dir, analysis, 0, System.err, null, monitors, null, null);
        hosts.drain();
        analysis.finish(hosts.agents);
        MpiAnalysis reported = analysis.reread(hosts.agents);
        List<String> errors = new ArrayList<>(List.of("recovered from the rank files in " + dir
                + " after its front-end was gone: the job was not seen to its end"));
        MpiRunResult result = new MpiRunResult(config, command, null, Double.NaN, reported, hosts.written(),
                hosts.missed(), hosts.count(), errors, null, new MpiRunResult.Ending(false, 0, List.of()));
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
        private static final long STALL_CHECK_NS = 250_000_000L;
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

        /** Every rank's files as the agents opened them, for the stall watch. */
        private final List<MpiRankFiles> rankFiles = new ArrayList<>();
        private RankStalls stalls;
        private MpiLiveView stallView;
        private java.util.function.Consumer<RankStalls.Stall> onStall;
        private long nextStallNs;

        void watchStalls(RankStalls watch, MpiLiveView view, java.util.function.Consumer<RankStalls.Stall> then) {
            this.stalls = watch;
            this.stallView = view;
            this.onStall = then;
        }

        /** Every stall observed, longest first (the run's thread, after the agent thread ended). */
        List<RankStalls.Stall> stalls() {
            return stalls == null ? List.of() : stalls.all();
        }

        /** The agent processes this thread pulls, or null when every host folder is local. */
        private final RemoteAgents remote;
        private static final long PULL_NS = 10_000_000L;
        private long nextPullNs;

        Hosts(Path dir, MpiAnalysis analysis, int progressS, java.io.PrintStream progress, MpiLiveView live,
              java.util.Set<String> kinds, MpiCallListener listener, RemoteAgents remote) {
            this.remote = remote;
            this.sink = new MpiTupleSink() {
                @Override
                public void onRank(int host, MpiRankFiles rank) {
                    rankFiles.add(rank);
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
                    if (listener != null) {
                        listener.onCall(rank, tuple);
                    }
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
            if (stalls != null && now >= nextStallNs) {
                nextStallNs = now + STALL_CHECK_NS;
                List<RankStalls.Stall> stalledNow = stalls.observe(rankFiles, now);
                stallView.stalled(stalledNow);
                if (!stalledNow.isEmpty()) {
                    onStall.accept(stalledNow.get(0));
                }
            }
            if (live != null && now >= nextPublishNs) {
                // The dashboard's view: built here, where the analysis lives, and handed over as immutable JSON.
                nextPublishNs = now + MpiLiveView.PERIOD_MS * 1_000_000L;
                java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
                agentCpuNs = mx.isCurrentThreadCpuTimeSupported() ? mx.getCurrentThreadCpuTime() : 0;
                live.publish(LIVE_JSON.valueToTree(MonitorsBlock.live(analysis, kinds, live.tree(), missed(), agentCpuNs)),
                        analysis.scope() != null ? analysis.scope().toJson(LIVE_JSON) : null,
                        MpiModel.of(analysis, live.program(), live.ranks(), live.hosts(), null, (now - startNs) / 1e9,
                                List.of(), null, true, analysis.tuplesRead() + missed(), missed(), live.hosts(),
                                live.stalled()));
            }
            if (progressNs > 0 && now >= nextProgressNs) {
                nextProgressNs = now + progressNs;
                StringBuilder stalled = new StringBuilder();
                if (stallView != null) {
                    for (RankStalls.Stall st : stallView.stalled()) {
                        stalled.append("; ").append(st.words());
                    }
                }
                progress.println(String.format(java.util.Locale.ROOT, "eventspace: live %.1f s: %s, %d missed%s",
                        (now - startNs) / 1e9, MpiSummary.progress(analysis), missed(), stalled));
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
