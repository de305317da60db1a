package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** {@code run --trace} and {@code trace show|stats|search}: end to end on a small in-JVM run. */
class TraceFileCommandsTest {
    @TempDir
    Path dir;

    private final CliHarness cli = new CliHarness();

    private int execute(String... args) {
        return cli.execute(args);
    }

    @Test
    void pingpongTracedThenShownSearchedAndStated() throws Exception {
        Path trace = dir.resolve("pp.trace.json");
        Path json = dir.resolve("pp.run.json");
        assertThat(execute("run", "pingpong", "--ranks", "4", "--iterations", "300", "--warmup", "50", "--warmup-s", "0",
                "--trace", trace.toString(), "--time-encoding", "path", "--json", json.toString()))
                .as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        JsonNode block = new ObjectMapper().readTree(json.toFile()).path("trace");
        assertThat(block.path("bytes").asLong()).isEqualTo(Files.size(trace));
        assertThat(block.path("time_encoding").asText()).isEqualTo("path");
        assertThat(block.path("events_recorded").asLong()).isGreaterThanOrEqualTo(2 * 2 * 350 + 4);
        assertThat(block.path("flat_bytes").asLong()).isEqualTo(40 * block.path("events_recorded").asLong());
        assertThat(block.path("events_lost").asLong()).isZero();

        assertThat(execute("trace", "show", trace.toString())).as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        assertThat(cli.out()).contains("trace of 4 ranks").contains("send  peer rank+1").contains("ranks 0..1")
                .contains("after");

        assertThat(execute("trace", "search", trace.toString(), "--time", "0", "--rank", "1"))
                .as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        assertThat(cli.out()).contains("rank 1 at 0.000 µs: recv");

        assertThat(execute("trace", "search", trace.toString(), "--time", "1e12")).isEqualTo(EventSpaceCommand.EXIT_FAILURE);
        assertThat(cli.err()).contains("outside rank 0's trace");

        assertThat(execute("trace", "stats", trace.toString(), "--threshold", "0")).as(cli.err())
                .isEqualTo(EventSpaceCommand.EXIT_OK);
        assertThat(cli.out()).contains("collectives with compute-delta spread");

        // Replay re-issues every recorded call on a new job of as many ranks, interpreting the compressed trace.
        Path replayJson = dir.resolve("replay.json");
        assertThat(execute("trace", "replay", trace.toString(), "--compute", "sleep", "--json", replayJson.toString()))
                .as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        JsonNode replay = new ObjectMapper().readTree(replayJson.toFile());
        assertThat(replay.path("calls").asLong()).isEqualTo(block.path("events_recorded").asLong());
        assertThat(replay.path("replay_wall_s").asDouble()).isPositive();
        assertThat(replay.path("original_wall_s").asDouble()).isPositive();
        assertThat(replay.has("error_pct")).isTrue();
        assertThat(replay.path("complete").asBoolean()).isTrue();
        assertThat(execute("trace", "replay", trace.toString(), "--ranks", "3")).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(cli.err()).contains("the trace is of 4 ranks");
        // A replay runs as the original ran; binding places host processes, so it needs TCP.
        assertThat(execute("trace", "replay", trace.toString(), "--bind-to", "core")).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(cli.err()).contains("--bind-to core binds host processes: it needs --transport tcp");
        assertThat(execute("trace", "replay", trace.toString(), "--poll", "often")).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(cli.err()).contains("--poll");
    }

    @Test
    void aFileThatIsNoTraceIsNamedWithThePlace() throws Exception {
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"schema\":\"eventspace.trace/1\",\"ranks\":0}");
        assertThat(execute("trace", "show", bad.toString())).isEqualTo(EventSpaceCommand.EXIT_FAILURE);
        assertThat(cli.err()).contains(bad + ": at /ranks: expected an integer >= 1, got 0");
    }

    /**
     * Over TCP (real host processes on loopback) each host records its ranks and merges them, this process merges the
     * hosts': one file, the same structure as the same run's in one JVM (ranks, loops, parameters, sites; the delta
     * times differ), and a replay over TCP re-issues every call.
     */
    @Test
    void sorTracedOverTcpGivesTheInJvmStructureAndReplaysOverTcp() throws Exception {
        Path tcp = dir.resolve("sor-tcp.trace.json");
        Path jvm = dir.resolve("sor-jvm.trace.json");
        Path json = dir.resolve("sor-tcp.run.json");
        String[] run = {"run", "sor", "--ranks", "4", "--iterations", "60", "--warmup", "5", "--warmup-s", "0", "--timeout", "30"};
        assertThat(execute(concat(run, "--hosts", "2", "--transport", "tcp", "--trace", tcp.toString(), "--json", json.toString())))
                .as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        JsonNode block = new ObjectMapper().readTree(json.toFile()).path("trace");
        assertThat(block.path("bytes").asLong()).isEqualTo(Files.size(tcp));
        // The four roles (first, odd, even, last rank) share every loop once aligned: one group over all ranks.
        assertThat(block.path("groups").asInt()).isEqualTo(1);
        assertThat(execute(concat(run, "--trace", jvm.toString()))).as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        assertThat(execute("trace", "show", "--no-times", jvm.toString())).isEqualTo(EventSpaceCommand.EXIT_OK);
        String inJvm = cli.out();
        assertThat(execute("trace", "show", "--no-times", tcp.toString())).isEqualTo(EventSpaceCommand.EXIT_OK);
        // The harness keeps every command's output: the second show is what follows the first.
        assertThat(cli.out().substring(inJvm.length())).isEqualTo(inJvm).contains("Sor.exchange send down");
        Path replay = dir.resolve("replay.json");
        assertThat(execute("trace", "replay", tcp.toString(), "--transport", "tcp", "--hosts", "2", "--timeout", "30",
                "--poll", "yield", "--json", replay.toString())).as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        JsonNode r = new ObjectMapper().readTree(replay.toFile());
        assertThat(r.path("transport").asText()).isEqualTo("tcp");
        assertThat(r.path("calls").asLong()).isEqualTo(block.path("events_recorded").asLong());
        assertThat(r.path("replay_wall_s").asDouble()).isPositive();
    }

    @Test
    void theCompressionWindowIsValidatedAndNeedsTrace() {
        Path trace = dir.resolve("w.trace.json");
        assertThat(execute("run", "gsum", "--ranks", "2", "--iterations", "10", "--warmup-s", "0", "--trace", trace.toString(),
                "--trace-window", "0")).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(cli.err()).contains("--trace-window must be 1..4096 elements, got 0");
        assertThat(execute("run", "gsum", "--ranks", "2", "--iterations", "10", "--warmup-s", "0", "--trace-window", "100"))
                .isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(cli.err()).contains("--trace-window need --trace FILE");
        assertThat(execute("run", "gsum", "--ranks", "2", "--iterations", "10", "--warmup-s", "0", "--trace", trace.toString(),
                "--trace-window", "8")).as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
    }

    /** {@code --trace FILE.cbor}: the same trace in CBOR, smaller, and every trace command reads it. */
    @Test
    void aCborTraceIsWrittenForACborFileAndReadByEveryCommand() throws Exception {
        Path json = dir.resolve("sor.trace.json");
        Path cbor = dir.resolve("sor.trace.cbor");
        Path runJson = dir.resolve("sor.run.json");
        for (Path trace : new Path[] {json, cbor}) {
            assertThat(execute("run", "sor", "--ranks", "3", "--iterations", "30", "--warmup", "2", "--warmup-s", "0",
                    "--trace", trace.toString(), "--json", runJson.toString())).as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        }
        JsonNode block = new ObjectMapper().readTree(runJson.toFile()).path("trace");
        assertThat(block.path("encoding").asText()).isEqualTo("cbor");
        assertThat(block.path("bytes").asLong()).isEqualTo(Files.size(cbor)).isLessThan(Files.size(json));
        assertThat(execute("trace", "show", cbor.toString())).as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        assertThat(cli.out()).contains("trace of 3 ranks").contains("Sor.exchange send down");
        assertThat(execute("trace", "stats", cbor.toString(), "--threshold", "0")).as(cli.err())
                .isEqualTo(EventSpaceCommand.EXIT_OK);
        assertThat(execute("trace", "stats", "--sizes", cbor.toString())).as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        assertThat(cli.out()).contains("(cbor): " + String.format(java.util.Locale.ROOT, "%,d", Files.size(cbor)) + " bytes")
                .contains("structure").contains("timing_stats").doesNotContain("unaccounted");
        int before = cli.out().length();
        assertThat(execute("trace", "stats", "--sizes", "--json", json.toString())).as(cli.err())
                .isEqualTo(EventSpaceCommand.EXIT_OK);
        JsonNode sizes = new ObjectMapper().readTree(cli.out().substring(before));
        assertThat(sizes.path("schema").asText()).isEqualTo("eventspace.trace-sizes/1");
        assertThat(sizes.path("encoding").asText()).isEqualTo("json");
        assertThat(sizes.path("file_bytes").asLong()).isEqualTo(Files.size(json));
        assertThat(sizes.path("unaccounted_bytes").asLong()).isZero();
        assertThat(execute("trace", "stats", "--json", json.toString())).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(cli.err()).contains("--json goes with --sizes");
        assertThat(execute("trace", "replay", cbor.toString(), "--compute", "sleep")).as(cli.err())
                .isEqualTo(EventSpaceCommand.EXIT_OK);
        assertThat(cli.out()).contains("calls re-issued (recorded " + block.path("events_recorded").asLong() + ")");
        Files.write(cbor, java.util.Arrays.copyOf(Files.readAllBytes(cbor), 100));
        assertThat(execute("trace", "show", cbor.toString())).isEqualTo(EventSpaceCommand.EXIT_FAILURE);
        assertThat(cli.err()).contains(cbor + ": not CBOR at byte");
    }

    /**
     * A replay that cannot complete (here rank 0 waits for a message rank 1 never recorded sending: a trace cut
     * short, or a host lost) exits 1 and says so; it does not set the calls it managed against the original's wall
     * time (it printed "error -100 %" and wrote that to the JSON).
     */
    @Test
    void aReplayThatDoesNotCompleteIsNotCompared() throws Exception {
        org.eventspace.trace.RankTrace waits = new org.eventspace.trace.RankTrace(0,
                org.eventspace.trace.TraceConfig.of(org.eventspace.trace.TimeEncoding.STATS));
        waits.record(org.eventspace.trace.Op.RECV, 0, -1, 1, 1, org.eventspace.trace.EventNode.NONE, 1_000, 1_000);
        waits.span(2_000);
        org.eventspace.trace.RankTrace idle = new org.eventspace.trace.RankTrace(1,
                org.eventspace.trace.TraceConfig.of(org.eventspace.trace.TimeEncoding.STATS));
        Path trace = dir.resolve("cut.trace.json");
        org.eventspace.trace.TraceFile.write(org.eventspace.trace.Trace.mergeAll(java.util.List.of(waits, idle)), trace);
        Path json = dir.resolve("cut.replay.json");
        assertThat(execute("trace", "replay", trace.toString(), "--timeout", "1", "--json", json.toString()))
                .isEqualTo(EventSpaceCommand.EXIT_FAILURE);
        assertThat(cli.out()).contains("not compared, the replay did not complete (0 of 1 calls re-issued)")
                .doesNotContain("error -100");
        JsonNode r = new ObjectMapper().readTree(json.toFile());
        assertThat(r.path("complete").asBoolean(true)).isFalse();
        assertThat(r.has("error_pct")).isFalse();
        assertThat(r.has("replay_wall_s")).isFalse();
        assertThat(r.path("original_wall_s").asDouble()).isPositive();
    }

    @Test
    void exportWritesAPerfettoTimelineGzippedOrNot() throws Exception {
        Path trace = dir.resolve("sor.trace.json");
        assertThat(execute("run", "sor", "--ranks", "3", "--iterations", "20", "--warmup", "2", "--warmup-s", "0",
                "--trace", trace.toString())).as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        Path json = dir.resolve("sor.perfetto.json");
        assertThat(execute("trace", "export", "--format", "perfetto", trace.toString(), "--out", json.toString()))
                .as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        assertThat(root.path("traceEvents").size()).isGreaterThan(3 * 20);
        Path gz = dir.resolve("sor.perfetto.json.gz");
        assertThat(execute("trace", "export", "--format", "perfetto", trace.toString(), "--out", gz.toString(), "--limit", "5"))
                .as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        assertThat(cli.out()).contains("cut at 5 calls per rank");
        try (java.io.InputStream in = new java.util.zip.GZIPInputStream(Files.newInputStream(gz))) {
            JsonNode cut = new ObjectMapper().readTree(in);
            long slices = 0;
            for (JsonNode e : cut.path("traceEvents")) {
                slices += e.path("ph").asText().equals("X") ? 1 : 0;
            }
            assertThat(slices).isEqualTo(15);
        }
        assertThat(execute("trace", "export", "--format", "otf", trace.toString(), "--out", json.toString()))
                .isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(cli.err()).contains("--format must be perfetto or otf2, got otf");
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void traceFlagsAreCheckedAtTheEdge() {
        assertThat(execute("run", "gsum", "--ranks", "2", "--time-encoding", "path")).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(cli.err()).contains("--time-encoding, --trace-bins and --trace-window need --trace FILE");
        assertThat(execute("run", "gsum", "--ranks", "2", "--trace", dir.resolve("t").toString(), "--time-encoding", "exact"))
                .isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(cli.err()).contains("time encoding must be stats, hist or path, got exact");
    }
}
