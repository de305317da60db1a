package org.eventspace.comm.launch;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.eventspace.comm.Comm;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.transport.tcp.JobSecret;
import org.eventspace.comm.transport.tcp.TcpOptions;

/**
 * A whole TCP job in one JVM for tests: a rendezvous and one {@link TcpHost} per host, each started in its own
 * thread, talking only over loopback sockets. Closes everything it started.
 */
final class TcpJob implements AutoCloseable {
    final Pathmap pathmap;
    final JobSecret secret = JobSecret.random();
    final Rendezvous rendezvous;
    final List<TcpHost> hosts = new ArrayList<>();
    final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "test-job");
        t.setDaemon(true);
        return t;
    });

    TcpJob(int hostCount, int ranksPerHost, Duration timeout, TcpOptions tcp) throws Exception {
        this(hostCount, ranksPerHost, TreeShape.hier(2), timeout, tcp);
    }

    TcpJob(int hostCount, int ranksPerHost, TreeShape shape, Duration timeout, TcpOptions tcp) throws Exception {
        this.pathmap = PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, hostCount, 2), hostCount * ranksPerHost, 2,
                shape));
        this.rendezvous = Rendezvous.start("127.0.0.1", 0, secret, hostCount, Duration.ofSeconds(20));
        CommOptions options = CommOptions.defaults(hostCount * ranksPerHost + hostCount).withTimeout(timeout);
        List<Future<TcpHost>> starts = new ArrayList<>();
        for (int h = 0; h < hostCount; h++) {
            JobEnvironment env = environment(h, hostCount);
            starts.add(pool.submit(() -> TcpHost.start(pathmap, env, options, tcp)));
        }
        try {
            for (Future<TcpHost> f : starts) {
                hosts.add(f.get(30, TimeUnit.SECONDS));
            }
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    static Pathmap pathmap(int hostCount, int ranksPerHost) {
        return PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, hostCount, 2), hostCount * ranksPerHost, 2,
                TreeShape.hier(2)));
    }

    JobEnvironment environment(int host, int hostCount) {
        InetSocketAddress at = InetSocketAddress.createUnresolved("127.0.0.1", rendezvous.address().getPort());
        return new JobEnvironment(host, hostCount, "test", at, false, secret, Duration.ofSeconds(20), 0);
    }

    TcpHost hostOf(int rank) {
        return hosts.get(pathmap.spec().hostOf(rank));
    }

    /** Runs {@code body} for every rank, each in its own thread; returns the results by rank. */
    <T> List<T> runRanks(Function<Comm, T> body) throws Exception {
        List<Future<T>> futures = new ArrayList<>();
        for (int r = 0; r < pathmap.spec().ranks(); r++) {
            Comm comm = hostOf(r).comm(r);
            futures.add(pool.submit(() -> body.apply(comm)));
        }
        List<T> results = new ArrayList<>();
        for (Future<T> f : futures) {
            results.add(f.get(60, TimeUnit.SECONDS));
        }
        return results;
    }

    /** Runs {@code body} for every rank of host {@code host}, each in its own thread; returns the results by rank. */
    <T> List<T> runRanksOn(int host, Function<Comm, T> body) throws Exception {
        List<Future<T>> futures = new ArrayList<>();
        for (int r : hosts.get(host).ranks()) {
            Comm comm = hosts.get(host).comm(r);
            futures.add(pool.submit(() -> body.apply(comm)));
        }
        List<T> results = new ArrayList<>();
        for (Future<T> f : futures) {
            results.add(f.get(60, TimeUnit.SECONDS));
        }
        return results;
    }

    /** Every host reports "done" with {@code "{\"host\":h}"}, in parallel, as separate processes would. */
    void finishAll() throws Exception {
        List<Future<?>> futures = new ArrayList<>();
        for (TcpHost h : hosts) {
            futures.add(pool.submit((Callable<Void>) () -> {
                h.finish("{\"host\":" + h.host() + "}");
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get(30, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() throws InterruptedException {
        for (TcpHost h : hosts) {
            h.close();
        }
        rendezvous.close();
        pool.shutdownNow();
        if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("test threads still running after close");
        }
    }
}
