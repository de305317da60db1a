package org.eventspace.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.eventspace.comm.Comm;
import org.eventspace.comm.launch.JobEnvironment;
import org.eventspace.comm.launch.TcpHost;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
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
        int busy = busyThreads(pathmap);
        CommOptions options = CommOptions.defaults(busy).withTimeout(config.timeout());
        TcpOptions tcp = switch (config.poll()) {
            case "spin" -> TcpOptions.defaults().withPolling(TcpOptions.DEFAULT_SPIN_READS, TcpOptions.DEFAULT_YIELD_READS);
            case "yield" -> TcpOptions.defaults();
            case "block" -> TcpOptions.blocking();
            default -> TcpOptions.forThreads(busy);
        };
        boolean ok;
        try (TcpHost host = TcpHost.start(pathmap, env, options, tcp)) {
            List<RankResult> results = runRanks(host, config);
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

    /** Threads of the whole job that may run or poll at once: every rank, and every service thread of a hop. */
    static int busyThreads(Pathmap pathmap) {
        int hops = 0;
        for (Node n : pathmap.nodes()) {
            if (n.kind().equals(PathmapBuilder.PROXY)) {
                hops++;
            }
        }
        return pathmap.spec().ranks() + hops;
    }

    private static List<RankResult> runRanks(TcpHost host, RunConfig config) {
        List<Integer> ranks = host.ranks();
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, ranks.size()), r -> {
            Thread t = new Thread(r, "es-rank");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<RankResult>> futures = new ArrayList<>();
            for (int rank : ranks) {
                Comm comm = host.comm(rank);
                futures.add(pool.submit(() -> RankBenchmarks.run(comm, config)));
            }
            List<RankResult> results = new ArrayList<>();
            for (int i = 0; i < ranks.size(); i++) {
                results.add(await(futures.get(i), ranks.get(i), config));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    private static RankResult await(Future<RankResult> future, int rank, RunConfig config) {
        try {
            return future.get(config.timeout().toMillis() * 4 + TimeUnit.MINUTES.toMillis(30), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return RankResult.failed(rank, cause.getMessage());
        } catch (TimeoutException e) {
            future.cancel(true);
            return RankResult.failed(rank, "did not finish before the run's deadline");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return RankResult.failed(rank, "interrupted");
        }
    }
}
