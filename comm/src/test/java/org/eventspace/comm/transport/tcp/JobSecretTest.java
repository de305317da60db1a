package org.eventspace.comm.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

class JobSecretTest {
    @Test
    void hexRoundTripsAndNeverShowsInToString() {
        JobSecret s = JobSecret.random();
        assertThat(s.toHex()).hasSize(64).matches("[0-9a-f]+");
        assertThat(JobSecret.fromHex(s.toHex())).isEqualTo(s);
        assertThat(JobSecret.fromHex(s.toHex().toUpperCase())).isEqualTo(s);
        assertThat(s.toString()).doesNotContain(s.toHex()).doesNotContain(s.toHex().substring(0, 8));
        assertThat(JobSecret.random()).isNotEqualTo(s);
    }

    @Test
    void matchesWhatItWrote() {
        JobSecret s = JobSecret.random();
        UnsafeBuffer b = new UnsafeBuffer(new byte[64]);
        s.writeTo(b, 16);
        assertThat(s.matches(b, 16)).isTrue();
        assertThat(s.matches(b, 15)).isFalse();
        assertThat(JobSecret.random().matches(b, 16)).isFalse();
    }

    @Test
    void badHexSaysWhatWasExpected() {
        assertThatThrownBy(() -> JobSecret.fromHex("ab")).hasMessage("a job secret is 64 hex digits (32 bytes), got 2 characters");
        assertThatThrownBy(() -> JobSecret.fromHex(null)).hasMessageContaining("got nothing");
    }

    @Test
    void optionsAreCheckedAtTheEdge() {
        assertThatThrownBy(() -> TcpOptions.defaults().withPolling(-1, 0)).hasMessageContaining("spinReads=-1");
        assertThatThrownBy(() -> TcpOptions.defaults().withSocketBuffers(-5, 0)).hasMessageContaining("sendBufferBytes=-5");
        assertThatThrownBy(() -> TcpOptions.defaults().withConnectTimeout(Duration.ZERO)).hasMessageContaining("connectTimeout=PT0S");
        assertThatThrownBy(() -> TcpOptions.defaults().withBindAddress(" ")).hasMessageContaining("bindAddress");
        assertThat(TcpOptions.forThreads(Integer.MAX_VALUE).spinReads()).isZero();
        if (Runtime.getRuntime().availableProcessors() > 1) {
            assertThat(TcpOptions.forThreads(1).spinReads()).isEqualTo(TcpOptions.DEFAULT_SPIN_READS);
        }
        TcpOptions bound = TcpOptions.forThreads(2, 2, 1);
        assertThat(bound.spinReads()).as("bound to one CPU: never spin").isZero();
        assertThat(bound.yieldReads()).as("but yield before blocking").isEqualTo(TcpOptions.DEFAULT_YIELD_READS);
        assertThat(TcpOptions.forThreads(TcpOptions.BLOCK_BEYOND_THREADS_PER_CORE + 1, 2, 1))
                .as("bound, hundreds of threads: block at once").isEqualTo(TcpOptions.blocking());
        assertThat(TcpOptions.blocking().yieldReads()).isZero();
        int cores = Runtime.getRuntime().availableProcessors();
        assertThat(TcpOptions.forThreads(TcpOptions.BLOCK_BEYOND_THREADS_PER_CORE * cores + 1))
                .as("hundreds of threads a core: block at once").isEqualTo(TcpOptions.blocking());
        if (cores > 1) {
            assertThat(TcpOptions.forThreads(4 * cores).yieldReads()).as("a few a core: yield first")
                    .isEqualTo(TcpOptions.DEFAULT_YIELD_READS);
        }
    }
}
