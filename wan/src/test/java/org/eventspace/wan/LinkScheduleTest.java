package org.eventspace.wan;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The delay arithmetic of one link direction, with times given by the test (no clock). */
class LinkScheduleTest {
    /** 5 ms one way, 8 Mbit/s: 1000 bytes take 1 ms on the wire. */
    private static final LinkDirection LINK = LinkDirection.constant("a", "b", 5, 8);

    @Test
    void aMessageAloneIsDueLatencyPlusSizeOverBandwidthAfterItArrived() {
        LinkSchedule s = new LinkSchedule(LINK, 0);
        assertThat(s.schedule(10_000_000, 1000)).isEqualTo(10_000_000 + 1_000_000 + 5_000_000);
        assertThat(s.queuedNs()).isZero();
    }

    @Test
    void anEmptyMessageIsDueOneLatencyLater() {
        assertThat(new LinkSchedule(LINK, 0).schedule(1_000, 0)).isEqualTo(1_000 + 5_000_000);
    }

    @Test
    void aMessageCannotStartBeforeThePreviousOneLeftTheWire() {
        LinkSchedule s = new LinkSchedule(LINK, 0);
        long first = s.schedule(0, 1000);
        // Arrives while the first is still on the wire (it leaves at 1 ms): starts at 1 ms.
        long second = s.schedule(400_000, 1000);
        assertThat(first).isEqualTo(6_000_000);
        assertThat(second).isEqualTo(1_000_000 + 1_000_000 + 5_000_000);
        assertThat(s.queuedNs()).isEqualTo(600_000);
        // Arrives after the wire is free again: no wait.
        long third = s.schedule(3_000_000, 1000);
        assertThat(third).isEqualTo(3_000_000 + 6_000_000);
        assertThat(s.messages()).isEqualTo(3);
        assertThat(s.bytes()).isEqualTo(3000);
    }

    @Test
    void seriesValuesAreTheOnesInForceWhenTheMessageStartsOntoTheWire() {
        // Latency 10 ms until 1 s after the epoch, then 2 ms; bandwidth constant 8 Mbit/s.
        LinkDirection link = new LinkDirection("a", "b", LinkSeries.of(new long[] {0, 1_000_000_000},
                new double[] {10, 2}), LinkSeries.constant(8), 1);
        long epoch = 5_000;
        LinkSchedule s = new LinkSchedule(link, epoch);
        assertThat(s.schedule(epoch + 999_000_000, 0)).isEqualTo(epoch + 999_000_000 + 10_000_000);
        // Latency dropped: this one would be due at +1 s + 2 ms, before the previous one (+1.009 s); FIFO keeps order.
        assertThat(s.schedule(epoch + 1_000_000_000, 0)).isEqualTo(epoch + 1_009_000_000);
        assertThat(s.schedule(epoch + 1_100_000_000, 0)).isEqualTo(epoch + 1_102_000_000);
    }

    @Test
    void theSlowestLinkAndTheLargestPayloadStayFarFromOverflow() {
        LinkDirection slow = LinkDirection.constant("a", "b", WanFile.MAX_LATENCY_MS, WanFile.MIN_BANDWIDTH_MBIT);
        LinkSchedule s = new LinkSchedule(slow, 0);
        long bytes = 8L << 24;
        long first = s.schedule(0, bytes);
        long second = s.schedule(0, bytes);
        assertThat(first).isPositive().isLessThan(Long.MAX_VALUE / 1000);
        assertThat(second - first).isEqualTo(slow.transmitNs(0, bytes));
    }

    @Test
    void transmitTimeIsBytesTimesEightOverBandwidth() {
        LinkDirection link = LinkDirection.constant("a", "b", 0, 10.6);
        // 64 KiB at 10.6 Mbit/s: 65536 * 8 / 10.6e6 s = 49.461 ms.
        assertThat(link.transmitNs(0, 65_536)).isEqualTo(Math.round(65_536 * 8 / 10.6e6 * 1e9));
        assertThat(link.latencyNs(0)).isZero();
    }
}
