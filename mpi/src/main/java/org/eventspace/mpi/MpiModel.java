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
     * @param exits        how each rank ended, by rank ({@link RankExits}); null while the program runs.
     * @param wallS        the run's wall time so far, s; NaN when not measured (a recovered job): null in the model.
     * @param outside      errors found outside the ranks (the launcher's), in order.
     * @param exitCode     mpirun's exit code, null while running or when stopped.
     * @param written      tuples the ranks wrote; {@code missed} of them overwritten before read.
     * @param toolThreads  the tool's busy threads on the ranks' machine (agents, the analysis).
     */
    static RunModel of(MpiAnalysis analysis, String program, int ranks, int hosts, List<RankExit> exits,
                       double wallS, List<String> outside, Integer exitCode, boolean running, long written, long missed,
                       int toolThreads) {
        return of(analysis, program, ranks, hosts, exits, wallS, outside, exitCode, running, written, missed, toolThreads,
                List.of());
    }

    /**
     * As above, with the stalls observed ({@link RankStalls}, longest first): the longest is the verdict, stated as
     * observed — the statistical rule's median lateness ignores one huge wait by design, so it would name another rank.
     */
    static RunModel of(MpiAnalysis analysis, String program, int ranks, int hosts, List<RankExit> exits,
                       double wallS, List<String> outside, Integer exitCode, boolean running, long written, long missed,
                       int toolThreads, List<RankStalls.Stall> stalls) {
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
            RankExit ended = exits != null && r < exits.size() ? exits.get(r) : null;
            RankRecord.Exit exit = ended == null ? null : record(ended);
            boolean finished = ended != null && ended.finished();
            if (ended != null && !finished) {
                unfinished.add(new Coverage.UnfinishedRank(r, RankExits.reason(ended)));
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
        if (!stalls.isEmpty()) {
            slowest = stalled(slowest, stalls.get(0));
        } else if (c != null) {
            slowest = causedFarTheMost(slowest, c, wallS);
        }
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
        // The library's records name the cause and the ranks stopped after it (RankExits.errors, among outside), once each.
        List<String> faults = outside.stream().filter(e -> e.startsWith("rank")).toList();
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
            headline += "; " + untraced + " MPI calls on threads without a trace ring were not traced and are not in "
                    + "this verdict";
        }
        long read = analysis.tuplesRead();
        Coverage coverage = new Coverage(written, read, missed, Coverage.gatherRate(read, missed),
                snapshots.untracedCalls(), c == null ? 0 : c.unknownCommunicator, c == null ? 0 : c.incomplete,
                p == null ? 0 : p.unmatched(), 0, unfinished);
        return new RunModel(RunModel.SCHEMA, RunModel.MPI, program, worldSize, hosts, "mpi",
                Double.isNaN(wallS) ? null : wallS, ok || running,
                running ? List.of() : errors, perRank, RunModel.operationsOf(perRank),
                new Verdict(slowest, heaviest, load, headline), coverage);
    }

    /**
     * The verdict naming the stalled rank: the statistical figures stay when the rule's candidate is that rank, and
     * the words say what was observed.
     */
    private static Verdict.SlowestRank stalled(Verdict.SlowestRank judged, RankStalls.Stall stall) {
        boolean same = judged.rank() != null && judged.rank() == stall.rank();
        return new Verdict.SlowestRank(stall.rank(), same ? judged.lastArrivals() : 0, same ? judged.instances() : 0,
                same ? judged.lastShare() : null, same ? judged.chanceShare() : null, same ? judged.z() : null,
                judged.criticalZ(), judged.alpha(), judged.ranksTested(), same ? judged.latenessUs() : null,
                same ? judged.effectPct() : null, judged.where(), judged.minEffectPct(), same && judged.significant(),
                true, stall.rank(), stall.words());
    }

    /**
     * The smallest wait one rank must have caused at a single collective instance (its members' waits summed) to be
     * named by {@link #causedFarTheMost}: as {@link RankStalls}'s least timeout, far beyond any scheduling noise.
     */
    static final long STALL_WAIT_NS = RankStalls.MIN_AUTO_S * 1_000_000_000L;

    /**
     * When one rank caused far the largest wait at collective instances — at one instance at least
     * {@link #STALL_WAIT_NS}, and over the run at least half of all the wait caused and twice the next rank's — the
     * verdict names it, with that measurement: a stall nobody observed live ({@code --agent after}, or shorter than the
     * stall timeout) is one huge wait, which the rule's median lateness ignores by design, and the headline must not
     * then name another rank than the wait figures do.
     */
    static Verdict.SlowestRank causedFarTheMost(Verdict.SlowestRank judged, CollectiveWaits c, double wallS) {
        int n = c.waitCausedNs.length;
        if (n < 2) {
            return judged;
        }
        int top = 0;
        long total = 0;
        for (int r = 0; r < n; r++) {
            total += c.waitCausedNs[r];
            if (c.waitCausedNs[r] > c.waitCausedNs[top]) {
                top = r;
            }
        }
        long second = 0;
        for (int r = 0; r < n; r++) {
            if (r != top) {
                second = Math.max(second, c.waitCausedNs[r]);
            }
        }
        long caused = c.waitCausedNs[top];
        if (judged.culprit() != null && judged.culprit() == top || caused * 2 < total || caused < 2 * second
                || c.longestCausedNs[top] < STALL_WAIT_NS) {
            return judged;
        }
        double othersTimeNs = Math.max(1, wallS * 1e9 * (n - 1));
        String words = String.format(java.util.Locale.ROOT, "rank %d caused far the largest wait at collectives: %.1f s "
                        + "of the %.1f s the ranks waited, %.1f s at one instance (%.0f %% of the other ranks' time; "
                        + "measured, not a statistical guess: a stall or one long delay, which the median lateness does "
                        + "not weigh)", top, caused / 1e9, total / 1e9, c.longestCausedNs[top] / 1e9,
                100.0 * caused / othersTimeNs);
        boolean same = judged.rank() != null && judged.rank() == top;
        return new Verdict.SlowestRank(top, same ? judged.lastArrivals() : 0, same ? judged.instances() : 0,
                same ? judged.lastShare() : null, same ? judged.chanceShare() : null, same ? judged.z() : null,
                judged.criticalZ(), judged.alpha(), judged.ranksTested(), same ? judged.latenessUs() : null,
                same ? judged.effectPct() : null, judged.where(), judged.minEffectPct(), same && judged.significant(),
                true, top, words);
    }

    /** How a rank ended ({@link RankExit}) as the model's; a rank stopped after another's failure is {@code stopped}. */
    private static RankRecord.Exit record(RankExit e) {
        String state = e.stoppedAfterRank() != null ? "stopped" : e.state().name().toLowerCase(java.util.Locale.ROOT);
        return new RankRecord.Exit(state, e.exitCode(), e.signal(), e.signalName(), e.abortCode(), e.lastCall());
    }
}
