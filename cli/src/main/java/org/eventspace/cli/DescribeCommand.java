package org.eventspace.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapConfig;
import org.eventspace.comm.pathmap.PathmapDescription;
import org.eventspace.job.JobConfig;
import org.eventspace.job.PollMode;
import org.eventspace.comm.path.Condition;
import org.eventspace.wan.cluster.ClusterAllreduce;
import org.eventspace.wan.cluster.MultiClusterLayer;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code eventspace describe}: which wrapper runs on which host, and which path passes through it. It takes the layout
 * flags only ({@link LayoutOptions}); how a run goes (iterations, payload, timeout, report…) changes no wrapper, so
 * those flags are unknown here and picocli refuses them.
 */
@Command(name = "describe", mixinStandardHelpOptions = true,
        description = "Print a pathmap (from --config or the --ranks/--hosts/--clusters/--tree shortcuts) as text or JSON; "
                + "--as-run adds the event collectors and the event scope a run with the same flags lays over it.")
final class DescribeCommand implements Callable<Integer> {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec command;

    @Mixin
    LayoutOptions layout;

    @Option(names = "--format", defaultValue = "text", description = "text or json (eventspace.pathmap-layout/1). Default: ${DEFAULT-VALUE}.")
    String format;

    @Option(names = "--save", description = "Also write the pathmap as an eventspace.pathmap/1 configuration file.")
    Path save;

    @Option(names = "--as-run", description = "Describe the pathmap a run with these flags uses: with its event collectors "
            + "(--collectors, --collect-kinds, --collect-trees) and its event scope (--scope, --gather, --filter) as wrappers.")
    boolean asRun;

    @Option(names = "--allreduce", paramLabel = "MODE", description = "The multi-cluster trees of run noise-allreduce|sor "
            + "--allreduce MODE: sequential (the plain hier tree), magpie or conditional (a tree per cluster ending at its "
            + "cluster root, and the prefetch paths between the roots; docs/MULTI-CLUSTER.md). Needs --clusters C >= 2 for "
            + "magpie and conditional.")
    String allreduce;

    @Override
    public Integer call() throws Exception {
        if (!format.equals("text") && !format.equals("json")) {
            throw new UsageError("--format must be text or json, got " + format);
        }
        if (save != null) {
            OutputFiles.checkWritable(save, "--save");
        }
        // The run's own defaults for what describe does not take: the timeout only enters the scope's nodes.
        JobConfig job = layout.toJob(java.time.Duration.ofSeconds(30), PollMode.AUTO, 0, null);
        if (allreduce != null) {
            ClusterAllreduce mode;
            try {
                mode = ClusterAllreduce.parse(allreduce);
            } catch (IllegalArgumentException e) {
                throw new UsageError("--allreduce: " + e.getMessage());
            }
            if (mode != ClusterAllreduce.SEQUENTIAL) {
                if (job.spec().topology().clusters().size() < 2) {
                    throw new UsageError("--allreduce " + mode + " joins clusters and needs --clusters C >= 2");
                }
                // The condition and constant are node properties of the cluster roots; the layout does not depend on them.
                job = job.withExtension(new MultiClusterLayer(mode, Condition.GREATER, 0, job.extension()));
            }
        }
        for (String ignored : ignoredFlags()) {
            command.commandLine().getErr().println("eventspace: describe: " + ignored);
        }
        // Without --as-run: the trees, with the WAN's gateways when --wan names a link file (the layout, not the monitoring).
        Pathmap pathmap = asRun ? job.pathmap() : job.extension() != null
                ? job.extension().place(PathmapBuilder.build(job.spec())) : PathmapBuilder.build(job.spec());
        java.io.PrintWriter out = command.commandLine().getOut();
        out.print(format.equals("text") ? PathmapDescription.text(pathmap) : PathmapDescription.toJson(pathmap));
        out.flush();
        if (save != null) {
            Files.writeString(save, PathmapConfig.write(job.spec()));
        }
        return EventSpaceCommand.EXIT_OK;
    }

    /** What a flag given here does not change in what describe prints, one warning each. */
    private List<String> ignoredFlags() {
        picocli.CommandLine.ParseResult given = command.commandLine().getParseResult();
        List<String> warnings = new ArrayList<>();
        if (given.hasMatchedOption("--transport")) {
            warnings.add("--transport " + layout.transport + " does not change the pathmap (the same wrappers run in one "
                    + "JVM or in processes); ignored");
        }
        if (!asRun) {
            for (String flag : LayoutOptions.MONITORING_FLAGS) {
                // --scope-hosts adds hosts to the layout itself, and it needs --scope: then --scope is not idle.
                boolean needed = flag.equals("--scope") && layout.scopeHosts > 0;
                if (given.hasMatchedOption(flag) && !needed) {
                    warnings.add(flag + " only changes what describe prints with --as-run; ignored");
                }
            }
        }
        return warnings;
    }
}
