package org.eventspace.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A host's analysis publishes every 100 ms while that is cheap, and keeps publishing under 1 % of its time when not. */
class PublishPeriodTest {
    private static final long MS = 1_000_000L;

    @Test
    void aCheapPublicationKeepsTheTenthOfASecond() {
        assertThat(HostAnalysis.publishPeriodAfter(0)).isEqualTo(HostAnalysis.PUBLISH_PERIOD_MS * MS);
        assertThat(HostAnalysis.publishPeriodAfter(MS)).isEqualTo(100 * MS);
    }

    @Test
    void aCostlyOneWaitsAHundredTimesItsCostUpToFiveSeconds() {
        assertThat(HostAnalysis.publishPeriodAfter(4 * MS)).isEqualTo(400 * MS);
        assertThat(HostAnalysis.publishPeriodAfter(30 * MS)).isEqualTo(3_000 * MS);
        assertThat(HostAnalysis.publishPeriodAfter(2_000 * MS)).isEqualTo(HostAnalysis.LONGEST_PUBLISH_PERIOD_NANOS);
    }
}
