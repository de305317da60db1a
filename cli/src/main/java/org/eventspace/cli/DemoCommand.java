package org.eventspace.cli;


import java.util.concurrent.Callable;

import org.eventspace.bench.Benchmark;
import org.eventspace.bench.BenchmarkRunner;
import org.eventspace.bench.RunConfig;
import org.eventspace.bench.RunReport;
import org.eventspace.comm.pathmap.PathmapDescription;

import picocli.CommandLine.Command;

/** {@code eventspace demo}: gsum on a simulated 4-host cluster in this JVM, with a readable summary. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run gsum on a simulated 4-host cluster in this JVM and print what happened.")
final class DemoCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        RunOptions options = new RunOptions();
        options.layout.ranks = 8;
        options.layout.hosts = 4;
        options.layout.clusters = 1;
        options.layout.transport = "jvm";
        options.layout.tree = "hier:2";
        options.iterations = 20_000;
        options.warmup = 10_000;
        options.warmupSeconds = 1;
        options.bytes = 8;
        options.timeoutSeconds = 30;
        options.poll = "auto";
        options.socketBufferBytes = 0;
        options.layout.collectors = "on";
        // An event scope over the 4 hosts, pulled every 200 ms: per event, statistics across the ranks.
        options.layout.scope = "hier:2";
        options.layout.gather = "seq";
        options.layout.filter = "stats";
        options.layout.scopeIntervalMs = 200;
        RunConfig config = options.toConfig(Benchmark.GSUM);
        System.out.println("EventSpace demo: 8 ranks (threads) on 4 simulated hosts (2 ranks each), hier:2 trees,");
        System.out.println("two identical trees alternated, 8-byte sums; every hop between hosts is handed to that host's service thread.");
        System.out.println();
        String layout = PathmapDescription.text(config.pathmap());
        int tree1 = layout.indexOf("\nTree 1");
        System.out.println(tree1 > 0 ? layout.substring(0, tree1) : layout);
        System.out.println("(./eventspace describe --ranks 8 --hosts 4 --tree hier:2 shows every path)");
        System.out.println();
        RunReport report = BenchmarkRunner.run(config);
        System.out.print(report.summary());
        return report.resultOk() ? EventSpaceCommand.EXIT_OK : EventSpaceCommand.EXIT_FAILURE;
    }
}
