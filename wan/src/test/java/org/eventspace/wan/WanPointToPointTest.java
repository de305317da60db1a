package org.eventspace.wan;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.eventspace.comm.Comm;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.launch.JobEnvironment;
import org.eventspace.comm.transport.tcp.JobSecret;
import org.eventspace.comm.launch.Rendezvous;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.runtime.PointToPointWrappers;
import org.eventspace.job.JobConfig;
import org.eventspace.job.JobTransport;
import org.eventspace.job.MonitoredJob;
import org.eventspace.job.RankThreads;
import org.eventspace.job.ScopeSettings;
import org.eventspace.job.ScopeSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Point-to-point sends across the emulated WAN go through both sites' gateways (dissertation §8.1 §III), as the trees'
 * hops do: 4 ranks on 4 hosts in 2 sites of examples/wan/two-sites-2ms.wan, so that each site has its gateway (its first
 * host) and a host behind it, and a send from one host behind a gateway to the other crosses two relays. Every rank
 * sends to every other; the contents arrive whole and in order, every send that leaves its site is released once by
 * each gateway (going out, and its completion coming back), and none completes sooner than the emulated round trip,
 * a lower bound the emulator guarantees (never early), not a timing measurement.
 */
@Timeout(120)
class WanPointToPointTest {
    private static final int RANKS = 4;
    private static final int ROUNDS = 3;
    private static final int WORDS = 5;
    /** 2 ms each way plus 40 bytes at 100 Mbit/s each way. */
    private static final long ROUND_TRIP_NS = 2 * 2_000_000 + 2 * 3_200;
    /** Each rank sends to the 2 ranks of the other site in every round; each send is released at 2 gateways. */
    private static final long RELEASES_PER_GATEWAY = RANKS * 2L * ROUNDS;

    private static JobConfig config(JobTransport transport) {
        return JobConfig.of(JobConfig.shortcut(RANKS, RANKS, 2, TreeShape.hier(2)), transport)
                .withExtension(WanEmulation.read(WanFileTest.examples().resolve("two-sites-2ms.wan")));
    }

    @Test
    void theRouteLeavesASiteThroughItsGatewayAndEntersTheOtherThroughTheirs() {
        Pathmap pathmap = config(JobTransport.JVM).pathmap();
        WanEmulation wan = WanEmulation.read(WanFileTest.examples().resolve("two-sites-2ms.wan"));
        WanPointToPoint route = new WanPointToPoint(wan.layout(), PointToPointWrappers.NONE, null);
        // h0, h1 on west (gateway h0); h2, h3 on east (gateway h2).
        assertThat(route.next(pathmap, 1, 3)).isEqualTo(0);
        assertThat(route.next(pathmap, 0, 3)).isEqualTo(2);
        assertThat(route.next(pathmap, 2, 3)).isEqualTo(3);
        assertThat(route.next(pathmap, 0, 2)).isEqualTo(2);
        assertThat(route.next(pathmap, 1, 0)).isEqualTo(0);
        assertThat(route.next(pathmap, 3, 1)).isEqualTo(2);
        assertThat(route.next(pathmap, 2, 1)).isEqualTo(0);
    }

    @Test
    void inOneJvmSendsBetweenSitesCrossBothGatewaysWhole() {
        try (MonitoredJob job = MonitoredJob.inJvm(config(JobTransport.JVM))) {
            List<RankThreads.Outcome<long[]>> outcomes = job.runRanks(rank -> exchange(job.comm(rank), rank),
                    Duration.ofSeconds(60));
            check(outcomes);
            WanEmulation.Running running = (WanEmulation.Running) job.extension().orElseThrow();
            assertThat(running.stats()).hasSize(2)
                    .allSatisfy(g -> assertThat(g.released()).as("releases at " + g.host()).isEqualTo(RELEASES_PER_GATEWAY));
        }
    }

    /**
     * The event scope's gathers are not the trees' proxies either: the front-end's gather on the west gateway calls its
     * children on the east site through both gateways, so every round waits for the emulated round trip, and the gateways
     * release the scope's messages besides the trees'.
     */
    @Test
    void theScopesGathersCrossTheGatewaysToo() {
        int calls = 150;
        JobConfig config = config(JobTransport.JVM).withScope(ScopeSettings.parse("flat", "seq", "stats", 20));
        try (MonitoredJob job = MonitoredJob.inJvm(config)) {
            List<RankThreads.Outcome<Long>> outcomes = job.runRanks(rank -> {
                Comm comm = job.comm(rank);
                long wrong = 0;
                for (int i = 0; i < calls; i++) {
                    if (comm.allreduce(rank + i, ReduceOp.SUM) != 0 + 1 + 2 + 3 + 4L * i) {
                        wrong++;
                    }
                }
                return wrong;
            }, Duration.ofSeconds(60));
            assertThat(outcomes).allSatisfy(o -> assertThat(o.ok() && o.value() == 0).as("rank " + o.rank() + ": " + o).isTrue());
            ScopeSnapshot scope = job.snapshot().orElseThrow();
            assertThat(scope.error()).isNull();
            assertThat(scope.rounds()).as("scope rounds during " + calls + " calls of at least 4 ms").isGreaterThanOrEqualTo(2);
            assertThat(scope.roundUsMean()).as("a round's mean µs, gathering from the other site").isGreaterThanOrEqualTo(ROUND_TRIP_NS / 1_000.0);
            WanEmulation.Running running = (WanEmulation.Running) job.extension().orElseThrow();
            // The trees cross once each way per call; the rest are the scope's.
            assertThat(running.stats()).hasSize(2).allSatisfy(g -> assertThat(g.released()).as("releases at " + g.host())
                    .isGreaterThanOrEqualTo(calls + scope.rounds()));
        }
    }

    /** Over TCP each host is a job member of its own (as a process would be), joined through a rendezvous on loopback. */
    @Test
    void overTcpTheGatewaysRelaySendsBetweenHostProcesses() throws Exception {
        JobSecret secret = JobSecret.random();
        JobConfig config = config(JobTransport.TCP).withTimeout(Duration.ofSeconds(30));
        ExecutorService hosts = Executors.newFixedThreadPool(RANKS);
        try (Rendezvous rendezvous = Rendezvous.start("127.0.0.1", 0, secret, RANKS, Duration.ofSeconds(30))) {
            InetSocketAddress at = InetSocketAddress.createUnresolved("127.0.0.1", rendezvous.address().getPort());
            CyclicBarrier done = new CyclicBarrier(RANKS);
            List<Future<HostResult>> futures = new ArrayList<>();
            for (int h = 0; h < RANKS; h++) {
                JobEnvironment env = new JobEnvironment(h, RANKS, "test", at, false, secret, Duration.ofSeconds(30), 0);
                futures.add(hosts.submit(() -> {
                    try (MonitoredJob job = MonitoredJob.join(config, env)) {
                        List<RankThreads.Outcome<long[]>> outcomes = job.runRanks(
                                rank -> exchange(job.comm(rank), rank), Duration.ofSeconds(60));
                        // No host closes (and takes its relays with it) before every host's ranks are done.
                        done.await(60, TimeUnit.SECONDS);
                        WanEmulation.Running running = (WanEmulation.Running) job.extension().orElseThrow();
                        return new HostResult(outcomes, running.stats());
                    }
                }));
            }
            List<GatewayScheduler.Stats> gateways = new ArrayList<>();
            for (Future<HostResult> f : futures) {
                HostResult r = f.get(90, TimeUnit.SECONDS);
                check(r.outcomes());
                gateways.addAll(r.gateways());
            }
            assertThat(gateways).hasSize(2)
                    .allSatisfy(g -> assertThat(g.released()).as("releases at " + g.host()).isEqualTo(RELEASES_PER_GATEWAY));
        } finally {
            hosts.shutdownNow();
            assertThat(hosts.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    private record HostResult(List<RankThreads.Outcome<long[]>> outcomes, List<GatewayScheduler.Stats> gateways) {
    }

    /** Sends ROUNDS messages to every other rank, then reads them back; returns {wrong words, ns of the slowest cross-site send}. */
    private static long[] exchange(Comm comm, int rank) {
        long[] data = new long[WORDS];
        long fastestCrossSite = Long.MAX_VALUE;
        for (int round = 0; round < ROUNDS; round++) {
            for (int dest = 0; dest < RANKS; dest++) {
                if (dest == rank) {
                    continue;
                }
                for (int i = 0; i < WORDS; i++) {
                    data[i] = word(rank, dest, round, i);
                }
                long start = System.nanoTime();
                comm.send(dest, data, WORDS);
                long took = System.nanoTime() - start;
                if (site(dest) != site(rank)) {
                    fastestCrossSite = Math.min(fastestCrossSite, took);
                }
            }
        }
        long wrong = 0;
        long[] into = new long[WORDS];
        for (int round = 0; round < ROUNDS; round++) {
            for (int source = 0; source < RANKS; source++) {
                if (source == rank) {
                    continue;
                }
                int n = comm.recv(source, into);
                if (n != WORDS) {
                    wrong += WORDS;
                    continue;
                }
                for (int i = 0; i < WORDS; i++) {
                    if (into[i] != word(source, rank, round, i)) {
                        wrong++;
                    }
                }
            }
        }
        return new long[] {wrong, fastestCrossSite};
    }

    private static int site(int rank) {
        return rank < RANKS / 2 ? 0 : 1;
    }

    private static long word(int source, int dest, int round, int i) {
        return ((long) source << 48) | ((long) dest << 32) | ((long) round << 16) | i;
    }

    private static void check(List<RankThreads.Outcome<long[]>> outcomes) {
        assertThat(outcomes).allSatisfy(o -> assertThat(o.ok()).as("rank " + o.rank() + ": " + o).isTrue());
        for (RankThreads.Outcome<long[]> o : outcomes) {
            assertThat(o.value()[0]).as("wrong words received by rank " + o.rank()).isZero();
            assertThat(o.value()[1]).as("fastest send of rank " + o.rank() + " to the other site, ns")
                    .isGreaterThanOrEqualTo(ROUND_TRIP_NS);
        }
    }
}
