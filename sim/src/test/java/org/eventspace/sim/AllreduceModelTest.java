package org.eventspace.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;

import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.sim.AllreduceModel.Config;
import org.eventspace.sim.AllreduceModel.Transport;
import org.junit.jupiter.api.Test;

/**
 * The model against what can be worked out by hand: with a core for every thread no one waits for a core, so a call
 * is its critical path, cost by cost (EventSpace §3's latencies add up along the path); with more threads than cores
 * the costs of waiting (yield, park, unpark) appear, and only then.
 */
class AllreduceModelTest {
    /** Only the costs of the path; spinning almost free, so a waiter with a core of its own notices at once. */
    static final Costs PATH = Costs.of("path", 4, Map.of("spin_ns", 1.0, "join_ns", 50.0, "core_ns", 70.0,
            "send_ns", 3_000.0, "receive_ns", 2_000.0, "wire_ns", 1_000.0, "collector_ns", 20.0, "hop_ns", 300.0));

    private static double latency(Costs c, int ranks, int hosts, String tree, Transport t, boolean collectors,
                                  int machines, int cores) {
        AllreduceModel.Result r = AllreduceModel.run(c, new Config(ranks, hosts, TreeShape.parse(tree), 2, t, collectors,
                machines, cores, 60, 10));
        assertThat(r.completed()).as("every rank finished").isTrue();
        return r.latencyNs();
    }

    @Test
    void oneRankIsAStoreAndItsCollector() {
        // A host of one rank has no gred in a hier tree: the rank calls the core.
        assertThat(latency(PATH, 1, 1, "hier:8", Transport.JVM, false, 1, 4)).isCloseTo(70, within(1.0));
        assertThat(latency(PATH, 1, 1, "hier:8", Transport.JVM, true, 1, 4)).isCloseTo(70 + 20, within(1.0));
    }

    @Test
    void twoRanksOfOneHostWithACoreEachAreAJoinAndAStore() {
        // The second arriver joins and stores; the first, spinning on a core of its own, is released at no cost.
        assertThat(latency(PATH, 2, 1, "hier:8", Transport.JVM, false, 1, 4)).isCloseTo(50 + 70, within(1.0));
    }

    @Test
    void twoHostsOverTcpAreTwoJoinsAStoreAndTwoMessages() {
        // Rank 1's path: the proxy (send, wire, the service thread's receive), host 0's gred, the core; then the reply
        // (send, wire, rank 1's receive). Rank 0 waits at host 0's gred.
        double message = 3_000 + 1_000 + 2_000;
        assertThat(latency(PATH, 2, 2, "hier:8", Transport.TCP, false, 2, 4)).isCloseTo(50 + 70 + 2 * message,
                within(2.0));
        // Three wrappers on the critical path, a collector below each.
        assertThat(latency(PATH, 2, 2, "hier:8", Transport.TCP, true, 2, 4)).isCloseTo(50 + 70 + 2 * message + 3 * 20,
                within(2.0));
    }

    @Test
    void aButterflyOfFourHostsIsTwoExchangeRounds() {
        double message = 3_000 + 1_000 + 2_000;
        // Each host: its gred of one, its exchange (log2 4 = 2 rounds, one message each way a round), its own core.
        assertThat(latency(PATH, 4, 4, "butterfly", Transport.TCP, false, 4, 4)).isCloseTo(50 + 70 + 2 * message,
                within(2.0));
        // A tree of the same four hosts goes up and down two levels of hops at the least.
        assertThat(latency(PATH, 4, 4, "hier:2", Transport.TCP, false, 4, 4)).isGreaterThan(50 + 70 + 4 * message);
    }

    @Test
    void aButterflyOfAnyHostCountCompletesWithItsFoldInRounds() {
        double message = 3_000 + 1_000 + 2_000;
        for (int hosts : new int[] {3, 5, 6, 7}) {
            int p = Integer.highestOneBit(hosts);
            int rounds = Integer.numberOfTrailingZeros(p) + 2;
            // The extra hosts' fold-in and fold-out add two messages to the power of two's rounds (one overlaps the
            // others' first round), never a round of their own each way.
            double power = latency(PATH, p, p, "butterfly", Transport.TCP, false, p, 4);
            assertThat(latency(PATH, hosts, hosts, "butterfly", Transport.TCP, false, hosts, 4)).as(hosts + " hosts")
                    .isGreaterThan(power + message).isLessThanOrEqualTo(power + 2 * message + 1).isLessThan(rounds * message + 200);
        }
    }

    @Test
    void waitingCostsAppearOnlyWhenThreadsOutnumberCores() {
        Costs waits = PATH.with("yield_ns", 1_000).with("unpark_ns", 4_000).with("switch_ns", 6_000);
        Costs dearer = waits.with("yield_ns", 5_000);
        // 16 ranks on 4 hosts of 16 cores each: they spin; a yield's cost never enters.
        double roomy = latency(waits, 16, 4, "hier:8", Transport.TCP, false, 4, 16);
        assertThat(latency(dearer, 16, 4, "hier:8", Transport.TCP, false, 4, 16)).isCloseTo(roomy, within(1.0));
        // 64 ranks and their hop threads on 2 cores: waiters yield the cores to each other, and each yield is paid.
        double crowded = latency(waits, 64, 8, "hier:8", Transport.JVM, false, 1, 2);
        assertThat(crowded).isGreaterThan(10 * latency(waits, 64, 8, "hier:8", Transport.JVM, false, 1, 64));
        assertThat(latency(dearer, 64, 8, "hier:8", Transport.JVM, false, 1, 2)).isGreaterThan(1.5 * crowded);
    }

    @Test
    void moreCoresNeverMakeACrowdedCallSlower() {
        Costs c = Costs.reference();
        double previous = Double.MAX_VALUE;
        for (int cores : new int[] {1, 2, 4, 16}) {
            double l = latency(c, 64, 8, "hier:8", Transport.JVM, true, 1, cores);
            assertThat(l).as(cores + " cores").isLessThanOrEqualTo(previous * 1.05);
            previous = l;
        }
    }

    @Test
    void collectorsPerCallAreOnePerEdge() {
        // 8 ranks on 2 hosts, hier:8: each host joins its 4 ranks (4 edges); host 1's proxy (1) feeds host 0's gred
        // of the hosts (2 edges: host 0's join and the proxy), which feeds the core (1).
        int[] tuples = AllreduceModel.tuplesPerCall(8, 2, TreeShape.hier(8));
        assertThat(tuples[0]).isEqualTo(4 + 4 + 1 + 2 + 1);
        assertThat(tuples[1]).isEqualTo(4 + 2 + 1);
    }

    @Test
    void aConfigThatCannotRunIsRefusedNamingItsValues() {
        assertThatThrownBy(() -> new Config(4, 8, TreeShape.hier(8), 2, Transport.TCP, true, 1, 2, 10, 1))
                .hasMessageContaining("hosts <= ranks").hasMessageContaining("hosts=8");
        assertThatThrownBy(() -> new Config(4, 2, TreeShape.hier(8), 2, Transport.TCP, true, 1, 2, 10, 10))
                .hasMessageContaining("warmup=10");
    }
}
