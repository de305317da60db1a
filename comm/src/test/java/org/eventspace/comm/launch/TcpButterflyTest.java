package org.eventspace.comm.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.transport.tcp.TcpOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The butterfly over real loopback sockets: exchanges driven by the ranks' own threads, no service thread behind them. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TcpButterflyTest {
    private static final TreeShape BUTTERFLY = TreeShape.parse("butterfly");

    @Test
    void threeHostsExchangeExactSumsWithNoServiceThreadLeftForTheExchanges() throws Exception {
        try (TcpJob job = new TcpJob(3, 2, BUTTERFLY, Duration.ofSeconds(20), TcpOptions.defaults())) {
            List<Long> sums = job.runRanks(comm -> {
                long last = -1;
                for (int i = 0; i < 2_000; i++) {
                    last = comm.allreduce((long) comm.rank() * i, ReduceOp.SUM);
                    if (last != 15L * i) {
                        return -1L - i;
                    }
                }
                long[] all = new long[6];
                comm.allgather(new long[] {comm.rank() + 100L}, 1, all);
                return all[5] == 105 && all[0] == 100 ? last : -2L;
            });
            assertThat(sums).containsOnly(15L * 1_999);
            // The hosts' hop services handed each exchange to its exchange wrapper and ended: none serves one now.
            assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                    .noneMatch(n -> n.startsWith("es-serve-") && n.contains("exchange"));
            job.finishAll();
        }
    }

    @Test
    void aLargePayloadSentByBothPartnersAtOnceDoesNotDeadlock() throws Exception {
        // 16 384 words (128 KiB, the largest result) each way at once, through socket buffers of 4 KiB.
        try (TcpJob job = new TcpJob(2, 1, BUTTERFLY, Duration.ofSeconds(20), TcpOptions.defaults().withSocketBuffers(4096, 4096))) {
            List<Long> sums = job.runRanks(comm -> {
                int n = 16_384;
                long[] values = new long[n];
                java.util.Arrays.fill(values, comm.rank() + 1L);
                comm.allreduce(values, n, ReduceOp.SUM);
                return values[0] + values[n - 1];
            });
            assertThat(sums).containsOnly(6L);
        }
    }

    @Test
    void survivorsFailFastNamingTheExchangeWhenAHostCloses() throws Exception {
        try (TcpJob job = new TcpJob(4, 1, BUTTERFLY, Duration.ofSeconds(5), TcpOptions.defaults())) {
            AtomicLong closeStarted = new AtomicLong();
            Future<?> h3 = job.pool.submit(() -> {
                try {
                    job.runRanksOn(3, comm -> {
                        for (int i = 0; i < 200; i++) {
                            comm.allreduce(1L, ReduceOp.SUM);
                        }
                        return null;
                    });
                } finally {
                    closeStarted.set(System.nanoTime());
                    job.hosts.get(3).close();
                }
                return null;
            });
            List<Future<String>> survivors = new java.util.ArrayList<>();
            for (int h = 0; h < 3; h++) {
                final int host = h;
                survivors.add(job.pool.submit(() -> job.runRanksOn(host, comm -> {
                    try {
                        while (true) {
                            comm.allreduce(1L, ReduceOp.SUM);
                        }
                    } catch (CommException e) {
                        return e.getMessage() + " after " + (System.nanoTime() - closeStarted.get()) / 1_000_000 + " ms";
                    }
                }).get(0)));
            }
            List<String> errors = new java.util.ArrayList<>();
            for (Future<String> f : survivors) {
                errors.add(f.get(20, TimeUnit.SECONDS));
            }
            h3.get(10, TimeUnit.SECONDS);
            // Host 2 pairs with host 3 in the first round and sees the connection end; failing, it closes its own links,
            // so hosts 0 and 1, waiting on host 2 or on each other, fail at once too rather than at their timeout.
            // (or host 2 learnt of the loss another way first, the rendezvous' abort, and closed its links itself; then
            // it may already be in the second round, waiting on host 0: the error names that exchange)
            assertThat(errors.get(2)).containsPattern("exchange (h2->h3|h0->h2)").containsAnyOf("closed by the partner",
                    "connection lost", "closed on this host");
            for (String e : errors) {
                assertThat(e).contains("exchange");
                assertThat(Long.parseLong(e.replaceAll("(?s).* after (\\d+) ms$", "$1"))).as(e).isLessThan(2_000);
            }
        }
    }
}
