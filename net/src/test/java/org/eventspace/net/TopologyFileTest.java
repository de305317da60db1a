package org.eventspace.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The topology file: every example loads and routes; malformed files name the file, the line and what was expected. */
class TopologyFileTest {
    private static final Path EXAMPLES = Path.of("../examples/topology");

    @TempDir
    Path dir;

    private Path write(String... lines) throws Exception {
        Path f = dir.resolve("t.topo");
        Files.write(f, List.of(lines));
        return f;
    }

    @Test
    void theExamplesLoad() {
        assertThat(TopologyFile.read(EXAMPLES.resolve("fattree-16.topo")).nodes()).hasSize(16);
        Fabric rails = TopologyFile.read(EXAMPLES.resolve("tsubame-rails.topo"));
        assertThat(rails.subnets()).isEqualTo(2);
        assertThat(rails.subnetFor(0, 3)).isEqualTo(1);
        assertThat(rails.subnetFor(0, 2)).isZero();
        assertThat(TopologyFile.read(EXAMPLES.resolve("torus-4x4.topo")).nodes()).hasSize(16);
    }

    @Test
    void aGraphFollowsItsTablesAndMinHopWhereNoneWereGiven() {
        Fabric ring = TopologyFile.read(EXAMPLES.resolve("ring-graph.topo"));
        int a = ring.nodeIndex("a");
        int e = ring.nodeIndex("e");
        // s1 routes e the long way (s1 -> s2 -> s3): a, s1, s2, s3, e = 4 links.
        assertThat(ring.route(a, e, 0)).hasSize(4);
        // s3 has no table: min-hop back to a goes straight to s1.
        assertThat(ring.route(e, a, 0)).hasSize(3);
        assertThat(ring.device(ring.links().get(0).b()).layer()).isEqualTo(1);
    }

    @Test
    void torusRoutesInDimensionOrderTheShorterWayRound() {
        Fabric torus = Torus.build(new int[] {4, 4});
        // n0 (0,0) -> n15 (3,3): x first, the short way (-1), then y (-1): node link, 2 router hops, node link.
        int[] route = torus.route(0, 15, 0);
        assertThat(route).hasSize(4);
        Fabric.Link second = torus.links().get(route[1] / 2);
        String via = torus.device(route[1] % 2 == 0 ? second.b() : second.a()).name();
        assertThat(via).isEqualTo("r3.0");
    }

    @Test
    void anInfinibandFabricLoadsWithItsForwardingTables() {
        Fabric ib = TopologyFile.read(EXAMPLES.resolve("two-switch.topo"));
        assertThat(ib.nodes()).extracting(Fabric.Node::name).containsExactly("node01", "node02", "node03", "node04");
        assertThat(ib.links()).hasSize(6);
        // switch-1 sends node03's traffic over port 3 and node04's over port 4 (the tables, not min-hop's lowest port).
        int[] to3 = ib.route(ib.nodeIndex("node01"), ib.nodeIndex("node03"), 0);
        int[] to4 = ib.route(ib.nodeIndex("node01"), ib.nodeIndex("node04"), 0);
        assertThat(ib.links().get(to3[1] / 2).aPort()).isEqualTo(3);
        assertThat(ib.links().get(to4[1] / 2).aPort()).isEqualTo(4);
    }

    @Test
    void malformedFilesNameFileLineAndWhatWasExpected() throws Exception {
        assertThatThrownBy(() -> TopologyFile.read(write("fattree 4 2"))).hasMessageContaining("t.topo:1: expected the header "
                + "'eventspace-topology 1', got 'fattree 4 2'");
        assertThatThrownBy(() -> TopologyFile.read(write("eventspace-topology 1", "# c", "fattree four 2")))
                .hasMessageContaining("t.topo:3: expected K, the switches' down ports, got 'four'");
        assertThatThrownBy(() -> TopologyFile.read(write("eventspace-topology 1", "fattree 4")))
                .hasMessageContaining("t.topo:2: expected 'fattree K N [subnets S]'");
        assertThatThrownBy(() -> TopologyFile.read(write("eventspace-topology 1", "torus 4 4", "switch s 4")))
                .hasMessageContaining("t.topo:3: a file holds one topology");
        assertThatThrownBy(() -> TopologyFile.read(write("eventspace-topology 1", "switch s 4", "node a", "link a 1 t 1")))
                .hasMessageContaining("t.topo:4: 't' is not a device declared above");
        assertThatThrownBy(() -> TopologyFile.read(write("eventspace-topology 1", "switch s 4", "node a", "link a 1 s 9")))
                .hasMessageContaining("t.topo:4: device 's' has ports 1..4, not 9");
        assertThatThrownBy(() -> TopologyFile.read(write("eventspace-topology 1", "switch s 4", "node a", "link a 1 s 1",
                "route s a 7"))).hasMessageContaining("t.topo:5: device 's' has ports 1..4, not 7");
        assertThatThrownBy(() -> TopologyFile.read(write("eventspace-topology 1", "mesh 4 4")))
                .hasMessageContaining("t.topo:2: expected one of fattree, torus, ibnetdiscover, switch, node, link, route; got 'mesh'");
        Path ib = dir.resolve("bad.ibnetdiscover");
        Files.write(ib, List.of("Switch\t4 \"S-01\"\t\t# \"sw\" enhanced port 0 lid 1 lmc 0", "[9]\t\"H-02\"[1]\t\t# \"n lid 3"));
        assertThatThrownBy(() -> TopologyFile.read(write("eventspace-topology 1", "ibnetdiscover bad.ibnetdiscover")))
                .hasMessageContaining("bad.ibnetdiscover:2: port 9 of a device with ports 1..4");
    }

    @Test
    void aMappingFileIsCheckedLineByLine() throws Exception {
        Fabric tree = FatTree.build(4, 2, 1);
        HostMapping m = HostMapping.read(EXAMPLES.resolve("hosts-reversed.map"), FatTreeLoadsTest.names(4), tree);
        assertThat(m.nodeOf(0)).isEqualTo(15);
        Path bad = dir.resolve("m.map");
        Files.write(bad, List.of("eventspace-mapping 1", "h0 n99"));
        assertThatThrownBy(() -> HostMapping.read(bad, FatTreeLoadsTest.names(1), tree))
                .hasMessageContaining("m.map:2: 'n99' is no node of the topology");
    }
}
