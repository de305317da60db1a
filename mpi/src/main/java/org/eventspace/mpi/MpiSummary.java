package org.eventspace.mpi;

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
        lines.add(String.format(Locale.ROOT, "point-to-point: %d matched, %d unmatched, late sender %.1f µs%s, late receiver %.1f µs",
                p.matched, p.unmatched(), ls / 1000.0, ls == 0 ? "" : String.format(Locale.ROOT, " (%.1f µs of it caused by rank %d)",
                        p.lateSenderCausedNs[causer] / 1000.0, causer), lr / 1000.0));
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
