package org.eventspace.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.job.JobConfig;
import org.eventspace.job.JobTransport;
import org.junit.jupiter.api.Test;


/** The tree as drawn: collectors elided, every rank once with its host, and the gred and port each chain enters. */
class TreeViewTest {
    private static Pathmap pathmap(int ranks, int hosts) {
        return JobConfig.of(JobConfig.shortcut(ranks, hosts, 1, TreeShape.parse("hier:2")), JobTransport.JVM).pathmap();
    }

    @Test
    void eightRanksOnFourHostsDrawEveryRankOnceUnderItsHostsGred() {
        for (int tree = 0; tree < 2; tree++) {
            TreeView view = TreeView.of(pathmap(8, 4), tree);
            List<TreeView.Drawn> ranks = view.nodes().stream().filter(d -> d.kind().equals("rank")).toList();
            assertThat(ranks).extracting(TreeView.Drawn::rank).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7);
            for (TreeView.Drawn r : ranks) {
                assertThat(r.host()).isEqualTo(r.rank() / 2);
                // Each rank enters a gred on its own host, at port 0 or 1 (hier:2).
                TreeView.Drawn gred = view.node(r.gred());
                assertThat(gred.kind()).isEqualTo("gred");
                assertThat(gred.host()).isEqualTo(r.host());
                assertThat(r.port()).isBetween(0, 1);
                assertThat(r.parent()).isEqualTo(r.gred());
            }
            assertThat(view.nodes()).noneMatch(d -> d.kind().equals("collector"));
            assertThat(view.nodes().get(0).kind()).isEqualTo("core");
            // A rank's way to the root ends at the core.
            List<TreeView.Drawn> path = view.pathToRoot("rank 5");
            assertThat(path.get(0).id()).isEqualTo("rank 5");
            assertThat(path.get(path.size() - 1).kind()).isEqualTo("core");
        }
    }

    @Test
    void aProxyAndTheGredBehindItEnterTheSamePort() {
        TreeView view = TreeView.of(pathmap(8, 4), 0);
        for (TreeView.Drawn d : view.nodes()) {
            if (d.kind().equals("gred") && d.parent() != null && view.node(d.parent()).kind().equals("proxy")) {
                TreeView.Drawn proxy = view.node(d.parent());
                assertThat(d.gred()).isEqualTo(proxy.gred());
                assertThat(d.port()).isEqualTo(proxy.port());
            }
        }
    }

    @Test
    void aTreeThatIsNotThereIsRefusedWithTheRange() {
        assertThatThrownBy(() -> TreeView.of(pathmap(8, 4), 2)).hasMessageContaining("tree must be 0..1, got 2");
    }
}
