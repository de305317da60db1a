package org.eventspace.trace;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

/** {@link TraceSizes}: the parts of a trace file add up to its length in both encodings, each where it belongs. */
class TraceSizesTest {
    @TempDir
    Path dir;

    /** Three ranks, sizes that change over time and differ on rank 2, peers that differ by rank, a root. */
    private static Trace trace(TimeEncoding encoding) {
        List<RankTrace> traces = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            RankTrace t = new RankTrace(r, TraceConfig.of(encoding));
            t.record(Op.BROADCAST, 3, -1, EventNode.NONE, 8, 0, 500, 10);
            for (int p = 0; p < 20; p++) {
                t.record(Op.BARRIER, 1, -1, EventNode.NONE, EventNode.NONE, EventNode.NONE, 1_000, 10);
                for (int s = 0; s < 4; s++) {
                    t.record(Op.SEND, 2, -1, r == 0 ? 1 : -1, 100 + (p % 3) + (r == 2 ? 1 : 0), EventNode.NONE, 100, 10);
                }
            }
            traces.add(t);
        }
        return Trace.mergeAll(traces);
    }

    @Test
    void thePartsAddUpToTheFileInBothEncodings() throws Exception {
        for (TimeEncoding encoding : TimeEncoding.values()) {
            Trace trace = trace(encoding);
            for (String name : new String[] {"t.trace.json", "t.trace.cbor"}) {
                Path file = dir.resolve(encoding + "-" + name);
                long written = TraceFile.write(trace, file);
                TraceSizes sizes = TraceSizes.of(file);
                assertThat(sizes.fileBytes()).isEqualTo(written);
                assertThat(sizes.accountedBytes()).as("%s %s", encoding, name).isEqualTo(written);
                assertThat(sizes.flatBytes()).isEqualTo(trace.eventsRecorded() * 40);
                assertThat(sizes.encoding()).isEqualTo(TraceFile.Encoding.of(file));
                for (TraceSizes.Part p : new TraceSizes.Part[] {TraceSizes.Part.STRUCTURE, TraceSizes.Part.RANKLISTS,
                        TraceSizes.Part.PEER, TraceSizes.Part.COUNT, TraceSizes.Part.ROOT, TraceSizes.Part.COUNT_RUNS,
                        TraceSizes.Part.TIMING_STATS, TraceSizes.Part.OTHER}) {
                    assertThat(sizes.parts().get(p)).as("%s %s %s", encoding, name, p).isPositive();
                }
                assertThat(sizes.parts().get(TraceSizes.Part.HISTOGRAMS) > 0).isEqualTo(encoding == TimeEncoding.HIST);
                assertThat(sizes.parts().get(TraceSizes.Part.PATH_HISTOGRAMS) > 0).isEqualTo(encoding == TimeEncoding.PATH);
                assertThat(TraceSizes.of(trace, TraceFile.Encoding.of(file)).parts()).isEqualTo(sizes.parts());
                JsonNode json = sizes.toJson();
                assertThat(json.path("schema").asText()).isEqualTo("eventspace.trace-sizes/1");
                assertThat(json.path("file_bytes").asLong()).isEqualTo(written);
                assertThat(json.path("unaccounted_bytes").asLong()).isZero();
                assertThat(json.path("parts_bytes").path("count_runs").asLong())
                        .isEqualTo(sizes.parts().get(TraceSizes.Part.COUNT_RUNS));
                assertThat(sizes.toText()).contains("count_runs").doesNotContain("unaccounted");
            }
        }
    }

    /**
     * Rank groups' timings (slow rank 2): their ranklists count as ranklists, their bins as histograms, the rest as
     * statistics, in the array form and in the path encoding's object form; the parts still add up to the file.
     */
    @Test
    void rankGroupTimingsAreCountedWhereTheirPartsBelong() throws Exception {
        for (TimeEncoding encoding : TimeEncoding.values()) {
            Trace grouped = RankGroupTimingTest.slowRank2(encoding);
            Trace agreeing = RankGroupTimingTest.job(4, 150, TraceConfig.of(encoding), r -> 400_000, 1);
            Path g = dir.resolve(encoding + "-grouped.trace.cbor");
            Path a = dir.resolve(encoding + "-agreeing.trace.cbor");
            TraceFile.write(grouped, g);
            TraceFile.write(agreeing, a);
            TraceSizes gs = TraceSizes.of(g);
            TraceSizes as = TraceSizes.of(a);
            assertThat(gs.accountedBytes()).as("%s", encoding).isEqualTo(gs.fileBytes());
            // two groups' ranklists ([0,1,2,3,1,1] style) beside the one of the trace's group
            assertThat(gs.parts().get(TraceSizes.Part.RANKLISTS)).as("%s", encoding)
                    .isGreaterThan(as.parts().get(TraceSizes.Part.RANKLISTS));
            TraceSizes.Part bins = switch (encoding) {
                case STATS -> null;
                case HIST -> TraceSizes.Part.HISTOGRAMS;
                case PATH -> TraceSizes.Part.PATH_HISTOGRAMS;
            };
            if (bins != null) {
                // the groups' histograms replace the all-ranks one (array form) or stand beside it (object form)
                assertThat(gs.parts().get(bins)).as("%s", encoding).isGreaterThan(as.parts().get(bins));
            }
        }
    }

    /** A file written with white space of its own: its parts as re-encoded, the difference said, not hidden. */
    @Test
    void aFileWrittenOtherwiseShowsWhatIsNotAccounted() throws Exception {
        Path file = dir.resolve("pretty.trace.json");
        Files.writeString(file, TraceFile.toJson(trace(TimeEncoding.STATS)).toPrettyString());
        TraceSizes sizes = TraceSizes.of(file);
        assertThat(sizes.fileBytes()).isEqualTo(Files.size(file));
        assertThat(sizes.fileBytes() - sizes.accountedBytes()).isPositive();
        assertThat(sizes.toText()).contains("unaccounted");
    }
}
