package org.eventspace.trace;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;

/**
 * {@code trace show}: a trace's compressed structure as text — loops with their iteration counts, events with their
 * ranklists and parameters, and (unless asked not to) their delta times with units and histograms. Times are in µs.
 */
public final class TracePrinter {
    private TracePrinter() {
    }

    public static void print(Trace trace, PrintWriter out, boolean times) {
        out.printf("trace of %d ranks, %d events recorded (%d bytes flat), time encoding %s%s%n", trace.ranks(),
                trace.eventsRecorded(), trace.flatBytes(), trace.encoding().fileName(),
                trace.encoding() == TimeEncoding.STATS ? "" : ", " + trace.bins() + " bins");
        for (RankTrace.Lost lost : trace.lost()) {
            out.printf("LOST on rank %d: %d events from event %d on (node budget reached)%n", lost.rank(), lost.count(),
                    lost.firstLost());
        }
        print(trace.nodes(), out, times, trace.sites(), "");
        out.flush();
    }

    /** The structure only (no times): what the merge-shape property compares. */
    public static String structure(Trace trace) {
        java.io.StringWriter s = new java.io.StringWriter();
        PrintWriter w = new PrintWriter(s);
        print(trace.nodes(), w, false, Map.of(), "");
        w.flush();
        return s.toString();
    }

    private static void print(List<Node> nodes, PrintWriter out, boolean times, Map<Integer, String> sites, String indent) {
        for (Node n : nodes) {
            if (n instanceof LoopNode l) {
                out.printf("%sloop ×%d  ranks %s%n", indent, l.iterations(), l.ranks());
                print(l.body(), out, times, sites, indent + "  ");
            } else {
                EventNode e = (EventNode) n;
                StringBuilder line = new StringBuilder(indent).append(e.op().fileName());
                if (e.reduceOp() != null) {
                    line.append(' ').append(e.reduceOp().name().toLowerCase(java.util.Locale.ROOT));
                }
                if (e.peer() != null) {
                    line.append("  peer ").append(offsets(e.peer()));
                }
                if (e.count() != null) {
                    line.append(e.op().mpi() ? "  bytes " : "  words ").append(e.count());
                }
                if (e.countRuns() != null) {
                    // Sizes that change between occurrences: how many changes and their range, per rank set.
                    line.append(e.op().mpi() ? "  bytes varying" : "  words varying");
                    for (EventNode.RunsEntry r : e.countRuns()) {
                        line.append(' ').append(r.runs().min()).append('…').append(r.runs().max()).append(" in ")
                                .append(r.runs().runCount()).append(r.runs().runCount() == 1 ? " run" : " runs");
                        if (e.countRuns().size() > 1) {
                            line.append('@').append(r.ranks());
                        }
                    }
                }
                if (e.root() != null) {
                    line.append("  root ").append(e.root());
                }
                line.append("  site ").append(siteName(e.site(), sites));
                line.append("  ranks ").append(e.ranks());
                out.println(line);
                if (times && e.computeDelta() != null) {
                    printTiming(out, indent + "    ", "compute", e.computeDelta(), sites);
                    printTiming(out, indent + "    ", "communicate", e.communicateDelta(), sites);
                }
            }
        }
    }

    private static String offsets(Params p) {
        StringBuilder s = new StringBuilder();
        for (Params.Entry e : p.entries()) {
            if (s.length() > 0) {
                s.append(' ');
            }
            s.append(e.value() == EventNode.PROC_NULL ? "MPI_PROC_NULL"
                    : e.value() >= 0 ? "rank+" + e.value() : "rank" + e.value());
            if (!p.uniform()) {
                s.append('@').append(e.ranks());
            }
        }
        return s.toString();
    }

    static String siteName(int site, Map<Integer, String> sites) {
        if (site == CallSite.UNMARKED) {
            return "-";
        }
        String name = sites.get(site);
        return name == null ? "#" + site : name;
    }

    private static void printTiming(PrintWriter out, String indent, String what, DeltaTiming t, Map<Integer, String> sites) {
        out.printf("%s%s: %s%n", indent, what, statistics(t.stats()));
        // where the ranks' timings differ, each rank group's own statistics under the all-ranks line
        for (DeltaTiming g : t.byRanks()) {
            out.printf("%s  ranks %s: %s%s%n", indent, g.ranks(), statistics(g.stats()),
                    g.mergedEntries() > 1 ? " (" + g.mergedEntries() + " differing groups merged)" : "");
        }
        if (t.histogram() != null) {
            printBins(out, indent + "  ", t.histogram());
        }
        for (Map.Entry<Integer, DeltaHistogram> p : t.paths().entrySet()) {
            out.printf("%s  after %s:%n", indent, siteName(p.getKey(), sites));
            printBins(out, indent + "    ", p.getValue());
        }
    }

    /** "n=600 mean=… µs sd=… µs min=… µs (rank R) max=… µs (rank R)". */
    private static String statistics(TimeStats s) {
        return String.format("n=%d mean=%.3f µs sd=%.3f µs min=%.3f µs (rank %d) max=%.3f µs (rank %d)",
                s.count(), s.mean() / 1e3, s.sd() / 1e3, s.min() / 1e3, s.minRank(), s.max() / 1e3, s.maxRank());
    }

    private static void printBins(PrintWriter out, String indent, DeltaHistogram h) {
        for (int i = 0; i < h.bins(); i++) {
            if (h.binFreq(i) > 0) {
                out.printf("%s[%.3f, %.3f] µs: %d, avg %.3f µs%n", indent, h.binMin(i) / 1e3, h.binMax(i) / 1e3,
                        h.binFreq(i), h.binAvg(i) / 1e3);
            }
        }
    }
}
