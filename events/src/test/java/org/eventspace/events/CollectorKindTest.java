package org.eventspace.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.path.ValueType;
import org.eventspace.comm.pathmap.Entry;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.runtime.HostRuntime;
import org.eventspace.comm.runtime.WrapperKinds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code collector} kind on a real host runtime: one host, two ranks, one flat tree, with a collector
 * node put by hand in front of each gred port (runs use {@link CollectorPlacement}; this keeps the kind alone)
 * and one below the gred. Both ranks' tuples of one allreduce carry the core's sequence, the collector below
 * the gred sits inside both contributors' intervals (paper §4.1: t1,i ≤ t2 ≤ t3 ≤ t4,i).
 */
@Timeout(60)
class CollectorKindTest {
    @Test
    void collectorKindBuildsCollectorsWhoseTuplesJoinOneAllreduce() throws Exception {
        Pathmap plain = PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, 1, 2), 2, 1, TreeShape.FLAT));
        Pathmap traced = withCollectors(plain);
        EventSpace space = EventSpace.direct("h0", 1 << 20, 64);
        CommOptions options = CommOptions.defaults(2).withTimeout(Duration.ofSeconds(20))
                .withKinds(WrapperKinds.builtIn().with(new CollectorKind(host -> space)));
        HostRuntime host = new HostRuntime(traced, 0, options);
        host.build();
        assertThat(space.entries()).extracting(EventSpace.Entry::collectorId).containsExactlyInAnyOrder(100, 101, 102);
        assertThat(space.buffer(102).capacity()).isEqualTo(16);   // from the node's capacity property
        assertThat(space.buffer(100).capacity()).isEqualTo(64);   // the space's default

        ExecutorService ranks = Executors.newFixedThreadPool(2);
        try {
            List<Future<Long>> results = new ArrayList<>();
            for (int rank = 0; rank < 2; rank++) {
                Entry entry = traced.entry(0, rank);
                long contribution = rank + 1;
                results.add(ranks.submit(() -> {
                    Message m = new Message(1).op(ReduceOp.SUM).type(ValueType.LONG).length(1).word(0, contribution);
                    host.entry(entry.node(), entry.port()).call(m);
                    return m.word(0);
                }));
            }
            for (Future<Long> result : results) {
                assertThat(result.get(30, TimeUnit.SECONDS)).isEqualTo(3L);
            }
        } finally {
            ranks.shutdownNow();
            assertThat(ranks.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }

        TraceTupleFlyweight t = new TraceTupleFlyweight();
        long[][] times = new long[3][];
        long sequence = -1;
        for (int c = 0; c < 3; c++) {
            TraceBufferReader reader = space.buffer(100 + c).newReader();
            assertThat(reader.readNext(t)).as("collector %d wrote a tuple", 100 + c).isTrue();
            assertThat(t.collectorId()).isEqualTo(100 + c);
            assertThat(t.opType()).isEqualTo(TraceOp.ALLREDUCE_SUM);
            assertThat(t.value()).isEqualTo(3);
            if (c == 0) {
                sequence = t.sequence();
            }
            assertThat(t.sequence()).isEqualTo(sequence);
            times[c] = new long[] {t.startNs(), t.endNs()};
            assertThat(reader.readNext(t)).isFalse();
        }
        long t2 = times[2][0];
        long t3 = times[2][1];
        for (int i = 0; i < 2; i++) {
            assertThat(times[i][0]).as("t1,%d <= t2", i).isLessThanOrEqualTo(t2);
            assertThat(times[i][1]).as("t4,%d >= t3", i).isGreaterThanOrEqualTo(t3);
        }
        // Clock sharing across the gred: the collector below handed its t3 back up as the last arriver's t4.
        assertThat(new long[] {times[0][1], times[1][1]}).as("one contributor's t4 is t3").contains(t3);
        host.close();
        space.close();
    }

    @Test
    void clockReadingsAreSharedOnlyAcrossGredsEveryFeederOfWhichIsACollector() {
        Pathmap plain = PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, 2, 2), 4, 1, TreeShape.hier(2)));
        Pathmap all = CollectorPlacement.place(plain);
        Map<EventCollector.ClockSharing, Integer> seen = new java.util.EnumMap<>(EventCollector.ClockSharing.class);
        for (Node n : all.nodes()) {
            if (!n.kind().equals(CollectorKind.NAME)) {
                continue;
            }
            EventCollector.ClockSharing sharing = CollectorKind.clockSharing(all, n);
            seen.merge(sharing, 1, Integer::sum);
            Node callee = all.node(n.parent());
            boolean callsGred = callee.kind().equals(PathmapBuilder.GRED);
            boolean calledByGred = all.children(n.id()).stream().anyMatch(c -> c.kind().equals(PathmapBuilder.GRED));
            switch (sharing) {
                case ABOVE_GRED -> assertThat(callsGred && !calledByGred).as(n.name()).isTrue();
                case BELOW_GRED -> assertThat(calledByGred && !callsGred).as(n.name()).isTrue();
                case BETWEEN_GREDS -> assertThat(callsGred && calledByGred).as(n.name()).isTrue();
                case NONE -> assertThat(callsGred || calledByGred).as(n.name() + ": next to a gred yet shares nothing")
                        .isFalse();
            }
        }
        // Ranks enter above greds; the root host's gred calls the root gred through a collector; the far side of a
        // hop (run by the hop's service thread) is above the root gred, and below the other host's gred is the
        // collector before the proxy.
        assertThat(seen).containsOnlyKeys(EventCollector.ClockSharing.ABOVE_GRED, EventCollector.ClockSharing.BETWEEN_GREDS,
                EventCollector.ClockSharing.BELOW_GRED);

        // Collectors only around proxies: no gred has collectors on all its feeders, so nothing is shared.
        Pathmap proxiesOnly = CollectorPlacement.place(plain, CollectorSettings.ALL.withKinds(java.util.Set.of(PathmapBuilder.PROXY)));
        for (Node n : proxiesOnly.nodes()) {
            if (n.kind().equals(CollectorKind.NAME)) {
                assertThat(CollectorKind.clockSharing(proxiesOnly, n)).as(n.name()).isEqualTo(EventCollector.ClockSharing.NONE);
            }
        }
    }

    @Test
    void badPropertiesAreNamedWithTheNode() {
        Pathmap plain = PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, 1, 2), 2, 1, TreeShape.FLAT));
        Pathmap traced = withCollectors(plain, Map.of(CollectorKind.COLLECTOR_ID, "one"));
        EventSpace space = EventSpace.direct("h0", 1 << 20, 64);
        HostRuntime host = new HostRuntime(traced, 0, CommOptions.defaults(2)
                .withKinds(WrapperKinds.builtIn().with(new CollectorKind(h -> space))));
        assertThatThrownBy(host::build).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("(collector)").hasMessageContaining("collectorId=one");
    }

    private static Pathmap withCollectors(Pathmap plain) {
        return withCollectors(plain, null);
    }

    /**
     * Puts a collector in front of each port of the tree's gred (ids 100, 101, entries moved onto them) and one
     * between the gred and its parent (id 102, capacity 16). {@code badProperties} replaces the first one's.
     */
    private static Pathmap withCollectors(Pathmap plain, Map<String, String> badProperties) {
        List<Node> nodes = new ArrayList<>(plain.nodes());
        Node gred = nodes.stream().filter(n -> n.kind().equals(PathmapBuilder.GRED)).findFirst().orElseThrow();
        int next = nodes.size();
        // Below the gred: the collector takes the gred's place under its parent.
        Node below = new Node(next, "t0.collector.below", CollectorKind.NAME, gred.tree(), gred.host(), gred.parent(),
                gred.parentPort(), 1, Map.of(CollectorKind.COLLECTOR_ID, "102", CollectorKind.CAPACITY, "16"));
        nodes.set(gred.id(), new Node(gred.id(), gred.name(), gred.kind(), gred.tree(), gred.host(), next, 0,
                gred.arity(), gred.properties()));
        nodes.add(below);
        List<Entry> entries = new ArrayList<>();
        for (Entry e : plain.entries()) {
            int id = nodes.size();
            Map<String, String> properties = badProperties != null && e.rank() == 0 ? badProperties
                    : Map.of(CollectorKind.COLLECTOR_ID, String.valueOf(100 + e.rank()));
            nodes.add(new Node(id, "t0.collector.rank" + e.rank(), CollectorKind.NAME, e.tree(), gred.host(), e.node(),
                    e.port(), 1, properties));
            entries.add(new Entry(e.tree(), e.rank(), id, 0));
        }
        return new Pathmap(plain.spec(), nodes, entries);
    }
}
