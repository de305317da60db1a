package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.eventspace.trace.Op;
import org.eventspace.trace.Otf2Export;
import org.eventspace.trace.Trace;
import org.eventspace.trace.TraceFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code trace export --format otf2}: the archive read back by the OTF2 library's own reader ({@code otf2-print}), its
 * event counts against what was recorded — of a compressed trace of our own workload (gsum, pingpong: 4 ranks), and of
 * an MPI program's rank files ({@code es_slow_rank}: MPI_Sendrecv, MPI_Irecv + MPI_Send + MPI_Wait, MPI_Allreduce per
 * iteration) — ENTER and LEAVE per location = calls of that rank, MPI_SEND records = sends, MPI_RECV/MPI_IRECV records
 * = receives, collective begin/end = collective calls; and the usual refusals of bad input and a non-empty --out.
 */
@Timeout(300)
class TraceExportOtf2Test {
    @TempDir
    Path dir;

    /** Skips without the OTF2 library and tools, and fails under CI, where .ci/run installs them. */
    static void requireOtf2() {
        boolean present = NativePrograms.onPath("otf2-config") && NativePrograms.onPath("otf2-print")
                && NativePrograms.onPath("cc");
        if (!present && "true".equals(System.getenv("CI"))) {
            throw new AssertionError("otf2-config/otf2-print missing under CI: .ci/run should have installed "
                    + "libotf2-trace-dev and otf2-tools");
        }
        assumeTrue(present, "the OTF2 library (libotf2-trace-dev, otf2-tools) is not installed");
    }

    /** Events per (record name, location) as {@code otf2-print ARCHIVE} lists them. */
    static Map<String, Map<Integer, Long>> otf2Print(Path archive) throws Exception {
        Path output = archive.resolveSibling("otf2-print.txt");
        Process p = new ProcessBuilder("otf2-print", archive.toString()).redirectErrorStream(true)
                .redirectOutput(output.toFile()).start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("otf2-print ended").isTrue();
        String text = Files.readString(output, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(text.length() > 2000 ? text.substring(0, 2000) : text).isZero();
        assertThat(text).doesNotContain("ERROR");
        Map<String, Map<Integer, Long>> counts = new HashMap<>();
        for (String line : text.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 3 && f[0].matches("[A-Z_]+") && f[1].matches("\\d+") && f[2].matches("\\d+")) {
                counts.computeIfAbsent(f[0], k -> new HashMap<>()).merge(Integer.parseInt(f[1]), 1L, Long::sum);
            }
        }
        return counts;
    }

    static long at(Map<String, Map<Integer, Long>> counts, String record, int location) {
        return counts.getOrDefault(record, Map.of()).getOrDefault(location, 0L);
    }

    static String export(Path input, Path out, String... more) {
        CliHarness cli = new CliHarness();
        String[] args = new String[7 + more.length];
        System.arraycopy(new String[] {"trace", "export", "--format", "otf2", input.toString(), "--out",
                out.toString()}, 0, args, 0, 7);
        System.arraycopy(more, 0, args, 7, more.length);
        assertThat(cli.execute(args)).as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        return cli.out();
    }

    /** The archive's counts per location against the trace's own expansion of each rank's calls. */
    static void checkAgainstTrace(Trace trace, Map<String, Map<Integer, Long>> counts) {
        for (int rank = 0; rank < trace.ranks(); rank++) {
            List<Trace.Call> calls = trace.expand(rank);
            long sends = calls.stream().filter(c -> c.op() == Op.SEND || c.op() == Op.MPI_SEND
                    || c.op() == Op.MPI_SENDRECV).count();
            long receives = calls.stream().filter(c -> c.op() == Op.RECV || c.op() == Op.MPI_RECV).count();
            long collectives = calls.stream().filter(c -> Otf2Export.collective(c.op())).count();
            assertThat(at(counts, "ENTER", rank)).as("rank %d's ENTER", rank).isEqualTo(calls.size());
            assertThat(at(counts, "LEAVE", rank)).as("rank %d's LEAVE", rank).isEqualTo(calls.size());
            assertThat(at(counts, "MPI_SEND", rank)).as("rank %d's MPI_SEND", rank).isEqualTo(sends);
            assertThat(at(counts, "MPI_COLLECTIVE_BEGIN", rank)).as("rank %d's collective begins", rank)
                    .isEqualTo(collectives);
            assertThat(at(counts, "MPI_COLLECTIVE_END", rank)).as("rank %d's collective ends", rank)
                    .isEqualTo(collectives);
            if (calls.stream().noneMatch(c -> c.op() == Op.MPI_SENDRECV)) {
                assertThat(at(counts, "MPI_RECV", rank)).as("rank %d's MPI_RECV", rank).isEqualTo(receives);
            }
        }
    }

    @Test
    void theCompressedTraceOfGsumAndPingpongReadsBackWithOneRecordPerCall() throws Exception {
        requireOtf2();
        for (String workload : List.of("gsum", "pingpong")) {
            Path trace = dir.resolve(workload + ".trace.cbor");
            CliHarness cli = new CliHarness();
            assertThat(cli.execute("run", workload, "--ranks", "4", "--iterations", "60", "--warmup", "5", "--warmup-s",
                    "0", "--trace", trace.toString())).as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
            Path out = dir.resolve(workload + "-otf2");
            String said = export(trace, out);
            Path archive = out.resolve("traces.otf2");
            assertThat(said).contains(archive + ": OTF2 archive").contains("otf2-print " + archive);
            assertThat(out.resolve("traces.def")).isRegularFile();
            assertThat(out.resolve("traces")).isDirectory();
            Trace read = TraceFile.read(trace);
            Map<String, Map<Integer, Long>> counts = otf2Print(archive);
            checkAgainstTrace(read, counts);
            long total = counts.values().stream().flatMap(m -> m.values().stream()).mapToLong(Long::longValue).sum();
            System.out.printf("otf2 export of %s (4 ranks, 60 iterations): %s records%n", workload, total);
            if (workload.equals("gsum")) {
                assertThat(at(counts, "MPI_COLLECTIVE_BEGIN", 0)).isGreaterThanOrEqualTo(60);
            } else {
                long sends = counts.getOrDefault("MPI_SEND", Map.of()).values().stream().mapToLong(Long::longValue).sum();
                long receives = counts.getOrDefault("MPI_RECV", Map.of()).values().stream().mapToLong(Long::longValue)
                        .sum();
                assertThat(sends).as("ping-pong messages").isGreaterThanOrEqualTo(2 * 60).isEqualTo(receives);
            }
        }
    }

    @Test
    void theRankFilesOfAnMpiProgramReadBackWithEveryCallAndMessage() throws Exception {
        requireOtf2();
        Path program = NativePrograms.compile("es_slow_rank", dir);
        Path traceDir = dir.resolve("ranks");
        Path trace = dir.resolve("slow.trace.cbor");
        int iterations = 40;
        CliHarness cli = new CliHarness();
        int exit = cli.execute("mpirun", "-np", "4", "--trace", trace.toString(), "--trace-dir", traceDir.toString(),
                "--timeout", "120", "--mpirun-arg", "--mca", "--mpirun-arg", "btl", "--mpirun-arg", "self,vader", "--",
                program.toString(), String.valueOf(iterations), "100");
        assertThat(exit).as(cli.err()).isZero();

        // The exact archive, against the exact Perfetto timeline of the same files (calls per rank).
        Path exact = dir.resolve("exact.json");
        CliHarness perfetto = new CliHarness();
        assertThat(perfetto.execute("trace", "export", "--format", "perfetto", traceDir.toString(), "--out",
                exact.toString())).as(perfetto.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        Map<Integer, Long> slices = new HashMap<>();
        for (JsonNode e : new ObjectMapper().readTree(exact.toFile()).path("traceEvents")) {
            if (e.path("ph").asText().equals("X")) {
                slices.merge(e.path("tid").asInt(), 1L, Long::sum);
            }
        }
        Path out = dir.resolve("exact-otf2");
        String said = export(traceDir, out);
        assertThat(said).contains("OTF2 archive").doesNotContain("left out");
        Map<String, Map<Integer, Long>> counts = otf2Print(out.resolve("traces.otf2"));
        for (int rank = 0; rank < 4; rank++) {
            assertThat(at(counts, "ENTER", rank)).as("rank %d's ENTER", rank).isEqualTo(slices.get(rank));
            assertThat(at(counts, "LEAVE", rank)).as("rank %d's LEAVE", rank).isEqualTo(slices.get(rank));
            // per iteration: MPI_Sendrecv and MPI_Send send; the Sendrecv receives; the MPI_Irecv completes in the wait
            assertThat(at(counts, "MPI_SEND", rank)).as("rank %d's MPI_SEND", rank).isEqualTo(2L * iterations);
            assertThat(at(counts, "MPI_RECV", rank)).as("rank %d's MPI_RECV", rank).isEqualTo(iterations);
            assertThat(at(counts, "MPI_IRECV_REQUEST", rank)).as("rank %d's MPI_IRECV_REQUEST", rank)
                    .isEqualTo(iterations);
            assertThat(at(counts, "MPI_IRECV", rank)).as("rank %d's MPI_IRECV", rank).isEqualTo(iterations);
            assertThat(at(counts, "MPI_COLLECTIVE_BEGIN", rank)).as("rank %d's allreduces", rank).isEqualTo(iterations);
            assertThat(at(counts, "MPI_COLLECTIVE_END", rank)).as("rank %d's allreduces", rank).isEqualTo(iterations);
        }
        // Every send matched by a receive: per (sender, receiver, communicator, tag, bytes) as many of each.
        Map<String, Long> balance = new HashMap<>();
        Pattern record = Pattern.compile(
                "^(MPI_SEND|MPI_RECV|MPI_IRECV)\\s+(\\d+)\\s+\\d+\\s+(?:Receiver|Sender): (\\d+) .*Communicator: (\"[^\"]*\")"
                        + " <\\d+>, Tag: (\\d+), Length: (\\d+)");
        for (String line : Files.readAllLines(out.resolve("otf2-print.txt"))) {
            Matcher m = record.matcher(line);
            if (m.find()) {
                boolean send = m.group(1).equals("MPI_SEND");
                String from = send ? m.group(2) : m.group(3);
                String to = send ? m.group(3) : m.group(2);
                balance.merge(from + "->" + to + " " + m.group(4) + " tag " + m.group(5) + " " + m.group(6) + " B",
                        send ? 1L : -1L, Long::sum);
            }
        }
        assertThat(balance).as("channels").hasSize(2 * 4)
                .allSatisfy((channel, n) -> assertThat(n).as("sends less receives on %s", channel).isZero());
        String definitions = definitions(out.resolve("traces.otf2"));
        assertThat(definitions).contains("MPI_COMM_WORLD").contains("Ticks per Seconds: 1000000000")
                .contains("LOCATION_GROUP").contains("SYSTEM_TREE_NODE");

        // The compressed trace of the same run: the same calls per rank, the same records.
        Path merged = dir.resolve("merged-otf2");
        export(trace, merged);
        Map<String, Map<Integer, Long>> mergedCounts = otf2Print(merged.resolve("traces.otf2"));
        checkAgainstTrace(TraceFile.read(trace), mergedCounts);
        for (int rank = 0; rank < 4; rank++) {
            assertThat(at(mergedCounts, "MPI_SEND", rank)).isEqualTo(2L * iterations);
            assertThat(at(mergedCounts, "MPI_RECV", rank)).as("the sendrecvs' receive halves").isEqualTo(iterations);
            assertThat(at(mergedCounts, "MPI_IRECV", rank)).isEqualTo(iterations);
        }
    }

    @Test
    void eachThreadOfAThreadMultipleProgramIsALocationOfItsRank() throws Exception {
        requireOtf2();
        Path program = NativePrograms.compile("es_threads", dir);
        Path traceDir = dir.resolve("ranks");
        int threads = 3;
        int iterations = 20;
        CliHarness cli = new CliHarness();
        assertThat(cli.execute("mpirun", "-np", "2", "--trace-dir", traceDir.toString(), "--timeout", "120",
                "--mpirun-arg", "--mca", "--mpirun-arg", "btl", "--mpirun-arg", "self,vader", "--", program.toString(),
                String.valueOf(threads), String.valueOf(iterations))).as(cli.err()).isZero();
        Path exact = dir.resolve("threads.json");
        CliHarness perfetto = new CliHarness();
        assertThat(perfetto.execute("trace", "export", "--format", "perfetto", traceDir.toString(), "--out",
                exact.toString())).as(perfetto.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        long slices = 0;
        long collectives = 0;
        for (JsonNode e : new ObjectMapper().readTree(exact.toFile()).path("traceEvents")) {
            if (e.path("ph").asText().equals("X")) {
                slices++;
                String name = e.path("name").asText();
                if (e.path("cat").asText().equals("collective") && !name.equals("MPI_Init")
                        && !name.equals("MPI_Init_thread") && !name.equals("MPI_Finalize")) {
                    collectives++;
                }
            }
        }
        Path out = dir.resolve("threads-otf2");
        String said = export(traceDir, out);
        assertThat(said).contains("more locations for ranks' other threads").doesNotContain("left out");
        Map<String, Map<Integer, Long>> counts = otf2Print(out.resolve("traces.otf2"));
        Map<Integer, Long> enters = counts.get("ENTER");
        assertThat(enters.keySet()).as("locations beyond the 2 ranks'").hasSizeGreaterThan(2);
        assertThat(enters).isEqualTo(counts.get("LEAVE"));
        assertThat(enters.values().stream().mapToLong(Long::longValue).sum()).as("every call of every thread")
                .isEqualTo(slices);
        long sends = counts.get("MPI_SEND").values().stream().mapToLong(Long::longValue).sum();
        long irecvs = counts.get("MPI_IRECV").values().stream().mapToLong(Long::longValue).sum();
        assertThat(sends).isEqualTo(2L * threads * iterations).isEqualTo(irecvs);
        assertThat(counts.get("MPI_COLLECTIVE_BEGIN").values().stream().mapToLong(Long::longValue).sum())
                .isEqualTo(collectives);
        assertThat(definitions(out.resolve("traces.otf2"))).contains("rank 0 thread 1").contains("rank 1 thread 1");
    }

    static String definitions(Path archive) throws Exception {
        Path output = archive.resolveSibling("otf2-print-G.txt");
        Process p = new ProcessBuilder("otf2-print", "-G", archive.toString()).redirectErrorStream(true)
                .redirectOutput(output.toFile()).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return Files.readString(output, StandardCharsets.UTF_8);
    }

    @Test
    void aNonEmptyOutFolderIsRefusedUnlessForced() throws Exception {
        requireOtf2();
        Path trace = dir.resolve("g.trace.cbor");
        CliHarness run = new CliHarness();
        assertThat(run.execute("run", "gsum", "--ranks", "2", "--iterations", "10", "--warmup", "1", "--warmup-s", "0",
                "--trace", trace.toString())).as(run.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        Path out = dir.resolve("out");
        export(trace, out);
        CliHarness again = new CliHarness();
        assertThat(again.execute("trace", "export", "--format", "otf2", trace.toString(), "--out", out.toString()))
                .isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(again.err()).contains("--out " + out + " is a folder that is not empty").contains("--force");
        export(trace, out, "--force");
        assertThat(otf2Print(out.resolve("traces.otf2"))).containsKey("ENTER");
    }

    @Test
    void aFileThatIsNotATraceIsTheUsualError() throws Exception {
        Path bogus = dir.resolve("bogus.json");
        Files.writeString(bogus, "{\"schema\": \"something else\"}");
        CliHarness cli = new CliHarness();
        int exit = cli.execute("trace", "export", "--format", "otf2", bogus.toString(), "--out",
                dir.resolve("o").toString());
        assertThat(exit).isEqualTo(EventSpaceCommand.EXIT_FAILURE);
        assertThat(cli.err()).contains(bogus.toString());
        assertThat(dir.resolve("o")).as("no folder left for an archive not written").doesNotExist();
        Path empty = dir.resolve("notranks");
        Files.createDirectories(empty);
        CliHarness cli2 = new CliHarness();
        assertThat(cli2.execute("trace", "export", "--format", "otf2", empty.toString(), "--out",
                dir.resolve("o2").toString())).isEqualTo(EventSpaceCommand.EXIT_FAILURE);
        assertThat(cli2.err()).contains("holds no MPI rank files");
        CliHarness cli3 = new CliHarness();
        assertThat(cli3.execute("trace", "export", "--format", "xml", bogus.toString(), "--out",
                dir.resolve("o3").toString())).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(cli3.err()).contains("--format must be perfetto or otf2, got xml");
    }
}
