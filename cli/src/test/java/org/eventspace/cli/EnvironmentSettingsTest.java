package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.eventspace.comm.launch.Launcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Our environment variables, set to values that cannot be used: a usage error naming the variable, before any process starts. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EnvironmentSettingsTest {
    @Test
    void aBadProgressPeriodIsAUsageErrorNamingIt() throws Exception {
        Output out = run("ES_PROGRESS_S", "soon", "run", "gsum", "--ranks", "2", "--iterations", "10");
        assertThat(out.exitCode).as(out.text).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(out.text).contains("eventspace: ES_PROGRESS_S=soon: expected whole seconds").doesNotContain("run failed")
                .doesNotContain("Exception");
    }

    @Test
    void aHostJavaOptionThatIsNotOneIsAUsageErrorAndNoHostStarts() throws Exception {
        Output out = run(Launcher.HOST_JAVA_OPTS, "-Xlog:gc stderr", "run", "gsum", "--ranks", "2", "--hosts", "2",
                "--transport", "tcp", "--iterations", "10");
        assertThat(out.exitCode).as(out.text).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(out.text).contains("eventspace: ES_HOST_JAVA_OPTS: 'stderr' is not a JVM option")
                .doesNotContain("[host ").doesNotContain("run failed");
    }

    private record Output(int exitCode, String text) {
    }

    /** Runs the eventspace command in a JVM of its own with {@code name=value} in its environment. */
    private static Output run(String name, String value, String... args) throws IOException, InterruptedException {
        List<String> command = Launcher.javaCommand(EventSpaceCommand.class.getName(), List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put(name, value);
        Process p = builder.start();
        p.getOutputStream().close();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("eventspace did not end within 60 s: " + text);
        }
        return new Output(p.exitValue(), text);
    }
}
