package org.eventspace.events.dump;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.path.ValueType;
import org.eventspace.comm.pathmap.Entry;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapDescription;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.runtime.HostRuntime;
import org.eventspace.comm.runtime.WrapperKinds;
import org.eventspace.events.CollectorKind;
import org.eventspace.events.EventSpace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dump of a real run read back: one host, 3 ranks into one gred and a core, a collector on every edge, mapped
 * trace buffers in {@code DIR/host-0}. The analysis must join every call and its numbers must obey the
 * paper's ordering t1,i ≤ t2 ≤ t3 ≤ t4,i (§7.1 §3): no negative latency or wait, orders that add up.
 */
@Timeout(60)
class RealRunDumpTest {
    private static final int CALLS = 200;
    private static final int RANKS = 3;

    @TempDir
    Path dir;

    @Test
    void everyCallOfARealRunJoinsAndItsLatenciesAreConsistent() throws Exception {
        Pathmap traced = ScriptedDump.withCollectorOnEveryEdge(
                PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, 1, 2), RANKS, 1, TreeShape.FLAT)));
        Files.writeString(dir.resolve(TraceDump.PATHMAP_FILE), PathmapDescription.toJson(traced));
        EventSpace space = EventSpace.mapped("h0", dir.resolve("host-0"), 1 << 20, 256);
        HostRuntime host = new HostRuntime(traced, 0, CommOptions.defaults(RANKS).withTimeout(Duration.ofSeconds(20))
                .withKinds(WrapperKinds.builtIn().with(new CollectorKind(h -> space))));
        host.build();
        ExecutorService ranks = Executors.newFixedThreadPool(RANKS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int rank = 0; rank < RANKS; rank++) {
                Entry entry = traced.entry(0, rank);
                done.add(ranks.submit(() -> {
                    for (int i = 0; i < CALLS; i++) {
                        Message m = new Message(1).op(ReduceOp.SUM).type(ValueType.LONG).length(1).word(0, 1);
                        host.entry(entry.node(), entry.port()).call(m);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            ranks.shutdownNow();
            assertThat(ranks.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            host.close();
            space.close();
        }

        TraceDump dump = TraceDump.open(dir);
        assertThat(dump.errors()).isEmpty();
        assertThat(dump.collectors()).hasSize(RANKS + 1);
        assertThat(dump.tuples()).isEqualTo((RANKS + 1L) * CALLS);
        WrapperLatencies l = WrapperLatencies.of(dump);
        assertThat(l.skipped()).isEmpty();
        assertThat(l.overwrittenTuplesMax()).isZero();   // 200 calls fit the 256-tuple rings
        WrapperLatencies.GredLatencies g = l.greds().get(0);
        assertThat(g.callsJoined()).isEqualTo(CALLS);
        assertThat(g.callsDropped()).isZero();
        assertThat(g.down().min()).isGreaterThanOrEqualTo(0);
        assertThat(g.up().min()).isGreaterThanOrEqualTo(0);
        long[] lastArrivals = new long[RANKS];
        for (WrapperLatencies.PortLatencies p : g.ports()) {
            assertThat(p.down().min()).isGreaterThanOrEqualTo(0);
            assertThat(p.up().min()).isGreaterThanOrEqualTo(0);
            assertThat(p.total().min()).isGreaterThanOrEqualTo(0);
            assertThat(p.arrivalWait().min()).isGreaterThanOrEqualTo(0);
            assertThat(p.departureWait().min()).isGreaterThanOrEqualTo(0);
            // The arrival wait of port i is t1,l - t1,i, so its down latency is the gred's plus that wait.
            assertThat(p.down().mean()).isCloseTo(g.down().mean() + p.arrivalWait().mean(),
                    org.assertj.core.data.Offset.offset(1e-6));
            assertThat(p.arrivalOrder()).hasSize(RANKS);
            assertThat(java.util.Arrays.stream(p.arrivalOrder()).sum()).isEqualTo(CALLS);
            assertThat(java.util.Arrays.stream(p.departureOrder()).sum()).isEqualTo(CALLS);
            for (int k = 0; k < RANKS; k++) {
                lastArrivals[k] += p.arrivalOrder()[k];
            }
        }
        assertThat(lastArrivals).containsOnly(CALLS);   // every call had exactly one 1st, 2nd and 3rd arriver
        assertThat(l.stores().get(0).callsJoined()).isEqualTo(CALLS);
        assertThat(l.stores().get(0).store().min()).isGreaterThanOrEqualTo(0);
    }
}
