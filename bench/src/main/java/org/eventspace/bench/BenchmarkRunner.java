package org.eventspace.bench;

/** Runs a benchmark on the transport its configuration names. */
public final class BenchmarkRunner {
    private BenchmarkRunner() {
    }

    public static RunReport run(RunConfig config) {
        return switch (config.transport()) {
            case "jvm" -> InJvmRunner.run(config);
            case "tcp" -> TcpRunner.run(config);
            default -> throw new IllegalArgumentException("unknown transport " + config.transport());
        };
    }
}
