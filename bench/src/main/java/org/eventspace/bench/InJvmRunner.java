package org.eventspace.bench;

import java.util.List;
import java.util.stream.IntStream;

import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.runtime.InJvmCluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Runs a benchmark on a simulated cluster in this JVM: one thread per rank, every host with its own elements
 * and service threads and, with collectors on, its own event space. A rank that fails is reported with its
 * error; the run never waits longer than the collective timeout plus the time the iterations may take.
 */
public final class InJvmRunner {
    private InJvmRunner() {
    }

    public static RunReport run(RunConfig config) {
        Pathmap pathmap = config.pathmap();
        CommOptions options = CommOptions.defaults(pathmap.busyThreads()).withTimeout(config.timeout());
        List<Integer> ranks = IntStream.range(0, config.ranks()).boxed().toList();
        if (!config.collectors()) {
            try (InJvmCluster cluster = InJvmCluster.start(pathmap, options)) {
                return new RunReport(config, RankThreads.run(ranks, cluster::comm, config));
            }
        }
        RunTracing tracing = RunTracing.open(config, pathmap, IntStream.range(0, config.hosts()).boxed().toList(), ranks.size());
        List<RankResult> results = List.of();
        try {
            JsonNode scope = null;
            try (InJvmCluster cluster = InJvmCluster.start(pathmap, tracing.apply(options))) {
                ScopeMonitor monitor = config.scope() != null ? ScopeMonitor.start(config.scope(), cluster.host(0)) : null;
                results = RankThreads.run(ranks, cluster::comm, config, tracing);
                if (monitor != null) {
                    scope = monitor.stop(new ObjectMapper(), config.timeout().toMillis() * 2);
                }
            }
            // The cluster is closed: its service threads are gone, every tuple is in place.
            if (config.traceDump() != null) {
                RunTracing.writePathmap(config.traceDump(), pathmap);
            }
            return new RunReport(config, results, List.of(), tracing.results(), scope);
        } finally {
            tracing.close(RankThreads.allReturned(results));
        }
    }
}
