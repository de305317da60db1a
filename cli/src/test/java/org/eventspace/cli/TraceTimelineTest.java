package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code trace export --format perfetto}: both timelines checked against the Chrome trace-event format's rules as
 * Perfetto reads them (every event has {@code ph}; every slice and flow event {@code ts}, {@code pid} and
 * {@code tid}; a complete event {@code dur >= 0}; every flow id exactly one {@code s} and at least one {@code f}, each
 * inside a slice on its own track at its time, since Perfetto binds a flow event to the slice that encloses it) — the
 * compressed trace's of a run of our own workload, and the exact one of an MPI program's rank files, where a rank that
 * computes 3x longer must show it on its own track.
 */
@Timeout(240)
class TraceTimelineTest {
    private static final Set<String> PHASES = Set.of("X", "M", "s", "f");

    @TempDir
    Path dir;

    /** What the format check found: slices per track (in time order) and flow ends per id. */
    record Timeline(Map<Integer, List<JsonNode>> tracks, Map<Long, List<JsonNode>> flows) {
        /** The slices on {@code tid} that enclose {@code flow}. */
        List<JsonNode> enclosing(JsonNode flow) {
            List<JsonNode> out = new ArrayList<>();
            for (JsonNode x : tracks.getOrDefault(flow.path("tid").asInt(), List.of())) {
                if (inside(flow, x)) {
                    out.add(x);
                }
            }
            return out;
        }
    }

    static boolean inside(JsonNode flow, JsonNode slice) {
        double ts = flow.path("ts").asDouble();
        double start = slice.path("ts").asDouble();
        return ts >= start && ts <= start + slice.path("dur").asDouble();
    }

    /** Checks the rules of the class comment on a whole file; returns its slices and flows. */
    static Timeline checkFormat(JsonNode root) {
        JsonNode events = root.path("traceEvents");
        assertThat(events.isArray()).isTrue();
        Map<Integer, List<JsonNode>> tracks = new HashMap<>();
        Map<Long, List<JsonNode>> flows = new HashMap<>();
        for (JsonNode e : events) {
            String ph = e.path("ph").asText();
            assertThat(PHASES).as("phase of %s", e).contains(ph);
            assertThat(e.path("pid").isInt()).as("pid of %s", e).isTrue();
            if (ph.equals("M")) {
                continue;
            }
            assertThat(e.path("ts").isNumber()).as("ts of %s", e).isTrue();
            assertThat(e.path("tid").isInt()).as("tid of %s", e).isTrue();
            if (ph.equals("X")) {
                assertThat(e.path("dur").isNumber() && e.path("dur").asDouble() >= 0).as("dur of %s", e).isTrue();
                tracks.computeIfAbsent(e.path("tid").asInt(), k -> new ArrayList<>()).add(e);
            } else {
                assertThat(e.path("id").isIntegralNumber()).as("a numeric flow id (Perfetto reads strings as hex): %s", e)
                        .isTrue();
                flows.computeIfAbsent(e.path("id").asLong(), k -> new ArrayList<>()).add(e);
            }
        }
        tracks.values().forEach(t -> t.sort((a, b) -> Double.compare(a.path("ts").asDouble(), b.path("ts").asDouble())));
        Timeline t = new Timeline(tracks, flows);
        flows.forEach((id, ends) -> {
            assertThat(ends.stream().filter(e -> e.path("ph").asText().equals("s")).count()).as("flow %d's starts", id)
                    .isEqualTo(1);
            assertThat(ends.stream().filter(e -> e.path("ph").asText().equals("f")).count()).as("flow %d's ends", id)
                    .isGreaterThanOrEqualTo(1);
            for (JsonNode end : ends) {
                assertThat(t.enclosing(end)).as("a slice on its track enclosing %s", end).isNotEmpty();
                if (end.path("ph").asText().equals("f")) {
                    assertThat(end.path("bp").asText()).isEqualTo("e");
                }
            }
        });
        return t;
    }

    @Test
    void theCompressedTraceOfOurOwnWorkloadFollowsTheFormatWithFlowsOfBothEnds() throws Exception {
        Path trace = dir.resolve("pp.trace.cbor");
        CliHarness cli = new CliHarness();
        assertThat(cli.execute("run", "pingpong", "--ranks", "4", "--iterations", "50", "--warmup", "5", "--warmup-s", "0",
                "--trace", trace.toString())).as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        Path json = dir.resolve("pp.json");
        CliHarness export = new CliHarness();
        assertThat(export.execute("trace", "export", "--format", "perfetto", trace.toString(), "--out", json.toString()))
                .as(export.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        Timeline t = checkFormat(new ObjectMapper().readTree(json.toFile()));
        assertThat(t.tracks()).hasSize(4);
        long messages = t.flows().values().stream().filter(f -> f.get(0).path("name").asText().equals("message")).count();
        assertThat(messages).as("ping-pong messages drawn").isGreaterThanOrEqualTo(2 * 55);
        assertThat(export.out()).contains(messages + " message arrows");
    }

    @Test
    void theRankFilesOfAnMpiProgramKeepTheSlowRankApartAndDrawEveryMessage() throws Exception {
        Path program = NativePrograms.compile("es_slow_rank", dir);
        Path traceDir = dir.resolve("ranks");
        Path trace = dir.resolve("slow.trace.cbor");
        int iterations = 150;
        CliHarness cli = new CliHarness();
        int exit = cli.execute("mpirun", "-np", "4", "--trace", trace.toString(), "--time-encoding", "stats", "--trace-dir",
                traceDir.toString(), "--timeout", "120", "--mpirun-arg", "--mca", "--mpirun-arg", "btl", "--mpirun-arg",
                "self,vader", "--", program.toString(), String.valueOf(iterations), "400");
        assertThat(exit).as(cli.err()).isZero();

        Path exact = dir.resolve("exact.json");
        CliHarness export = new CliHarness();
        assertThat(export.execute("trace", "export", "--format", "perfetto", traceDir.toString(), "--out", exact.toString()))
                .as(export.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        JsonNode root = new ObjectMapper().readTree(exact.toFile());
        assertThat(root.at("/otherData/schema").asText()).isEqualTo("eventspace.mpi-timeline/1");
        assertThat(root.at("/otherData/tuples_lost").asLong()).isZero();
        assertThat(root.at("/otherData/unmatched_sends").asLong()).isZero();
        assertThat(root.at("/otherData/unmatched_receives").asLong()).isZero();
        Timeline t = checkFormat(root);
        assertThat(t.tracks()).hasSize(4);

        // Every message drawn: per iteration and rank one Sendrecv and one Send (to the next rank).
        Map<String, Integer> messagesFrom = new HashMap<>();
        for (List<JsonNode> ends : t.flows().values()) {
            JsonNode s = ends.stream().filter(e -> e.path("ph").asText().equals("s")).findFirst().orElseThrow();
            JsonNode f = ends.stream().filter(e -> e.path("ph").asText().equals("f")).findFirst().orElseThrow();
            if (!s.path("name").asText().equals("message")) {
                continue;
            }
            assertThat(f.path("tid").asInt()).as("a ring message goes to the next rank").isEqualTo((s.path("tid").asInt() + 1) % 4);
            String from = t.enclosing(s).get(0).path("name").asText();
            String to = t.enclosing(f).get(0).path("name").asText();
            messagesFrom.merge(from + "->" + to, 1, Integer::sum);
        }
        assertThat(messagesFrom).containsEntry("MPI_Sendrecv->MPI_Sendrecv", 4 * iterations)
                .containsEntry("MPI_Send->MPI_Wait", 4 * iterations).hasSize(2);
        // A Sendrecv is a send and a receive: two flows on each such slice, a start and an end.
        for (List<JsonNode> track : t.tracks().values()) {
            for (JsonNode x : track) {
                if (x.path("name").asText().equals("MPI_Sendrecv")) {
                    long ends = t.flows().values().stream().flatMap(List::stream)
                            .filter(e -> e.path("name").asText().equals("message")
                                    && e.path("tid").asInt() == x.path("tid").asInt() && inside(e, x))
                            .count();
                    assertThat(ends).as("flows on %s", x).isEqualTo(2);
                }
            }
        }
        // One collective instance per allreduce, the same on every track, linked rank 0 -> 1 -> 2 -> 3.
        long collectiveLinks = t.flows().values().stream().filter(f -> f.get(0).path("name").asText().equals("collective"))
                .count();
        assertThat(collectiveLinks).isGreaterThanOrEqualTo(3L * iterations);

        Map<Integer, Double> gaps = computeGapsBeforeSendrecv(t);
        double others = (gaps.get(0) + gaps.get(1) + gaps.get(3)) / 3;
        System.out.printf("exact export: median compute gap before MPI_Sendrecv per rank (µs): %s; rank 2 / others %.2f%n",
                gaps, gaps.get(2) / others);
        for (int r : new int[] {0, 1, 3}) {
            assertThat(gaps.get(2) / gaps.get(r)).as("rank 2's compute over rank %d's: %s", r, gaps).isBetween(2.0, 4.0);
        }

        // The compressed trace of the same run keeps rank 2's compute apart from the others' (a timing per rank group):
        // its export shows rank 2 computing 3x longer too, and `trace stats` names it.
        Path merged = dir.resolve("merged.json");
        CliHarness export2 = new CliHarness();
        assertThat(export2.execute("trace", "export", "--format", "perfetto", trace.toString(), "--out", merged.toString()))
                .as(export2.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        Timeline m = checkFormat(new ObjectMapper().readTree(merged.toFile()));
        // With --time-encoding stats each rank group replays its mean: rank 2's gap is the mean of its exact gaps, the
        // others' the mean of theirs together (the medians above are 3x apart; the means also hold the preemptions of
        // a loaded machine, rank 2's most, as it computes longest).
        Map<Integer, Double> mergedGaps = computeGapsBeforeSendrecv(m);
        Map<Integer, Double> exactMeans = computeGapsBeforeSendrecv(t, true);
        double othersMean = (exactMeans.get(0) + exactMeans.get(1) + exactMeans.get(3)) / 3;
        System.out.printf("compressed export: compute gap per rank (µs): %s; rank 2 / others %.2f; exact means %s%n",
                mergedGaps, mergedGaps.get(2) / mergedGaps.get(0), exactMeans);
        assertThat(mergedGaps.get(2) / exactMeans.get(2)).as("rank 2: compressed %s, exact means %s", mergedGaps,
                exactMeans).isBetween(0.95, 1.05);
        for (int r : new int[] {0, 1, 3}) {
            assertThat(mergedGaps.get(r) / othersMean).as("rank %d: compressed %s, exact means %s", r, mergedGaps,
                    exactMeans).isBetween(0.95, 1.05);
            assertThat(mergedGaps.get(2) / mergedGaps.get(r)).as("compressed: rank 2's compute over rank %d's: %s", r,
                    mergedGaps).isGreaterThan(2.0);
        }
        CliHarness stats = new CliHarness();
        assertThat(stats.execute("trace", "stats", trace.toString())).as(stats.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        System.out.print(stats.out());
        assertThat(stats.out()).containsPattern("mpi_sendrecv\\s+at \\S+ \\(ranks 0\\.\\.3\\)[^\\n]*\\n    ranks 2 "
                + "computed longer: mean \\d+\\.\\d+ µs vs \\d+\\.\\d+ µs on ranks [0-9.,]+ \\((\\d+)\\.\\d\\d×");
        long sendrecvFlowEnds = m.flows().values().stream().flatMap(List::stream)
                .filter(e -> e.path("ph").asText().equals("f") && m.enclosing(e).get(0).path("name").asText()
                        .equals("mpi_sendrecv"))
                .count();
        assertThat(sendrecvFlowEnds).as("the compressed export's sendrecvs receive too").isEqualTo(4L * iterations);
    }

    /**
     * Rings too small for the run: the rank files lost their first calls, so the k-th counting of messages is off
     * there. What is left is still exported, nothing is drawn half, and the loss is said.
     */
    @Test
    void ringsThatOverwroteCallsLoseTheirMessagesButDrawNothingHalf() throws Exception {
        Path program = NativePrograms.compile("es_slow_rank", dir);
        Path traceDir = dir.resolve("ranks");
        CliHarness cli = new CliHarness();
        assertThat(cli.execute("mpirun", "-np", "4", "--capacity", "256", "--trace-dir", traceDir.toString(), "--timeout",
                "120", "--mpirun-arg", "--mca", "--mpirun-arg", "btl", "--mpirun-arg", "self,vader", "--",
                program.toString(), "100", "50")).as(cli.err()).isZero();
        Path out = dir.resolve("lossy.json");
        CliHarness export = new CliHarness();
        assertThat(export.execute("trace", "export", "--format", "perfetto", traceDir.toString(), "--out", out.toString()))
                .as(export.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        JsonNode root = new ObjectMapper().readTree(out.toFile());
        assertThat(root.at("/otherData/tuples_lost").asLong()).isPositive();
        assertThat(export.out()).contains("calls the rings overwrote");
        Timeline t = checkFormat(root);
        assertThat(t.tracks()).hasSize(4);
        assertThat(t.tracks().values()).allSatisfy(track -> assertThat(track.size()).isLessThanOrEqualTo(256));
    }

    @Test
    void aFolderWithoutRankFilesIsRefusedSayingWhatWasExpected() throws Exception {
        Path empty = dir.resolve("empty");
        java.nio.file.Files.createDirectories(empty.resolve("host-0"));
        Path out = dir.resolve("out.json");
        CliHarness cli = new CliHarness();
        assertThat(cli.execute("trace", "export", "--format", "perfetto", empty.toString(), "--out", out.toString()))
                .isEqualTo(EventSpaceCommand.EXIT_FAILURE);
        assertThat(cli.err()).contains(empty.toString()).contains("holds no MPI rank files")
                .contains("host-<h>/rank-<R>.meta");
        assertThat(out).doesNotExist();
    }

    /** Per rank, the median time from the end of the call before each Sendrecv to the Sendrecv's start (µs). */
    private static Map<Integer, Double> computeGapsBeforeSendrecv(Timeline t) {
        return computeGapsBeforeSendrecv(t, false);
    }

    /** Per rank, the median (or {@code mean}) of the gaps before its MPI_Sendrecv slices, µs. */
    private static Map<Integer, Double> computeGapsBeforeSendrecv(Timeline t, boolean mean) {
        Map<Integer, Double> out = new HashMap<>();
        t.tracks().forEach((rank, track) -> {
            List<Double> gaps = new ArrayList<>();
            for (int i = 1; i < track.size(); i++) {
                JsonNode x = track.get(i);
                if (x.path("name").asText().equalsIgnoreCase("MPI_Sendrecv")) {
                    JsonNode before = track.get(i - 1);
                    gaps.add(x.path("ts").asDouble() - before.path("ts").asDouble() - before.path("dur").asDouble());
                }
            }
            gaps.sort(null);
            assertThat(gaps).as("rank %d's gaps", rank).isNotEmpty();
            out.put(rank, mean ? gaps.stream().mapToDouble(Double::doubleValue).average().orElseThrow()
                    : gaps.get(gaps.size() / 2));
        });
        return out;
    }
}
