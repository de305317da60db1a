package org.eventspace.comm.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.eventspace.comm.Comm;
import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.transport.tcp.TcpOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TcpHostTest {

    @Test
    void twoHostsOverLoopbackGiveExactCollectives() throws Exception {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        try (TcpJob job = new TcpJob(2, 2, Duration.ofSeconds(20), TcpOptions.defaults())) {
            List<String> outcomes = job.runRanks(comm -> check(comm));
            assertThat(outcomes).containsOnly("ok");
            job.finishAll();
            assertThat(job.rendezvous.results()).containsExactly("{\"host\":0}", "{\"host\":1}");
            assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                    .contains("es-accept-h0", "es-accept-h1", "es-serve-h1->h0:t0.gred.h0.1[1]", "es-serve-h1->h0:t1.gred.h0.1[1]");
        }
        // close() ended every thread the job started, within its bound.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        List<String> left;
        do {
            left = Thread.getAllStackTraces().keySet().stream().filter(t -> !before.contains(t) && t.isAlive())
                    .map(Thread::getName).filter(n -> n.startsWith("es-")).toList();
        } while (!left.isEmpty() && System.nanoTime() < deadline && sleep());
        assertThat(left).isEmpty();
    }

    private static boolean sleep() throws InterruptedException {
        Thread.sleep(10);
        return true;
    }

    @Test
    void fourHostsChainHopsThroughAMultiLevelTree() throws Exception {
        // hier:2 over 4 hosts: h1 joins h0 and h3 joins h2, then h2's result crosses to h0, so some hops are
        // served by threads that themselves wait on another hop.
        try (TcpJob job = new TcpJob(4, 1, Duration.ofSeconds(20), TcpOptions.defaults())) {
            List<Long> sums = job.runRanks(comm -> {
                long last = -1;
                for (int i = 0; i < 300; i++) {
                    last = comm.allreduce((long) comm.rank() * i, ReduceOp.SUM);
                    if (last != 6L * i) {
                        return -1L;
                    }
                }
                return last;
            });
            assertThat(sums).containsOnly(6L * 299);
            job.finishAll();
        }
    }

    /** 1000 allreduces plus one of every other collective; returns "ok" or what went wrong. */
    private static String check(Comm comm) {
        int n = comm.size();
        int r = comm.rank();
        for (int i = 0; i < 1_000; i++) {
            long sum = comm.allreduce((long) r * 1_000 + i, ReduceOp.SUM);
            long expected = 1_000L * n * (n - 1) / 2 + (long) n * i;
            if (sum != expected) {
                return "rank " + r + " allreduce " + i + ": " + sum + " != " + expected;
            }
        }
        if (comm.allreduce(r + 0.5, ReduceOp.MAX) != n - 0.5 || comm.allreduce((long) r, ReduceOp.MIN) != 0) {
            return "rank " + r + ": max/min wrong";
        }
        long[] vector = {r, 1, -r};
        comm.allreduce(vector, 3, ReduceOp.SUM);
        if (!Arrays.equals(vector, new long[] {n * (n - 1) / 2, n, -n * (n - 1) / 2})) {
            return "rank " + r + ": vector allreduce " + Arrays.toString(vector);
        }
        comm.barrier();
        long[] data = r == 2 ? new long[] {7, 8, 9} : new long[3];
        comm.broadcast(data, 3, 2);
        if (!Arrays.equals(data, new long[] {7, 8, 9})) {
            return "rank " + r + ": broadcast " + Arrays.toString(data);
        }
        long[] all = new long[n];
        comm.allgather(new long[] {10L + r}, 1, all);
        for (int i = 0; i < n; i++) {
            if (all[i] != 10 + i) {
                return "rank " + r + ": allgather " + Arrays.toString(all);
            }
        }
        // A ring of point-to-point messages, crossing hosts between ranks 1->2 and 3->0.
        int next = (r + 1) % n;
        int prev = (r + n - 1) % n;
        long[] big = new long[1_000];
        for (int round = 0; round < 20; round++) {
            Arrays.fill(big, 100L * r + round);
            comm.send(next, big, round % 2 == 0 ? 1 : big.length);
            long[] into = new long[1_000];
            int count = comm.recv(prev, into);
            if (count != (round % 2 == 0 ? 1 : 1_000) || into[count - 1] != 100L * prev + round) {
                return "rank " + r + ": recv round " + round + " got " + count + " words, last " + into[count - 1];
            }
        }
        comm.barrier();
        return "ok";
    }

    @Test
    void survivorFailsFastWhenAHostClosesMidRun() throws Exception {
        try (TcpJob job = new TcpJob(2, 2, Duration.ofSeconds(3), TcpOptions.defaults())) {
            // Ranks 2 and 3 (host 1) stop after 200 allreduces and their host closes; host 0's ranks go on.
            AtomicLong closeStarted = new AtomicLong();
            Future<?> h1 = job.pool.submit(() -> {
                try {
                    job.runRanksOn(1, comm -> {
                        for (int i = 0; i < 200; i++) {
                            comm.allreduce(1L, ReduceOp.SUM);
                        }
                        return null;
                    });
                } finally {
                    closeStarted.set(System.nanoTime());
                    job.hosts.get(1).close();
                }
                return null;
            });
            List<long[]> failures = new ArrayList<>();
            List<String> errors = job.runRanksOn(0, comm -> {
                try {
                    while (true) {
                        comm.allreduce(1L, ReduceOp.SUM);
                    }
                } catch (CommException e) {
                    synchronized (failures) {
                        failures.add(new long[] {System.nanoTime()});
                    }
                    return e.getMessage();
                }
            });
            h1.get(10, TimeUnit.SECONDS);
            assertThat(errors).hasSize(2).allSatisfy(m -> assertThat(m).contains("disconnected").containsAnyOf("h1", "host 1"));
            for (long[] t : failures) {
                // Well within the 3 s timeout: the lost connection, not the timeout, ended the wait.
                assertThat(t[0] - closeStarted.get()).isLessThan(TimeUnit.MILLISECONDS.toNanos(1_500));
            }
        }
    }

    @Test
    void ranksWaitingOnALostRootHostFailFast() throws Exception {
        try (TcpJob job = new TcpJob(2, 1, Duration.ofSeconds(3), TcpOptions.defaults())) {
            AtomicLong closeStarted = new AtomicLong();
            Future<?> h0 = job.pool.submit(() -> {
                try {
                    job.runRanksOn(0, comm -> {
                        for (int i = 0; i < 100; i++) {
                            comm.allreduce(1L, ReduceOp.SUM);
                        }
                        return null;
                    });
                } finally {
                    closeStarted.set(System.nanoTime());
                    job.hosts.get(0).close();
                }
                return null;
            });
            String error = job.runRanksOn(1, comm -> {
                try {
                    while (true) {
                        comm.allreduce(1L, ReduceOp.SUM);
                    }
                } catch (CommException e) {
                    return e.getMessage() + " after " + (System.nanoTime() - closeStarted.get()) / 1_000_000 + " ms";
                }
            }).get(0);
            h0.get(10, TimeUnit.SECONDS);
            // Either the connection broke under the rank's exchange, or host 0's closing failed the gred the hop
            // was waiting in and the reply said so; both name the host.
            assertThat(error).contains("hop h1->h0").containsAnyOf("to host h0 at /127.0.0.1:", "host h0 was closed");
            long ms = Long.parseLong(error.replaceAll(".* after (\\d+) ms$", "$1"));
            assertThat(ms).isLessThan(1_500);
        }
    }
}
