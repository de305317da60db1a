package org.eventspace.bench;

import java.util.ArrayList;
import java.util.List;

import org.eventspace.comm.launch.JobEnvironment;
import org.eventspace.comm.launch.TcpHost;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.transport.tcp.TcpOptions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * One host process of a TCP benchmark run: joins the job named by the environment (ES_* variables from the
 * launcher, or mpirun/Slurm/PMI), runs its ranks as threads and reports their results as one JSON line,
 * a {@link ResultLine}. With collectors on, the host has its own
 * event space (trace files in {@code <traceDump>/host-<id>/} with a dump). Exit code 0 when every local rank
 * got the right results, 1 otherwise.
 */
public final class TcpHostMain {
    private TcpHostMain() {
    }

    public static void main(String[] args) {
        if (args.length != 1) {
            System.err.println("usage: TcpHostMain <encoded run configuration>");
            System.exit(2);
        }
        RunConfig config = RunConfigCodec.decode(args[0]);
        JobEnvironment env = JobEnvironment.current();
        Pathmap pathmap = config.pathmap();
        int busy = pathmap.busyThreads();
        CommOptions options = CommOptions.defaults(busy).withTimeout(config.timeout());
        TcpOptions tcp = switch (config.poll()) {
            case "spin" -> TcpOptions.defaults().withPolling(TcpOptions.DEFAULT_SPIN_READS, TcpOptions.DEFAULT_YIELD_READS);
            case "yield" -> TcpOptions.defaults();
            case "block" -> TcpOptions.blocking();
            default -> TcpOptions.forThreads(busy);
        };
        tcp = tcp.withSocketBuffers(config.socketBufferBytes(), config.socketBufferBytes());
        List<Integer> local = new ArrayList<>();
        for (int r = 0; r < config.ranks(); r++) {
            if (pathmap.spec().hostOf(r) == env.host()) {
                local.add(r);
            }
        }
        boolean ok;
        RunTracing tracing = null;
        List<RankResult> results = List.of();
        try {
            if (config.collectors()) {
                tracing = RunTracing.open(config, pathmap, List.of(env.host()), local.size());
                options = tracing.apply(options);
            }
            try (TcpHost host = TcpHost.start(pathmap, env, options, tcp)) {
                // The front-end host pulls the event scope while the ranks run; the other hosts serve its hops until
                // every host finished, so its last pulls, made before this host finishes, still reach them.
                ScopeMonitor monitor = config.scope() != null && env.host() == 0
                        ? ScopeMonitor.start(config.scope(), host.runtime()) : null;
                results = RankThreads.run(local, host::comm, config, tracing != null ? tracing : RankBenchmarks.TimedWindow.NONE);
                ok = results.stream().allMatch(RankResult::resultOk);
                ObjectMapper json = new ObjectMapper();
                JsonNode scope = monitor != null ? monitor.stop(json, config.timeout().toMillis() * 2) : null;
                // Every local rank returned; a tuple a service thread of this host writes for a remote rank's last
                // call may still be on its way (at most one per serving collector).
                List<HostTrace> traces = tracing != null ? tracing.results() : List.of();
                host.finish(new ResultLine(results, traces, scope).encode(json));
            }
        } catch (RuntimeException e) {
            System.err.println("host " + env.host() + ": " + e.getMessage());
            ok = false;
        } finally {
            if (tracing != null) {
                tracing.close(RankThreads.allReturned(results));
            }
        }
        System.exit(ok ? 0 : 1);
    }
}
