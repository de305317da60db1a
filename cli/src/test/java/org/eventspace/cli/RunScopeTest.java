package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code run … --scope S --gather G --filter F} (issue 4's contract): the report's {@code scope} block, exact record
 * accounting over a whole run, the class filter's two roles, and the scope on both transports. How fast the scope
 * gathers is measured in docs/BENCHMARKS.md, not asserted here.
 */
class RunScopeTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final CliHarness cli = new CliHarness();

    private JsonNode run(String name, String... args) throws IOException {
        Path json = dir.resolve(name + ".json");
        List<String> all = new ArrayList<>(List.of("run", "gsum", "--warmup", "50", "--warmup-s", "0", "--json", json.toString()));
        all.addAll(List.of(args));
        int code = cli.execute(all.toArray(String[]::new));
        assertThat(code).as(cli.err()).isZero();
        JsonNode run = JSON.readTree(json.toFile());
        assertThat(run.path("result_ok").asBoolean()).as(run.toString()).isTrue();
        return run;
    }

    @Test
    void aScopePulledWhileTheRanksRunGathersEveryTupleTheCollectorsWrote() throws Exception {
        for (String gather : List.of("seq", "par:2")) {
            JsonNode run = run("stats-" + gather.replace(':', '-'), "--ranks", "8", "--hosts", "4", "--iterations", "300",
                    "--scope", "kary:2", "--gather", gather, "--filter", "stats");
            JsonNode scope = run.path("scope");
            assertThat(scope.path("shape").asText()).isEqualTo("kary:2");
            assertThat(scope.path("gather").asText()).isEqualTo(gather);
            assertThat(scope.path("rounds").asLong()).isGreaterThanOrEqualTo(3);
            long produced = scope.path("records_produced").asLong();
            // The scope opened before the ranks started and drained after they ended: it saw every tuple.
            assertThat(produced).isEqualTo(run.path("collectors").path("tuples_written").asLong());
            assertThat(scope.path("records_gathered").asLong() + scope.path("records_dropped").asLong()).isEqualTo(produced);
            assertThat(scope.path("gather_rate").asDouble())
                    .isEqualTo((double) scope.path("records_gathered").asLong() / produced);
            // 4 leaves, 2 gathers, the root: three levels, each sent something.
            assertThat(scope.path("bytes_per_level")).hasSize(3).allMatch(b -> b.asLong() > 0);
            JsonNode events = scope.path("result").path("events");
            assertThat(events.size()).isPositive();
            events.fields().forEachRemaining(e -> {
                assertThat(e.getKey()).matches("allreduce-sum (rank|gred|proxy)(>(gred|proxy|core))+");
                assertThat(e.getValue().path("min").asDouble()).isLessThanOrEqualTo(e.getValue().path("mean").asDouble());
                assertThat(e.getValue().path("mean").asDouble()).isLessThanOrEqualTo(e.getValue().path("max").asDouble());
            });
        }
    }

    @Test
    void ranksOnTheRootHostAndRanksBehindAHopAreTwoClassesWhoseReductionGrowsWithTheRanks() throws Exception {
        double previous = 1.0;
        for (int ranks : new int[] {4, 16}) {
            // One pull at the start, then the final ones: the last round holds every record of the run.
            JsonNode scope = run("class-" + ranks, "--ranks", Integer.toString(ranks), "--hosts", "2", "--iterations", "200",
                    "--scope", "flat", "--filter", "class:all", "--scope-interval-ms", "600000").path("scope");
            JsonNode result = scope.path("result");
            assertThat(result.path("classes").asInt()).as(result.toString()).isEqualTo(2);
            List<String> members = new ArrayList<>();
            result.path("class_list").forEach(c -> members.add(c.path("members").toString()));
            int half = ranks / 2;
            assertThat(members).containsExactlyInAnyOrder("[\"0-" + (half - 1) + "\"]", "[\"" + half + "-" + (ranks - 1) + "\"]");
            double factor = result.path("reduction_factor").asDouble();
            assertThat(factor).as("ranks=%d", ranks).isGreaterThan(previous);
            previous = factor;
        }
    }

    @Test
    void overTcpTheFrontEndHostPullsAHistogramFromTheOthers() throws Exception {
        JsonNode scope = run("tcp-hist", "--ranks", "2", "--hosts", "2", "--transport", "tcp", "--iterations", "300",
                "--scope", "flat", "--filter", "hist:8", "--scope-interval-ms", "5").path("scope");
        long produced = scope.path("records_produced").asLong();
        assertThat(produced).isPositive();
        assertThat(scope.path("records_gathered").asLong() + scope.path("records_dropped").asLong()).isEqualTo(produced);
        JsonNode events = scope.path("result").path("events");
        assertThat(events.size()).as(scope.toString()).isPositive();
        events.forEach(e -> {
            assertThat(e.path("bins")).hasSize(8);
            long sum = 0;
            for (JsonNode b : e.path("bins")) {
                sum += b.asLong();
            }
            assertThat(sum).isEqualTo(e.path("count").asLong());
        });
    }

    @Test
    void hostsThatRunNoRanksTakeTheScopesInnerGathers() throws Exception {
        JsonNode run = run("scope-hosts", "--ranks", "8", "--hosts", "4", "--clusters", "2", "--iterations", "300",
                "--scope", "hier:2", "--scope-hosts", "1", "--filter", "stats");
        assertThat(run.path("hosts").asInt()).as("4 hosts with ranks and 1 idle host in each of 2 clusters").isEqualTo(6);
        JsonNode scope = run.path("scope");
        assertThat(scope.path("records_produced").asLong()).isEqualTo(run.path("collectors").path("tuples_written").asLong());
        assertThat(scope.path("records_gathered").asLong() + scope.path("records_dropped").asLong())
                .isEqualTo(scope.path("records_produced").asLong());

        CliHarness describe = new CliHarness();
        assertThat(describe.execute("describe", "--ranks", "8", "--hosts", "4", "--clusters", "2", "--as-run", "--scope",
                "hier:2", "--scope-hosts", "1", "--format", "json")).as(describe.err()).isZero();
        java.util.Map<String, String> gathers = new java.util.TreeMap<>();
        JSON.readTree(describe.out()).path("nodes").forEach(n -> {
            if (n.path("kind").asText().equals("scope.gather")) {
                gathers.put(n.path("name").asText(), n.path("host").asText());
            }
        });
        // h2 and h5 run no ranks: each takes its cluster's gather; the root stays with the front-end on h0.
        assertThat(gathers.values()).containsExactlyInAnyOrder("h2", "h5", "h0");
    }

    @Test
    void overTcpAnIdleHostProcessServesTheScopesGathers() throws Exception {
        // 4 processes with ranks and a fifth with none: kary:2 puts both inner gathers on it (h4).
        JsonNode run = run("tcp-scope-hosts", "--ranks", "4", "--hosts", "4", "--transport", "tcp", "--iterations", "300",
                "--scope", "kary:2", "--scope-hosts", "1", "--filter", "stats", "--scope-interval-ms", "5");
        assertThat(run.path("hosts").asInt()).isEqualTo(5);
        JsonNode scope = run.path("scope");
        assertThat(scope.has("error")).as(scope.toString()).isFalse();
        assertThat(scope.path("records_produced").asLong()).isPositive();
        assertThat(scope.path("records_gathered").asLong() + scope.path("records_dropped").asLong())
                .isEqualTo(scope.path("records_produced").asLong());
        assertThat(scope.path("bytes_per_level")).hasSize(3);
    }

    @Test
    void badScopeFlagsAreUsageErrors() {
        assertThat(cli.execute("run", "gsum", "--scope-hosts", "1")).isEqualTo(2);
        assertThat(cli.err()).contains("--scope-hosts 1 gives hosts to an event scope and needs --scope");
        assertThat(cli.execute("run", "gsum", "--scope", "flat", "--collectors", "off")).isEqualTo(2);
        assertThat(cli.err()).contains("--scope flat reads the trace buffers and needs --collectors on");
        assertThat(cli.execute("run", "gsum", "--scope", "flat", "--filter", "hist:0")).isEqualTo(2);
        assertThat(cli.err()).contains("--scope/--gather/--filter").contains("hist:0");
        assertThat(cli.execute("run", "gsum", "--scope", "pyramid")).isEqualTo(2);
        assertThat(cli.err()).contains("pyramid");
        assertThat(cli.execute("run", "gsum", "--scope", "flat", "--gather", "par:0")).isEqualTo(2);
        assertThat(cli.err()).contains("par:0");
    }
}
