package org.eventspace.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.eventspace.comm.Comm;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.events.dump.TraceDump;
import org.eventspace.events.dump.WrapperLatencies;
import org.eventspace.events.dump.WrapperLatencies.GredLatencies;
import org.eventspace.base.stats.StatisticsSummary;
import org.eventspace.events.analysis.GredCalls;
import org.eventspace.job.JobConfig;
import org.eventspace.job.JobTransport;
import org.eventspace.job.MonitoredJob;
import org.eventspace.job.RankThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MonitorsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** gsum on every rank; {@code slow} waits {@code slowMicros} before each allreduce. Returns the last sum. */
    private static long gsum(Comm comm, int iterations, int slow, long slowMicros) {
        return gsum(comm, iterations, slow, slowMicros, 0);
    }

    /**
     * As above; with {@code noise} > 0, in that fraction of iterations one rank drawn at random (the same draw on every
     * rank: a generator seeded with the iteration) waits {@code slowMicros} instead.
     */
    private static long gsum(Comm comm, int iterations, int slow, long slowMicros, double noise) {
        long sum = 0;
        for (int i = 0; i < iterations; i++) {
            SplittableRandom draw = new SplittableRandom(i);
            int delayed = noise > 0 ? (draw.nextDouble() < noise ? draw.nextInt(comm.size()) : -1) : slow;
            if (comm.rank() == delayed) {
                long until = System.nanoTime() + slowMicros * 1_000;
                while (System.nanoTime() < until) {
                    java.util.concurrent.locks.LockSupport.parkNanos(until - System.nanoTime());
                }
            }
            sum = comm.allreduce(comm.rank() + i, ReduceOp.SUM);
        }
        return sum;
    }

    private static MonitorSnapshot run(JobConfig config, int iterations, int slow, long slowMicros, List<JsonNode> report) {
        try (MonitoredJob job = MonitoredJob.inJvm(config);
             Monitors monitors = Monitors.start(job, EnumSet.allOf(MonitorKind.class))) {
            List<RankThreads.Outcome<Long>> outcomes = job.runRanks(r -> gsum(job.comm(r), iterations, slow, slowMicros),
                    Duration.ofSeconds(60));
            assertThat(outcomes).allMatch(RankThreads.Outcome::ok);
            MonitorSnapshot last = monitors.stop();
            report.add(MonitorSnapshot.report(List.of(last.toJson(JSON)), job.pathmap(), JSON));
            job.finish(null);
            return last;
        }
    }

    /**
     * The hidden draws: gsum over 8–32 ranks on 2–4 simulated hosts, a random tree shape, one random rank
     * 200 µs slow: the load-balance monitor names it, every draw.
     */
    @Test
    void theLoadBalanceMonitorNamesTheSlowRankInRandomDraws() {
        SplittableRandom random = new SplittableRandom(20261126);
        for (int draw = 0; draw < Integer.getInteger("eventspace.monitor.draws", 8); draw++) {
            int hosts = 2 + random.nextInt(3);
            int ranks = Math.max(hosts, 8 + random.nextInt(25));
            TreeShape shape = List.of(TreeShape.FLAT, TreeShape.kary(2), TreeShape.kary(3), TreeShape.hier(2), TreeShape.hier(4))
                    .get(random.nextInt(5));
            int slow = random.nextInt(ranks);
            JobConfig config = JobConfig.of(JobConfig.shortcut(ranks, hosts, 1, shape), JobTransport.JVM);
            List<JsonNode> report = new java.util.ArrayList<>();
            run(config, 200, slow, 200, report);
            JsonNode lb = report.get(0).path("loadbalance");
            assertThat(lb.path("slowest_rank").asInt())
                    .as("draw %d: %d ranks on %d hosts, %s, rank %d slow; heaviest path %s; %s", draw, ranks, hosts, shape, slow,
                            lb.path("heaviest_path"), lb.path("greds"))
                    .isEqualTo(slow);
            assertThat(lb.path("heaviest_path").get(0).asText()).as("root first").contains(".core.");
            assertThat(lb.path("slowest_rank_beyond_chance").asBoolean()).as("draw %d: z=%s", draw, lb.path("slowest_rank_z"))
                    .isTrue();
            JsonNode allreduce = report.get(0).path("profile").path("operations").path("allreduce-sum");
            assertThat(allreduce.path("ranks").asInt()).isEqualTo(ranks);
            assertThat(report.get(0).path("profile").path("ranks").path(Integer.toString(slow)).path("allreduce-sum")
                    .path("calls").asLong()).as("every call of the slow rank, in both trees").isEqualTo(200);
            assertThat(allreduce.path("imbalance_pct").asDouble()).isGreaterThanOrEqualTo(0);
        }
    }

    /** With noise only (a random rank delayed in 10 % of iterations), no rank is flagged slowest beyond chance. */
    @Test
    void withNoiseOnlyNoRankIsSlowestBeyondChance() {
        SplittableRandom random = new SplittableRandom(7);
        for (int draw = 0; draw < 4; draw++) {
            int hosts = 2 + random.nextInt(2);
            int ranks = 8 + random.nextInt(9);
            JobConfig config = JobConfig.of(JobConfig.shortcut(ranks, hosts, 1, TreeShape.hier(2)), JobTransport.JVM);
            List<JsonNode> report = new java.util.ArrayList<>();
            try (MonitoredJob job = MonitoredJob.inJvm(config);
                 Monitors monitors = Monitors.start(job, EnumSet.of(MonitorKind.LOADBALANCE))) {
                assertThat(job.runRanks(r -> gsum(job.comm(r), 400, -1, 200, 0.1), Duration.ofSeconds(60)))
                        .allMatch(RankThreads.Outcome::ok);
                report.add(MonitorSnapshot.report(List.of(monitors.stop().toJson(JSON)), job.pathmap(), JSON));
                job.finish(null);
            }
            JsonNode lb = report.get(0).path("loadbalance");
            assertThat(lb.path("slowest_rank_beyond_chance").asBoolean())
                    .as("draw %d, %d ranks on %d hosts: rank %s, z=%s", draw, ranks, hosts, lb.path("slowest_rank"),
                            lb.path("slowest_rank_z"))
                    .isFalse();
        }
    }

    /** The statistics the live monitor computed equal those the post-mortem analysis computes from the same run's dump. */
    @Test
    void liveStatisticsEqualThePostMortemAnalysisOfTheSameRun() throws Exception {
        Path dump = dir.resolve("dump");
        JobConfig config = JobConfig.of(JobConfig.shortcut(8, 2, 1, TreeShape.hier(2)), JobTransport.JVM).withTraceDump(dump);
        List<JsonNode> report = new java.util.ArrayList<>();
        MonitorSnapshot live = run(config, 500, 3, 50, report);
        WrapperLatencies post;
        post = WrapperLatencies.of(TraceDump.open(dump));
        assertThat(post.greds()).isNotEmpty();
        assertThat(live.greds()).hasSameSizeAs(post.greds());
        for (GredLatencies g : post.greds()) {
            GredSnapshot l = live.gred(g.gred());
            GredCalls c = l.calls();
            assertThat(c.calls()).as(g.gred() + " calls").isEqualTo(g.callsJoined()).isPositive();
            same(c.down(), g.down(), g.gred() + " down");
            same(c.up(), g.up(), g.gred() + " up");
            for (int p = 0; p < c.ports(); p++) {
                var port = g.ports().get(p);
                same(c.port(p, GredCalls.DOWN), port.down(), g.gred() + " port " + p + " down");
                same(c.port(p, GredCalls.UP), port.up(), g.gred() + " port " + p + " up");
                same(c.port(p, GredCalls.TOTAL), port.total(), g.gred() + " port " + p + " total");
                same(c.port(p, GredCalls.ARRIVAL_WAIT), port.arrivalWait(), g.gred() + " port " + p + " arrival wait");
                same(c.port(p, GredCalls.DEPARTURE_WAIT), port.departureWait(), g.gred() + " port " + p + " departure wait");
                assertThat(c.arrivalOrder(p)).isEqualTo(port.arrivalOrder());
                assertThat(c.departureOrder(p)).isEqualTo(port.departureOrder());
            }
            assertThat(c.down().windowMedian()).as("the live monitor keeps NWS's window median").isNotNull();
        }
        assertThat(report.get(0).path("tuples_missed").asLong()).isZero();
        JsonNode wrappers = report.get(0).path("stats").path("wrappers");
        assertThat(wrappers.size()).as("greds, cores and hops").isEqualTo(post.greds().size() + post.stores().size()
                + post.hops().size());
        for (WrapperLatencies.StoreLatencies s : post.stores()) {
            JsonNode store = wrappers.path(s.core()).path("store_latency");
            assertThat(store.path("count").asLong()).as(s.core() + " store count").isEqualTo(s.store().count());
            assertThat(store.path("mean").asDouble() * 1_000).as(s.core() + " store mean")
                    .isCloseTo(s.store().mean(), within(1e-6 * s.store().mean()));
            assertThat(store.path("max").asDouble() * 1_000).as(s.core() + " store max")
                    .isCloseTo(s.store().max(), within(1e-3));
        }
        assertThat(post.hops()).as("8 ranks on 2 hosts cross a hop in each tree").hasSize(2);
        for (WrapperLatencies.HopLatencies h : post.hops()) {
            JsonNode twoWay = wrappers.path(h.proxy()).path("two_way_latency");
            assertThat(twoWay.path("count").asLong()).as(h.proxy() + " calls").isEqualTo(h.callsJoined());
            // The live figure is a difference of two hosts' means over the same calls, the post-mortem one a mean of
            // per-call differences: equal up to rounding.
            assertThat(twoWay.path("mean").asDouble() * 1_000).as(h.proxy() + " two-way mean")
                    .isCloseTo(h.twoWay().mean(), within(1e-6 * Math.max(1, h.twoWay().mean())));
        }
        for (GredLatencies g : post.greds()) {
            JsonNode stages = wrappers.path(g.gred()).path("stages");
            assertThat(stages.path("reduce").path("mean").asDouble() * 1_000).as(g.gred() + " reduce = down")
                    .isCloseTo(g.down().mean(), within(1e-6 * Math.max(1, g.down().mean())));
            assertThat(stages.path("arrival").path("mean").asDouble()).as(g.gred() + " arrival").isNotNegative();
            JsonNode byArrival = wrappers.path(g.gred()).path("arrival_wait_by_order");
            JsonNode byDeparture = wrappers.path(g.gred()).path("departure_wait_by_order");
            assertThat(byArrival.size()).isEqualTo(g.ports().size());
            assertThat(byArrival.get(byArrival.size() - 1).path("max").asDouble()).as("the last arriver waits for nobody").isZero();
            assertThat(byDeparture.get(0).path("max").asDouble()).as("the first departer waits for nobody").isZero();
            assertThat(byArrival.get(0).path("mean").asDouble() * 1_000).as(g.gred() + ": the first arriver waits the arrival stage")
                    .isCloseTo(stages.path("arrival").path("mean").asDouble() * 1_000, within(1e-3));
            assertThat(stages.path("broadcast").path("mean").asDouble() * 1_000).as(g.gred() + " broadcast >= up")
                    .isGreaterThanOrEqualTo(g.up().mean() - 1e-6);
        }
    }

    /**
     * The centralised analysis — raw tuples through the job's event scope, analysed on the front-end's thread —
     * computes the same statistics as the post-mortem analysis of the same run's dump (and so as the distributed one).
     */
    @Test
    void theCentralAnalysisEqualsThePostMortemAnalysisOfTheSameRun() throws Exception {
        Path dump = dir.resolve("central");
        JobConfig config = JobConfig.of(JobConfig.shortcut(8, 2, 1, TreeShape.hier(2)), JobTransport.JVM).withTraceDump(dump)
                .withScope(org.eventspace.job.ScopeSettings.parse("flat", "seq", "tuples", org.eventspace.job.ScopeSettings.ADAPTIVE));
        JsonNode part;
        MonitorSnapshot central;
        try (MonitoredJob job = MonitoredJob.inJvm(config);
             Monitors monitors = Monitors.start(job, EnumSet.allOf(MonitorKind.class), Analysis.CENTRAL)) {
            assertThat(monitors.central()).isTrue();
            assertThat(job.runRanks(r -> gsum(job.comm(r), 500, 3, 50), Duration.ofSeconds(60))).allMatch(RankThreads.Outcome::ok);
            part = monitors.finalPart(JSON);
            central = monitors.stop();
            job.finish(null);
        }
        assertThat(part.path("analysis").path("threads").asInt()).as("no analysis thread on any host").isZero();
        assertThat(part.path("analysis").path("where").asText()).isEqualTo("front-end");
        assertThat(part.path("tuples_missed").asLong()).isZero();
        assertThat(part.path("tuples_read").asLong()).as("every tuple crossed the scope").isPositive();
        WrapperLatencies post = WrapperLatencies.of(TraceDump.open(dump));
        assertThat(central.greds()).hasSameSizeAs(post.greds());
        for (GredLatencies g : post.greds()) {
            GredCalls c = central.gred(g.gred()).calls();
            assertThat(c.calls()).as(g.gred() + " calls").isEqualTo(g.callsJoined()).isPositive();
            same(c.down(), g.down(), g.gred() + " down");
            same(c.up(), g.up(), g.gred() + " up");
            for (int p = 0; p < c.ports(); p++) {
                var port = g.ports().get(p);
                same(c.port(p, GredCalls.TOTAL), port.total(), g.gred() + " port " + p + " total");
                same(c.port(p, GredCalls.ARRIVAL_WAIT), port.arrivalWait(), g.gred() + " port " + p + " arrival wait");
                assertThat(c.arrivalOrder(p)).isEqualTo(port.arrivalOrder());
                assertThat(c.departureOrder(p)).isEqualTo(port.departureOrder());
            }
        }
        JsonNode report = MonitorSnapshot.report(List.of(part), config.pathmap(), JSON);
        assertThat(report.path("loadbalance").path("slowest_rank").asInt()).isEqualTo(3);
        assertThat(report.path("profile").path("ranks").size()).isEqualTo(8);
    }

    /** With coscheduling (i) or (ii) the analysis threads run only when released, and still join every call. */
    @Test
    void coscheduledAnalysisRunsOnReleasesAndMissesNothing() {
        for (Coschedule strategy : List.of(Coschedule.I, Coschedule.II)) {
            JobConfig config = JobConfig.of(JobConfig.shortcut(8, 2, 1, TreeShape.hier(2)), JobTransport.JVM);
            try (MonitoredJob job = MonitoredJob.inJvm(config, pathmap -> Coscheduler.of(pathmap, strategy));
                 Monitors monitors = Monitors.start(job, EnumSet.allOf(MonitorKind.class))) {
                Coscheduler coscheduler = (Coscheduler) job.releaseListener();
                assertThat(coscheduler.releasingGreds()).as(strategy + ": greds that release an analysis thread").isPositive();
                assertThat(job.runRanks(r -> gsum(job.comm(r), 400, -1, 0), Duration.ofSeconds(60)))
                        .allMatch(RankThreads.Outcome::ok);
                MonitorSnapshot last = monitors.stop();
                job.finish(null);
                assertThat(coscheduler.releases(0)).as(strategy + ": releases on host 0").isGreaterThanOrEqualTo(200);
                assertThat(coscheduler.releases(1)).as(strategy + ": releases on host 1").isGreaterThanOrEqualTo(200);
                for (GredSnapshot g : last.greds()) {
                    assertThat(g.calls().calls()).as(strategy + ": " + g.gred() + " joined every call of its tree").isEqualTo(200);
                    assertThat(g.missed()).isZero();
                }
            }
        }
    }

    private static void same(StatisticsSummary live, StatisticsSummary post, String what) {
        assertThat(live.count()).as(what + " count").isEqualTo(post.count());
        assertThat(live.min()).as(what + " min").isEqualTo(post.min());
        assertThat(live.max()).as(what + " max").isEqualTo(post.max());
        assertThat(live.mean()).as(what + " mean").isCloseTo(post.mean(), within(1e-6 * Math.max(1, Math.abs(post.mean()))));
        assertThat(live.sd()).as(what + " sd").isCloseTo(post.sd(), within(1e-6 * Math.max(1, post.sd())));
    }
}
