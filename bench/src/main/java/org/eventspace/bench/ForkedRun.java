package org.eventspace.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.eventspace.comm.launch.Launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Runs one in-JVM benchmark in a JVM of its own and reads its report back: what {@link CollectorOverhead} uses so
 * that the runs it compares do not share a JIT. In one JVM the wrapper call sites see collectors in some runs and
 * not in others, and the compiled code of one run shapes the next (docs/BENCHMARKS.md: +21 … +601 % over 15 pairs in
 * one process). A TCP run already starts its host processes afresh.
 *
 * <p>The child prints one JSON line, {@code {"ranks": [rank results], "traces": [host traces], "scope": …}}, as a TCP
 * host process does. Not thread-safe; waits at most the run's limit and then destroys the child.
 */
public final class ForkedRun {
    private ForkedRun() {
    }

    /** Runs {@code config} (transport jvm) in a child JVM and returns its report; a child that fails is reported, not thrown. */
    public static RunReport run(RunConfig config) {
        List<String> command = Launcher.javaCommand(ForkedRun.class.getName(), List.of(RunConfigCodec.encode(config)));
        long limitMillis = config.timeout().multipliedBy(4).toMillis() + TimeUnit.MINUTES.toMillis(30);
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
            JsonNode result = new ObjectMapper().readTree(last);
            List<RankResult> ranks = new ArrayList<>();
            result.path("ranks").forEach(r -> ranks.add(RankResult.fromJson(r)));
            List<HostTrace> traces = new ArrayList<>();
            result.path("traces").forEach(t -> traces.add(HostTrace.fromJson(t)));
            return new RunReport(config, ranks, errors, traces, result.hasNonNull("scope") ? result.get("scope") : null);
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
        RunReport report = InJvmRunner.run(config);
        ObjectMapper json = new ObjectMapper();
        ObjectNode line = json.createObjectNode();
        ArrayNode ranks = line.putArray("ranks");
        report.rankResults().forEach(r -> ranks.add(r.toJson(json)));
        ArrayNode traces = line.putArray("traces");
        report.traces().forEach(t -> traces.add(t.toJson(json)));
        // Every error of an in-JVM run is one the parent's report derives again from the ranks and the scope block.
        if (report.scope() != null) {
            line.set("scope", report.scope());
        }
        System.out.println(line);
        System.exit(report.resultOk() ? 0 : 1);
    }
}
