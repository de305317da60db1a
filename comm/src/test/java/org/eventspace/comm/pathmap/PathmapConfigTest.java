package org.eventspace.comm.pathmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PathmapConfigTest {
    /** The example of the brief and of docs/PATHMAP.md. */
    static final String EXAMPLE = """
            {
              "schema": "eventspace.pathmap/1",
              "topology": { "clusters": [ { "name": "c0", "hosts": [ {"name": "h0", "cpus": 2}, {"name": "h1", "cpus": 2} ] } ] },
              "application": { "ranks": 8, "trees": 2, "tree": "hier:2", "overrides": { "h1": "flat", "c0": "binary" } },
              "mapping": { "ranks": "block" , "root": "h0", "resultWords": 16384 }
            }
            """;

    @Test
    void theExampleGivesTheExpectedSpec() {
        PathmapSpec spec = PathmapConfig.parse(EXAMPLE, "cluster.json");

        Topology topology = new Topology(List.of("c0"), List.of(new Host(0, "h0", "c0", 2), new Host(1, "h1", "c0", 2)));
        assertThat(spec).isEqualTo(new PathmapSpec(topology, 8, 2, TreeShape.hier(2),
                Map.of("h1", TreeShape.FLAT, "c0", TreeShape.kary(2)), new int[] {0, 0, 0, 0, 1, 1, 1, 1}, 0, 16_384));
    }

    @Test
    void aHugeValueIsNotEchoedWhole() {
        String huge = "k".repeat(10 << 20);
        String text = EXAMPLE.replace("\"tree\": \"hier:2\"", "\"tree\": \"" + huge + "\"");
        PathmapConfigException e = catchThrowableOfType(PathmapConfigException.class,
                () -> PathmapConfig.parse(text, "cluster.json"));
        assertThat(e.getMessage()).startsWith("cluster.json:").contains("application.tree")
                .endsWith(" characters)");
        assertThat(e.getMessage().length()).isLessThan(1024);
    }

    @Test
    void defaultsAreOneCpuOneTreeBlockMappingRootOnTheFirstHost() {
        PathmapSpec spec = PathmapConfig.parse("""
                {"schema": "eventspace.pathmap/1",
                 "topology": {"clusters": [{"name": "c", "hosts": [{"name": "x"}, {"name": "y"}]}]},
                 "application": {"ranks": 3, "tree": "flat"}}
                """, "t.json");

        assertThat(spec.topology().hosts()).extracting(Host::cpus).containsExactly(1, 1);
        assertThat(spec.trees()).isEqualTo(1);
        assertThat(spec.rankHosts()).containsExactly(PathmapSpec.blockMapping(3, 2));
        assertThat(spec.rootHost()).isZero();
        assertThat(spec.resultWords()).isEqualTo(PathmapSpec.DEFAULT_RESULT_WORDS);
        assertThat(spec.overrides()).isEmpty();
    }

    @Test
    void compactHostsAreNumberedFromZeroAndIdsFollowFileOrder() {
        PathmapSpec spec = PathmapConfig.parse("""
                {"schema": "eventspace.pathmap/1",
                 "topology": {"clusters": [
                   {"name": "c0", "hosts": [{"name": "head", "cpus": 4}, {"prefix": "n", "count": 3, "cpus": 2}]},
                   {"name": "c1", "hosts": [{"prefix": "m", "count": 2}]}]},
                 "application": {"ranks": 6, "tree": "kary:3"},
                 "mapping": {"ranks": "cyclic", "root": "m1"}}
                """, "t.json");

        assertThat(spec.topology().hosts()).containsExactly(new Host(0, "head", "c0", 4), new Host(1, "n0", "c0", 2),
                new Host(2, "n1", "c0", 2), new Host(3, "n2", "c0", 2), new Host(4, "m0", "c1", 1),
                new Host(5, "m1", "c1", 1));
        assertThat(spec.rankHosts()).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(spec.rootHost()).isEqualTo(5);
        assertThat(spec.shape()).isEqualTo(TreeShape.kary(3));
    }

    @Test
    void explicitMappingNamesOneHostPerRank() {
        PathmapSpec spec = PathmapConfig.parse("""
                {"schema": "eventspace.pathmap/1",
                 "topology": {"clusters": [{"name": "c", "hosts": [{"prefix": "h", "count": 3}]}]},
                 "application": {"ranks": 4, "tree": "binary"},
                 "mapping": {"ranks": ["h2", "h0", "h2", "h1"]}}
                """, "t.json");

        assertThat(spec.rankHosts()).containsExactly(2, 0, 2, 1);
    }

    @Test
    void theSampleFileParses() throws Exception {
        PathmapSpec spec = PathmapConfig.read(examples().resolve("two-clusters.json"));

        assertThat(spec.topology().clusters()).hasSize(2);
        assertThat(spec.topology().size()).isEqualTo(8);
        assertThat(spec.topology().hosts()).allSatisfy(h -> assertThat(h.cpus()).isEqualTo(2));
        assertThat(spec.ranks()).isEqualTo(16);
        assertThat(spec.shape()).isEqualTo(TreeShape.hier(2));
        assertThat(spec.overrides()).hasSize(1);
        assertThat(PathmapBuilder.build(spec).entries()).hasSize(16 * spec.trees());
    }

    @Test
    void errorsNameTheFileAsGiven(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("cluster.json");
        Files.writeString(file, EXAMPLE.replace("hier:2", "kary:1"));

        PathmapConfigException e = catchThrowableOfType(PathmapConfigException.class, () -> PathmapConfig.read(file));

        assertThat(e.source()).isEqualTo(file.toString());
        assertThat(e.line()).isEqualTo(4);
        assertThat(e.column()).isEqualTo(EXAMPLE.lines().toList().get(3).indexOf("\"hier:2\"") + 1);
        assertThat(e.getMessage()).isEqualTo(file + ":4:" + e.column() + ": application.tree: expected flat, binary, "
                + "kary:K, hier:K or butterfly[:K] with K >= 2, got \"kary:1\"");
    }

    /**
     * One broken document per kind of error: the text (with the offending spot on the line marked by
     * {@code <<<}, a comment that is stripped before parsing), the field path and a phrase of the problem.
     */
    static Stream<Arguments> brokenDocuments() {
        return Stream.of(
                Arguments.of("bad JSON syntax", """
                        {"schema": "eventspace.pathmap/1",
                         "topology": {"clusters": [{"name": "c0", "hosts": [{"name": "h0",}]}]}, <<<
                         "application": {"ranks": 2, "tree": "flat"}}
                        """, "topology.clusters[0].hosts[0].name", "invalid JSON: Unexpected character ('}'"),
                Arguments.of("missing schema", """
                        { <<<
                         "topology": {"clusters": [{"name": "c0", "hosts": [{"name": "h0"}]}]},
                         "application": {"ranks": 2, "tree": "flat"}}
                        """, "schema", "missing required field"),
                Arguments.of("misspelt schema", """
                        {
                         "shema": "eventspace.pathmap/1", <<<
                         "topology": {"clusters": [{"name": "c0", "hosts": [{"name": "h0"}]}]},
                         "application": {"ranks": 2, "tree": "flat"}}
                        """, "shema", "unknown field (did you mean \"schema\"?)"),
                Arguments.of("wrong schema version", """
                        {
                         "schema": "eventspace.pathmap/2", <<<
                         "topology": {"clusters": [{"name": "c0", "hosts": [{"name": "h0"}]}]},
                         "application": {"ranks": 2, "tree": "flat"}}
                        """, "schema", "expected \"eventspace.pathmap/1\""),
                Arguments.of("unknown field", """
                        {"schema": "eventspace.pathmap/1",
                         "topology": {"clusters": [{"name": "c0", "hosts": [{"name": "h0"}]}]},
                         "application": {"ranks": 2,
                           "tres": 2, <<<
                           "tree": "flat"}}
                        """, "application.tres", "unknown field (did you mean \"trees\"?)"),
                Arguments.of("unknown field in a host", """
                        {"schema": "eventspace.pathmap/1",
                         "topology": {"clusters": [{"name": "c0", "hosts": [
                            {"name": "h0", "cpu": 2}]}]}, <<<
                         "application": {"ranks": 2, "tree": "flat"}}
                        """, "topology.clusters[0].hosts[0].cpu", "expected name, prefix, count, cpus"),
                Arguments.of("fan-out below 2", """
                        {"schema": "eventspace.pathmap/1",
                         "topology": {"clusters": [{"name": "c0", "hosts": [{"name": "h0"}]}]},
                         "application": {"ranks": 2,
                           "tree": "hier:1"}} <<<
                        """, "application.tree", "got \"hier:1\""),
                Arguments.of("fan-out below 2 in an override", """
                        {"schema": "eventspace.pathmap/1",
                         "topology": {"clusters": [{"name": "c0", "hosts": [{"name": "h0"}]}]},
                         "application": {"ranks": 2, "tree": "hier:2",
                           "overrides": {"h0": "kary:0"}}} <<<
                        """, "application.overrides.h0", "got \"kary:0\""),
                Arguments.of("rank mapped to an unknown host", """
                        {"schema": "eventspace.pathmap/1",
                         "topology": {"clusters": [{"name": "c0", "hosts": [{"name": "h0"}, {"name": "h1"}]}]},
                         "application": {"ranks": 3, "tree": "flat"},
                         "mapping": {"ranks": ["h0", "h1",
                           "h2"]}} <<<
                        """, "mapping.ranks[2]", "unknown host \"h2\"; hosts are h0, h1"),
                Arguments.of("root on an unknown host", """
                        {"schema": "eventspace.pathmap/1",
                         "topology": {"clusters": [{"name": "c0", "hosts": [{"name": "h0"}]}]},
                         "application": {"ranks": 1, "tree": "flat"},
                         "mapping": {"root": "head"}} <<<
                        """, "mapping.root", "unknown host \"head\""),
                Arguments.of("explicit mapping of the wrong length", """
                        {"schema": "eventspace.pathmap/1",
                         "topology": {"clusters": [{"name": "c0", "hosts": [{"name": "h0"}, {"name": "h1"}]}]},
                         "application": {"ranks": 3, "tree": "flat"},
                         "mapping": {"ranks": ["h0", "h1"]}} <<<
                        """, "mapping.ranks", "expected 3 host names, one per rank (application.ranks = 3), got 2"),
                Arguments.of("unknown mapping name", """
                        {"schema": "eventspace.pathmap/1",
                         "topology": {"clusters": [{"name": "c0", "hosts": [{"name": "h0"}]}]},
                         "application": {"ranks": 3, "tree": "flat"},
                         "mapping": {"ranks": "round-robin"}} <<<
                        """, "mapping.ranks", "expected \"block\", \"cyclic\" or an array of 3 host names"),
                Arguments.of("duplicate host names across clusters", """
                        {"schema": "eventspace.pathmap/1",
                         "topology": {"clusters": [
                           {"name": "c0", "hosts": [{"name": "h0"}, {"name": "h1"}]},
                           {"name": "c1", "hosts": [{"name": "h1"}]}]}, <<<
                         "application": {"ranks": 2, "tree": "flat"}}
                        """, "topology.clusters[1].hosts[0].name", "duplicate host name \"h1\", already used by the host at 3:"),
                Arguments.of("duplicate host made by a prefix", """
                        {"schema": "eventspace.pathmap/1",
                         "topology": {"clusters": [
                           {"name": "c0", "hosts": [{"name": "n2"},
                             {"prefix": "n", "count": 4}]}]}, <<<
                         "application": {"ranks": 2, "tree": "flat"}}
                        """, "topology.clusters[0].hosts[1].prefix", "prefix \"n\" with count 4 makes host name \"n2\""),
                Arguments.of("host named like a cluster", """
                        {"schema": "eventspace.pathmap/1",
                         "topology": {"clusters": [
                           {"name": "c0", "hosts": [{"name": "c0"}]}]}, <<<
                         "application": {"ranks": 2, "tree": "flat"}}
                        """, "topology.clusters[0].hosts[0].name", "already used by the cluster at 3:"),
                Arguments.of("override naming nothing", """
                        {"schema": "eventspace.pathmap/1",
                         "topology": {"clusters": [{"name": "c0", "hosts": [{"name": "h0"}]}]},
                         "application": {"ranks": 2, "tree": "hier:2", "overrides": {
                           "h9": "flat"}}} <<<
                        """, "application.overrides.h9", "\"h9\" names neither a host nor a cluster"),
                Arguments.of("overrides on a tree that is not hier", """
                        {"schema": "eventspace.pathmap/1",
                         "topology": {"clusters": [{"name": "c0", "hosts": [{"name": "h0"}]}]},
                         "application": {"ranks": 2, "tree": "binary",
                           "overrides": {"h0": "flat"}}} <<<
                        """, "application.overrides", "overrides apply only to hier:K trees"),
                Arguments.of("missing required field", """
                        {"schema": "eventspace.pathmap/1",
                         "topology": {"clusters": [{"name": "c0", "hosts": [{"name": "h0"}]}]},
                         "application": {"tree": "flat"}} <<<
                        """, "application.ranks", "missing required field"),
                Arguments.of("a decimal where an integer belongs", """
                        {"schema": "eventspace.pathmap/1",
                         "topology": {"clusters": [{"name": "c0", "hosts": [{"name": "h0",
                           "cpus": 1.5}]}]}, <<<
                         "application": {"ranks": 2, "tree": "flat"}}
                        """, "topology.clusters[0].hosts[0].cpus", "expected an integer, got 1.5"),
                Arguments.of("an integer out of range", """
                        {"schema": "eventspace.pathmap/1",
                         "topology": {"clusters": [{"name": "c0", "hosts": [{"name": "h0"}]}]},
                         "application": {"ranks": 0, "tree": "flat"}} <<<
                        """, "application.ranks", "expected an integer in 1..1048576, got 0"),
                Arguments.of("a host without a name", """
                        {"schema": "eventspace.pathmap/1",
                         "topology": {"clusters": [{"name": "c0", "hosts": [
                           {"cpus": 2}]}]}, <<<
                         "application": {"ranks": 2, "tree": "flat"}}
                        """, "topology.clusters[0].hosts[0]", "expected a host {\"name\": …}"),
                Arguments.of("a duplicate key", """
                        {"schema": "eventspace.pathmap/1",
                         "topology": {"clusters": [{"name": "c0", "hosts": [{"name": "h0"}]}]},
                         "application": {"ranks": 2, "tree": "flat",
                           "ranks": 4}} <<<
                        """, "application.ranks", "duplicate field, first given at 3:18"),
                Arguments.of("trailing content", """
                        {"schema": "eventspace.pathmap/1",
                         "topology": {"clusters": [{"name": "c0", "hosts": [{"name": "h0"}]}]},
                         "application": {"ranks": 2, "tree": "flat"}}
                        {} <<<
                        """, "", "unexpected content after the end of the document"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenDocuments")
    void everyErrorNamesFileLineAndField(String kind, String marked, String field, String problem) {
        String json = marked.replace(" <<<", "");
        int line = marked.lines().toList().indexOf(marked.lines().filter(l -> l.endsWith("<<<")).findFirst()
                .orElseThrow()) + 1;

        PathmapConfigException e = catchThrowableOfType(PathmapConfigException.class,
                () -> PathmapConfig.parse(json, "cluster.json"));

        assertThat(e).as(kind).isNotNull();
        assertThat(e.source()).isEqualTo("cluster.json");
        assertThat(e.line()).as(e.getMessage()).isEqualTo(line);
        assertThat(e.field()).as(e.getMessage()).isEqualTo(field);
        assertThat(e.problem()).as(e.getMessage()).contains(problem);
        assertThat(e.getMessage()).startsWith("cluster.json:" + line + ":" + e.column() + ": "
                + (field.isEmpty() ? "" : field + ": "));
        assertThat(e.column()).isBetween(1, json.lines().toList().get(line - 1).length() + 1);
    }

    @Test
    void columnsPointAtTheValue() {
        String json = """
                {"schema": "eventspace.pathmap/1",
                 "topology": {"clusters": [{"name": "c0", "hosts": [{"name": "h0"}]}]},
                 "application": {"ranks": 2, "tree": "kary:1"}}
                """;
        PathmapConfigException e = catchThrowableOfType(PathmapConfigException.class,
                () -> PathmapConfig.parse(json, "cluster.json"));

        assertThat(e.getMessage()).isEqualTo("cluster.json:3:38: application.tree: expected flat, binary, kary:K, "
                + "hier:K or butterfly[:K] with K >= 2, got \"kary:1\"");
    }

    @Test
    void anEmptyFileAndANonObjectAreErrorsAtTheStart() {
        assertThatThrownBy(() -> PathmapConfig.parse("", "e.json")).hasMessage("e.json:1:1: expected a JSON object, "
                + "got an empty file");
        assertThatThrownBy(() -> PathmapConfig.parse("\n  [1]", "e.json")).hasMessageStartingWith("e.json:2:3: "
                + "expected a JSON object");
    }

    @Test
    void writeThenReadGivesAnEqualSpec() {
        PathmapSpec spec = PathmapConfig.parse(EXAMPLE, "cluster.json");

        String text = PathmapConfig.write(spec);

        assertThat(PathmapConfig.parse(text, "written.json")).isEqualTo(spec);
        assertThat(text).contains("\"schema\": \"eventspace.pathmap/1\"", "\"ranks\": \"block\"");
    }

    @Test
    void writeUsesCompactHostRunsCyclicAndExplicitMappings() {
        Topology topology = Topology.simulated(2, 3, 2); // c0: h0 h1 h2, c1: h3 h4 h5
        PathmapSpec cyclic = new PathmapSpec(topology, 7, 1, TreeShape.hier(3), Map.of("c1", TreeShape.FLAT),
                PathmapSpec.cyclicMapping(7, 6), 4, 64);
        PathmapSpec explicit = new PathmapSpec(topology, 3, 1, TreeShape.FLAT, Map.of(), new int[] {5, 5, 0}, 0, 8);

        String cyclicText = PathmapConfig.write(cyclic);
        String explicitText = PathmapConfig.write(explicit);

        assertThat(cyclicText).contains("{\"prefix\": \"h\", \"count\": 3, \"cpus\": 2}", "\"ranks\": \"cyclic\"",
                "\"root\": \"h4\"", "\"overrides\": {\"c1\": \"flat\"}");
        assertThat(explicitText).contains("\"ranks\": [\"h5\", \"h5\", \"h0\"]");
        assertThat(PathmapConfig.parse(cyclicText, "c.json")).isEqualTo(cyclic);
        assertThat(PathmapConfig.parse(explicitText, "e.json")).isEqualTo(explicit);
    }

    @Test
    void writeRefusesASpecTheFormatCannotExpress() {
        Topology badName = new Topology(List.of("c0"), List.of(new Host(0, "h 0", "c0", 1)));
        Topology interleaved = new Topology(List.of("c0", "c1"), List.of(new Host(0, "x", "c1", 1),
                new Host(1, "y", "c0", 1)));

        assertThatThrownBy(() -> PathmapConfig.write(PathmapSpec.of(badName, 1, 1, TreeShape.FLAT)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"h 0\"");
        assertThatThrownBy(() -> PathmapConfig.write(PathmapSpec.of(interleaved, 2, 1, TreeShape.FLAT)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cluster by cluster");
    }

    static Path examples() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("examples/pathmaps");
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("no examples/pathmaps above " + Path.of("").toAbsolutePath());
    }
}
