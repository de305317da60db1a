package org.eventspace.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;

import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.sim.ScopePrediction.Bound;
import org.junit.jupiter.api.Test;

class ScopeModelTest {
    /**
     * A 2005 LAN cluster like the EventSpace paper's Tins (§5): TCP messages of 10 µs CPU each end and 40 µs on the
     * wire, 5 µs to read a host's buffers, 0.5 µs per record carried, 28-byte tuples (§4.2), two cores.
     */
    static final Costs LAN = costs(2, Map.of("sendNs", 10_000.0, "receiveNs", 10_000.0, "wireNs", 40_000.0,
            "gatherNs", 5_000.0, "recordNs", 500.0, "recordBytes", 28.0, "unparkNs", 2_000.0, "switchNs", 5_000.0));

    /** Costs with the named fields set (by their record names, {@code sendNs}), the others 0, the quantum 4 ms. */
    static Costs costs(int cores, Map<String, Double> given) {
        Costs c = Costs.of("test", cores, Map.of("quantum_ns", 4e6));
        for (Map.Entry<String, Double> e : given.entrySet()) {
            c = c.with(e.getKey().replaceAll("([A-Z])", "_$1").toLowerCase(Locale.ROOT), e.getValue());
        }
        return c;
    }

    private static ScopeConfig flat(int hosts) {
        return ScopeConfig.of(hosts, TreeShape.FLAT, LAN);
    }

    private static double round(ScopeConfig c) {
        return ScopeModel.predict(c).roundNs();
    }

    @Test
    void sequentialFlatRoundGrowsLinearlyWithHosts() {
        double t16 = round(flat(16));
        double t32 = round(flat(32));
        double t64 = round(flat(64));
        double t128 = round(flat(128));
        // Every extra host is one more child called after the others: a constant step per host.
        assertThat(t128 - t64).isCloseTo(2 * (t64 - t32), within(1e-6 * t128));
        assertThat(t64 - t32).isCloseTo(2 * (t32 - t16), within(1e-6 * t64));
        // The step is one request and reply (2 × (10 + 40 + 10) µs) and one leaf's read (5 µs).
        assertThat((t64 - t32) / 32).isCloseTo(125_000, within(1e-3));
    }

    @Test
    void parallelFlatRoundWithAHelperPerHostHardlyGrows() {
        // Cores enough for the root's helpers, so what is left is the path: one child's round trip and the wake-ups.
        Costs wide = LAN.withCores(64);
        ScopeConfig par = flat(8).withHelpers(64).withCosts(wide);
        double t8 = round(par);
        double t64 = round(par.withHosts(64));
        double seq8 = round(flat(8).withCosts(wide));
        double seq64 = round(flat(64).withCosts(wide));
        assertThat(seq64 / seq8).isGreaterThan(7);
        assertThat(t64 / t8).isLessThan(2);
        // Only the 56 extra wake-ups (unpark each) separate them.
        assertThat(t64 - t8).isCloseTo(56 * wide.unparkNs(), within(1e-6 * t64));
    }

    @Test
    void parallelRootOnTwoCoresIsBoundByTheFrontEndsCpu() {
        // 63 remote children cost the root 63 sends and receives: on 2 cores that is longer than the path.
        ScopePrediction p = ScopeModel.predict(flat(64).withHelpers(64));
        assertThat(p.bound()).isEqualTo(Bound.FRONT_END_CPU);
        assertThat(p.frontEndCpuShare()).isCloseTo(1.0, within(1e-9));
        assertThat(ScopeModel.saturated(p)).isTrue();
        // A sequential root is never bound by its CPU beyond its path: it does it all in the one thread.
        ScopePrediction seq = ScopeModel.predict(flat(64));
        assertThat(seq.bound()).isEqualTo(Bound.PATH);
        assertThat(seq.frontEndCpuShare()).isLessThan(1);
    }

    @Test
    void karyParallelRoundGrowsWithLogOfHosts() {
        // A parallel k-ary gather waits for one child per level: a constant step per level, log_k H levels.
        ScopeConfig kary = ScopeConfig.of(4, TreeShape.kary(4), LAN).withHelpers(4);
        double[] t = new double[8];
        for (int levels = 1; levels < t.length; levels++) {
            ScopePrediction p = ScopeModel.predict(kary.withHosts((int) Math.pow(4, levels)));
            assertThat(p.levels()).isEqualTo(levels + 1);
            t[levels] = p.roundNs();
        }
        double step = t[2] - t[1];
        assertThat(step).isPositive();
        for (int levels = 2; levels < t.length; levels++) {
            assertThat(t[levels] - t[levels - 1]).as("step to %d levels", levels).isCloseTo(step, within(1e-6 * step));
        }
        // 4^7 = 16384 hosts: 7 steps; a flat sequential scope would take 16384 round trips.
        assertThat(t[7]).isLessThan(8 * t[1]);
        // Sequential k-ary gathering is still a walk over every node: linear in H, not logarithmic.
        double seq4 = round(kary.withHelpers(0).withHosts(256));
        double seq16 = round(kary.withHelpers(0).withHosts(4096));
        assertThat(seq16 / seq4).isGreaterThan(14);
    }

    @Test
    void hierOverOneClusterIsKaryOverTheHosts() {
        ScopeConfig kary = ScopeConfig.of(100, TreeShape.kary(3), LAN).withHelpers(2).withLoad(3, 500);
        assertThat(ScopeModel.predict(kary.withShape(TreeShape.hier(3)))).isEqualTo(ScopeModel.predict(kary));
        // A fan-out of at least H is a flat scope.
        assertThat(ScopeModel.predict(kary.withShape(TreeShape.kary(100))))
                .isEqualTo(ScopeModel.predict(kary.withShape(TreeShape.FLAT)));
    }

    @Test
    void gatherRateIsOneWithLargeBuffersAndDropsAsProductionRises() {
        ScopeConfig c = flat(16).withLoad(4, 1_000);
        assertThat(ScopeModel.predict(c).gatherRate()).isEqualTo(1.0);
        double previous = 1.0;
        ScopeConfig small = c.withBufferTuples(64);
        for (double perSecond : new double[] {1e3, 1e4, 3e4, 1e5, 1e6}) {
            ScopePrediction p = ScopeModel.predict(small.withLoad(4, perSecond));
            assertThat(p.gatherRate()).as("rate at %s/s", perSecond).isLessThanOrEqualTo(previous);
            assertThat(p.recordsPerRound()).isLessThanOrEqualTo(p.producedPerRound() * (1 + 1e-12));
            previous = p.gatherRate();
        }
        assertThat(previous).isLessThan(0.5);
        // First order: what a buffer holds over what it was written in a cycle.
        ScopePrediction p = ScopeModel.predict(small.withLoad(4, 1e5));
        assertThat(p.gatherRate()).isCloseTo(64 / (1e5 * p.cycleNs() / 1e9), within(1e-9));
    }

    @Test
    void sequentialLosesWhereParallelKeepsUpOn49Hosts() {
        // EventSpace §6.2, Table 2 (gsum, 49 Tins): sequential gathering 51–65 %, parallel 99 %. Here: the paper's
        // allreduce every 0.6 ms (§5), so 1667 tuples/s per collector, 5 collectors per host, one flat gather over the
        // 49 hosts (the cluster gateway's single gather wrapper). The paper's buffers held 3750 tuples and lost them on
        // a cluster the application kept busy; this model gives the scope all the CPU it asks for, so it reaches the
        // same loss only with a much smaller buffer: 8 tuples make the sequential round (49 round trips, ~9 ms) hold
        // ~15 tuples per collector, about 54 %, while 49 helpers pull in under a millisecond (bound by the front-end's
        // two cores, not by 49 round trips) and lose nothing.
        ScopeConfig seq = flat(49).withLoad(5, 1_667).withBufferTuples(8);
        ScopePrediction sequential = ScopeModel.predict(seq);
        ScopePrediction parallel = ScopeModel.predict(seq.withHelpers(49));
        assertThat(sequential.gatherRate()).isBetween(0.50, 0.66);
        assertThat(parallel.gatherRate()).isGreaterThanOrEqualTo(0.99);
        assertThat(parallel.roundNs()).isLessThan(sequential.roundNs() / 5);
        // The price of the helpers (Table 2's overhead column): more CPU on the front-end host.
        assertThat(parallel.frontEndHostCores()).isGreaterThan(sequential.frontEndHostCores());
    }

    @Test
    void reducingFilterSendsAFixedSummaryAndKeepsUpWhereConcatDoesNot() {
        ScopeConfig concat = ScopeConfig.of(4096, TreeShape.kary(8), LAN).withHelpers(8).withLoad(4, 2_000)
                .withBufferTuples(64);
        ScopeConfig stats = concat.withFilter(ScopeFilterModel.stats(4, 100));
        ScopePrediction c = ScopeModel.predict(concat);
        ScopePrediction s = ScopeModel.predict(stats);
        assertThat(c.gatherRate()).isLessThan(0.99);
        assertThat(s.gatherRate()).isEqualTo(1.0);
        assertThat(s.frontEndBytesPerRound()).isEqualTo(stats.filter().summaryBytes());
        assertThat(ScopeModel.predict(stats.withHosts(64)).frontEndBytesPerRound())
                .isEqualTo(s.frontEndBytesPerRound());
        // concat hands the front-end every record it gathered.
        assertThat(c.frontEndBytesPerSecond()).isCloseTo(c.recordsPerSecond() * LAN.recordBytes(),
                within(1e-9 * c.frontEndBytesPerSecond()));
    }

    @Test
    void leafHostPaysItsReadAndOneRequestAndReply() {
        ScopePrediction p = ScopeModel.predict(flat(10).withLoad(2, 1_000));
        double perLeaf = p.recordsPerRound() / 10;
        double expected = LAN.gatherNs() + perLeaf * LAN.recordNs() + LAN.sendNs() + LAN.receiveNs();
        assertThat(p.leafHostCores() * p.cycleNs()).isCloseTo(expected, within(1e-6));
        assertThat(p.totalCores()).isCloseTo(p.meanHostCores() * 10, within(1e-12));
        assertThat(p.frontEndHostCores()).isGreaterThan(p.leafHostCores());
    }

    @Test
    void sharedMachineQueuesEveryHostsScopeCpuOnItsCores() {
        // This VM: 64 host processes on 2 cores, loopback messages.
        Costs vm = LAN.withNetwork(5_000, 5_000, 10_000);
        ScopeConfig alone = ScopeConfig.of(64, TreeShape.kary(8), vm).withHelpers(8).withLoad(4, 1_000);
        ScopePrediction own = ScopeModel.predict(alone);
        ScopePrediction shared = ScopeModel.predict(alone.withSharedMachine(true));
        assertThat(shared.bound()).isEqualTo(Bound.MACHINE_CPU);
        assertThat(shared.roundNs()).isGreaterThan(own.roundNs());
        assertThat(shared.totalCores()).isCloseTo(vm.cores(), within(1e-6));
    }

    @Test
    void onAMachineSharedWithRanksEveryHopOfASequentialRoundWaitsOneTurnOfTheRanksOnItsCoreEachWay() {
        // No records, so that the wait is all that differs; the CPU bound of a shared machine does not bind here.
        Costs yielding = LAN.with("yield_ns", 2_000).with("thread_ns", 4);
        ScopeConfig scope = ScopeConfig.of(16, TreeShape.FLAT, yielding).withSharedMachine(true).withLoad(1, 0);
        ScopePrediction alone = ScopeModel.predict(scope);
        for (int ranks : new int[] {16, 256}) {
            ScopePrediction crowded = ScopeModel.predict(scope.withMachineRanks(ranks));
            double turn = (double) ranks / yielding.cores() * yielding.switchAmong(yielding.yieldNs(), ranks);
            assertThat(turn).isGreaterThan(ranks / 2 * 2_000.0);
            // 15 remote leaves (the first is the root's own host), a request and a reply each.
            assertThat(crowded.roundNs() - alone.roundNs()).as("%d ranks", ranks).isCloseTo(15 * 2 * turn, within(1e-3 * turn));
        }
        // Off a shared machine the ranks have cores of their own: no wait.
        assertThat(ScopeModel.predict(scope.withSharedMachine(false).withMachineRanks(256)).roundNs())
                .isEqualTo(ScopeModel.predict(scope.withSharedMachine(false)).roundNs());
    }

    @Test
    void saturationFindsTheExactBoundary() {
        ScopeConfig template = flat(1).withLoad(4, 2_000).withBufferTuples(64);
        ScopeSaturation s = ScopeModel.saturation(template, 1_000_000);
        assertThat(s.hosts()).isPresent();
        int h = s.hosts().getAsInt();
        assertThat(h).isGreaterThan(2);
        ScopePrediction at = ScopeModel.predict(template.withHosts(h));
        ScopePrediction before = ScopeModel.predict(template.withHosts(h - 1));
        assertThat(at.gatherRate()).isLessThan(ScopeModel.KEEPS_UP_RATE);
        assertThat(ScopeModel.saturated(before)).isFalse();
        assertThat(s.cause()).isEqualTo("gather rate");
        assertThat(s.at()).isEqualTo(at);
        // Parallel helpers on 2 cores: here the front-end's CPU is what gives out.
        ScopeConfig par = template.withHelpers(256).withBufferTuples(3_750);
        ScopeSaturation p = ScopeModel.saturation(par, 1_000_000);
        int hp = p.hosts().orElseThrow();
        assertThat(ScopeModel.saturated(ScopeModel.predict(par.withHosts(hp)))).isTrue();
        assertThat(ScopeModel.saturated(ScopeModel.predict(par.withHosts(hp - 1)))).isFalse();
    }

    @Test
    void saturationSaysWhenTheScopeKeepsUpToMaxHosts() {
        ScopeConfig stats = ScopeConfig.of(1, TreeShape.kary(8), LAN).withHelpers(8).withLoad(4, 100)
                .withFilter(ScopeFilterModel.stats(4, 100));
        ScopeSaturation s = ScopeModel.saturation(stats, 1_000);
        assertThat(s.within()).isFalse();
        assertThat(s.hosts()).isEmpty();
        assertThat(s.at().hosts()).isEqualTo(1_000);
        assertThat(s.at().gatherRate()).isEqualTo(1.0);
    }

    @Test
    void aMillionHostsIsCheap() {
        ScopeConfig big = ScopeConfig.of(1_000_000, TreeShape.kary(16), LAN).withHelpers(16).withLoad(4, 1_000)
                .withFilter(ScopeFilterModel.hist(4, 16, 100));
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            ScopePrediction p = ScopeModel.predict(big);
            assertThat(p.levels()).isEqualTo(6);
            assertThat(p.roundNs()).isPositive().isFinite();
            ScopeModel.predict(big.withShape(TreeShape.FLAT).withFilter(ScopeFilterModel.concat()));
            ScopeModel.saturation(big, 1_000_000);
        });
    }

    @Test
    void badInputsAreRefusedByName() {
        assertThatThrownBy(() -> flat(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hosts=0");
        assertThatThrownBy(() -> flat(4).withBufferTuples(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bufferTuples=0");
        assertThatThrownBy(() -> flat(4).withLoad(1, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("recordsPerSecond=-1.0");
        assertThatThrownBy(() -> flat(4).withLoad(1, Double.NaN)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("recordsPerSecond=NaN");
        assertThatThrownBy(() -> flat(4).withLoad(0, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("collectorsPerHost=0");
        assertThatThrownBy(() -> flat(4).withPauseNs(-5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pauseNs=-5.0");
        assertThatThrownBy(() -> flat(4).withHelpers(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("helpers=-1");
        assertThatThrownBy(() -> flat(4).withShape(TreeShape.butterfly(2))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("shape=butterfly:2");
        assertThatThrownBy(() -> ScopeModel.saturation(flat(4), 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxHosts=0");
        assertThatThrownBy(() -> ScopeFilterModel.stats(0, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("events=0");
        assertThatThrownBy(() -> ScopeFilterModel.hist(4, 16, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nsPerRecord=-1.0");
    }
}
