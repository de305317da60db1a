package org.eventspace.cli;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

import org.eventspace.base.os.Executables;
import org.eventspace.mpi.MpiCallListener;
import org.eventspace.mpi.MpiImplementation;
import org.eventspace.mpi.MpiRun;
import org.eventspace.mpi.MpiRunConfig;
import org.eventspace.mpi.MpiRunResult;
import org.eventspace.mpi.MpiTraceFolder;
import org.eventspace.mpi.MpiTraceRecorder;
import org.eventspace.mpi.MpiTraffic;
import org.eventspace.ui.DashboardServer;
import org.eventspace.ui.MpiDashboardSource;
import org.eventspace.mpi.PeerTraffic;
import org.eventspace.mpi.PmlTraffic;
import org.eventspace.run.TracedRun;
import org.eventspace.scope.filter.FilterSpec;
import org.eventspace.trace.RankTrace;
import org.eventspace.trace.Trace;
import org.eventspace.trace.TraceFile;
import org.eventspace.base.json.Json;

import com.fasterxml.jackson.databind.ObjectMapper;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code eventspace mpirun -np N [flags] -- PROGRAM ARGS}: an unmodified MPI program under the system's mpirun with
 * the interposition library and the node agents ({@link MpiRun}). The program's output passes through untouched;
 * ours goes to stderr after it ended; the exit code is the program's.
 */
@Command(name = "mpirun", mixinStandardHelpOptions = true,
        description = "Run an unmodified MPI program under mpirun, monitored through MPI's profiling interface; "
                + "exits with the program's exit code.")
final class MpirunCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = {"-np", "-n"}, description = "MPI ranks (required unless --recover).")
    Integer np;

    @Option(names = "--monitor", split = ",", defaultValue = "loadbalance,stats",
            description = "loadbalance (slowest rank, waits), stats (call durations); both give the profile. Default: ${DEFAULT-VALUE}.")
    List<String> monitors;

    @Option(names = "--json", paramLabel = "FILE", description = "Write eventspace.run/2.")
    Path json;

    @Option(names = "--trace-dir", paramLabel = "DIR", description = "Where the ranks' trace files go (kept after the "
            + "run). Default: a new folder eventspace-mpi-* in the temporary folder, removed when the command ends "
            + "(also after a failure or Ctrl-C) unless --keep-trace-files.")
    Path traceDir;

    @Option(names = "--keep-trace-files", description = "Keep the temporary folder of the ranks' trace files after the "
            + "run (the summary says where and how much).")
    boolean keepTraceFiles;

    @Option(names = "--capacity", defaultValue = "131072", description = "Tuples per rank's trace ring (power of two; "
            + "48 B each). Default: ${DEFAULT-VALUE}.")
    int capacity;

    @Option(names = "--sim-hosts", defaultValue = "0", description = "Split the ranks in blocks over H simulated hosts "
            + "on this machine, one node agent each (tests the cross-host paths). Default: none.")
    int simHosts;

    @Option(names = "--sim-skew-ns", defaultValue = "0", description = "With --sim-hosts: host h's clock reads h x this "
            + "many ns ahead, for the clock alignment to remove. Default: ${DEFAULT-VALUE}.")
    long simSkewNs;

    @Option(names = "--mpi", defaultValue = "auto", paramLabel = "IMPL", description = "openmpi, mpich (MPICH, Intel MPI, "
            + "MVAPICH, Cray MPICH: Hydra's mpiexec) or auto: read off the launcher (--mpirun, else mpirun on the PATH). "
            + "With openmpi or mpich and no --mpirun, that implementation's launcher as Debian installs it beside the "
            + "other (mpirun.openmpi, mpiexec.hydra). Default: ${DEFAULT-VALUE}.")
    String mpi;

    @Option(names = "--mpirun", description = "The system's mpirun or mpiexec. Default: mpirun, or --mpi's launcher.")
    String mpirun;

    @Option(names = "--mpicc", description = "Builds the library on first use; it must belong to the launcher's MPI. "
            + "Default: the mpicc beside the launcher (mpicc.mpich beside mpirun.mpich or mpiexec.hydra).")
    String mpicc;

    @Option(names = "--mpirun-arg", paramLabel = "ARG", description = "One more argument for mpirun, before the program "
            + "(repeat it: --mpirun-arg --mca --mpirun-arg btl --mpirun-arg self,vader).")
    List<String> mpirunArgs = new ArrayList<>();

    @Option(names = "--agent", defaultValue = "live", description = "live: read the ranks' trace buffers while the program "
            + "runs; after: only once it ended (takes no CPU from the ranks; the waits then cover what the rings still "
            + "hold, the call counts stay exact). Default: ${DEFAULT-VALUE}.")
    String agent;

    @Option(names = "--agents", defaultValue = "thread", paramLabel = "WHERE", description = "thread: every host's node "
            + "agent is a thread of this JVM reading this machine's folders (one machine); processes: one node-agent "
            + "process per host (per --sim-hosts host here), which this JVM pulls over TCP, as on a cluster (needs "
            + "--agent live); listen:N: N agent processes started elsewhere, one per node (srun --ntasks-per-node=1, "
            + "mpirun --map-by ppr:1:node), connect to --agents-address with the secret in ES_MPI_AGENT_SECRET. "
            + "Default: ${DEFAULT-VALUE}.")
    String agents;

    @Option(names = "--agents-address", paramLabel = "HOST:PORT", description = "With --agents listen:N: where this JVM "
            + "listens for the node agents (their ES_MPI_AGENT_FRONT_END).")
    String agentsAddress;

    @Option(names = "--progress", defaultValue = "0", paramLabel = "S", description = "With --agent live: every S seconds "
            + "one line on stderr with what the analysis saw so far (calls read, the slowest rank so far). Default: none.")
    int progressS;

    @Option(names = "--filter", paramLabel = "F", description = "ToM's filter over every call (a record per call: rank, "
            + "function, µs), a leaf per host: stats, hist:BINS, class:all|comm|REGEX, max:FIELD, min:FIELD, concat; "
            + "adds the scope block to the report.")
    String filter;

    @Option(names = "--traffic", paramLabel = "FILE", description = "Write the program's communication matrix "
            + "(eventspace.traffic/1: rank × rank and host × host, per operation: send, collectives, one-sided) to FILE, "
            + "counted by Open MPI's PML monitoring where messages leave, so a collective's own messages are in it; under "
            + "MPICH, from the interposition library's own send records (point-to-point only).")
    Path traffic;

    @Option(names = "--timeout", defaultValue = "3600", description = "Seconds before the run is stopped. Default: ${DEFAULT-VALUE}.")
    long timeoutS;

    @Option(names = "--stall-timeout", defaultValue = "0", paramLabel = "S", description = "With --agent live: name a rank "
            + "stalled when its call count has not moved for S seconds while another rank waits inside an MPI call "
            + "(its process stopped, or it is outside MPI). 0: 5 x the longest pause of any rank's calls seen so far, "
            + "at least 10 s, at most 60 s. Default: ${DEFAULT-VALUE}.")
    long stallTimeoutS;

    @Option(names = "--on-stall", defaultValue = "report", paramLabel = "ACTION", description = "report: name a stalled "
            + "rank live (--progress, the dashboard) and in the report; kill: also end the job at the first stall (exit "
            + "code 1, the report names the rank). Default: ${DEFAULT-VALUE}.")
    String onStall;

    @Option(names = "--recover", paramLabel = "DIR", description = "Run nothing: write the summary and report (--json) "
            + "from the rank files a killed eventspace mpirun left in its trace folder DIR (--trace-dir, or its "
            + "temporary eventspace-mpi-* folder), marked incomplete.")
    Path recover;

    @CommandLine.Mixin
    ServeOptions serve = new ServeOptions();

    @CommandLine.Mixin
    TraceRunOptions traceOptions = new TraceRunOptions();

    @Parameters(index = "0", arity = "0..1", paramLabel = "PROGRAM", description = "The MPI program (required unless --recover).")
    String program;

    @Parameters(index = "1..*", paramLabel = "ARGS", description = "Its arguments.")
    List<String> args = new ArrayList<>();

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (recover != null) {
            return recover();
        }
        if (np == null || program == null) {
            throw new UsageError("eventspace mpirun needs -np N and a PROGRAM (or --recover DIR)");
        }
        if (!onStall.equals("report") && !onStall.equals("kill")) {
            throw new UsageError("--on-stall must be report or kill, got '" + onStall + "'");
        }
        if (stallTimeoutS < 0) {
            throw new UsageError("--stall-timeout must be >= 0 s (0: the default), got " + stallTimeoutS);
        }
        checkOutputs();
        if (traceDir != null || keepTraceFiles) {
            return call(traceDir != null ? traceDir : Files.createTempDirectory("eventspace-mpi-"), false);
        }
        // the ranks' files of a folder nobody asked for go when the command ends, after everything that reads them
        try (MpiTraceFolder temporary = MpiTraceFolder.temporary()) {
            return call(temporary.path(), true);
        }
    }

    private Integer call(Path dir, boolean temporary) throws IOException, InterruptedException {
        Set<String> kinds = new LinkedHashSet<>(monitors);
        kinds.remove("none");
        if (!agent.equals("live") && !agent.equals("after")) {
            throw new UsageError("--agent must be live or after, got '" + agent + "'");
        }
        if (!agents.equals("thread") && !agents.equals("processes") && !agents.startsWith("listen:")) {
            throw new UsageError("--agents must be thread, processes or listen:N, got '" + agents + "'");
        }
        if (agents.startsWith("listen:") != (agentsAddress != null)) {
            throw new UsageError("--agents-address HOST:PORT goes with --agents listen:N, and only with it");
        }
        MpiRunConfig config;
        MpiImplementation declared;
        try {
            declared = mpi.equals("auto") ? null : MpiImplementation.of(mpi);
            MpiRunConfig.Agents where = MpiRunConfig.Agents.THREAD;
            MpiRunConfig.AgentListen listen = null;
            if (agents.equals("processes")) {
                where = MpiRunConfig.Agents.PROCESSES;
            } else if (agents.startsWith("listen:")) {
                where = MpiRunConfig.Agents.LISTEN;
                int n;
                try {
                    n = Integer.parseInt(agents.substring("listen:".length()));
                } catch (NumberFormatException e) {
                    throw new UsageError("--agents listen:N needs a number of agents, got '" + agents + "'");
                }
                listen = MpiRunConfig.AgentListen.of(n, agentsAddress, System.getenv("ES_MPI_AGENT_SECRET"));
            }
            // the flags checked first; the launcher and compiler are settled below, once it is worth running them
            config = new MpiRunConfig(np, program, args, dir, capacity, simHosts, simSkewNs, "mpirun", "mpicc",
                    mpirunArgs, timeoutS, kinds, agent.equals("live"), progressS,
                    filter == null ? null : FilterSpec.parse(filter),
                    where, listen, temporary, null);
        } catch (IllegalArgumentException e) {
            throw new UsageError(e.getMessage());
        }
        if (Executables.find(program) == null) {
            throw new UsageError(program.contains(File.separator) ? "PROGRAM '" + program + "' is not an executable file"
                    : "PROGRAM '" + program + "' is not on the PATH (give its path)");
        }
        Path trafficPrefix = null;
        MpiImplementation implementation;
        try {
            // which MPI: the launcher says (or --mpi picks Debian's name for it), the compiler beside it builds the
            // library, and the two must be of one implementation
            if (mpirun == null) {
                mpirun = declared != null ? declared.launcherOnPath() : "mpirun";
            }
            if (Executables.find(mpirun) == null) {
                throw new UsageError("--mpirun '" + mpirun + "' is not " + (mpirun.contains(File.separator)
                        ? "an executable file" : "on the PATH") + " (is MPI installed?)");
            }
            if (mpicc == null) {
                MpiImplementation launcher = declared != null ? declared : MpiImplementation.ofLauncher(mpirun);
                mpicc = launcher.compilerBeside(Executables.find(mpirun));
            }
            implementation = MpiImplementation.matching(mpirun, mpicc, declared);
            List<String> extra = new ArrayList<>(mpirunArgs);
            if (traffic != null && implementation == MpiImplementation.OPENMPI) {
                MpiTraffic.check(mpirun, Executables.find(mpirun));
                trafficPrefix = dir.resolve("pml");
                MpiTraffic.removeOld(trafficPrefix, np);
                extra.addAll(PmlTraffic.mpirunArgs(trafficPrefix));
            }
            config = config.under(implementation, mpirun, mpicc, extra);
        } catch (IllegalArgumentException | IOException e) {
            throw new UsageError(e.getMessage());
        }
        serve.check();
        if (serve.enabled() && !config.live()) {
            throw new UsageError("--serve shows the program while it runs: it needs --agent live, not --agent " + agent);
        }
        traceOptions.check();
        if (traceOptions.enabled() && !config.live()) {
            throw new UsageError("--trace records the calls as the agent reads them: it needs --agent live, not --agent " + agent);
        }
        MpiTraceRecorder recorder = traceOptions.enabled() ? new MpiTraceRecorder(np, traceOptions.toConfig(null)) : null;
        // without Open MPI's PML monitoring, --traffic sums the library's own send records as the agent reads them
        PeerTraffic counted = traffic != null && trafficPrefix == null ? new PeerTraffic(np) : null;
        MpiCallListener listener = recorder;
        if (counted != null) {
            listener = recorder == null ? counted : (rank, tuple) -> {
                recorder.onCall(rank, tuple);
                counted.onCall(rank, tuple);
            };
        }
        MpiRun run = new MpiRun(config).listen(listener).onStall(stallTimeoutS, onStall.equals("kill"));
        java.io.PrintWriter err = spec.commandLine().getErr();
        DashboardServer server = null;
        if (serve.enabled()) {
            // Served from this JVM, where the node agent's analysis runs; after the program it serves the final state
            // for --linger (ServeOptions#serveFinalState), then ends.
            try {
                server = DashboardServer.start(new MpiDashboardSource(run.live(), filter), serve.bind, serve.port);
            } catch (IllegalStateException e) {
                throw new UsageError(e.getMessage() + " (--serve 0 picks a free port)");
            }
            err.println("dashboard: " + server.url());
            err.flush();
        }
        TerminalView terminal = server != null && serve.tui ? TerminalView.start(server, System.err) : null;
        try {
            MpiRunResult result = run.run();
            if (terminal != null) {
                terminal.close();
            }
            for (String line : result.summary()) {
                err.println("eventspace: " + line);
            }
            err.flush();
            if (counted != null) {
                OutputFiles.write(traffic, "--traffic", file -> MpiTraffic.write(result, counted, np,
                        Path.of(program).getFileName().toString(), file, err));
            } else if (traffic != null) {
                Path prefix = trafficPrefix;
                OutputFiles.write(traffic, "--traffic", file -> MpiTraffic.write(result, prefix, np,
                        Path.of(program).getFileName().toString(), file, err));
            }
            TracedRun.Summary traced = null;
            if (recorder != null) {
                traced = writeTrace(recorder, result, err);
            }
            if (json != null) {
                ObjectMapper mapper = Json.mapper();
                com.fasterxml.jackson.databind.node.ObjectNode doc = result.toJson(mapper);
                if (traced != null) {
                    doc.set("trace", traced.toJson(mapper));
                }
                OutputFiles.write(json, "--json", file -> Json.pretty().writeValue(file.toFile(), doc));
            }
            Integer exit = result.exitCode();
            if (server != null) {
                serve.serveFinalState(server, ServeOptions.outcome(exit != null && exit == 0, exit, result.summary()),
                        "program", err);
            }
            if (result.signal() != 0) {
                // as a shell reports a process the signal ended; the job was stopped and the report written
                return 128 + result.signal();
            }
            return exit == null ? EventSpaceCommand.EXIT_FAILURE : exit;
        } finally {
            if (terminal != null) {
                terminal.close();
            }
            if (server != null) {
                server.close();
            }
        }
    }

    /**
     * For a command given a folder it cannot read: if {@code dir} holds an MPI job's rank files, what turns them into a
     * report; else empty.
     */
    static String recoverHint(Path dir) {
        if (!Files.isDirectory(dir)) {
            return "";
        }
        try (var hosts = Files.newDirectoryStream(dir, "host-*")) {
            for (Path h : hosts) {
                try (var metas = Files.newDirectoryStream(h, "rank-*.meta")) {
                    if (metas.iterator().hasNext()) {
                        return "; " + dir + " holds an MPI job's rank files: 'eventspace mpirun --recover " + dir
                                + " --json FILE' turns them into the report";
                    }
                } catch (IOException notAFolder) {
                    // not a host folder
                }
            }
        } catch (IOException e) {
            return "";
        }
        return "";
    }

    /** {@code --recover DIR}: the report of the rank files a dead front-end left; exit code 1 (the run is incomplete). */
    private Integer recover() throws IOException {
        if (program != null || np != null) {
            throw new UsageError("--recover DIR runs nothing: give it without -np and PROGRAM");
        }
        if (json != null) {
            OutputFiles.checkWritable(json, "--json");
        }
        Set<String> kinds = new LinkedHashSet<>(monitors);
        kinds.remove("none");
        MpiRunResult result;
        try {
            result = MpiRun.recover(recover, kinds);
        } catch (IllegalArgumentException e) {
            throw new UsageError(e.getMessage());
        }
        java.io.PrintWriter err = spec.commandLine().getErr();
        for (String line : result.summary()) {
            err.println("eventspace: " + line);
        }
        err.flush();
        if (json != null) {
            OutputFiles.write(json, "--json", file -> Json.pretty().writeValue(file.toFile(), result.toJson(Json.mapper())));
        }
        return EventSpaceCommand.EXIT_FAILURE;
    }

    /**
     * Every file and folder this run will write, checked before anything starts (a temporary folder, mpirun, the
     * agents): a report that cannot be written is found in a second, not after the program.
     */
    private void checkOutputs() {
        if (json != null) {
            OutputFiles.checkWritable(json, "--json");
        }
        if (traffic != null) {
            OutputFiles.checkWritable(traffic, "--traffic");
        }
        if (traceOptions.trace != null) {
            OutputFiles.checkWritable(traceOptions.trace, "--trace");
        }
        if (traceDir != null) {
            OutputFiles.checkFolder(traceDir, "--trace-dir");
        }
    }

    /** The merged trace of the calls the agent read, and one line saying what it holds and what it could not. */
    private TracedRun.Summary writeTrace(MpiTraceRecorder recorder, MpiRunResult result,
                                                            java.io.PrintWriter err) throws IOException {
        Trace trace = recorder.trace();
        long[] written = new long[1];
        OutputFiles.write(traceOptions.trace, "--trace", file -> written[0] = TraceFile.write(trace, file));
        long bytes = written[0];
        int groups = trace.groupCount();
        long lost = result.tuplesMissed() + trace.lost().stream().mapToLong(RankTrace.Lost::count).sum();
        TracedRun.Summary s = new TracedRun.Summary(traceOptions.trace, bytes,
                trace.eventsRecorded(), trace.flatBytes(), traceOptions.toConfig(null).encoding().fileName(), lost, groups);
        err.print("eventspace: " + s.summary());
        if (result.tuplesMissed() > 0) {
            err.println("eventspace: trace: " + result.tuplesMissed() + " calls were overwritten in the ranks' rings before "
                    + "the agent read them and are not in the trace (a larger --capacity keeps them)");
        }
        err.flush();
        return s;
    }
}
