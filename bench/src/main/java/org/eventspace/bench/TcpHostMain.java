package org.eventspace.bench;

import java.util.List;

import org.eventspace.comm.launch.JobEnvironment;
import org.eventspace.comm.launch.TcpHost;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.transport.tcp.TcpOptions;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;

/**
 * One host process of a TCP benchmark run: joins the job named by the environment (ES_* variables from the
 * launcher, or mpirun/Slurm/PMI), runs its ranks as threads and reports their results as one JSON line.
 * Exit code 0 when every local rank got the right results, 1 otherwise.
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
        int busy = RankThreads.busyThreads(pathmap);
        CommOptions options = CommOptions.defaults(busy).withTimeout(config.timeout());
        TcpOptions tcp = switch (config.poll()) {
            case "spin" -> TcpOptions.defaults().withPolling(TcpOptions.DEFAULT_SPIN_READS, TcpOptions.DEFAULT_YIELD_READS);
            case "yield" -> TcpOptions.defaults();
            case "block" -> TcpOptions.blocking();
            default -> TcpOptions.forThreads(busy);
        };
        tcp = tcp.withSocketBuffers(config.socketBufferBytes(), config.socketBufferBytes());
        boolean ok;
        try (TcpHost host = TcpHost.start(pathmap, env, options, tcp)) {
            List<RankResult> results = RankThreads.run(host.ranks(), host::comm, config);
            ok = results.stream().allMatch(RankResult::resultOk);
            ObjectMapper json = new ObjectMapper();
            ArrayNode line = json.createArrayNode();
            results.forEach(r -> line.add(r.toJson(json)));
            host.finish(line.toString());
        } catch (RuntimeException e) {
            System.err.println("host " + env.host() + ": " + e.getMessage());
            ok = false;
        }
        System.exit(ok ? 0 : 1);
    }
}
