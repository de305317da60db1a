package org.eventspace.run;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.eventspace.base.json.Json;
import org.eventspace.comm.launch.Launcher;
import org.eventspace.job.HostResult;


/**
 * Runs one in-JVM benchmark in a JVM of its own and reads its report back: what {@link CollectorOverhead} uses so
 * that the runs it compares do not share a JIT. In one JVM the wrapper call sites see collectors in some runs and
 * not in others, and the compiled code of one run shapes the next (docs/BENCHMARKS.md: +21 … +601 % over 15 pairs in
 * one process). A TCP run already starts its host processes afresh.
 *
 * <p>The child prints one {@link HostResult} line, as a TCP host process reports. Not thread-safe; waits at most the run's limit and then destroys the child.
 */
public final class ForkedRun {
    private ForkedRun() {
    }

    /** Runs {@code config} (transport jvm) in a child JVM and returns its report; a child that fails is reported, not thrown. */
    public static RunReport run(RunConfig config) {
        List<String> command = Launcher.javaCommand(ForkedRun.class.getName(), List.of(RunConfigCodec.encode(config)));
        long limitMillis = config.rankLimit().toMillis();
        List<String> errors = new ArrayList<>();
        try {
            Process child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            child.getOutputStream().close();
            String out = readAll(child.getInputStream());
            if (!child.waitFor(limitMillis, TimeUnit.MILLISECONDS)) {
                child.destroyForcibly();
                errors.add("forked run did not end within " + limitMillis + " ms");
            }
            String last = null;
            for (String line : out.split("\n")) {
                if (line.startsWith("{")) {
                    last = line;
                }
            }
            if (last == null) {
                errors.add("forked run printed no result (exit code " + child.exitValue() + ")");
                return new RunReport(config, List.of(), errors);
            }
            HostResult result = HostResult.decode(Json.mapper(), last);
            return new RunReport(config, WorkloadRanks.decodeRanks(result.program()), errors, result.traces(), result.scope());
        } catch (IOException | RuntimeException e) {
            errors.add("forked run failed: " + e.getMessage());
            return new RunReport(config, List.of(), errors);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            errors.add("interrupted while waiting for the forked run");
            return new RunReport(config, List.of(), errors);
        }
    }

    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        in.transferTo(bytes);
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** The child: runs the configuration in this JVM and prints its result line. */
    public static void main(String[] args) {
        if (args.length != 1) {
            System.err.println("usage: ForkedRun <encoded run configuration>");
            System.exit(2);
        }
        RunConfig config = RunConfigCodec.decode(args[0]);
        RunReport report = RunEngine.inJvm(config, RunEngine.Watcher.NONE);
        // Every error of an in-JVM run is one the parent's report derives again from the ranks and the scope block.
        System.out.println(new HostResult(report.traces(), report.scope(), WorkloadRanks.encodeRanks(report.rankResults()))
                .encode(Json.mapper()));
        System.exit(report.resultOk() ? 0 : 1);
    }
}
