package org.eventspace.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The run summary prints the tree whose greds did the work: a run whose monitored calls all went to tree 1 (a
 * multi-cluster run's conditional allreduce decides on the clusters' trees) printed tree 0, every gred without calls.
 */
class AnalysisTreeTest {
    private static final Pathmap TWO_TREES = PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, 2, 2), 4, 2,
            TreeShape.hier(2)));

    private static ObjectNode monitorsWithCallsOn(int tree) {
        ObjectNode monitors = new ObjectMapper().createObjectNode();
        ObjectNode wrappers = monitors.putObject("stats").putObject("wrappers");
        for (Node n : TWO_TREES.nodes()) {
            if (n.kind().equals(PathmapBuilder.GRED) && n.tree() == tree) {
                ObjectNode g = wrappers.putObject(n.name());
                g.put("calls", 1000);
                g.putObject("down").put("mean", 2.5);
                g.putObject("up").put("mean", 1.5);
            }
        }
        return monitors;
    }

    @Test
    void theSummaryPrintsTheTreeWhoseGredsMadeTheCalls() {
        ObjectNode monitors = monitorsWithCallsOn(1);
        assertThat(AnalysisTree.busiestTree(TWO_TREES, monitors)).isEqualTo(1);
        String summary = MonitorSummary.of(monitors, TWO_TREES, 40);
        assertThat(summary).contains("analysis tree (tree 1, the one whose greds made the most calls)")
                .contains("1000 calls, down 2.5 µs, up 1.5 µs").doesNotContain("no monitored calls");
        // Tree 0 alone, as it was printed before: every gred without figures.
        assertThat(AnalysisTree.text(TWO_TREES, 0, monitors, 40)).contains("(no monitored calls)").doesNotContain(" calls,");
    }

    @Test
    void withNoCallsAnywhereTreeZeroIsPrinted() {
        ObjectNode none = new ObjectMapper().createObjectNode();
        assertThat(AnalysisTree.busiestTree(TWO_TREES, none)).isZero();
        assertThat(MonitorSummary.of(none, TWO_TREES, 40)).contains("analysis tree (tree 0):");
        assertThat(AnalysisTree.busiestTree(TWO_TREES, monitorsWithCallsOn(0))).isZero();
    }

    @Test
    void aTreeTooLargeForTheScreenPrintsItsHeaviestPathWithTheRestCounted() {
        Pathmap big = PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, 16, 4), 64, 1, TreeShape.hier(4)));
        int slow = 45;
        ObjectNode monitors = monitorsWithCallsOn(0);
        ObjectNode lb = monitors.putObject("loadbalance");
        com.fasterxml.jackson.databind.node.ArrayNode path = lb.putArray("heaviest_path");
        // The path from the root down to the slow rank, as the load-balance monitor writes it.
        java.util.List<Node> down = new java.util.ArrayList<>(big.path(0, slow));
        java.util.Collections.reverse(down);
        down.forEach(n -> path.add(n.name()));
        path.add("rank " + slow);
        lb.put("heaviest_path_rank", slow);

        String whole = AnalysisTree.text(big, 0, monitors, 10_000);
        String text = AnalysisTree.text(big, 0, monitors, 40);

        assertThat(whole.split("\n").length).isGreaterThan(40);
        assertThat(text.split("\n").length).isLessThanOrEqualTo(41);
        assertThat(text).contains("(the heaviest path only; the whole tree, " + whole.split("\n").length + " lines")
                .contains("rank " + slow + " (the end of the heaviest path)").contains("off the heaviest path")
                .doesNotContain("rank " + (slow + 1) + "\n").doesNotContain("more lines");
        for (Node n : big.path(0, slow)) {
            if (!n.kind().equals(org.eventspace.events.CollectorKind.NAME)) {
                assertThat(text).as("every wrapper on the path is shown").contains(n.name());
            }
        }
    }

    @Test
    void withoutAHeaviestPathATreeTooLargeIsCutAndSaysSo() {
        Pathmap big = PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, 16, 4), 64, 1, TreeShape.hier(4)));
        String text = AnalysisTree.text(big, 0, monitorsWithCallsOn(0), 40);
        assertThat(text).contains("more lines (the whole tree is in monitors.stats)");
    }
}
