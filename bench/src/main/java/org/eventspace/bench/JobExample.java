package org.eventspace.bench;

import java.time.Duration;
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
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.runtime.WrapperKinds;
import org.eventspace.comm.transport.tcp.TcpOptions;
import org.eventspace.events.CollectorKind;
import org.eventspace.events.CollectorPlacement;
import org.eventspace.events.EventSpace;
import org.eventspace.events.TraceBudget;
import org.eventspace.scope.ScopeBuilder;
import org.eventspace.scope.ScopeHost;
import org.eventspace.scope.ScopeKinds;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The smallest real EventSpace job: each host process runs {@code ranksPerHost} rank threads that allreduce
 * {@code iterations} times and check the sums. Starts under {@code eventspace launch}, {@code mpirun} or
 * {@code srun} alike — {@link JobEnvironment} reads whichever launcher's variables are set; a
 * {@code --rendezvous host:port} argument wins over {@code ES_RENDEZVOUS}. With {@code --monitor} the job is
 * monitored as a run with {@code --scope} is: a collector on every edge, an event space per host process, and a
 * {@code stats} event scope that process 0 pulls every 100 ms while the ranks run; process 0 prints what it gathered.
 *
 * <pre>
 *   ./eventspace launch -n 3 -- org.eventspace.bench.JobExample 2 1000 [--monitor]
 *   mpirun -np 3 -x ES_SECRET=$(openssl rand -hex 32) -x ES_RENDEZVOUS_PORT=47000 \
 *       java -cp cli/target/eventspace.jar org.eventspace.bench.JobExample 2 1000
 *   srun -n 3 env ES_SECRET=... java -cp eventspace.jar org.eventspace.bench.JobExample 2 1000 --rendezvous node0:47000
 * </pre>
 */
public final class JobExample {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private JobExample() {
    }

    public static void main(String[] args) throws Exception {
        List<String> positional = new ArrayList<>();
        String rendezvous = null;
        boolean monitor = false;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--rendezvous") && i + 1 < args.length) {
                rendezvous = args[++i];
            } else if (args[i].equals("--monitor")) {
                monitor = true;
            } else {
                positional.add(args[i]);
            }
        }
        int ranksPerHost = positional.size() > 0 ? Integer.parseInt(positional.get(0)) : 2;
        int iterations = positional.size() > 1 ? Integer.parseInt(positional.get(1)) : 1_000;
        JobEnvironment env = JobEnvironment.from(System.getenv(), rendezvous);
        int ranks = env.hosts() * ranksPerHost;
        PathmapSpec spec = RunConfig.shortcut(ranks, env.hosts(), 1, TreeShape.hier(8));
        Pathmap plain = PathmapBuilder.build(spec);
        RunScope scope = new RunScope("flat", "seq", "stats", 100);
        Pathmap pathmap = monitor ? ScopeBuilder.add(CollectorPlacement.place(plain), scope.toSpec(TIMEOUT, spec)) : plain;
        int busy = pathmap.busyThreads();
        CommOptions options = CommOptions.defaults(busy);
        if (monitor) {
            EventSpace hostSpace = TraceBudget.open(pathmap, env.host(), null, EventSpace.DEFAULT_BUDGET_BYTES);
            options = options.withKinds(ScopeKinds.with(WrapperKinds.builtIn().with(new CollectorKind(h -> hostSpace)),
                    h -> ScopeHost.of(hostSpace)));
        }
        try (TcpHost host = TcpHost.start(pathmap, env, options, TcpOptions.forThreads(busy))) {
            ScopeMonitor scopeMonitor = monitor && env.host() == 0 ? ScopeMonitor.start(scope, host.runtime()) : null;
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
            if (scopeMonitor != null) {
                // Before this host finishes: the other hosts serve the scope's hops until every host did.
                JsonNode gathered = scopeMonitor.stop(new ObjectMapper(), TIMEOUT.toMillis());
                System.out.print(ScopeMonitor.summary(gathered));
                all &= !gathered.has("error");
            }
            System.out.printf(Locale.ROOT, "host %d of %d (%s): ranks %s, %d allreduces, %.2f µs each, sums %s%n", env.host(),
                    env.hosts(), env.source(), host.ranks(), iterations, us, all ? "exact" : "WRONG");
            host.finish(all ? "ok" : "wrong");
            if (!all) {
                System.exit(1);
            }
        }
    }
}
