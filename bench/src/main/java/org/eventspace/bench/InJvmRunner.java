package org.eventspace.bench;

import java.util.stream.IntStream;

import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.transport.jvm.InJvmCluster;

/**
 * Runs a benchmark on a simulated cluster in this JVM: one thread per rank, every host with its own elements
 * and service threads. A rank that fails is reported with its error; the run never waits longer than the
 * collective timeout plus the time the iterations may take.
 */
public final class InJvmRunner {
    private InJvmRunner() {
    }

    public static RunReport run(RunConfig config) {
        Pathmap pathmap = config.pathmap();
        CommOptions options = CommOptions.defaults(RankThreads.busyThreads(pathmap)).withTimeout(config.timeout());
        try (InJvmCluster cluster = InJvmCluster.start(pathmap, options)) {
            return new RunReport(config, RankThreads.run(IntStream.range(0, config.ranks()).boxed().toList(), cluster::comm, config));
        }
    }
}
