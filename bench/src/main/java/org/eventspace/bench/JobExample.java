package org.eventspace.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.eventspace.comm.Comm;
import org.eventspace.comm.launch.JobEnvironment;
import org.eventspace.comm.launch.TcpHost;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.transport.tcp.TcpOptions;

/**
 * The smallest real EventSpace job: each host process runs {@code ranksPerHost} rank threads that allreduce
 * {@code iterations} times and check the sums. Starts under {@code eventspace launch}, {@code mpirun} or
 * {@code srun} alike — {@link JobEnvironment} reads whichever launcher's variables are set; a
 * {@code --rendezvous host:port} argument wins over {@code ES_RENDEZVOUS}.
 *
 * <pre>
 *   ./eventspace launch -n 3 -- org.eventspace.bench.JobExample 2 1000
 *   mpirun -np 3 -x ES_SECRET=$(openssl rand -hex 32) -x ES_RENDEZVOUS_PORT=47000 \
 *       java -cp cli/target/eventspace.jar org.eventspace.bench.JobExample 2 1000
 *   srun -n 3 env ES_SECRET=... java -cp eventspace.jar org.eventspace.bench.JobExample 2 1000 --rendezvous node0:47000
 * </pre>
 */
public final class JobExample {
    private JobExample() {
    }

    public static void main(String[] args) throws Exception {
        List<String> positional = new ArrayList<>();
        String rendezvous = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--rendezvous") && i + 1 < args.length) {
                rendezvous = args[++i];
            } else {
                positional.add(args[i]);
            }
        }
        int ranksPerHost = positional.size() > 0 ? Integer.parseInt(positional.get(0)) : 2;
        int iterations = positional.size() > 1 ? Integer.parseInt(positional.get(1)) : 1_000;
        JobEnvironment env = JobEnvironment.from(System.getenv(), rendezvous);
        int ranks = env.hosts() * ranksPerHost;
        Pathmap pathmap = PathmapBuilder.build(RunConfig.shortcut(ranks, env.hosts(), 1, TreeShape.hier(8)));
        int busy = pathmap.busyThreads();
        try (TcpHost host = TcpHost.start(pathmap, env, CommOptions.defaults(busy), TcpOptions.forThreads(busy))) {
            ExecutorService pool = Executors.newFixedThreadPool(ranksPerHost);
            List<Future<Boolean>> ok = new ArrayList<>();
            long start = System.nanoTime();
            for (int rank : host.ranks()) {
                Comm comm = host.comm(rank);
                ok.add(pool.submit(() -> {
                    boolean right = true;
                    for (int i = 0; i < iterations; i++) {
                        right &= comm.allreduce((long) comm.rank() + i, ReduceOp.SUM)
                                == RankBenchmarks.expectedSum(comm.size(), i);
                    }
                    return right;
                }));
            }
            boolean all = true;
            for (Future<Boolean> f : ok) {
                all &= f.get(10, TimeUnit.MINUTES);
            }
            double us = (System.nanoTime() - start) / 1e3 / iterations;
            pool.shutdown();
            System.out.printf(Locale.ROOT, "host %d of %d (%s): ranks %s, %d allreduces, %.2f µs each, sums %s%n", env.host(),
                    env.hosts(), env.source(), host.ranks(), iterations, us, all ? "exact" : "WRONG");
            host.finish(all ? "ok" : "wrong");
            if (!all) {
                System.exit(1);
            }
        }
    }
}
