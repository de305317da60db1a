package org.eventspace.scope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.eventspace.scope.filter.ScopeRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PushBufferTest {
    private static ScopeRecord record(int i) {
        return new ScopeRecord(0, "e", i, i);
    }

    @Test
    void dropPolicyQueuesWhatFitsAndCountsTheRest() {
        PushBuffer buffer = new PushBuffer("h0", 8, PushBuffer.Policy.DROP, Duration.ofSeconds(1));
        List<ScopeRecord> batch = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            batch.add(record(i));
        }
        assertThat(buffer.offer(batch)).isEqualTo(8);
        assertThat(buffer.dropped()).isEqualTo(12);
        assertThat(buffer.offered()).isEqualTo(20);
        List<ScopeRecord> drained = new ArrayList<>();
        assertThat(buffer.drain(drained, 100)).isEqualTo(8);
        assertThat(drained).extracting(ScopeRecord::round).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L);
        assertThat(buffer.offer(record(99))).isTrue();
        assertThat(buffer.size()).isEqualTo(1);
    }

    @Test
    void blockPolicyFailsClearlyWhenNobodyDrains() {
        PushBuffer buffer = new PushBuffer("h3", 4, PushBuffer.Policy.BLOCK, Duration.ofMillis(100));
        for (int i = 0; i < 4; i++) {
            assertThat(buffer.offer(record(i))).isTrue();
        }
        long start = System.nanoTime();
        assertThatThrownBy(() -> buffer.offer(record(4))).isInstanceOf(IllegalStateException.class)
                .hasMessage("push buffer h3 stayed full for 100 ms (capacity 4 records, policy BLOCK): no event scope "
                        + "is pulling it; open one, pull more often, or use DROP");
        assertThat(System.nanoTime() - start).isBetween(TimeUnit.MILLISECONDS.toNanos(90), TimeUnit.SECONDS.toNanos(5));
        assertThat(buffer.dropped()).isZero();
    }

    @Test
    void blockPolicyWaitsForADrain() throws Exception {
        PushBuffer buffer = new PushBuffer("h0", 2, PushBuffer.Policy.BLOCK, Duration.ofSeconds(5));
        buffer.offer(record(0));
        buffer.offer(record(1));
        ExecutorService producer = ScopedJob.daemons("producer", 1);
        try {
            Future<Boolean> third = producer.submit(() -> buffer.offer(record(2)));
            Thread.sleep(50);
            assertThat(third.isDone()).isFalse();
            List<ScopeRecord> drained = new ArrayList<>();
            buffer.drain(drained, 1);
            assertThat(third.get(5, TimeUnit.SECONDS)).isTrue();
        } finally {
            ScopedJob.stop(producer);
        }
        assertThat(buffer.size()).isEqualTo(2);
    }

    @Test
    void concurrentProducersAndADrainerAccountForEveryRecord() throws Exception {
        PushBuffer buffer = new PushBuffer("h0", 64, PushBuffer.Policy.DROP, Duration.ofSeconds(1));
        int producers = 4;
        int each = 50_000;
        ExecutorService pool = ScopedJob.daemons("producer", producers);
        List<ScopeRecord> drained = new ArrayList<>();
        try {
            List<Future<Integer>> queued = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                queued.add(pool.submit(() -> {
                    int n = 0;
                    for (int i = 0; i < each; i++) {
                        n += buffer.offer(record(i)) ? 1 : 0;
                    }
                    return n;
                }));
            }
            while (!queued.stream().allMatch(Future::isDone)) {
                buffer.drain(drained, Integer.MAX_VALUE);
            }
            buffer.drain(drained, Integer.MAX_VALUE);
            long total = 0;
            for (Future<Integer> f : queued) {
                total += f.get();
            }
            assertThat(drained).hasSize((int) total);
            assertThat(buffer.dropped()).isEqualTo((long) producers * each - total);
            assertThat(buffer.offered()).isEqualTo((long) producers * each);
        } finally {
            ScopedJob.stop(pool);
        }
    }

    @Test
    void badSettingsAreNamed() {
        assertThatThrownBy(() -> new PushBuffer("h1", 0, PushBuffer.Policy.DROP, Duration.ofSeconds(1)))
                .hasMessage("push buffer h1: capacity must be in [1, 2^30], capacity=0");
        assertThatThrownBy(() -> new PushBuffer("h1", 4, PushBuffer.Policy.BLOCK, Duration.ZERO))
                .hasMessage("push buffer h1: block timeout must be > 0, blockTimeout=PT0S");
    }
}
