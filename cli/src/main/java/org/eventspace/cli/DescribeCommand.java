package org.eventspace.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import org.eventspace.bench.Benchmark;
import org.eventspace.bench.RunConfig;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapConfig;
import org.eventspace.comm.pathmap.PathmapDescription;
import org.eventspace.comm.pathmap.PathmapSpec;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code eventspace describe}: which wrapper runs on which host, and which path passes through it. */
@Command(name = "describe", mixinStandardHelpOptions = true,
        description = "Print a pathmap (from --config or the --ranks/--hosts/--clusters/--tree shortcuts) as text or JSON.")
final class DescribeCommand implements Callable<Integer> {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec command;

    @Mixin
    RunOptions options;

    @Option(names = "--format", defaultValue = "text", description = "text or json (eventspace.pathmap-layout/1). Default: ${DEFAULT-VALUE}.")
    String format;

    @Option(names = "--save", description = "Also write the pathmap as an eventspace.pathmap/1 configuration file.")
    Path save;

    @Option(names = "--as-run", description = "Describe the pathmap a run with these flags uses: with its event collectors "
            + "(--collectors, --collect-kinds, --collect-trees) and its event scope (--scope, --gather, --filter) as wrappers.")
    boolean asRun;

    @Override
    public Integer call() throws Exception {
        if (!format.equals("text") && !format.equals("json")) {
            throw new UsageError("--format must be text or json, got " + format);
        }
        RunConfig config = options.toConfig(Benchmark.GSUM);
        PathmapSpec spec = config.spec();
        Pathmap pathmap = asRun ? config.pathmap() : PathmapBuilder.build(spec);
        java.io.PrintWriter out = command.commandLine().getOut();
        out.print(format.equals("text") ? PathmapDescription.text(pathmap) : PathmapDescription.toJson(pathmap));
        out.flush();
        if (save != null) {
            Files.writeString(save, PathmapConfig.write(spec));
        }
        return EventSpaceCommand.EXIT_OK;
    }
}
