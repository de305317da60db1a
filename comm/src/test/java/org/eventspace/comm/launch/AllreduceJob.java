package org.eventspace.comm.launch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.eventspace.comm.Comm;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.transport.tcp.TcpOptions;

/**
 * A host process for {@link LauncherTest}: 2 ranks per host, 300 allreduces with every sum checked, then one
 * result line. {@code dieAfter=N} makes host 1 halt (exit code 3) after N allreduces; a host whose collective
 * fails prints the error and exits with 2.
 */
public final class AllreduceJob {
    public static final int ALLREDUCES = 300;

    public static void main(String[] args) throws Exception {
        int dieAfter = args.length > 0 ? Integer.parseInt(args[0].substring("dieAfter=".length())) : -1;
        JobEnvironment env = JobEnvironment.current();
        Pathmap pathmap = TcpJob.pathmap(env.hosts(), 2);
        CommOptions options = CommOptions.defaults(8).withTimeout(Duration.ofSeconds(3));
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (TcpHost host = TcpHost.start(pathmap, env, options, TcpOptions.defaults())) {
            List<Thread> threads = new ArrayList<>();
            long[] last = new long[pathmap.spec().ranks()];
            for (int rank : host.ranks()) {
                Comm comm = host.comm(rank);
                Thread t = new Thread(() -> {
                    try {
                        long n = comm.size();
                        for (int i = 0; i < ALLREDUCES; i++) {
                            if (i == dieAfter && env.host() == 1) {
                                Runtime.getRuntime().halt(3);
                            }
                            long sum = comm.allreduce(comm.rank() + i, ReduceOp.SUM);
                            if (sum != n * (n - 1) / 2 + n * i) {
                                throw new AssertionError("rank " + comm.rank() + " round " + i + ": sum " + sum);
                            }
                            last[comm.rank()] = sum;
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "rank-" + rank);
                threads.add(t);
                t.start();
            }
            for (Thread t : threads) {
                t.join(30_000);
            }
            if (failure.get() != null) {
                System.err.println("host " + env.host() + " failed: " + failure.get());
                System.exit(2);
            }
            host.finish("{\"host\":" + env.host() + ",\"ranks\":" + host.ranks().size() + ",\"sum\":"
                    + last[host.ranks().get(0)] + "}");
        }
        System.out.println("host " + env.host() + " finished");
    }
}
