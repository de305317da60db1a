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
 * {@code run … --scope S --gather G --filter F}: the report's {@code scope} block, its record accounting checked
 * against tuple counts worked out here from the pathmap and the benchmark's calls (the gather rate of the EventSpace
 * paper's Table 2), the class filter's two roles (ToM §4.3), and the scope on both transports. How fast the scope
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

    /**
     * The collectors of each tree of the pathmap a run with these layout flags uses, counted from
     * {@code describe --as-run}'s JSON: the run's own figures are not used to check them.
     */
    private static long[] collectorsPerTree(String... layout) throws IOException {
        CliHarness describe = new CliHarness();
        List<String> args = new ArrayList<>(List.of("describe", "--as-run", "--format", "json"));
        args.addAll(List.of(layout));
        assertThat(describe.execute(args.toArray(String[]::new))).as(describe.err()).isZero();
        JsonNode pathmap = JSON.readTree(describe.out());
        long[] perTree = new long[pathmap.path("trees").asInt()];
        pathmap.path("nodes").forEach(n -> {
            if (n.path("kind").asText().equals("collector")) {
                perTree[n.path("tree").asInt()]++;
            }
        });
        return perTree;
    }

    /**
     * The trace tuples a gsum run writes with {@code --warmup-s 0}: every rank makes the same collective calls, and a
     * call passes every collector of the one tree it uses once (a barrier too: its empty payload goes through every
     * gred and collector). The calls: one warm-up round of {@code warmup} allreduces, {@code keepWarming}'s barrier and
     * allreduce(MAX) that ends the warm-up, the barrier that opens the timed loop, {@code iterations} allreduces
     * ({@code RankWorkloads.gsum}). Calls rotate over identical trees, so each call writes one tree's collector count.
     */
    private static long tuplesOfGsum(long[] perTree, int warmup, int iterations) {
        assertThat(perTree).as("identical trees").containsOnly(perTree[0]);
        assertThat(perTree[0]).isPositive();
        return (warmup + 3L + iterations) * perTree[0];
    }

    @Test
    void aScopePulledWhileTheRanksRunGathersEveryTupleTheCollectorsWrote() throws Exception {
        String[] layout = {"--ranks", "8", "--hosts", "4", "--scope", "kary:2"};
        long expected = tuplesOfGsum(collectorsPerTree(layout), 50, 300);
        for (String gather : List.of("seq", "par:2")) {
            JsonNode run = run("stats-" + gather.replace(':', '-'), "--ranks", "8", "--hosts", "4", "--iterations", "300",
                    "--scope", "kary:2", "--gather", gather, "--filter", "stats");
            JsonNode scope = run.path("scope");
            assertThat(scope.path("shape").asText()).isEqualTo("kary:2");
            assertThat(scope.path("gather").asText()).isEqualTo(gather);
            assertThat(scope.path("rounds").asLong()).isGreaterThanOrEqualTo(3);
            assertThat(run.path("collectors").path("tuples_written").asLong()).isEqualTo(expected);
            long produced = scope.path("records_produced").asLong();
            // produced counts what the buffers took between the scope's INIT and its last pull: tuples written before
            // INIT or after the last pull are the collectors' but not the scope's. The front-end opened the scope before
            // the ranks' first call and drained it after their last, so here the difference is 0.
            assertThat(produced).isEqualTo(expected);
            // 4096 tuples per buffer hold a whole run (each collector writes about half the calls): none overwritten.
            assertThat(scope.path("records_dropped").asLong()).isZero();
            assertThat(scope.path("records_gathered").asLong()).isEqualTo(expected);
            assertThat(scope.path("gather_rate").asDouble()).isEqualTo(1.0);
            assertThat(scope.path("raw_bytes").asLong()).as("40-byte tuples").isEqualTo(40 * expected);
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
    void withoutGatherAScopeOverManyHostsGathersInParallelAndStillGathersEveryTuple() throws Exception {
        String[] layout = {"--ranks", "16", "--hosts", "16", "--scope", "hier:4"};
        long expected = tuplesOfGsum(collectorsPerTree(layout), 50, 200);
        JsonNode run = run("default-gather", "--ranks", "16", "--hosts", "16", "--iterations", "200", "--scope", "hier:4",
                "--filter", "stats");
        JsonNode scope = run.path("scope");
        assertThat(scope.path("gather").asText()).as("16 hosts with ranks, gathers of 4").isEqualTo("par:4");
        assertThat(scope.path("records_produced").asLong()).isEqualTo(expected);
        assertThat(scope.path("records_gathered").asLong()).isEqualTo(expected);

        JsonNode few = run("default-gather-few", "--ranks", "8", "--hosts", "4", "--iterations", "50", "--scope", "flat");
        assertThat(few.path("scope").path("gather").asText()).as("4 hosts with ranks").isEqualTo("seq");
    }

    @Test
    void buffersTooSmallForTheTimeBetweenPullsDropTuplesAndTheGatherRateSaysHowMany() throws Exception {
        int capacity = 64;
        long[] perTree = collectorsPerTree("--ranks", "2", "--hosts", "1", "--scope", "flat");
        long collectors = perTree.length * perTree[0];
        long expected = tuplesOfGsum(perTree, 50, 3000);
        // One pull at the start, then the two that drain the scope after the ranks ended: 64-tuple buffers lose most.
        JsonNode run = run("drop", "--ranks", "2", "--hosts", "1", "--iterations", "3000", "--collector-capacity",
                Integer.toString(capacity), "--scope", "flat", "--filter", "stats", "--scope-interval-ms", "600000");
        assertThat(run.path("collectors").path("tuples_written").asLong()).isEqualTo(expected);
        JsonNode scope = run.path("scope");
        long produced = scope.path("records_produced").asLong();
        long gathered = scope.path("records_gathered").asLong();
        long dropped = scope.path("records_dropped").asLong();
        long rounds = scope.path("rounds").asLong();
        assertThat(produced).isEqualTo(expected);
        assertThat(gathered + dropped).isEqualTo(produced);
        // Every buffer wrote far more than it holds: the drain reads its last 64 tuples at least, and no pull reads
        // more than a buffer holds.
        assertThat(expected / collectors).isGreaterThan(3L * capacity);
        assertThat(gathered).isBetween(collectors * capacity, rounds * collectors * capacity);
        assertThat(dropped).isPositive();
        assertThat(scope.path("gather_rate").asDouble()).isEqualTo((double) gathered / produced).isLessThan(1.0);
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
