package org.eventspace.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

import org.eventspace.fuzz.FuzzFormat;
import org.eventspace.fuzz.FuzzRunner;
import org.eventspace.fuzz.FuzzSuite;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code eventspace bench fuzz}: damaged inputs of every format the project reads (pathmap files, job and run
 * configuration lines, trace dumps, TCP handshakes and frames against a real server, rendezvous messages against a real
 * rendezvous, WAN files, trace files, run reports, topology files, HTTP requests against a live dashboard) checked for escaped exceptions, hangs, running out of memory and unbounded error text
 * (docs/RELIABILITY.md). Exit 0 if no case failed, 1 if one did, 2 for a bad flag.
 */
@Command(name = "fuzz", mixinStandardHelpOptions = true,
        description = "Fuzz the project's input formats: each case damages a valid input and checks that the code reading "
                + "it refuses it in the documented way, within its time bound, with bounded messages. Cases are split "
                + "evenly over the formats; case i of a format has seed S + i, so --format F --seed S --cases 1 replays "
                + "one. Prints a failure as it happens (a file's input saved to a folder beside its replay command) and a summary "
                + "table.")
final class FuzzCommand implements Callable<Integer> {
    /** The most cases one command runs: 10^9, far beyond a day of fuzzing on these machines. */
    static final long MAX_CASES = 1_000_000_000L;

    @Option(names = "--cases", defaultValue = "1000", description = "Cases in all, split over the formats. Default: ${DEFAULT-VALUE}.")
    long cases;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of each format's first case. Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--format", defaultValue = "all",
            description = "all, pathmap, job-config, run-config, trace-dump, tcp, rendezvous, wan, trace-file, run-report, "
                    + "topology or http. Default: ${DEFAULT-VALUE}.")
    String format;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (cases < 1 || cases > MAX_CASES) {
            throw new UsageError("--cases must be 1.." + MAX_CASES + ", got " + cases);
        }
        if (seed < 0 || seed > Long.MAX_VALUE - cases) {
            throw new UsageError("--seed must be 0.." + (Long.MAX_VALUE - cases) + " (the last case's seed is seed + cases"
                    + " - 1), got " + seed);
        }
        List<FuzzFormat> formats;
        try {
            formats = FuzzSuite.formats(format);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--format: " + e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        err.printf("bench fuzz: %d cases over %s from seed %d%n", cases, format, seed);
        err.flush();
        List<FuzzRunner.FormatResult> results = FuzzSuite.run(formats, cases, seed, line -> {
            err.println(line);
            err.flush();
        });
        out.print(FuzzSuite.summary(results, seed));
        out.flush();
        return FuzzSuite.failures(results) == 0 ? EventSpaceCommand.EXIT_OK : EventSpaceCommand.EXIT_FAILURE;
    }
}
