package org.eventspace.comm.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class CpuBindingTest {
    @Test
    void hostsGoRoundTheCpus() {
        assertThat(CpuBinding.cpuOf(0, 2)).isZero();
        assertThat(CpuBinding.cpuOf(1, 2)).isEqualTo(1);
        assertThat(CpuBinding.cpuOf(5, 2)).isEqualTo(1);
        assertThat(CpuBinding.cpuOf(3, 1)).isZero();
    }

    @Test
    void noneLeavesTheCommandAlone() {
        List<String> command = List.of("java", "-version");
        assertThat(CpuBinding.NONE.command(command, 3)).isSameAs(command);
    }

    @Test
    void parseNamesWhatWasGiven() {
        assertThat(CpuBinding.parse("core")).isEqualTo(CpuBinding.CORE);
        assertThatThrownBy(() -> CpuBinding.parse("socket")).hasMessageContaining("'socket'")
                .hasMessageContaining("none or core");
    }

    /** The bound command really runs on one CPU: the child reads its own allowed-CPU list from the kernel. */
    @Test
    void aBoundProcessRunsOnItsCpuOnly() throws Exception {
        int cpus = Runtime.getRuntime().availableProcessors();
        int host = cpus > 1 ? 1 : 0;
        List<String> command = CpuBinding.CORE.command(List.of("grep", "Cpus_allowed_list", "/proc/self/status"), host);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).matches("Cpus_allowed_list:\\s+" + CpuBinding.cpuOf(host, cpus));
    }

    /** A launched job under CORE binding runs and ends like an unbound one. */
    @Test
    void aBoundJobRuns() {
        Launcher.Result result = Launcher.launch(2, Launcher.javaCommand(AllreduceJob.class), Map.of(),
                Duration.ofSeconds(60), null, CpuBinding.CORE);
        assertThat(result.succeeded()).as(String.valueOf(result.failure())).isTrue();
    }
}
