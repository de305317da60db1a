package org.eventspace.mpi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.eventspace.monitor.model.Coverage;
import org.eventspace.monitor.model.RankRecord;
import org.eventspace.monitor.model.RunModel;
import org.eventspace.monitor.model.SlowestRankRule;
import org.eventspace.monitor.model.Verdict;

/**
 * An MPI run as the one run model ({@link RunModel}): each rank with how it ended, its calls, bytes, waits and
 * lateness at collective instances, its late-sender and late-receiver waits and its profile; the verdict of
 * {@link SlowestRankRule} over the instances; and coverage — tuples the rings overwrote,
 * calls on untraced threads, collectives on communicators the library could not name, instances some member never
 * reached, point-to-point calls left unmatched, ranks that did not finish. Made live (the agent's thread) and at the
 * end.
 */
final class MpiModel {
    private MpiModel() {
    }

    /**
     * The model of {@code analysis}.
     *
     * @param exits        how each rank ended (by rank), or null while the program runs.
     * @param wallS        the run's wall time so far, s.
     * @param outside      errors found outside the ranks (the launcher's), in order.
     * @param exitCode     mpirun's exit code, null while running or when stopped.
     * @param written      tuples the ranks wrote; {@code missed} of them overwritten before read.
     * @param toolThreads  the tool's busy threads on the ranks' machine (agents, the analysis).
     */
    static RunModel of(MpiAnalysis analysis, String program, int ranks, int hosts, List<RankRecord.Exit> exits,
                       double wallS, List<String> outside, Integer exitCode, boolean running, long written, long missed,
                       int toolThreads) {
        int worldSize = Math.max(ranks, analysis.worldSize());
        boolean started = analysis.started();
        RankSnapshots snapshots = analysis.snapshots();
        CollectiveWaits c = started ? analysis.collectives() : null;
        PointToPointWaits p = started ? analysis.pointToPoint() : null;
        CallProfile profile = started ? analysis.profile() : null;
        MpiHostLayout layout = started ? snapshots.hostLayout() : null;
        List<RankRecord> perRank = new ArrayList<>(worldSize);
        List<Coverage.UnfinishedRank> unfinished = new ArrayList<>();
        for (int r = 0; r < worldSize; r++) {
            RankSnapshot s = snapshots.of(r);
            RankRecord.Exit exit = exits != null && r < exits.size() ? exits.get(r) : null;
            if (exit == null && !running) {
                exit = defaultExit(analysis, s, r);
            }
            boolean finished = exit != null && "finished".equals(exit.state());
            if (exit != null && !finished) {
                unfinished.add(new Coverage.UnfinishedRank(r, describe(exit)));
            }
            Long calls = null;
            Long bytes = null;
            Map<String, RankRecord.Calls> rankProfile = null;
            if (s != null) {
                long n = 0;
                long b = 0;
                rankProfile = new LinkedHashMap<>();
                for (int i = 0; i < MpiOp.END - MpiOp.FIRST; i++) {
                    n += s.calls(i);
                    b += s.bytes(i);
                    if (s.calls(i) > 0) {
                        rankProfile.put(MpiOp.name(MpiOp.FIRST + i), new RankRecord.Calls(s.calls(i),
                                profile == null ? 0 : MpiBlock.us(profile.timeNs(r, i))));
                    }
                }
                calls = n;
                bytes = b;
            }
            boolean judged = c != null && r < analysis.worldSize();
            perRank.add(new RankRecord(r, layout != null && r < layout.rankHosts().length ? layout.rankHosts()[r] : null,
                    finished, exit, null, calls, bytes, judged ? MpiBlock.us(c.waitNs[r]) : null,
                    judged ? MpiBlock.us(c.latenessNs[r]) : null, judged ? c.lastArrivals[r] : null,
                    judged ? c.participations[r] : null, p != null && r < analysis.worldSize() ? MpiBlock.us(p.lateSenderNs[r]) : null,
                    p != null && r < analysis.worldSize() ? MpiBlock.us(p.lateReceiverNs[r]) : null, rankProfile));
        }
        Verdict.SlowestRank slowest = c != null ? c.verdict()
                : SlowestRankRule.judge(List.of());
        Verdict.HeaviestPath heaviest = slowest.rank() == null ? null
                : new Verdict.HeaviestPath(List.of("collective instances", "rank " + slowest.rank()), slowest.rank(),
                slowest.lastShare() == null ? 0 : slowest.lastShare(), true);
        int busiest = 0;
        if (layout != null) {
            int[] perHost = new int[layout.hostNames().size()];
            for (int h : layout.rankHosts()) {
                perHost[h]++;
            }
            for (int n : perHost) {
                busiest = Math.max(busiest, n);
            }
        }
        // Simulated hosts share this machine: all ranks compete for its cores.
        int onMachine = hosts > 1 && layout != null && layout.hostNames().stream().anyMatch(n -> n.contains("#"))
                ? worldSize : Math.max(busiest, hosts <= 1 ? worldSize : busiest);
        Verdict.Load load = Verdict.Load.of(Runtime.getRuntime().availableProcessors(), onMachine, toolThreads);
        List<String> errors = new ArrayList<>(outside);
        List<String> faults = new ArrayList<>();
        for (Coverage.UnfinishedRank u : unfinished) {
            String e = "rank " + u.rank() + " " + u.reason();
            if (exits == null) {
                faults.add(e);
                if (!errors.contains(e)) {
                    errors.add(e);
                }
            }
        }
        if (exits != null) {
            // The library's records name the cause and the ranks stopped after it (RankExits), once each.
            faults.addAll(outside.stream().filter(e -> e.startsWith("rank")).toList());
        }
        String fault = faults.isEmpty() ? null : "run failed: " + String.join("; ", faults);
        if (!running && exitCode != null && exitCode != 0 && errors.isEmpty()) {
            errors.add("mpirun exited with code " + exitCode);
        }
        if (!running && exitCode == null && errors.isEmpty()) {
            errors.add("the program was stopped before it ended");
        }
        boolean ok = !running && exitCode != null && exitCode == 0 && errors.isEmpty();
        String headline = fault != null ? fault + "; " + slowest.words() : slowest.words();
        long untraced = snapshots.untracedCalls();
        if (untraced > 0) {
            // MPI_THREAD_MULTIPLE: a verdict from the recording thread's calls alone must say what it left out.
            headline += "; " + untraced + " MPI calls on other threads were not traced and are not in this verdict";
        }
        long read = analysis.tuplesRead();
        Coverage coverage = new Coverage(written, read, missed, Coverage.gatherRate(read, missed),
                snapshots.untracedCalls(), c == null ? 0 : c.unknownCommunicator, c == null ? 0 : c.incomplete,
                p == null ? 0 : p.unmatched(), 0, unfinished);
        return new RunModel(RunModel.SCHEMA, RunModel.MPI, program, worldSize, hosts, "mpi", wallS, ok || running,
                running ? List.of() : errors, perRank, RunModel.operationsOf(perRank),
                new Verdict(slowest, heaviest, load, headline), coverage);
    }

    /** The library's record of how each rank ended ({@link RankExit}) as the model's. */
    static List<RankRecord.Exit> exits(List<RankExit> exits) {
        List<RankRecord.Exit> out = new ArrayList<>(exits.size());
        for (RankExit e : exits) {
            String state = e.stoppedAfterRank() != null ? "stopped" : e.state().name().toLowerCase(java.util.Locale.ROOT);
            out.add(new RankRecord.Exit(state, e.exitCode(), e.signal(), e.signalName(), e.abortCode(), e.lastCall()));
        }
        return out;
    }

    /** How a rank ended, from its meta file alone (before the library recorded exits and signals). */
    private static RankRecord.Exit defaultExit(MpiAnalysis analysis, RankSnapshot s, int rank) {
        if (s == null) {
            return new RankRecord.Exit("unknown", null, null, null, null, null);
        }
        if (s.finalized()) {
            return new RankRecord.Exit("finished", null, null, null, null, null);
        }
        int last = analysis.started() ? analysis.profile().lastOp(rank) : 0;
        return new RankRecord.Exit("exited_before_finalize", null, null, null, null, last == 0 ? null : MpiOp.name(last));
    }

    /** "was killed by signal 11 (SIGSEGV) in MPI_Allreduce", "called MPI_Abort with code 7", … */
    static String describe(RankRecord.Exit exit) {
        String in = exit.lastCall() == null ? "" : " in " + exit.lastCall();
        return switch (exit.state()) {
            case "killed_by_signal" -> "was killed by signal " + exit.signal()
                    + (exit.signalName() == null ? "" : " (" + exit.signalName() + ")") + in;
            case "aborted" -> "called MPI_Abort with code " + exit.abortCode();
            case "exited_nonzero" -> "exited with code " + exit.exitCode();
            case "exited_before_finalize" -> "ended without reaching MPI_Finalize"
                    + (exit.lastCall() == null ? "" : " (last call " + exit.lastCall() + ")");
            case "stopped" -> "was stopped before MPI_Finalize after another rank failed" + in;
            case "unknown" -> "left no trace files (it never reached MPI_Init, or its host's agent did not run)";
            default -> exit.state();
        };
    }
}
