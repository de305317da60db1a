package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.eventspace.comm.launch.Launcher;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad files are refused before any work: an input over the limit before a byte of it is read (at any heap), an
 * output that cannot be written before the job starts, a replay that would never end before it begins.
 */
class FileLimitsTest {
    @TempDir
    Path dir;

    private Path big;
    private final CliHarness cli = new CliHarness();

    @BeforeEach
    void sparseThreeGibFile() throws Exception {
        big = dir.resolve("big.json");
        try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(3L << 30); // sparse: takes no disk
        }
    }

    private void assertRefusedInOneLine(String... args) {
        CliHarness harness = new CliHarness();
        assertThat(harness.execute(args)).as(harness.err()).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(harness.err().lines().toList()).as(String.join(" ", args)).singleElement().asString()
                .contains(big.toString()).contains("3 GiB (3221225472 bytes)").contains("over the limit of 512 MiB")
                .contains("ES_MAX_INPUT_BYTES");
    }

    @Test
    void aThreeGibInputIsRefusedByEveryReaderInOneLineBeforeReading() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            assertRefusedInOneLine("trace", "show", big.toString());
            assertRefusedInOneLine("trace", "stats", big.toString());
            assertRefusedInOneLine("trace", "replay", big.toString());
            assertRefusedInOneLine("trace", "export", big.toString(), "--format", "perfetto", "--out",
                    dir.resolve("out.json").toString());
            assertRefusedInOneLine("report", big.toString(), "-o", dir.resolve("r.html").toString());
            assertRefusedInOneLine("diff", big.toString(), big.toString());
        });
    }

    @Test
    void aDumpWhosePathmapIsThreeGibIsRefusedInOneLine() throws Exception {
        Path dump = Files.createDirectory(dir.resolve("dump"));
        Files.move(big, dump.resolve("pathmap.json"));
        big = dump.resolve("pathmap.json");
        assertRefusedInOneLine("trace", "dump", dump.toString());
    }

    @Test
    void aThreeGibTraceInAJvmOf256MibExitsTwoWithOneLineAndNoOutOfMemory() throws Exception {
        List<String> cmd = new ArrayList<>(Launcher.javaCommand(EventSpaceCommand.class.getName(),
                List.of("trace", "show", big.toString())));
        cmd.add(cmd.indexOf("-cp"), "-Xmx256m"); // after any memory option copied from this JVM: the last one counts
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the child ended").isTrue();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.exitValue()).as(output).isEqualTo(EventSpaceCommand.EXIT_USAGE);
            assertThat(output.lines().toList()).singleElement().asString()
                    .startsWith("eventspace: trace show: " + big + ": 3 GiB (3221225472 bytes), over the limit of 512 MiB")
                    .doesNotContain("OutOfMemoryError");
        } finally {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void anOutputThatCannotBeCreatedIsRefusedBeforeTheRunNamingFlagAndFile() {
        // 10^9 iterations: had the run started first, the bound below would end the test
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            for (String flag : new String[] {"--json", "--traffic", "--trace"}) {
                assertThat(cli.execute("run", "gsum", "--ranks", "2", "--iterations", "1000000000", flag, "/proc/x.json"))
                        .as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_USAGE);
                assertThat(cli.err()).contains("eventspace: " + flag + " /proc/x.json: cannot write there");
            }
        });
        assertThat(Path.of("/proc/x.json")).doesNotExist();
    }

    @Test
    void mpirunRefusesAnUnwritableOutputBeforeItMakesItsTraceFolderOrStartsTheProgram() {
        Path traceDir = dir.resolve("rank-files");
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            for (String flag : new String[] {"--json", "--traffic", "--trace"}) {
                assertThat(cli.execute("mpirun", "-np", "2", flag, "/proc/x.json", "--trace-dir", traceDir.toString(),
                        "/bin/sleep", "600")).as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_USAGE);
                assertThat(cli.err()).contains("eventspace: " + flag + " /proc/x.json: cannot write there");
            }
        });
        assertThat(traceDir).doesNotExist();
    }

    @Test
    void aWriteThatFailsAfterTheRunNamesFlagAndFile() {
        assertThat(cli.execute("run", "gsum", "--ranks", "2", "--iterations", "10", "--warmup-s", "0", "--json", "/dev/full"))
                .isEqualTo(EventSpaceCommand.EXIT_FAILURE);
        assertThat(cli.err()).contains("writing --json /dev/full: No space left on device");
    }

    /** One rank, one barrier in a loop of {@code iterations}: a few hundred bytes. */
    private Path loopTrace(long iterations) throws Exception {
        String timing = "{\"n\": 1, \"mean\": 1000, \"sd\": 0, \"min\": 1000, \"min_rank\": 0, \"max\": 1000, \"max_rank\": 0}";
        Path trace = dir.resolve("loop.json");
        Files.writeString(trace, "{\"schema\": \"eventspace.trace/1\", \"ranks\": 1, \"time_encoding\": \"stats\", "
                + "\"bins\": 2, \"events_recorded\": 1, \"wall_ns\": 1000, \"lost\": [], \"sites\": {}, "
                + "\"groups\": [{\"ranks\": [0, 1, 1], \"trace\": [{\"loop\": " + iterations + ", \"body\": ["
                + "{\"op\": \"barrier\", \"compute\": " + timing + ", \"comm\": " + timing + "}]}]}]}");
        return trace;
    }

    @Test
    void aReplayOfALoopOfTwoToThe62IterationsIsRefusedUpFrontNamingTheCountAndTheLimit() throws Exception {
        Path trace = loopTrace(1L << 62);
        assertThat(cli.execute("trace", "show", trace.toString())).as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            CliHarness replay = new CliHarness();
            assertThat(replay.execute("trace", "replay", trace.toString())).isEqualTo(EventSpaceCommand.EXIT_USAGE);
            assertThat(replay.err().lines().toList()).singleElement().asString()
                    .isEqualTo("eventspace: trace replay: " + trace + ": a replay would re-issue 4611686018427387904 calls "
                            + "on 1 ranks, about 2.92e+05 years by the trace's mean times, over --max-calls 100000000 "
                            + "(raise it to replay this trace)");
        });
    }

    @Test
    void aReplayWithinTheLimitSaysUpFrontWhatItWillDoAndOneOverItIsRefused() throws Exception {
        Path trace = loopTrace(1000);
        CliHarness over = new CliHarness();
        assertThat(over.execute("trace", "replay", trace.toString(), "--max-calls", "999")).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(over.err()).contains("a replay would re-issue 1000 calls on 1 ranks").contains("over --max-calls 999");
        CliHarness within = new CliHarness();
        assertThat(within.execute("trace", "replay", trace.toString(), "--max-calls", "1000", "--compute", "sleep"))
                .as(within.err()).isEqualTo(EventSpaceCommand.EXIT_FAILURE); // re-issues 1000 calls, the trace recorded 1
        assertThat(within.err()).startsWith("eventspace: trace replay: " + trace + ": 1000 calls on 1 ranks, about 0.00 s");
        assertThat(within.out()).contains("1000 calls re-issued (recorded 1)");
    }
}
