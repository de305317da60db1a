package org.eventspace.mpi;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.eventspace.monitor.model.RunModel;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What one monitored MPI run gave: the program's exit code, its wall time and the analysis of its trace, written
 * as the run model's {@code eventspace.run/2} (with an {@code mpi} block of what only an MPI run has) and as text.
 */
public final class MpiRunResult {
    private final MpiRunConfig config;
    private final List<String> command;
    private final Integer exitCode;
    private final double wallS;
    private final MpiAnalysis analysis;
    private final long written;
    private final long missed;
    private final int hosts;
    private final List<String> errors;
    private final RunModel model;

    /** What the agent processes sent, or null when the agents were threads of this JVM. */
    private final RemoteAgents.Traffic agentTraffic;
    private final Ending ending;

    /**
     * How the run ended, beside the program's exit code.
     *
     * @param complete  mpirun ended by itself and everything it wrote was read; false when the job was stopped (a
     *                  signal to eventspace mpirun, {@code --on-stall kill}, the timeout) or recovered from files a dead
     *                  front-end left ({@code --recover})
     * @param signal    the signal eventspace mpirun received and stopped the job for (Linux numbers), or 0
     * @param stalls    the stalls observed while it ran, longest first
     */
    record Ending(boolean complete, int signal, List<RankStalls.Stall> stalls) {
        Ending {
            stalls = List.copyOf(stalls);
        }
    }

    MpiRunResult(MpiRunConfig config, List<String> command, Integer exitCode, double wallS, MpiAnalysis analysis,
                 long written, long missed, int hosts, List<String> errors) {
        this(config, command, exitCode, wallS, analysis, written, missed, hosts, errors, null);
    }

    MpiRunResult(MpiRunConfig config, List<String> command, Integer exitCode, double wallS, MpiAnalysis analysis,
                 long written, long missed, int hosts, List<String> errors, RemoteAgents.Traffic agentTraffic) {
        this(config, command, exitCode, wallS, analysis, written, missed, hosts, errors, agentTraffic,
                new Ending(exitCode != null, 0, List.of()));
    }

    MpiRunResult(MpiRunConfig config, List<String> command, Integer exitCode, double wallS, MpiAnalysis analysis,
                 long written, long missed, int hosts, List<String> errors, RemoteAgents.Traffic agentTraffic,
                 Ending ending) {
        this.agentTraffic = agentTraffic;
        this.ending = ending;
        this.config = config;
        this.command = List.copyOf(command);
        this.exitCode = exitCode;
        this.wallS = wallS;
        this.analysis = analysis;
        this.written = written;
        this.missed = missed;
        this.hosts = hosts;
        List<RankExit> exits = analysis.exits();
        List<String> all = new ArrayList<>(errors);
        all.addAll(exitCode == null && !ending.complete() ? stoppedWithJob(exits) : RankExits.errors(exits));
        this.model = MpiModel.of(analysis, Path.of(config.program()).getFileName().toString(), config.np(), hosts,
                exits, Double.isNaN(wallS) ? wallS : Math.round(wallS * 1000) / 1000.0, all, exitCode, false, written, missed, hosts, ending.stalls());
        this.errors = model.errors();
    }

    /**
     * A job this tool stopped (a signal to it, {@code --on-stall kill}, the timeout) or that stopped itself when its
     * front-end died: its ranks killed by a stop signal or gone without a record are one line, not failures of their
     * own; any rank that failed otherwise is named as {@link RankExits#errors} names it.
     */
    private static List<String> stoppedWithJob(List<RankExit> exits) {
        List<Integer> stopped = new ArrayList<>();
        java.util.Set<String> how = new java.util.TreeSet<>();
        for (RankExit e : exits) {
            if (e.finished()) {
                continue;
            }
            boolean stopSignal = e.state() == RankExit.State.KILLED_BY_SIGNAL
                    && List.of(1, 2, 9, 15).contains(e.signal());
            if (!stopSignal && e.state() != RankExit.State.UNKNOWN) {
                return RankExits.errors(exits);
            }
            stopped.add(e.rank());
            how.add(stopSignal ? e.signalName() : "no record");
        }
        if (stopped.isEmpty()) {
            return List.of();
        }
        return List.of("the job's " + (stopped.size() == 1 ? "rank " + stopped.get(0) + " was" : "ranks " + stopped
                + " were") + " stopped before MPI_Finalize (" + String.join(", ", how) + ")");
    }

    /** The run as the one run model. */
    public RunModel model() {
        return model;
    }

    /** The program's exit code (mpirun's), or null if it was stopped after the timeout. */
    public Integer exitCode() {
        return exitCode;
    }

    /** Whether the run ended by itself and was read to its end (false: stopped, or recovered). */
    public boolean complete() {
        return ending.complete();
    }

    /**
     * The signal (Linux number) eventspace mpirun received and stopped the job for, or 0: its exit code is then
     * 128 + that signal, as a shell reports a process killed by it.
     */
    public int signal() {
        return ending.signal();
    }

    /** The ranks observed stalled, longest first, each in words ({@code rank 1 stalled for 42 s in MPI_Allreduce ...}). */
    public List<String> stalls() {
        return ending.stalls().stream().map(RankStalls.Stall::words).toList();
    }

    /** The rank the verdict names as slowest (beyond chance), or −1 if none is. */
    public int slowestRank() {
        Integer culprit = model.verdict().slowestRank().culprit();
        return culprit == null ? -1 : culprit;
    }

    public List<String> errors() {
        return List.copyOf(errors);
    }

    /** Tuples the ranks wrote that their rings overwrote before an agent read them. */
    public long tuplesMissed() {
        return missed;
    }

    /** Which host each rank ran on and the hosts' names. */
    public MpiHostLayout hostLayout() {
        return analysis.snapshots().hostLayout();
    }

    /**
     * Per rank, the clock synchronisations with its tree parent it completed ({@link MpiRankMetaLayout#SYNC_ROUNDS}
     * ping-pongs each): messages the interposition library sent, not the program.
     */
    public int[] clockSyncs() {
        return analysis.snapshots().clockSyncs();
    }

    /** The folder the ranks' trace files went to. */
    public Path traceDir() {
        return config.traceDir();
    }

    public ObjectNode toJson(ObjectMapper json) {
        ObjectNode root = model.toJson(json);
        root.put("program", config.program());
        ArrayNode args = root.putArray("program_args");
        config.args().forEach(args::add);
        root.put("program_exit_code", exitCode);
        root.put("complete", ending.complete());
        if (ending.signal() != 0) {
            root.put("stopped_by_signal", RankExit.signalName(ending.signal()));
        }
        ArrayNode stalls = root.putArray("stalls");
        for (RankStalls.Stall st : ending.stalls()) {
            ObjectNode o = stalls.addObject();
            o.put("rank", st.rank());
            o.put("stalled_s", Math.round(st.stalledS() * 10) / 10.0);
            o.put("where", st.where());
            o.put("process_stopped", st.stopped());
            st.waiting().forEach(o.putArray("waiting_ranks")::add);
            o.put("ongoing_at_end", st.ongoing());
            o.put("certainty", "observed");
            o.put("words", st.words());
        }
        // the temporary folder is removed when the command ends (--keep-trace-files keeps it)
        root.put("trace_dir", config.traceDirTemporary() ? null : config.traceDir().toAbsolutePath().toString());
        ArrayNode cmd = root.putArray("mpirun_command");
        command.forEach(cmd::add);
        MpiBlock.Agents agents = MpiBlock.Agents.of(config.agents().name().toLowerCase(Locale.ROOT), agentTraffic);
        root.set("mpi", json.valueToTree(MpiBlock.of(analysis, written, missed, hosts, agents)));
        if (!config.monitors().isEmpty()) {
            root.set("monitors", json.valueToTree(MonitorsBlock.of(analysis, config.monitors())));
        }
        if (analysis.scope() != null) {
            root.set("scope", analysis.scope().toJson(json));
        }
        ObjectNode machine = root.putObject("machine");
        machine.put("cores", Runtime.getRuntime().availableProcessors());
        machine.put("java", System.getProperty("java.version"));
        machine.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        try {
            machine.put("host", InetAddress.getLocalHost().getHostName());
        } catch (java.io.IOException ex) {
            machine.put("host", "unknown");
        }
        root.put("date", Instant.now().toString());
        return root;
    }

    /** The summary for people: the ranks that failed first, then the slowest rank, units on every number. */
    public List<String> summary() {
        List<String> lines = new ArrayList<>();
        lines.addAll(MpiSummary.lines(analysis, model));
        long calls = 0;
        for (int op = MpiOp.FIRST; op < MpiOp.END; op++) {
            calls += analysis.snapshots().calls(op);
        }
        lines.add(String.format(Locale.ROOT, "%s: exit code %s, %s, %d ranks on %d host(s), %d MPI calls, %d bytes sent "
                        + "point-to-point, %d of %d tuples read, %d missed", Path.of(config.program()).getFileName(),
                exitCode == null ? "none (stopped)" : exitCode.toString(),
                Double.isNaN(wallS) ? "wall time not measured" : String.format(Locale.ROOT, "%.2f s", wallS),
                analysis.worldSize(), hosts, calls,
                analysis.snapshots().bytesSent(), written - missed, written, missed));
        lines.addAll(MpiSummary.notSeen(analysis));
        for (RankStalls.Stall st : ending.stalls()) {
            if (!model.verdict().headline().contains(st.words())) {
                lines.add(st.words());
            }
        }
        if (!ending.complete()) {
            lines.add("incomplete: the job was stopped or recovered before it ended; the figures cover what the ranks wrote "
                    + "until then");
        }
        if (agentTraffic != null) {
            lines.add(String.format(Locale.ROOT, "node agents: %d process(es) pulled in %d rounds, %d bytes received "
                            + "(%d tuples, %d changed 64-byte blocks of meta files; %.1f bytes per tuple)", agentTraffic.agents(),
                    agentTraffic.rounds(), agentTraffic.bytes(), agentTraffic.tuples(), agentTraffic.metaBlocks(),
                    agentTraffic.tuples() == 0 ? 0.0 : (double) agentTraffic.bytes() / agentTraffic.tuples()));
        }
        for (String error : errors) {
            if (!model.verdict().headline().contains(error)) {
                lines.add("error: " + error);
            }
        }
        lines.add(MpiSummary.traceFiles(config, analysis.snapshots().all().size()));
        return lines;
    }
}
