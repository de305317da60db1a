package org.eventspace.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.events.CollectorSettings;
import org.junit.jupiter.api.Test;

/**
 * A job's memory estimate: it matches what was measured, grows with every input that adds memory, and names the
 * resource a job needs more of than there is.
 */
class JobFootprintTest {
    /** gsum's rank: its latency histogram (RankResult.HISTOGRAM_BYTES in bench) and a one-word payload buffer. */
    private static final JobFootprint.Program GSUM = new JobFootprint.Program(1, 29_184 + 8);
    private static final MachineLimits PLENTY = new MachineLimits(Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE,
            Long.MAX_VALUE, Long.MAX_VALUE);

    private static JobConfig jvm(int ranks, int hosts) {
        return JobConfig.of(JobConfig.shortcut(ranks, hosts, 1, TreeShape.hier(8)), JobTransport.JVM);
    }

    private static JobFootprint.Process one(JobConfig config, JobFootprint.Program program) {
        return JobFootprint.of(config, config.pathmap(), program).largest();
    }

    @Test
    void matchesTheLiveHeapDirectBuffersAndThreadsMeasuredAtTenThousandRanks() {
        // jcmd GC.class_histogram and VM.native_memory summary of run gsum --ranks 10000 in its timed loop.
        JobFootprint.Process off = one(jvm(10_000, 1).withCollectors(false), GSUM);
        assertThat((double) off.heapBytes()).isCloseTo(321_980_496, within(0.05 * 321_980_496));
        assertThat(off.threads()).isBetween(10_023, 10_023 + JobFootprint.JVM_THREADS);
        assertThat((double) off.stackBytes()).isCloseTo(1_101_787 * 1024.0, within(0.05 * 1_101_787 * 1024));

        JobFootprint.Process on = one(jvm(10_000, 1), GSUM);
        assertThat((double) on.heapBytes()).isCloseTo(344_385_992, within(0.05 * 344_385_992));
        // NMT "Other": the trace buffers (64 tuples each, their budget long exceeded) and two 2 MiB result elements.
        assertThat((double) on.directBytes()).isCloseTo(75_544 * 1024.0, within(0.02 * 75_544 * 1024));
        assertThat(off.directBytes()).isEqualTo(2 * JobFootprint.resultElementBytes(16_384));
    }

    @Test
    void growsWithRanksPayloadCapacityHelpersAndTrees() {
        JobFootprint.Process small = one(jvm(64, 2), GSUM);
        assertGrows(small, one(jvm(128, 2), GSUM));
        assertGrows(small, one(jvm(64, 2), new JobFootprint.Program(64, GSUM.bytesPerRank())));
        assertGrows(small, one(jvm(64, 2), new JobFootprint.Program(1, 2 * GSUM.bytesPerRank())));
        JobFootprint.Process fixedCapacity = one(jvm(64, 2).withCollectorSettings(new CollectorSettings(Set.of(), Set.of(),
                4096)), GSUM);
        assertGrows(small, fixedCapacity);
        assertThat(fixedCapacity.directBytes()).isGreaterThan(small.directBytes());
        assertGrows(small, one(jvm(64, 2).withScope(ScopeSettings.parse("flat", "par:4", "stats", 10)), GSUM));
        JobConfig threeTrees = JobConfig.of(new org.eventspace.comm.pathmap.PathmapSpec(jvm(64, 2).spec().topology(), 64, 3,
                TreeShape.hier(8), java.util.Map.of(), jvm(64, 2).spec().rankHosts(), 0, 16_384), JobTransport.JVM);
        assertGrows(small, one(threeTrees, GSUM));
        // Over TCP each host process holds its own share, and all of them the whole pathmap.
        JobFootprint tcp = JobFootprint.of(jvm(64, 2).withTransport(JobTransport.TCP), jvm(64, 2).pathmap(), GSUM);
        assertThat(tcp.processes()).hasSize(2).extracting(JobFootprint.Process::ranks).containsExactly(32, 32);
        assertThat(tcp.threads()).isGreaterThan(small.threads());
        assertThat(tcp.residentBytes()).isGreaterThan(small.residentBytes());
    }

    /**
     * Heap, threads and resident memory grow. Direct memory need not: a host's trace buffers share a 4 MiB budget, so
     * more collectors can mean smaller buffers until they reach their floor of 64 tuples.
     */
    private static void assertGrows(JobFootprint.Process before, JobFootprint.Process after) {
        assertThat(after.heapBytes()).isGreaterThanOrEqualTo(before.heapBytes());
        assertThat(after.threads()).isGreaterThanOrEqualTo(before.threads());
        assertThat(after.residentBytes()).isGreaterThan(before.residentBytes());
    }

    @Test
    void trafficCountersAddTheirPortsToDirectMemory() {
        JobConfig plain = jvm(64, 4);
        JobConfig counted = plain.withTraffic("all");
        long hostPorts = 4L * org.eventspace.comm.traffic.TrafficCounterLayout.length(4);
        long rankPorts = 64L * org.eventspace.comm.traffic.TrafficCounterLayout.length(64);
        // Collectives only: every host's tree hops share one host port.
        assertThat(one(counted, GSUM).directBytes() - one(plain, GSUM).directBytes()).isEqualTo(hostPorts);
        // A point-to-point program's ranks each get a port whose peers are all ranks.
        JobFootprint.Program p2p = new JobFootprint.Program(1, GSUM.bytesPerRank(), true);
        assertThat(one(counted, p2p).directBytes() - one(plain, p2p).directBytes()).isEqualTo(hostPorts + rankPorts);
        // One host: nothing leaves it, nothing is counted.
        assertThat(one(jvm(64, 1).withTraffic("all"), p2p).directBytes()).isEqualTo(one(jvm(64, 1), p2p).directBytes());
    }

    @Test
    void aTraceDumpMapsItsBuffersInsteadOfTakingDirectMemory() {
        JobFootprint.Process direct = one(jvm(64, 2), GSUM);
        JobFootprint.Process mapped = one(jvm(64, 2).withTraceDump(Path.of("/tmp/dump")), GSUM);
        assertThat(mapped.mappedBytes()).isEqualTo(direct.directBytes() - mapped.directBytes()).isPositive();
        assertThat(mapped.mappings()).isGreaterThan(direct.mappings());
    }

    @Test
    void theBindingShortfallIsNamedWithWhatFits() {
        JobConfig config = jvm(1000, 1);
        JobFootprint footprint = JobFootprint.of(config, config.pathmap(), GSUM);
        assertThat(footprint.shortfall(PLENTY)).isEmpty();

        long heap = footprint.largest().heapBytes();
        MachineLimits smallHeap = new MachineLimits(heap / 2, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE);
        JobFootprint.Shortfall shortfall = footprint.shortfall(smallHeap).orElseThrow();
        assertThat(shortfall.resource()).isEqualTo(JobFootprint.Resource.HEAP);
        assertThat(shortfall.describe()).contains("heap").contains(JobFootprint.bytes(heap)).contains(JobFootprint.bytes(heap / 2));
        // A rank takes the average heap of a rank (8 MiB of the JVM's own aside): about a third of them fit in half.
        long fit = footprint.ranksThatFit(shortfall).orElseThrow();
        assertThat(fit).isBetween(300L, 450L);
        JobConfig fitting = jvm((int) fit - 1, 1);
        assertThat(JobFootprint.of(fitting, fitting.pathmap(), GSUM).shortfall(smallHeap)).isEmpty();

        // Threads bind before heap when they leave fewer ranks: a rank is a thread.
        MachineLimits fewThreads = new MachineLimits(heap / 2, Long.MAX_VALUE, Long.MAX_VALUE, 300, Long.MAX_VALUE);
        JobFootprint.Shortfall threads = footprint.shortfall(fewThreads).orElseThrow();
        assertThat(threads.resource()).isEqualTo(JobFootprint.Resource.THREADS);
        assertThat(footprint.ranksThatFit(threads)).hasValue(300 - (footprint.threads() - 1000));
        assertThat(footprint.shortfalls(fewThreads)).extracting(JobFootprint.Shortfall::resource)
                .containsExactlyInAnyOrder(JobFootprint.Resource.HEAP, JobFootprint.Resource.THREADS);

        MachineLimits noDirect = new MachineLimits(Long.MAX_VALUE, 1 << 20, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE);
        assertThatThrownBy(() -> footprint.requireFits(noDirect)).isInstanceOf(JobFootprint.TooLargeException.class)
                .hasMessageContaining("direct").hasMessageContaining("1.0 MiB").hasMessageNotContaining("ranks would fit");
    }

    @Test
    void aHostProcessChecksOnlyItsOwnShare() {
        JobConfig config = jvm(64, 4).withTransport(JobTransport.TCP).withTimeout(Duration.ofSeconds(5));
        JobFootprint all = JobFootprint.of(config, config.pathmap(), JobFootprint.Program.MINIMAL);
        JobFootprint host = all.only(2);
        assertThat(host.processes()).hasSize(1);
        assertThat(host.ranks()).isEqualTo(16);
        assertThat(host.threads()).isEqualTo(all.processes().get(2).threads());
        assertThat(all.threads()).isGreaterThan(4L * host.threads());
        assertThatThrownBy(() -> all.only(9)).hasMessageContaining("host 9");
    }

    @Test
    void thisMachinesLimitsAreRead() {
        MachineLimits limits = MachineLimits.current();
        assertThat(limits.heapBytes()).isPositive().isLessThan(Runtime.getRuntime().maxMemory());
        assertThat(limits.directBytes()).isPositive();
        assertThat(limits.threads()).isPositive();
        assertThat(limits.mappings()).isPositive();
        assertThat(limits.memoryBytes()).isPositive();
    }
}
