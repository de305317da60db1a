package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;

import org.eventspace.job.JobConfig;
import org.eventspace.job.JobFootprint;
import org.eventspace.job.MachineLimits;
import org.eventspace.job.PollMode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import picocli.CommandLine;

class RunCommandTest {
    @TempDir
    Path dir;

    private final CliHarness cli = new CliHarness();

    private int execute(String... args) {
        return cli.execute(args);
    }

    @Test
    void badValuesAreRefusedBeforeTheRunNamingTheFlag() {
        Path missing = dir.resolve("no-such-folder").resolve("r.json");
        String[][] cases = {
                {"--json", missing.toString()},
                {"--bytes", "131080"},
                {"--timeout", "99999999999"},
                {"--timeout", "NaN"},
                {"--timeout", "Infinity"},
                {"--timeout", "0.000001"},
                {"--warmup-s", "Infinity"},
                {"--filter", "stats"},
                {"--ranks", "1", "--hosts", "2"},
                {"--ranks", "2000000"},
                {"--collector-capacity", "16777216"},
        };
        for (String[] flags : cases) {
            String[] args = new String[3 + flags.length];
            args[0] = "run";
            args[1] = "gsum";
            args[2] = "--iterations=1";
            System.arraycopy(flags, 0, args, 3, flags.length);
            CliHarness fresh = new CliHarness();
            assertThat(fresh.execute(args)).as(String.join(" ", flags)).isEqualTo(EventSpaceCommand.EXIT_USAGE);
            assertThat(fresh.err()).as(String.join(" ", flags)).contains(flags[0]).doesNotContain("Exception");
        }
    }

    @Test
    void aRunThisMachineCannotHoldIsRefusedBeforeItStartsNamingRanksAndBytes() {
        // 50 000 ranks of 128 KiB payloads: a copy in every rank's message per tree and every gred port, some 28 GiB
        // of heap, and a thread each: more than this JVM and machine give, whichever binds first.
        CliHarness fresh = new CliHarness();
        assertThat(fresh.execute("run", "gsum", "--ranks", "50000", "--bytes", "131072", "--collectors", "off"))
                .isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(fresh.err()).startsWith("eventspace: --ranks 50000 --bytes 131072: ").contains("ranks would fit")
                .doesNotContain("Exception");

        // The heap's refusal, with limits given: what it needs and what there is, in bytes, and how to get more.
        DescribeCommand describe = new DescribeCommand();
        new CommandLine(describe).parseArgs("--ranks", "5000", "--collectors", "off");
        JobConfig job = describe.layout.toJob(Duration.ofSeconds(30), PollMode.AUTO, 0, null);
        MachineLimits limits = new MachineLimits(64L << 20, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE);
        assertThatThrownBy(() -> describe.layout.checkFootprint(job, new JobFootprint.Program(1, 29_192), "", limits))
                .isInstanceOf(UsageError.class)
                .hasMessageStartingWith("--ranks 5000: this JVM (which runs every host) would need ")
                .hasMessageContaining("MiB of heap, more than the 64.0 MiB it may fill")
                .hasMessageContaining("ranks would fit").hasMessageContaining("ES_JAVA_OPTS=-Xmx");
    }

    @Test
    void gsumWritesTheRunContract() throws Exception {
        Path json = dir.resolve("run.json");
        int code = execute("run", "gsum", "--ranks", "4", "--hosts", "2", "--transport", "jvm", "--tree", "binary",
                "--iterations", "500", "--warmup", "100", "--warmup-s", "0", "--json", json.toString());

        assertThat(code).isZero();
        JsonNode run = new ObjectMapper().readTree(json.toFile());
        assertThat(run.path("schema").asText()).isEqualTo("eventspace.run/2");
        assertThat(run.path("benchmark").asText()).isEqualTo("gsum");
        assertThat(run.path("ranks").asInt()).isEqualTo(4);
        assertThat(run.path("hosts").asInt()).isEqualTo(2);
        assertThat(run.path("transport").asText()).isEqualTo("jvm");
        assertThat(run.path("tree").asText()).isEqualTo("binary");
        assertThat(run.path("iterations").asInt()).isEqualTo(500);
        assertThat(run.path("wall_s").asDouble()).isPositive();
        JsonNode latency = run.path("allreduce_us");
        assertThat(latency.path("mean").asDouble()).isPositive();
        assertThat(latency.path("p50").asDouble()).isPositive();
        assertThat(latency.path("p99").asDouble()).isGreaterThanOrEqualTo(latency.path("p50").asDouble());
        assertThat(run.path("result_ok").asBoolean()).isTrue();
    }

    @Test
    void computeGsumReportsItsComputeShare() throws Exception {
        Path json = dir.resolve("compute.json");
        int code = execute("run", "compute-gsum", "--ranks", "2", "--hosts", "2", "--tree", "kary:2", "--iterations", "300",
                "--warmup", "200", "--warmup-s", "0", "--json", json.toString());

        assertThat(code).isZero();
        JsonNode run = new ObjectMapper().readTree(json.toFile());
        assertThat(run.path("compute_fraction").asDouble()).isBetween(0.0, 1.0);
        assertThat(run.path("result_ok").asBoolean()).isTrue();
    }

    @Test
    void pingpongReportsOneWayLatency() throws Exception {
        Path json = dir.resolve("pp.json");
        int code = execute("run", "pingpong", "--ranks", "2", "--hosts", "2", "--iterations", "300", "--warmup", "50", "--warmup-s", "0",
                "--json", json.toString());

        assertThat(code).isZero();
        JsonNode run = new ObjectMapper().readTree(json.toFile());
        assertThat(run.path("pingpong_us").path("mean").asDouble()).isPositive();
        assertThat(run.path("result_ok").asBoolean()).isTrue();
    }

    @Test
    void badTreeIsAUsageErrorNamingTheFlag() {
        int code = execute("run", "gsum", "--tree", "kary:1");

        assertThat(code).isEqualTo(2);
        assertThat(cli.err()).contains("--tree").contains("kary:1");
    }

    @Test
    void unknownBenchmarkIsAUsageError() {
        assertThat(execute("run", "nosuch")).isEqualTo(2);
        assertThat(cli.err()).contains("unknown benchmark 'nosuch'");
    }

    @Test
    void unknownTransportIsAUsageError() {
        assertThat(execute("run", "gsum", "--transport", "udp")).isEqualTo(2);
        assertThat(cli.err()).contains("transport");
    }

    @Test
    void hostsThatDoNotSplitIntoClustersAreAUsageError() {
        assertThat(execute("run", "gsum", "--hosts", "3", "--clusters", "2")).isEqualTo(2);
        assertThat(cli.err()).contains("--clusters");
    }
}
