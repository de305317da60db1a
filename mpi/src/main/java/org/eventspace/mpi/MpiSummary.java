package org.eventspace.mpi;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.eventspace.monitor.model.RunModel;
import org.eventspace.monitor.model.RunText;
import org.eventspace.monitor.model.Verdict;

/** What the analysis of an MPI run says to people: the summary, slowest rank first, and the live progress line. */
final class MpiSummary {
    private MpiSummary() {
    }

    /** One line of what {@code analysis} has seen so far, for the live progress (the agent's thread). */
    static String progress(MpiAnalysis analysis) {
        if (!analysis.started()) {
            return "no rank has reached MPI_Init yet";
        }
        CollectiveWaits c = analysis.collectives();
        Verdict.SlowestRank v = c.verdict();
        return String.format(Locale.ROOT, "%d ranks mapped, %d calls read, %d collective instances, slowest rank so far %s",
                analysis.ranksMapped(), analysis.tuplesRead(), c.instances, v.rank() == null ? "none"
                        : v.rank() + " (last at " + v.lastArrivals() + ", " + (v.beyondChance() ? "beyond chance" : "within chance") + ")");
    }

    /**
     * What the analysis did not see although the ranks made it, one line per counter that is not zero: the figures
     * above cover the calls that were traced only, and a verdict from fewer calls than were made must say so.
     */
    static List<String> notSeen(MpiAnalysis analysis) {
        List<String> lines = new ArrayList<>();
        RankSnapshots s = analysis.snapshots();
        long untraced = s.untracedCalls();
        if (untraced > 0) {
            lines.add(untraced + " calls on threads whose trace ring could not be made were not traced (they are "
                    + "counted, not in the waits or the verdict)");
        }
        long lost = s.communicatorsLost();
        if (lost > 0) {
            lines.add(lost + " communicators could not be listed (their rank-R.comms file could not be written): "
                    + "collectives on them are counted incomplete");
        }
        long untracked = s.untrackedRequests();
        if (untracked > 0) {
            lines.add(untracked + " MPI_Irecv requests were not tracked (the library's request table was full): their "
                    + "completions gave no receive record, so those receives are not matched");
        }
        if (analysis.started()) {
            long unknown = analysis.collectives().unknownCommunicator;
            if (unknown > 0) {
                lines.add(unknown + " collective calls on communicators the library did not see created were not joined "
                        + "into instances");
            }
            long forgotten = analysis.pointToPoint().postsForgotten;
            if (forgotten > 0) {
                lines.add(forgotten + " MPI_Irecv were forgotten before their completion arrived (more than "
                        + PointToPointWaits.MAX_POSTED + " outstanding on one rank)");
            }
        }
        return lines;
    }

    /**
     * Where the ranks' files are and how much they take, or that they go with the temporary folder:
     * {@code trace files: DIR (4 ranks, 12.3 MB) kept}.
     */
    static String traceFiles(MpiRunConfig config, int ranks) {
        Path dir = config.traceDir().toAbsolutePath();
        String size = String.format(Locale.ROOT, "%d ranks, %.1f MB", ranks, MpiTraceFolder.bytes(dir) / 1e6);
        return config.traceDirTemporary()
                ? "trace files: " + dir + " (" + size + ") removed at the end (--keep-trace-files keeps them)"
                : "trace files: " + dir + " (" + size + ") kept";
    }

    /** Lines for people: the run model's ({@link RunText}), then what only an MPI run has. Units on every number. */
    static List<String> lines(MpiAnalysis analysis, RunModel model) {
        List<String> lines = new ArrayList<>();
        if (!analysis.started()) {
            lines.add("no rank wrote trace files (was the program an MPI program, and did it reach MPI_Init?)");
            lines.add(RunText.coverage(model.coverage()));
            return lines;
        }
        lines.addAll(RunText.lines(model));
        int worldSize = analysis.worldSize();
        PointToPointWaits p = analysis.pointToPoint();
        long ls = Arrays.stream(p.lateSenderNs).sum();
        long lr = Arrays.stream(p.lateReceiverNs).sum();
        int causer = 0;
        for (int r = 1; r < worldSize; r++) {
            if (p.lateSenderCausedNs[r] > p.lateSenderCausedNs[causer]) {
                causer = r;
            }
        }
        long unmatched = p.unmatched();
        lines.add(String.format(Locale.ROOT, "point-to-point: %d matched, %d unmatched%s, late sender %.1f µs%s, "
                        + "late receiver %.1f µs", p.matched, unmatched, unmatched == 0 ? ""
                        : String.format(Locale.ROOT, " (%d with no partner call seen, %d whose partner's ring overwrote "
                        + "tuples before they were read)", p.unmatchedNoPartner, p.unmatchedPartnerOverwritten),
                ls / 1000.0, ls == 0 ? "" : String.format(Locale.ROOT, " (%.1f µs of it caused by rank %d)",
                        p.lateSenderCausedNs[causer] / 1000.0, causer), lr / 1000.0));
        if (p.pendingBoundExceeded > 0) {
            lines.add(String.format(Locale.ROOT, "point-to-point: %d calls were queued beyond their rank's bound of %d "
                    + "waiting for a partner (no rank behind it was left to read first; none was dropped)",
                    p.pendingBoundExceeded, p.pendingBound));
        }
        HostClocks clocks = analysis.clocks();
        if (clocks.hosts() > 1) {
            long bound = 0;
            long drift = 0;
            for (HostClocks.HostMapping h : clocks.mappings()) {
                if (!h.rank0()) {
                    bound = Math.max(bound, h.map().errorBoundNs());
                    drift = Math.max(drift, Math.abs(h.map().driftNs()));
                }
            }
            lines.add(String.format(Locale.ROOT, "clocks: %d hosts on rank 0's, %s; largest drift %.1f µs, error bound %.1f µs",
                    clocks.hosts(), clocks.tuplesMappedInitOnly() == 0 ? "drift applied"
                            : "MPI_Init offsets only (" + analysis.driftNote() + ")", drift / 1000.0, bound / 1000.0));
        }
        return lines;
    }
}
