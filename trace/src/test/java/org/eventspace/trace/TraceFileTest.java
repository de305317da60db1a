package org.eventspace.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceFileTest {
    @TempDir
    Path dir;

    /** A halo exchange with rank ± 1, a barrier, and rank 3's compute four times as long before the barrier. */
    static Trace stencil(int ranks, TimeEncoding encoding) {
        List<RankTrace> traces = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            RankTrace t = new RankTrace(r, TraceConfig.of(encoding));
            for (int i = 0; i < 50; i++) {
                if (r + 1 < ranks) {
                    t.record(Op.SEND, 11, -1, 1, 64, EventNode.NONE, 1000, 200);
                }
                if (r > 0) {
                    t.record(Op.RECV, 12, -1, -1, 64, EventNode.NONE, 10, 300);
                }
                t.record(Op.BARRIER, 13, -1, EventNode.NONE, EventNode.NONE, EventNode.NONE, r == 3 ? 40_000 : 10_000, 500);
                t.record(Op.ALLREDUCE_DOUBLE, 14, 0, EventNode.NONE, 1, EventNode.NONE, 100, 800);
            }
            traces.add(t);
        }
        return Trace.mergeAll(traces);
    }

    @Test
    void roundTripsEveryEncoding() throws Exception {
        for (TimeEncoding encoding : TimeEncoding.values()) {
            Trace trace = stencil(8, encoding);
            Path file = dir.resolve(encoding.fileName() + ".trace.json");
            long bytes = TraceFile.write(trace, file);
            assertThat(Files.size(file)).isEqualTo(bytes);
            Trace back = TraceFile.read(file);
            assertThat(TracePrinter.structure(back)).isEqualTo(TracePrinter.structure(trace));
            assertThat(back.eventsRecorded()).isEqualTo(trace.eventsRecorded());
            for (int r = 0; r < 8; r++) {
                assertThat(back.expand(r)).isEqualTo(stencil(8, encoding).expand(r));
            }
            assertThat(TraceFile.toJson(back)).isEqualTo(TraceFile.toJson(trace));
        }
    }

    /**
     * A file named {@code *.cbor} holds the same document in CBOR: it starts with the self-described CBOR tag, reads back
     * to the same tree, and is smaller than the JSON.
     */
    @Test
    void theCborEncodingHoldsTheSameDocumentInFewerBytes() throws Exception {
        for (TimeEncoding encoding : TimeEncoding.values()) {
            Trace trace = stencil(8, encoding);
            Path json = dir.resolve(encoding.fileName() + ".trace.json");
            Path cbor = dir.resolve(encoding.fileName() + ".trace.cbor");
            long jsonBytes = TraceFile.write(trace, json);
            long cborBytes = TraceFile.write(trace, cbor);
            assertThat(TraceFile.Encoding.of(cbor)).isEqualTo(TraceFile.Encoding.CBOR);
            assertThat(Files.size(cbor)).isEqualTo(cborBytes);
            byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(cbor), 3);
            assertThat(head).containsExactly(0xd9, 0xd9, 0xf7);
            assertThat(cborBytes).isLessThan(jsonBytes * 3 / 4);
            Trace back = TraceFile.read(cbor);
            assertThat(TraceFile.toJson(back)).isEqualTo(TraceFile.toJson(trace));
            assertThat(TraceFile.toJson(back)).isEqualTo(TraceFile.toJson(TraceFile.read(json)));
        }
    }

    /**
     * Sizes that vary between iterations ({@code words_runs}) round-trip through both encodings, expand to every
     * occurrence's size, and a file whose runs do not add up to the calls the enclosing loops make is refused with the
     * place.
     */
    @Test
    void sizesThatVaryRoundTripAndMustAddUpToTheCallsMade() throws Exception {
        List<RankTrace> traces = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            RankTrace t = new RankTrace(r, TraceConfig.of(TimeEncoding.HIST));
            for (int p = 0; p < 20; p++) {
                t.record(Op.BARRIER, 1, -1, EventNode.NONE, EventNode.NONE, EventNode.NONE, 1_000, 10);
                for (int s = 0; s < 4; s++) {
                    t.record(Op.SEND, 2, -1, 1, 100 + (p % 3) + (r == 2 ? 1 : 0), EventNode.NONE, 100, 10);
                }
            }
            traces.add(t);
        }
        Trace trace = Trace.mergeAll(traces);
        for (String name : new String[] {"runs.trace.json", "runs.trace.cbor"}) {
            Path file = dir.resolve(name);
            TraceFile.write(trace, file);
            Trace back = TraceFile.read(file);
            assertThat(TraceFile.toJson(back)).isEqualTo(TraceFile.toJson(trace));
            for (int r = 0; r < 3; r++) {
                assertThat(back.expand(r)).isEqualTo(trace.expand(r));
                assertThat(back.expand(r).get(1).count()).isEqualTo(100 + (r == 2 ? 1 : 0));
                assertThat(back.expand(r).get(6).count()).isEqualTo(101 + (r == 2 ? 1 : 0));
            }
        }
        // written packed (words_runs_table); the runs written out in full, as before it, read back the same
        String packed = TraceFile.toJson(trace).toString();
        assertThat(packed).startsWith("{\"schema\":\"eventspace.trace/3\"").contains("\"words_runs\":[0,0,1]")
                .contains("\"words_runs_table\":\"");
        String json = packed.replace("\"words_runs\":[0,0,1]", "\"words_runs\":[[" + runs(trace, 0) + ",[0,1,2]],[" + runs(trace, 2)
                + ",[2,1,1]]]").replaceFirst(",\"words_runs_table\":\"[^\"]*\"", "");
        assertThat(json).contains("\"words_runs\":[[[100,4,101,4,102,4");
        Path full = dir.resolve("runs-in-full.trace.json");
        Files.writeString(full, json);
        assertThat(TraceFile.toJson(TraceFile.read(full))).isEqualTo(TraceFile.toJson(trace));
        assertThat(TraceFile.toJson(stencil(4, TimeEncoding.HIST)).path("schema").asText()).isEqualTo("eventspace.trace/3");
        Path old = dir.resolve("runs-in-v1.trace.json");
        Files.writeString(old, json.replace("eventspace.trace/3", "eventspace.trace/1"));
        assertThatThrownBy(() -> TraceFile.read(old)).hasMessageContaining("at /estimate_bits: expected no estimate_bits in "
                + "an eventspace.trace/1 file");
        // Older versions write exact nanoseconds and no estimate_bits (their estimates then read as written).
        String exact = json.replace(",\"estimate_bits\":11", "");
        Files.writeString(old, exact.replace("eventspace.trace/3", "eventspace.trace/1"));
        assertThatThrownBy(() -> TraceFile.read(old)).hasMessageContaining("expected a timing object (array timings are eventspace.trace/3)");
        Files.writeString(old, objectTimings(exact).replace("eventspace.trace/3", "eventspace.trace/1"));
        assertThatThrownBy(() -> TraceFile.read(old)).hasMessageContaining("no words_runs in an eventspace.trace/1 file");
        Path v2 = dir.resolve("runs-in-v2.trace.json");
        Files.writeString(v2, objectTimings(exact).replace("eventspace.trace/3", "eventspace.trace/2"));
        Trace fromV2 = TraceFile.read(v2);
        for (int r = 0; r < trace.ranks(); r++) {
            assertThat(fromV2.expand(r)).isEqualTo(trace.expand(r));
        }
        Path bad = dir.resolve("bad-runs.trace.json");
        Files.writeString(bad, json.replaceFirst("\\[\\[\\[100,4,", "[[[100,5,"));
        assertThatThrownBy(() -> TraceFile.read(bad)).isInstanceOf(TraceFormatException.class)
                .hasMessageMatching(".*at /groups/\\d+/trace/0/body/1/body/0/words_runs/0/0: expected lengths adding up to 80.*");
    }

    /** {@code json} with every compact timing {@code [n, mean, sd, min, min_rank, max, max_rank, bins]} an object, as versions 1 and 2 write them. */
    private static String objectTimings(String json) throws IOException {
        com.fasterxml.jackson.databind.JsonNode root = org.eventspace.base.json.Json.mapper().readTree(json);
        objectTimings(root);
        return root.toString();
    }

    private static void objectTimings(com.fasterxml.jackson.databind.JsonNode n) {
        if (n instanceof com.fasterxml.jackson.databind.node.ObjectNode o) {
            for (String k : new String[] {"compute", "comm"}) {
                com.fasterxml.jackson.databind.JsonNode t = o.get(k);
                if (t != null && t.isArray()) {
                    com.fasterxml.jackson.databind.node.ObjectNode x = o.putObject(k);
                    String[] names = {"n", "mean", "sd", "min", "min_rank", "max", "max_rank", "hist"};
                    for (int i = 0; i < t.size(); i++) {
                        x.set(names[i], t.get(i));
                    }
                }
            }
        }
        n.forEach(TraceFileTest::objectTimings);
    }

    /** The runs {@code rank} has at the trace's one event with varying counts, as the file holds them in full. */
    private static String runs(Trace trace, int rank) {
        List<Long> pairs = new ArrayList<>();
        collectRuns(trace.nodes(), rank, pairs);
        return pairs.toString().replace(" ", "");
    }

    private static void collectRuns(List<Node> nodes, int rank, List<Long> out) {
        for (Node n : nodes) {
            if (n instanceof LoopNode l) {
                collectRuns(l.body, rank, out);
            } else if (((EventNode) n).countRuns() != null) {
                for (EventNode.RunsEntry e : ((EventNode) n).countRuns()) {
                    if (e.ranks().contains(rank)) {
                        for (long v : e.runs().pairs()) {
                            out.add(v);
                        }
                    }
                }
            }
        }
    }

    /** Packed runs that name no entry, or entries that do not fit the event, are refused with the place. */
    @Test
    void packedRunsThatDoNotFitTheEventAreRefusedWithThePlace() throws Exception {
        List<RankTrace> traces = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            RankTrace t = new RankTrace(r, TraceConfig.of(TimeEncoding.STATS));
            for (int p = 0; p < 10; p++) {
                t.record(Op.BARRIER, 1, -1, EventNode.NONE, EventNode.NONE, EventNode.NONE, 1_000, 10);
                for (int s = 0; s < 3; s++) {
                    t.record(Op.SEND, 2, -1, 1, 100 + p + r, EventNode.NONE, 100, 10);
                }
            }
            traces.add(t);
        }
        String json = TraceFile.toJson(Trace.mergeAll(traces)).toString();
        assertThat(json).contains("\"words_runs\":0");
        String[][] cases = {
                {"\"words_runs\":0", "\"words_runs\":1", "words_runs: expected an index into words_runs_table below 2, got 2"},
                {"\"words_runs\":0", "\"words_runs\":[0]", "words_runs: expected one index into words_runs_table per rank of the event (2)"},
                {"\"words_runs\":0", "\"words_runs\":[0,\"x\"]", "words_runs/1: expected an index into words_runs_table"},
                {"\"words_runs_table\":\"", "\"words_runs_table\":\"AAAA\",\"x\":\"", "/words_runs_table: entry 0 (byte 0): expected a scale >= 1, got 0"},
                {"\"words_runs_table\":\"", "\"words_runs_table\":7,\"x\":\"", "/words_runs_table: expected the packed runs"},
        };
        for (String[] c : cases) {
            Path bad = dir.resolve("bad-packed.trace.json");
            Files.writeString(bad, json.replace(c[0], c[1]));
            assertThatThrownBy(() -> TraceFile.read(bad)).as(c[1]).isInstanceOf(TraceFormatException.class)
                    .hasMessageContaining(c[2]);
        }
        Path noTable = dir.resolve("no-table.trace.json");
        Files.writeString(noTable, json.replaceFirst(",\"words_runs_table\":\"[^\"]*\"", ""));
        assertThatThrownBy(() -> TraceFile.read(noTable)).hasMessageContaining("an index needs a words_runs_table");
    }

    @Test
    void aDamagedCborFileNamesTheFileAndTheByte() throws IOException {
        Path file = dir.resolve("t.trace.cbor");
        TraceFile.write(stencil(4, TimeEncoding.HIST), file);
        byte[] whole = Files.readAllBytes(file);
        Files.write(file, java.util.Arrays.copyOf(whole, whole.length / 2));
        assertThatThrownBy(() -> TraceFile.read(file)).isInstanceOf(TraceFormatException.class)
                .hasMessageMatching(java.util.regex.Pattern.quote(file.toString()) + ": not CBOR at byte \\d+: .*");
        // Well-formed CBOR, wrong document: the same checks as the JSON's, with the same pointers.
        com.fasterxml.jackson.databind.node.ObjectNode doc = TraceFile.toJson(stencil(4, TimeEncoding.HIST));
        ((com.fasterxml.jackson.databind.node.ObjectNode) doc.path("groups").get(0)).put("ranks", "all");
        Files.write(file, new com.fasterxml.jackson.databind.ObjectMapper(
                com.fasterxml.jackson.dataformat.cbor.CBORFactory.builder()
                        .enable(com.fasterxml.jackson.dataformat.cbor.CBORGenerator.Feature.WRITE_TYPE_HEADER).build())
                .writeValueAsBytes(doc));
        assertThatThrownBy(() -> TraceFile.read(file)).hasMessageContaining(file + ": at /groups/0/ranks: expected");
    }

    /** The middle ranks send and receive, the ends only one of them: three groups, whatever the number of ranks. */
    @Test
    void sizeStaysConstantInRanksForARegularProgram() throws Exception {
        long at8 = TraceFile.write(stencil(8, TimeEncoding.HIST), dir.resolve("8"));
        long at256 = TraceFile.write(stencil(256, TimeEncoding.HIST), dir.resolve("256"));
        assertThat((double) at256 / at8).isBetween(0.9, 1.1);
        assertThat(stencil(256, TimeEncoding.HIST).flatBytes() / at256).isGreaterThan(100);
        long cbor8 = TraceFile.write(stencil(8, TimeEncoding.HIST), dir.resolve("8.cbor"));
        long cbor256 = TraceFile.write(stencil(256, TimeEncoding.HIST), dir.resolve("256.cbor"));
        assertThat((double) cbor256 / cbor8).isBetween(0.9, 1.1);
    }

    @Test
    void statsNamesTheSlowRankBeforeTheBarrier() {
        List<Imbalance.Finding> found = Imbalance.find(stencil(8, TimeEncoding.HIST), 0.5);
        assertThat(found).isNotEmpty();
        Imbalance.Finding top = found.get(0);
        assertThat(top.event().op()).isEqualTo(Op.BARRIER);
        assertThat(top.compute().maxRank()).isEqualTo(3);
        assertThat(top.compute().max()).isEqualTo(40_000);
    }

    /** Per operation, the deltas recorded summed over every call of every rank: what a replay's own times are set beside. */
    @Test
    void deltaSumsAddEveryCallOfEveryRank() {
        java.util.Map<Op, long[]> sums = stencil(8, TimeEncoding.HIST).deltaSums();
        assertThat(sums.get(Op.SEND)).containsExactly(7 * 50 * 1000L, 7 * 50 * 200L);
        assertThat(sums.get(Op.RECV)).containsExactly(7 * 50 * 10L, 7 * 50 * 300L);
        assertThat(sums.get(Op.BARRIER)).containsExactly(50 * (7 * 10_000L + 40_000L), 8 * 50 * 500L);
        assertThat(sums.get(Op.ALLREDUCE_DOUBLE)).containsExactly(8 * 50 * 100L, 8 * 50 * 800L);
    }

    /**
     * The timed phase's mark: per rank the calls before it, merged into (value, ranklist) pairs of constant size, the
     * longest timed span; kept through the file; gone when a rank marked none.
     */
    @Test
    void theTimedPhaseMarkMergesRoundTripsAndNeedsEveryRank() throws Exception {
        List<RankTrace> traces = new ArrayList<>();
        for (int r = 0; r < 6; r++) {
            RankTrace t = new RankTrace(r, TraceConfig.of(TimeEncoding.HIST));
            int warm = r == 5 ? 3 : 2; // the last rank made one call more before the mark
            for (int i = 0; i < warm; i++) {
                t.record(Op.BARRIER, 1, -1, EventNode.NONE, EventNode.NONE, EventNode.NONE, 10, 10);
            }
            t.timedFrom = t.recorded();
            t.spanNanos = 2_000 + r; // timed span: 1 000 + r ns
            t.timedStartNanos = 1_000;
            for (int i = 0; i < 10; i++) {
                t.record(Op.ALLREDUCE_LONG, 2, 0, EventNode.NONE, 1, EventNode.NONE, 10, 10);
            }
            traces.add(t);
        }
        Trace trace = Trace.mergeAll(traces);
        assertThat(trace.timedNanos()).isEqualTo(1_005);
        assertThat(trace.timedFromPairs()).hasSize(2);
        for (int r = 0; r < 6; r++) {
            assertThat(trace.timedFrom(r)).isEqualTo(r == 5 ? 3 : 2);
        }
        Path file = dir.resolve("timed.trace.json");
        TraceFile.write(trace, file);
        Trace back = TraceFile.read(file);
        assertThat(back.timedNanos()).isEqualTo(1_005);
        assertThat(back.timedFrom(5)).isEqualTo(3);
        assertThat(back.timedFrom(0)).isEqualTo(2);
        assertThat(TraceFile.toJson(back)).isEqualTo(TraceFile.toJson(trace));

        RankTrace unmarked = new RankTrace(6, TraceConfig.of(TimeEncoding.HIST));
        unmarked.record(Op.BARRIER, 1, -1, EventNode.NONE, EventNode.NONE, EventNode.NONE, 10, 10);
        Trace partial = Trace.merge(Trace.of(traces.get(0), 7), Trace.of(unmarked, 7));
        assertThat(partial.timedNanos()).isEqualTo(-1);
        assertThat(partial.timedFrom(0)).isEqualTo(-1);
        assertThat(TraceFile.toJson(partial).has("timed")).isFalse();

        com.fasterxml.jackson.databind.node.ObjectNode bad = TraceFile.toJson(trace);
        ((com.fasterxml.jackson.databind.node.ObjectNode) bad.get("timed")).putArray("from");
        Files.writeString(file, bad.toString());
        assertThatThrownBy(() -> TraceFile.read(file)).hasMessageContaining("at /timed/from: expected a non-empty array");
        bad = TraceFile.toJson(trace);
        ((com.fasterxml.jackson.databind.node.ObjectNode) bad.get("timed")).put("ns", -1);
        Files.writeString(file, bad.toString());
        assertThatThrownBy(() -> TraceFile.read(file)).hasMessageContaining("at /timed/ns: expected an integer >= 0");
    }

    @Test
    void badFilesNameTheFileThePlaceAndWhatWasExpected() throws IOException {
        Path file = dir.resolve("t.json");
        Files.writeString(file, "{\"schema\": \"eventspace.trace/1\",\n \"ranks\": 2, ");
        assertThatThrownBy(() -> TraceFile.read(file)).isInstanceOf(TraceFormatException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("line 2");

        Files.writeString(file, "{\"schema\": \"eventspace.run/1\"}");
        assertThatThrownBy(() -> TraceFile.read(file)).hasMessageContaining(file + ": at /schema: expected \"eventspace.trace/3\", \"eventspace.trace/2\" or \"eventspace.trace/1\"");

        String good = TraceFile.toJson(stencil(4, TimeEncoding.HIST)).toString();
        Files.writeString(file, good.replaceFirst("\"op\":\"barrier\"", "\"op\":\"barier\""));
        assertThatThrownBy(() -> TraceFile.read(file)).hasMessageMatching(".*at /groups/\\d+/trace/0/body/\\d+/op: expected an op .*barier.*");

        // The four ranks' roles (send only, send and receive, receive only) share one loop, whose body names its ranks.
        assertThat(good).contains("\"groups\":[{\"ranks\":[0,1,4],\"trace\":[{\"loop\":50,\"body\":[{\"ranks\":[0,1,3],\"op\":\"send\"");
        Files.writeString(file, good.replaceFirst("\"ranks\":\\[0,1,4\\]", "\"ranks\":[0,0,4]"));
        assertThatThrownBy(() -> TraceFile.read(file)).hasMessageContaining("at /groups/0/ranks: expected runs with start >= 0, stride >= 1");
        Files.writeString(file, good.replaceFirst("\"ranks\":\\[0,1,4\\]", "\"ranks\":[0,1,2]"));
        assertThatThrownBy(() -> TraceFile.read(file)).hasMessageContaining("at /groups/0/trace/0/body/0/ranks: expected ranks among "
                + "the enclosing loop's or group's 0..1");

        Files.writeString(file, good.replaceFirst("\"loop\":50", "\"loop\":-1"));
        assertThatThrownBy(() -> TraceFile.read(file)).hasMessageContaining("/loop: expected an integer >= 1, got -1");
    }
}
