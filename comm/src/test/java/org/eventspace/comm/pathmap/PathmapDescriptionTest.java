package org.eventspace.comm.pathmap;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class PathmapDescriptionTest {
    /** hier:2 over 2 hosts × 2 ranks: the example of docs/PATHMAP.md. */
    static final Pathmap SMALL = PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, 2, 2), 4, 1,
            TreeShape.hier(2)));

    @Test
    void describesTheSmallHierTreeInFull() {
        assertThat(PathmapDescription.text(SMALL)).isEqualTo("""
                Pathmap: 4 ranks, 1 tree of shape hier:2, 2 hosts in 1 cluster (4 CPUs)
                  cluster    c0: 2 hosts (h0 … h1), 4 CPUs
                  mapping    block: 2 ranks per host on 2 of 2 hosts
                  root       h0: core and result element of every tree (16384 words = 128 KiB each)
                  wrappers   5 wrappers in all trees: 1 core, 3 gred, 1 proxy; longest path 4 wrappers, 1 inter-host hop

                Tree 0: 5 wrappers, 1 inter-host hop, drawn from the core down; [p] is the port of the wrapper above that is fed
                  t0.core.h0  core @h0, element t0.result, up to 16384 words
                  └─[0] t0.gred.h0.1  gred @h0, 2 ports
                     ├─[0] t0.gred.h0.0  gred @h0, 2 ports
                     │  ├─[0] rank 0 @h0
                     │  └─[1] rank 1 @h0
                     └─[1] t0.proxy.h1.0  proxy @h1 → h0
                        └─[0] t0.gred.h1.0  gred @h1, 2 ports
                           ├─[0] rank 2 @h1
                           └─[1] rank 3 @h1

                Paths, tree 0: 4 ranks, from the rank down to the core; [p] is the port entered
                  rank 0 (h0): t0.gred.h0.0[0] → t0.gred.h0.1[0] → t0.core.h0
                  rank 1 (h0): t0.gred.h0.0[1] → t0.gred.h0.1[0] → t0.core.h0
                  rank 2 (h1): t0.gred.h1.0[0] → t0.proxy.h1.0 → t0.gred.h0.1[1] → t0.core.h0
                  rank 3 (h1): t0.gred.h1.0[1] → t0.proxy.h1.0 → t0.gred.h0.1[1] → t0.core.h0

                Hosts: ranks, inter-host hops leaving each (one per proxy), wrappers running there
                  h0  c0, 2 CPUs; 2 ranks: 0-1; 0 hops out
                      3 wrappers: t0.gred.h0.0 t0.gred.h0.1 t0.core.h0
                  h1  c0, 2 CPUs; 2 ranks: 2-3; 1 hop out (→ h0 ×1)
                      2 wrappers: t0.gred.h1.0 t0.proxy.h1.0
                """);
    }

    @Test
    void theHeaderNamesOverridesAndAnExplicitMapping() {
        Topology topology = Topology.simulated(2, 2, 1);
        PathmapSpec spec = new PathmapSpec(topology, 3, 2, TreeShape.hier(2), java.util.Map.of("c1", TreeShape.FLAT,
                "h0", TreeShape.kary(3)), new int[] {3, 0, 0}, 3, 100);

        String text = PathmapDescription.text(PathmapBuilder.build(spec));

        assertThat(text).contains("  mapping    explicit: 1-2 ranks per host on 2 of 4 hosts\n",
                "  overrides  c1 → flat, h0 → kary:3\n",
                "  root       h3: core and result element of every tree (100 words = 800 bytes each)\n",
                "  h1  c0, 1 CPU; no ranks; 0 hops out\n      0 wrappers\n");
    }

    @Test
    void largePathmapsListTheFirstAndLastPathsAndCountTheRest() {
        Pathmap pathmap = PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, 10, 8), 80, 2, TreeShape.hier(4)));

        String text = PathmapDescription.text(pathmap);

        for (int t = 0; t < 2; t++) {
            List<String> paths = section(text, "Paths, tree " + t + ":");
            assertThat(paths).hasSize(2 * PathmapDescription.PATHS_SHOWN_AT_EACH_END + 1);
            assertThat(paths.get(0)).startsWith("  rank 0 (h0): t" + t + ".");
            assertThat(paths.get(8)).isEqualTo("  … 64 paths left out (ranks 8 … 71); toJson() lists every entry");
            assertThat(paths.get(16)).startsWith("  rank 79 (h9): ");
        }
    }

    @Test
    void everyPathEndsAtTheCoreAndNamesTheGredPortsItEnters() {
        Pathmap pathmap = PathmapBuilder.build(PathmapConfig.parse(PathmapConfigTest.EXAMPLE, "cluster.json"));

        assertThat(section(PathmapDescription.text(pathmap), "Paths, tree 1:")).containsExactly(
                "  rank 0 (h0): t1.gred.h0.0[0] → t1.gred.h0.2[0] → t1.gred.h0.3[0] → t1.core.h0",
                "  rank 1 (h0): t1.gred.h0.0[1] → t1.gred.h0.2[0] → t1.gred.h0.3[0] → t1.core.h0",
                "  rank 2 (h0): t1.gred.h0.1[0] → t1.gred.h0.2[1] → t1.gred.h0.3[0] → t1.core.h0",
                "  rank 3 (h0): t1.gred.h0.1[1] → t1.gred.h0.2[1] → t1.gred.h0.3[0] → t1.core.h0",
                "  rank 4 (h1): t1.gred.h1.0[0] → t1.proxy.h1.0 → t1.gred.h0.3[1] → t1.core.h0",
                "  rank 5 (h1): t1.gred.h1.0[1] → t1.proxy.h1.0 → t1.gred.h0.3[1] → t1.core.h0",
                "  rank 6 (h1): t1.gred.h1.0[2] → t1.proxy.h1.0 → t1.gred.h0.3[1] → t1.core.h0",
                "  rank 7 (h1): t1.gred.h1.0[3] → t1.proxy.h1.0 → t1.gred.h0.3[1] → t1.core.h0");
    }

    @Test
    void theLayoutJsonHasTheSchemaEveryNodeAndEveryEntry() throws Exception {
        Pathmap pathmap = PathmapBuilder.build(PathmapConfig.parse(PathmapConfigTest.EXAMPLE, "cluster.json"));

        JsonNode json = new ObjectMapper().readTree(PathmapDescription.toJson(pathmap));

        assertThat(json.get("schema").asText()).isEqualTo("eventspace.pathmap-layout/1");
        assertThat(json.get("hosts")).hasSize(2);
        assertThat(json.get("nodes")).hasSize(pathmap.nodes().size());
        assertThat(json.get("entries")).hasSize(pathmap.entries().size());
        for (Node n : pathmap.nodes()) {
            JsonNode node = json.get("nodes").get(n.id());
            assertThat(node.get("name").asText()).isEqualTo(n.name());
            assertThat(node.get("host").asText()).isEqualTo(pathmap.spec().topology().host(n.host()).name());
            assertThat(node.get("parent").isNull()).isEqualTo(n.isRoot());
            if (!n.isRoot()) {
                assertThat(node.get("parent").asInt()).isEqualTo(n.parent());
                assertThat(node.get("parentPort").asInt()).isEqualTo(n.parentPort());
            }
        }
        JsonNode core = json.get("nodes").get(pathmap.root(0).id());
        assertThat(core.get("properties").get("element").asText()).isEqualTo("t0.result");
        JsonNode entry = json.get("entries").get(5);
        Entry e = pathmap.entries().get(5);
        assertThat(List.of(entry.get("tree").asInt(), entry.get("rank").asInt(), entry.get("node").asInt(),
                entry.get("port").asInt())).containsExactly(e.tree(), e.rank(), e.node(), e.port());
    }

    /** The lines after the one starting with {@code heading}, up to the next blank line. */
    static List<String> section(String text, String heading) {
        List<String> lines = new ArrayList<>();
        boolean in = false;
        for (String line : text.lines().toList()) {
            if (in && line.isEmpty()) {
                break;
            }
            if (in) {
                lines.add(line);
            }
            in |= line.startsWith(heading);
        }
        return lines;
    }
}
