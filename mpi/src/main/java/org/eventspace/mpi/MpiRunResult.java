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

    MpiRunResult(MpiRunConfig config, List<String> command, Integer exitCode, double wallS, MpiAnalysis analysis,
                 long written, long missed, int hosts, List<String> errors) {
        this(config, command, exitCode, wallS, analysis, written, missed, hosts, errors, null);
    }

    MpiRunResult(MpiRunConfig config, List<String> command, Integer exitCode, double wallS, MpiAnalysis analysis,
                 long written, long missed, int hosts, List<String> errors, RemoteAgents.Traffic agentTraffic) {
        this.agentTraffic = agentTraffic;
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
        all.addAll(RankExits.errors(exits));
        this.model = MpiModel.of(analysis, Path.of(config.program()).getFileName().toString(), config.np(), hosts,
                exits, Math.round(wallS * 1000) / 1000.0, all, exitCode, false, written, missed, hosts);
        this.errors = model.errors();
    }

    /** The run as the one run model. */
    public RunModel model() {
        return model;
    }

    /** The program's exit code (mpirun's), or null if it was stopped after the timeout. */
    public Integer exitCode() {
        return exitCode;
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
        lines.add(String.format(Locale.ROOT, "%s: exit code %s, %.2f s, %d ranks on %d host(s), %d MPI calls, %d bytes sent "
                        + "point-to-point, %d of %d tuples read, %d missed", Path.of(config.program()).getFileName(),
                exitCode == null ? "none (stopped)" : exitCode.toString(), wallS, analysis.worldSize(), hosts, calls,
                analysis.snapshots().bytesSent(), written - missed, written, missed));
        lines.addAll(MpiSummary.notSeen(analysis));
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
