package org.eventspace.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.eventspace.trace.TimeEncoding;
import org.eventspace.trace.TraceConfig;
import org.junit.jupiter.api.Test;

/** The trace configuration a TCP host process receives as its third argument. */
class TracedRunTest {
    /** The summary's ratio: one decimal below 10×, whole numbers above, and never a ratio below 1 ("0×"). */
    @Test
    void theSummaryPrintsTheRealRatio() {
        assertThat(TracedRun.Summary.ratio(1400, 1000)).isEqualTo("1.4× smaller");
        assertThat(TracedRun.Summary.ratio(3_043_680, 117_129)).isEqualTo("26× smaller");
        assertThat(TracedRun.Summary.ratio(1000, 1000)).isEqualTo("1.0× smaller");
        assertThat(TracedRun.Summary.ratio(1000, 2070)).isEqualTo("2.1× the flat size, not smaller");
        TracedRun.Summary s = new TracedRun.Summary(java.nio.file.Path.of("t.cbor"), 2172, 12133, 485_320, "hist", 0, 1);
        assertThat(s.summary()).contains("(flat 485320 bytes, 223× smaller)");
    }

    @Test
    void aTraceConfigurationTravelsAsOneArgumentAndBack() {
        TraceConfig c = new TraceConfig(TimeEncoding.PATH, 7, 12, 32, 4096);
        assertThat(TracedRun.encodeConfig(c)).isEqualTo("path:7:12:32:4096");
        assertThat(TracedRun.decodeConfig(TracedRun.encodeConfig(c))).isEqualTo(c);
    }

    @Test
    void aMalformedOneIsRefusedNamingWhatWasExpected() {
        assertThatThrownBy(() -> TracedRun.decodeConfig("hist:5:8"))
                .hasMessageContaining("trace configuration 'hist:5:8': expected encoding:bins:smooth:window:maxNodes");
        assertThatThrownBy(() -> TracedRun.decodeConfig("hist:five:8:64:100"))
                .hasMessageContaining("expected integers after the encoding");
        assertThatThrownBy(() -> TracedRun.decodeConfig("exact:5:8:64:100")).hasMessageContaining("exact");
        assertThatThrownBy(() -> TracedRun.decodeConfig("hist:1:8:64:100")).hasMessageContaining("histogram bins must be 2..64, got 1");
    }

    @Test
    void hostsThatSentNoPartialTraceAreNamedAndTheReportIsKept() throws Exception {
        java.util.List<Integer> missing = new java.util.ArrayList<>();
        java.util.List<com.fasterxml.jackson.databind.JsonNode> programs = new java.util.ArrayList<>();
        programs.add(null);
        programs.add(org.eventspace.base.json.Json.mapper().createObjectNode().put("ranks", 1));
        assertThat(TracedRun.mergePartials(programs, "partial trace", missing)).isNull();
        assertThat(missing).containsExactly(0, 1);
        assertThat(TracedRun.abbreviatedHosts(java.util.List.of(0, 56))).isEqualTo("host 0, host 56");
        assertThat(TracedRun.abbreviatedHosts(java.util.stream.IntStream.range(0, 64).boxed().toList()))
                .endsWith("host 9 and 54 more");
        TracedRun.Result result = new TracedRun.Result(null, null, "no trace written to t.cbor: 2 of 64 hosts sent no partial trace");
        assertThatThrownBy(result::requireTrace).hasMessageContaining("2 of 64 hosts");
    }
}
