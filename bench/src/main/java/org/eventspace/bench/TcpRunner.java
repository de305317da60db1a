package org.eventspace.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.eventspace.comm.launch.Launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Runs a benchmark with one process per host on this machine, joined by TCP: launches {@link TcpHostMain} once
 * per host through the {@link Launcher} (secret, rendezvous), and merges the rank results (and, with
 * collectors on, the event-space figures) each host reports. With a trace dump, each host process writes its
 * own {@code host-<id>/} trace files and this process writes {@code pathmap.json}.
 * A host that fails is reported with its exit code and last lines of output; nothing already measured by the
 * others is dropped.
 */
public final class TcpRunner {
    private TcpRunner() {
    }

    public static RunReport run(RunConfig config) {
        Duration limit = config.timeout().multipliedBy(4).plus(Duration.ofMinutes(30));
        List<String> command = Launcher.javaCommand(TcpHostMain.class.getName(), List.of(RunConfigCodec.encode(config)));
        Launcher.Result result = Launcher.launch(config.hosts(), command, Map.of(), limit);
        List<RankResult> ranks = new ArrayList<>();
        List<HostTrace> traces = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        JsonNode scope = null;
        ObjectMapper json = new ObjectMapper();
        for (Launcher.HostResult host : result.hosts()) {
            if (host.resultLine() == null) {
                errors.add("host " + host.host() + " reported no result (exit code " + host.exitCode() + ")"
                        + (host.stderrTail().isEmpty() ? "" : ": " + String.join(" | ", host.stderrTail())));
                continue;
            }
            try {
                ResultLine line = ResultLine.decode(json, host.resultLine());
                ranks.addAll(line.ranks());
                traces.addAll(line.traces());
                if (line.scope() != null) {
                    scope = line.scope();
                }
            } catch (IllegalArgumentException e) {
                errors.add("host " + host.host() + " sent a malformed result: " + e.getMessage());
            }
        }
        if (!result.succeeded() && result.failure() != null) {
            errors.add(result.failure());
        }
        ranks.sort((a, b) -> Integer.compare(a.rank(), b.rank()));
        traces.sort((a, b) -> Integer.compare(a.host(), b.host()));
        if (config.traceDump() != null) {
            RunTracing.writePathmap(config.traceDump(), config.pathmap());
        }
        return new RunReport(config, ranks, errors, traces, scope);
    }
}
