package org.eventspace.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class CacheLineProbeTest {
    @Test
    @Timeout(30)
    void measuresAPositiveRoundTripAndEndsItsThread() throws Exception {
        double nanos = CacheLineProbe.roundTripNanos();

        assertThat(nanos).isPositive();
        Thread.sleep(50);
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals("es-cacheline-probe"));
    }
}
