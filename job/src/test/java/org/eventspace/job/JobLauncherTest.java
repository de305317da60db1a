package org.eventspace.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/** The time host processes may take to register grows with how many start at once on how few cores. */
class JobLauncherTest {
    @Test
    void aFewHostsGetTheFixedSlack() {
        assertThat(JobLauncher.registrationSlack(2, 2)).isEqualTo(JobLauncher.REGISTRATION_SLACK);
        assertThat(JobLauncher.registrationSlack(16, 2)).isEqualTo(JobLauncher.REGISTRATION_SLACK);
    }

    @Test
    void manyHostsOnFewCoresGetTheirStartsCpuTimeShared() {
        assertThat(JobLauncher.registrationSlack(64, 2)).isEqualTo(Duration.ofSeconds(64));
        assertThat(JobLauncher.registrationSlack(64, 16)).isEqualTo(JobLauncher.REGISTRATION_SLACK);
        assertThat(JobLauncher.registrationSlack(64, 0)).as("no core count: one core").isEqualTo(Duration.ofSeconds(128));
    }
}
