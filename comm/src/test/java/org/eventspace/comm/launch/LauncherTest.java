package org.eventspace.comm.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 90, unit = TimeUnit.SECONDS)
class LauncherTest {
    private static final long LAST_SUM = 4L * 3 / 2 + 4L * (AllreduceJob.ALLREDUCES - 1);

    @Test
    void twoChildJvmsAllreduceOverTcpAndReportTheirResults() {
        Launcher.Result result = Launcher.launch(2, Launcher.javaCommand(AllreduceJob.class), Map.of(), Duration.ofSeconds(60));
        assertThat(result.failure()).isNull();
        assertThat(result.exitCode()).isZero();
        assertThat(result.resultLines()).containsExactly(
                "{\"host\":0,\"ranks\":2,\"sum\":" + LAST_SUM + "}",
                "{\"host\":1,\"ranks\":2,\"sum\":" + LAST_SUM + "}");
        assertThat(result.hosts()).extracting(Launcher.HostResult::exitCode).containsExactly(0, 0);
        // Every phase of a job that ended well, in order, each after the one before, named by the host that ended it.
        LaunchPhases phases = result.phases();
        assertThat(phases.phases()).extracting(LaunchPhases.Phase::name).containsExactly(LaunchPhases.START,
                TcpHost.BUILT_BARRIER, TcpHost.CONNECTED_BARRIER, LaunchPhases.RUN, LaunchPhases.RESULTS, LaunchPhases.EXIT);
        double end = 0;
        for (LaunchPhases.Phase p : phases.phases()) {
            assertThat(p.endS()).as(p.name()).isCloseTo(end + p.seconds(), within(1e-9));
            assertThat(p.host()).as(p.name()).isBetween(0, 1);
            end = p.endS();
        }
        assertThat(phases.resultBytes()).isEqualTo(result.resultLines().stream().mapToLong(String::length).sum());
        assertThat(phases.helloMedianS()).isPositive().isLessThanOrEqualTo(phases.helloMaxS())
                .isLessThanOrEqualTo(phases.phase(LaunchPhases.START).endS());
    }

    @Test
    void aHostJavaOptionThatIsNotOneIsRefusedNamingTheVariable() {
        assertThat(Launcher.hostJavaOptions(" -Xlog:gc   -XX:+UseSerialGC ")).containsExactly("-Xlog:gc", "-XX:+UseSerialGC");
        assertThat(Launcher.hostJavaOptions("  ")).isEmpty();
        assertThatThrownBy(() -> Launcher.hostJavaOptions("-Xmx1g gc"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(Launcher.HOST_JAVA_OPTS)
                .hasMessageContaining("'gc' is not a JVM option");
    }

    @Test
    void aKilledHostIsReportedAndTheSurvivorFailsOnItsOwn() {
        long start = System.nanoTime();
        Launcher.Result result = Launcher.launch(2, Launcher.javaCommand(AllreduceJob.class, "dieAfter=50"), Map.of(),
                Duration.ofSeconds(60));
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        assertThat(result.exitCode()).isEqualTo(3);
        assertThat(result.failure()).startsWith("host 1 exited with code 3");
        // Host 0 noticed the lost host and exited with its own error code, well before the launcher would kill it.
        Launcher.HostResult survivor = result.hosts().get(0);
        assertThat(survivor.exitCode()).isEqualTo(2);
        assertThat(String.join("\n", survivor.stderrTail())).contains("host 0 failed").contains("CommException")
                .contains("disconnected");
        assertThat(result.resultLines()).containsOnlyNulls();
        assertThat(seconds).isLessThan(20);
    }

    @Test
    void aJobThatOverrunsItsTimeoutIsStopped() {
        long start = System.nanoTime();
        Launcher.Result result = Launcher.launch(2, List.of("sleep", "60"), Map.of(), Duration.ofSeconds(1));
        assertThat(result.exitCode()).isEqualTo(Launcher.TIMEOUT_EXIT_CODE);
        assertThat(result.failure()).startsWith("timed out after 1000 ms with hosts [0, 1] still running")
                .endsWith("hosts [0, 1] were stopped");
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).isLessThan(15);
    }

    @Test
    void aCommandThatCannotStartIsReported() {
        Launcher.Result result = Launcher.launch(2, List.of("/nonexistent/es-binary"), Map.of(), Duration.ofSeconds(5));
        assertThat(result.exitCode()).isEqualTo(127);
        assertThat(result.failure()).startsWith("could not start host 0");
        assertThat(result.phases().phases()).as("no process registered: no phase was reached").isEmpty();
    }
}
