package org.eventspace.scope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.Wrapper;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.runtime.HostRuntime;
import org.eventspace.comm.runtime.WrapperInstance;
import org.eventspace.comm.runtime.WrapperKind;
import org.eventspace.events.CollectorKind;
import org.eventspace.events.CollectorPlacement;
import org.eventspace.events.EventSpace;
import org.eventspace.scope.filter.ConcatResult;
import org.eventspace.scope.filter.Packet;
import org.eventspace.scope.filter.ScopeRecord;
import org.eventspace.scope.filter.StatsResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Event scopes on a simulated cluster: 8 ranks on 4 hosts running allreduces with a collector on every edge,
 * while a front-end on h0 pulls rounds through a {@code kary:2} scope (4 leaves → 2 gathers → the root): every
 * tuple written is gathered exactly once, pushed records and their drops are counted exactly, and a failing or
 * silent leaf fails the round with its name instead of hanging it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InJvmScopeTest {
    private static final int HOSTS = 4;
    private static final int RANKS = 8;
    private static final int ITERATIONS = 1000;

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeEverything() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        assertThat(ScopedJob.awaitNoScopeHelpers()).as("scope helper threads after the test").isEmpty();
    }

    private ScopedJob start(ScopeSpec spec, PushBuffer.Policy policy, int pushCapacity) {
        ScopedJob job = ScopedJob.start(ScopedJob.pathmap(HOSTS, RANKS, spec), policy, pushCapacity);
        toClose.add(job);
        return job;
    }

    private EventScope scope(ScopedJob job) {
        EventScope scope = EventScope.on(job.cluster.host(0));
        toClose.add(scope);
        return scope;
    }

    @ParameterizedTest(name = "{0}, {1}")
    @CsvSource({"seq, concat", "par:2, concat", "seq, stats", "par:2, stats"})
    void everyTupleWrittenWhileRanksRunIsGatheredOnce(String gather, String filter) throws Exception {
        ScopedJob job = start(ScopeSpec.of("kary:2", gather, filter, 0), PushBuffer.Policy.DROP, 64);
        EventScope scope = scope(job);
        assertThat(scope.levels()).isEqualTo(3);
        scope.open();
        if (!gather.equals("seq")) {
            assertThat(ScopedJob.scopeHelperThreads()).as("helpers start at INIT")
                    .contains("es-scope-scope.root.h0-helper-0", "es-scope-scope.root.h0-helper-1");
        }
        ExecutorService ranks = ScopedJob.daemons("rank", RANKS);
        List<ScopeRound> rounds = new ArrayList<>();
        try {
            List<Future<Long>> results = job.startRanks(ranks, ITERATIONS);
            while (!results.stream().allMatch(Future::isDone)) {
                rounds.add(scope.pull());
                Thread.sleep(1);
            }
            for (Future<Long> f : results) {
                assertThat(f.get(1, TimeUnit.SECONDS)).isEqualTo(RANKS * (RANKS + 1L) / 2);
            }
        } finally {
            ScopedJob.stop(ranks);
        }
        assertThat(rounds.stream().filter(r -> r.recordsGathered() > 0).count()).as("rounds with data while ranks ran")
                .isGreaterThanOrEqualTo(2);
        rounds.add(scope.pull());   // quiesced: whatever the ranks wrote after the last round

        long written = job.tuplesWritten();
        assertThat(written).as("a collector on each of at least 2 edges per rank and call").isGreaterThanOrEqualTo(2L * RANKS * ITERATIONS);
        long produced = 0;
        long gathered = 0;
        long dropped = 0;
        for (ScopeRound r : rounds) {
            produced += r.recordsProduced();
            gathered += r.recordsGathered();
            dropped += r.recordsDropped();
            assertThat(r.recordsProduced()).isEqualTo(r.recordsGathered() + r.recordsDropped());
            assertThat(r.rawBytes()).isEqualTo(40 * r.recordsGathered());
            assertThat(r.bytesPerLevel()).hasSize(3).doesNotContain(0L);
            assertThat(r.roundNanos()).isPositive();
            if (filter.equals("concat")) {
                assertThat(((ConcatResult) r.result()).records()).isEqualTo(r.recordsGathered());
                assertThat(r.result().round()).isEqualTo(r.round());
            }
        }
        ScopeRound after = scope.pull();
        assertThat(after.recordsProduced()).as("nothing new once the ranks ended and were read").isZero();
        assertThat(after.recordsGathered()).isZero();
        assertThat(after.gatherRate()).isEqualTo(1.0);
        assertThat(produced).isEqualTo(written);
        assertThat(gathered).isEqualTo(written);
        assertThat(dropped).isZero();
        assertThat(rounds).extracting(ScopeRound::round).containsExactlyElementsOf(
                java.util.stream.LongStream.range(0, rounds.size()).boxed().toList());

        if (filter.equals("stats")) {
            // Per event (op and role): the counts of all rounds add up to the tuples the buffers took.
            Map<String, Long> counted = new HashMap<>();
            for (ScopeRound r : rounds) {
                ((StatsResult) r.result()).events().forEach((event, stats) -> counted.merge(event, stats.count(), Long::sum));
            }
            assertThat(counted.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(written);
            assertThat(counted.keySet()).allMatch(e -> e.matches("allreduce-sum (rank|gred|proxy)(>(gred|proxy|core))+"), "op and role");
            // The collectors the ranks enter saw every call of every rank; their events name the rank's path.
            Map<String, Long> expectedEntries = new HashMap<>();
            for (Node n : job.pathmap.nodes()) {
                if (n.kind().equals(CollectorKind.NAME) && n.property(CollectorPlacement.BELOW).startsWith("rank ")) {
                    expectedEntries.merge("allreduce-sum " + ScopeLeafKind.role(job.pathmap, n), (long) ITERATIONS, Long::sum);
                }
            }
            expectedEntries.forEach((event, count) -> assertThat(counted.get(event)).as(event).isEqualTo(count));
        }
        scope.close();
        assertThat(scope.isOpen()).isFalse();
        assertThat(ScopedJob.awaitNoScopeHelpers()).as("helpers stop at FIN").isEmpty();
    }

    @Test
    void leafRecordsNameTheOpTheRoleTheRankAndTheSequence() throws Exception {
        ScopedJob job = start(ScopeSpec.of("flat", "seq", "concat", 0), PushBuffer.Policy.DROP, 64);
        EventScope scope = scope(job);
        scope.open();
        ExecutorService ranks = ScopedJob.daemons("rank", RANKS);
        try {
            for (Future<Long> f : job.startRanks(ranks, 3)) {
                f.get(20, TimeUnit.SECONDS);
            }
        } finally {
            ScopedJob.stop(ranks);
        }
        ScopeRound round = scope.pull();
        List<ScopeRecord> listing = ((ConcatResult) round.result()).listing();
        Node entryCollector = job.pathmap.node(job.pathmap.entry(0, 5).node());
        String event = "allreduce-sum " + ScopeLeafKind.role(job.pathmap, entryCollector);
        assertThat(event).startsWith("allreduce-sum rank>gred").endsWith(">core");
        List<ScopeRecord> ofRank5 = listing.stream()
                .filter(m -> m.event().equals(event) && m.rank() == 5).toList();
        assertThat(ofRank5).hasSize(3).allSatisfy(m -> {
            assertThat(m.rank()).isEqualTo(5);
            assertThat(m.value()).isPositive();
        });
        assertThat(ofRank5).extracting(ScopeRecord::round).containsExactly(0L, 1L, 2L);
        assertThat(listing).allMatch(m -> m.event().matches("allreduce-sum (rank|gred|proxy)(>(gred|proxy|core))+"));
    }

    @Test
    void tuplesOverwrittenBeforeAPullAreCountedAsDroppedExactly() throws Exception {
        ScopedJob job = ScopedJob.start(ScopedJob.pathmap(HOSTS, RANKS, ScopeSpec.of("kary:2", "seq", "concat", 0)),
                PushBuffer.Policy.DROP, 16, 64, leaf -> leaf);
        toClose.add(job);
        EventScope scope = scope(job);
        scope.open();
        ExecutorService ranks = ScopedJob.daemons("rank", RANKS);
        try {
            for (Future<Long> f : job.startRanks(ranks, 300)) {
                f.get(20, TimeUnit.SECONDS);
            }
        } finally {
            ScopedJob.stop(ranks);
        }
        // Nobody pulled while 300 calls went by: each 64-tuple buffer holds its newest 64, the rest were lost.
        long written = 0;
        long held = 0;
        for (EventSpace space : job.spaces) {
            for (EventSpace.Entry e : space.entries()) {
                written += e.buffer().writePosition();
                held += Math.min(64, e.buffer().writePosition());
            }
        }
        ScopeRound round = scope.pull();
        assertThat(round.recordsProduced()).isEqualTo(written);
        assertThat(round.recordsGathered()).isEqualTo(held);
        assertThat(round.recordsDropped()).isEqualTo(written - held);
        assertThat(round.gatherRate()).isLessThan(0.5);
        assertThat(((ConcatResult) round.result()).records()).isEqualTo((int) held);
    }

    @Test
    void pushBufferDropsAreCountedExactly() throws Exception {
        ScopedJob job = start(ScopeSpec.of("kary:2", "par:2", "concat", 0), PushBuffer.Policy.DROP, 16);
        EventScope scope = scope(job);
        scope.open();
        // Nobody pulls: each host's buffer takes 16 of 100 records and drops the other 84.
        for (int h = 0; h < HOSTS; h++) {
            for (int i = 0; i < 100; i++) {
                job.pushes[h].offer(new ScopeRecord(h, "profile", i, i));
            }
        }
        ScopeRound first = scope.pull();
        assertThat(first.recordsProduced()).isEqualTo(400);
        assertThat(first.recordsGathered()).isEqualTo(64);
        assertThat(first.recordsDropped()).isEqualTo(336);
        assertThat(first.gatherRate()).isEqualTo(0.16);
        assertThat(first.rawBytes()).isEqualTo(64 * 24);
        assertThat(((ConcatResult) first.result()).records()).isEqualTo(64);

        // Producers push while the front-end pulls: every record is gathered or counted as dropped, once.
        int perProducer = 20_000;
        ExecutorService producers = ScopedJob.daemons("producer", HOSTS);
        List<ScopeRound> rounds = new ArrayList<>();
        try {
            List<Future<Integer>> queued = new ArrayList<>();
            for (int h = 0; h < HOSTS; h++) {
                PushBuffer push = job.pushes[h];
                int rank = h;
                queued.add(producers.submit(() -> {
                    int n = 0;
                    for (int i = 0; i < perProducer; i++) {
                        n += push.offer(new ScopeRecord(rank, "profile", i, 1.0)) ? 1 : 0;
                        if (i % 1000 == 999) {
                            Thread.sleep(1);
                        }
                    }
                    return n;
                }));
            }
            while (!queued.stream().allMatch(Future::isDone)) {
                rounds.add(scope.pull());
            }
            rounds.add(scope.pull());
            long totalQueued = 0;
            for (Future<Integer> f : queued) {
                totalQueued += f.get(1, TimeUnit.SECONDS);
            }
            long produced = rounds.stream().mapToLong(ScopeRound::recordsProduced).sum();
            long gathered = rounds.stream().mapToLong(ScopeRound::recordsGathered).sum();
            long dropped = rounds.stream().mapToLong(ScopeRound::recordsDropped).sum();
            long bufferDrops = 0;
            for (PushBuffer p : job.pushes) {
                bufferDrops += p.dropped();
                assertThat(p.size()).isZero();
            }
            assertThat(produced).isEqualTo((long) HOSTS * perProducer);
            assertThat(gathered).isEqualTo(totalQueued);
            assertThat(dropped).isEqualTo(bufferDrops - 336).isEqualTo(produced - gathered);
        } finally {
            ScopedJob.stop(producers);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"seq", "par:2"})
    void aLeafThatThrowsFailsTheRoundNamingItAndTheScopeStillCloses(String gather) throws Exception {
        Pathmap pathmap = ScopedJob.pathmap(HOSTS, RANKS, ScopeSpec.of("kary:2", gather, "concat", 0));
        ScopedJob job = ScopedJob.start(pathmap, PushBuffer.Policy.DROP, 16,
                real -> new FailingLeafKind(real, 3, Packet.PULL, Duration.ZERO));
        toClose.add(job);
        EventScope scope = scope(job);
        scope.open();
        long start = System.nanoTime();
        assertThatThrownBy(scope::pull).isInstanceOf(CommException.class)
                .hasMessageContaining("child scope.leaf.h3 on host h3 failed")
                .hasMessageContaining("leaf h3 is on fire");
        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(5));
        assertThat(scope.isOpen()).isTrue();
        scope.close();
        assertThat(scope.isOpen()).isFalse();
    }

    @Test
    void aLeafThatThrowsAtInitFailsOpenNamingIt() {
        Pathmap pathmap = ScopedJob.pathmap(HOSTS, RANKS, ScopeSpec.of("kary:2", "par:2", "concat", 0));
        ScopedJob job = ScopedJob.start(pathmap, PushBuffer.Policy.DROP, 16,
                real -> new FailingLeafKind(real, 1, Packet.INIT, Duration.ZERO));
        toClose.add(job);
        EventScope scope = scope(job);
        assertThatThrownBy(scope::open).isInstanceOf(CommException.class)
                .hasMessageStartingWith("scope gather scope.root.h0: child scope.gather.h0.0 on host h0 failed: ")
                .hasMessageContaining("scope gather scope.gather.h0.0: child scope.leaf.h1 on host h1 failed: ")
                .hasMessageEndingWith("hop h0->h1:scope.leaf.h1[0] failed on the serving host: leaf h1 is on fire");
        assertThat(scope.isOpen()).isFalse();
        assertThatThrownBy(scope::pull).isInstanceOf(IllegalStateException.class).hasMessageContaining("not open");
    }

    @Test
    void aSilentLeafFailsAParallelRoundWithinTheScopeTimeout() throws Exception {
        ScopeSpec spec = ScopeSpec.builder().shape("kary:2").gather("par:2").filter("concat").frontEnd(0)
                .timeout(Duration.ofMillis(400)).build();
        ScopedJob job = ScopedJob.start(ScopedJob.pathmap(HOSTS, RANKS, spec), PushBuffer.Policy.DROP, 16,
                real -> new FailingLeafKind(real, 3, Packet.PULL, Duration.ofMillis(1500)));
        toClose.add(job);
        EventScope scope = scope(job);
        scope.open();
        long start = System.nanoTime();
        // The gather above the leaf has ¾ of the root's 400 ms: it names the leaf before the root gives up.
        assertThatThrownBy(scope::pull).isInstanceOf(CommException.class)
                .hasMessageContaining("scope gather scope.gather.h2.0: child scope.leaf.h3 on host h3 gave no answer within 300 ms");
        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.MILLISECONDS.toNanos(1200));
        // The leaf is still in its slow call: FIN goes to everyone else, and close says who was left out.
        assertThatThrownBy(scope::close).isInstanceOf(CommException.class)
                .hasMessageContaining("child scope.leaf.h3 on host h3 is still busy");
        assertThat(scope.isOpen()).isFalse();
    }

    @Test
    void theFrontEndMustBeOnTheRootsHostAndOpenBeforePulling() {
        ScopedJob job = start(ScopeSpec.of("flat", "seq", "concat", 1), PushBuffer.Policy.DROP, 16);
        assertThatThrownBy(() -> EventScope.on(job.cluster.host(0)))
                .hasMessage("event scope 'scope': its root scope.root.h1 runs on host h1, not on h0; make the EventScope on the front-end host");
        EventScope scope = EventScope.on(job.cluster.host(1));
        toClose.add(scope);
        assertThatThrownBy(scope::pull).hasMessage("event scope 'scope' is not open; call open() first");
        scope.open();
        assertThatThrownBy(scope::open).hasMessage("event scope 'scope' is already open");
        ScopeRound empty = scope.pull();
        assertThat(empty.recordsProduced()).isZero();
        assertThat(empty.gatherRate()).isEqualTo(1.0);
        scope.close();
        scope.close();
        scope.open();   // a scope can be opened again after FIN
        assertThat(scope.pull().round()).isZero();
    }

    /**
     * The real leaf kind, except on one host, whose leaf fails (or, with a delay, answers late) when it gets
     * {@code control}; every other message goes to the real leaf.
     */
    static final class FailingLeafKind implements WrapperKind {
        private final ScopeLeafKind real;
        private final int host;
        private final int control;
        private final Duration delay;

        FailingLeafKind(ScopeLeafKind real, int host, int control, Duration delay) {
            this.real = real;
            this.host = host;
            this.control = control;
            this.delay = delay;
        }

        @Override
        public String name() {
            return real.name();
        }

        @Override
        public WrapperInstance create(Node node, HostRuntime runtime) {
            Wrapper leaf = real.create(node, runtime).port(0);
            if (runtime.host() != host) {
                return WrapperInstance.single(leaf);
            }
            return WrapperInstance.single((Message m) -> {
                if (ScopeFrame.control(m, "test") == control) {
                    if (delay.isZero()) {
                        throw new IllegalStateException("leaf " + runtime.hostName() + " is on fire");
                    }
                    try {
                        Thread.sleep(delay.toMillis());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                leaf.call(m);
            });
        }
    }
}
