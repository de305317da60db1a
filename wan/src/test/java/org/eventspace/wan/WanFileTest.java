package org.eventspace.wan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WanFileTest {
    @TempDir
    Path dir;

    static Path examples() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("examples/wan"))) {
                return p.resolve("examples/wan");
            }
        }
        throw new IllegalStateException("no examples/wan above " + Path.of("").toAbsolutePath());
    }

    @Test
    void theFourSitesExampleHasTheDissertationsLinks() {
        WanLayout layout = WanFile.read(examples().resolve("four-sites.wan"));
        assertThat(layout.sites()).extracting(Site::name).containsExactly("tromso", "trondheim", "odense", "aalborg");
        assertThat(layout.links()).hasSize(12);
        // Appendix 8.1 Table IV: benedict → roadrunner 12.70 ms two-way; Table V: 10.60 Mbit/s.
        LinkDirection aalborgOdense = layout.link("aalborg", "odense");
        assertThat(aalborgOdense.latencyNs(0)).isEqualTo(6_350_000);
        assertThat(aalborgOdense.bandwidthMbit().at(0)).isEqualTo(10.60);
        assertThat(layout.linksFrom("odense")).extracting(LinkDirection::to)
                .containsExactly("aalborg", "tromso", "trondheim");
    }

    @Test
    void theSeriesExampleReadsItsFilesRelativeToTheLinkFile() {
        WanLayout layout = WanFile.read(examples().resolve("odense-aalborg-series.wan"));
        LinkDirection link = layout.link("odense", "aalborg");
        assertThat(link.latencyMs().samples()).isEqualTo(30);
        assertThat(link.latencyMs().at(0)).isEqualTo(2.915);
        assertThat(link.latencyMs().at(2_500_000_000L)).isEqualTo(6.935);
        assertThat(link.bandwidthMbit().at(1_000_000_000L)).isEqualTo(8.80);
    }

    private WanFileException error(String... lines) throws IOException {
        Path file = dir.resolve("bad.wan");
        Files.write(file, List.of(lines));
        try {
            WanFile.read(file);
        } catch (WanFileException e) {
            assertThat(e.file()).isEqualTo(file.toString());
            return e;
        }
        throw new AssertionError("no error");
    }

    @Test
    void errorsNameTheFileTheLineAndWhatWasExpected() throws IOException {
        assertThat(error("eventspace-wan 2").getMessage()).endsWith("bad.wan:1: version 2 is not one this build reads (1)");
        assertThat(error("# nothing", "site a").getMessage())
                .endsWith("bad.wan:2: expected the header 'eventspace-wan 1' first, got 'site a'");
        WanFileException e = error("eventspace-wan 1", "site a", "site b", "link a c latency_ms=1 bandwidth_mbit_s=1");
        assertThat(e.line()).isEqualTo(4);
        assertThat(e.getMessage()).contains("bad.wan:4: unknown site 'c'");
        assertThat(error("eventspace-wan 1", "site a", "site b", "link a b latency_ms=1").getMessage())
                .contains(":4: expected exactly one of bandwidth_mbit_s=NUMBER or bandwidth_series=FILE");
        assertThat(error("eventspace-wan 1", "site a", "site b", "link a b latency_ms=-1 bandwidth_mbit_s=1").getMessage())
                .contains(":4: expected latency_ms >= 0 and <= 60000, got -1");
        assertThat(error("eventspace-wan 1", "site a", "site b", "link a b latency_ms=1 bandwidth_mbit_s=0").getMessage())
                .contains(":4: expected bandwidth_mbit_s >= 0.001 and <= 1000000, got 0");
        // A denormal bandwidth would make a message's wire time overflow its due time.
        assertThat(error("eventspace-wan 1", "site a", "site b", "link a b latency_ms=1 bandwidth_mbit_s=1e-320")
                .getMessage()).contains(":4: expected bandwidth_mbit_s >= 0.001 and <= 1000000, got 1e-320");
        assertThat(error("eventspace-wan 1", "site a", "site b", "link a b latency_ms=1 bandwidth_mbit_s=1",
                "link a b latency_ms=2 bandwidth_mbit_s=1").getMessage())
                .contains(":5: link a b was configured on line 4 already");
        assertThat(error("eventspace-wan 1", "site a", "site a").getMessage()).contains(":3: site 'a' was declared on line 2");
        assertThat(error("eventspace-wan 1", "site a", "site b", "link a b latncy_ms=1").getMessage())
                .contains(":4: unknown key 'latncy_ms'");
        assertThat(error("eventspace-wan 1", "site a cluster=c0", "site b", "link a b latency_ms=1 bandwidth_mbit_s=1")
                .getMessage()).contains(":3: either every site names its cluster= or none does");
        assertThat(error("eventspace-wan 1", "site a").getMessage()).endsWith("bad.wan: expected at least 2 sites, found 1");
        assertThat(error("eventspace-wan 1", "route a b").getMessage())
                .contains(":2: expected a 'site NAME …' or 'link FROM TO …' line, got 'route'");
    }

    @Test
    void aBadSeriesFileIsNamedWithItsLineAndTheLinkLineThatNamesIt() throws IOException {
        Files.write(dir.resolve("lat.series"), List.of("eventspace-wan-series 1", "0 5", "1 6", "1 7"));
        WanFileException e = error("eventspace-wan 1", "site a", "site b",
                "link a b latency_series=lat.series bandwidth_mbit_s=1");
        assertThat(e.getMessage()).contains("bad.wan:4: latency_series=lat.series: ")
                .contains("lat.series:4: expected a time after the previous sample's 1.0 s, got 1");
        Files.write(dir.resolve("lat.series"), List.of("eventspace-wan-series 1", "0 five"));
        assertThat(error("eventspace-wan 1", "site a", "site b", "link a b latency_series=lat.series bandwidth_mbit_s=1")
                .getMessage()).contains("lat.series:2: expected a number for ms, got 'five'");
        assertThat(error("eventspace-wan 1", "site a", "site b", "link a b latency_series=none bandwidth_mbit_s=1")
                .getMessage()).contains("none: no such file");
    }
}
