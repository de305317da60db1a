package org.eventspace.comm.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.eventspace.comm.Comm;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.testing.Layout;
import org.eventspace.comm.testing.RankThreads;
import org.eventspace.comm.testing.TestClusters;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every collective of {@link Comm} on several tree shapes, host counts, mappings and tree counts, with ranks
 * as threads on simulated hosts. A rank that sees a wrong value records it and carries on (so the others do
 * not wait for a timeout); the test asserts no rank recorded anything.
 */
class CommOperationsTest {
    static final Duration BOUND = Duration.ofSeconds(60);
    private static final long SENTINEL = 0x5EED_5EED_5EED_5EEDL;

    static List<Layout> layouts() {
        return Layout.several();
    }

    /** What rank {@code rank} contributes at word {@code i} of call {@code call}: mixed signs and extremes. */
    static long word(int rank, int i, int call) {
        long v = (rank + 1) * 1_000_003L + i * 7919L + call * 31L;
        return switch ((rank + i + call) % 5) {
            case 0 -> -v;
            case 1 -> v;
            case 2 -> Long.MIN_VALUE + v;
            case 3 -> Long.MAX_VALUE - v;
            default -> v * 0x9E3779B97F4A7C15L;
        };
    }

    static void expect(ConcurrentLinkedQueue<String> problems, boolean ok, String what) {
        if (!ok) {
            problems.add(what);
        }
    }

    private static void run(Layout layout, RankThreads.RankBody<Void> body) {
        try (InJvmCluster cluster = TestClusters.start(layout.spec())) {
            RankThreads.values(cluster, BOUND, body);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("layouts")
    void barrierLetsNoRankThroughBeforeEveryRankArrived(Layout layout) {
        int phases = 40;
        AtomicInteger[] arrived = new AtomicInteger[phases];
        Arrays.setAll(arrived, p -> new AtomicInteger());
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        run(layout, comm -> {
            SplittableRandom random = new SplittableRandom(comm.rank());
            for (int p = 0; p < phases; p++) {
                if (random.nextInt(4) == 0) {
                    LockSupport.parkNanos(random.nextInt(200_000));   // vary who arrives last
                }
                arrived[p].incrementAndGet();
                comm.barrier();
                int seen = arrived[p].get();
                expect(problems, seen == comm.size(), "rank " + comm.rank() + " left barrier " + p + " when " + seen
                        + " of " + comm.size() + " had arrived");
            }
            return null;
        });
        assertThat(problems).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("layouts")
    void broadcastFromEveryRootGivesEveryRankTheRootsWords(Layout layout) {
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        run(layout, comm -> {
            int call = 0;
            for (int count : new int[] {0, 1, 5, 300}) {
                for (int root = 0; root < comm.size(); root++, call++) {
                    long[] data = new long[count + 2];
                    for (int i = 0; i < data.length; i++) {
                        data[i] = i < count && comm.rank() == root ? word(root, i, call) : (i < count ? word(comm.rank(), i, -1) : SENTINEL);
                    }
                    comm.broadcast(data, count, root);
                    for (int i = 0; i < count; i++) {
                        expect(problems, data[i] == word(root, i, call), "rank " + comm.rank() + " broadcast from " + root
                                + " count " + count + ": word " + i + " = " + data[i]);
                    }
                    expect(problems, data[count] == SENTINEL && data[count + 1] == SENTINEL,
                            "rank " + comm.rank() + ": broadcast wrote past count " + count);
                }
            }
            return null;
        });
        assertThat(problems).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("layouts")
    void gatherToEveryRootAndAllgatherPlaceEachRanksWordsInItsSlot(Layout layout) {
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        run(layout, comm -> {
            int n = comm.size();
            int call = 0;
            for (int count : new int[] {1, 3, 40}) {
                long[] send = new long[count];
                for (int root = 0; root < n; root++, call++) {
                    for (int i = 0; i < count; i++) {
                        send[i] = word(comm.rank(), i, call);
                    }
                    long[] recv = new long[n * count + 1];
                    Arrays.fill(recv, SENTINEL);
                    comm.gather(send, count, recv, root);
                    for (int r = 0; r < n; r++) {
                        for (int i = 0; i < count; i++) {
                            long want = comm.rank() == root ? word(r, i, call) : SENTINEL;
                            expect(problems, recv[r * count + i] == want, "rank " + comm.rank() + " gather to " + root
                                    + ": slot of rank " + r + " word " + i + " = " + recv[r * count + i]);
                        }
                    }
                    expect(problems, recv[n * count] == SENTINEL, "gather wrote past n*count");
                }
                call++;
                for (int i = 0; i < count; i++) {
                    send[i] = word(comm.rank(), i, call);
                }
                long[] all = new long[n * count];
                comm.allgather(send, count, all);
                for (int r = 0; r < n; r++) {
                    for (int i = 0; i < count; i++) {
                        expect(problems, all[r * count + i] == word(r, i, call), "rank " + comm.rank()
                                + " allgather: slot of rank " + r + " word " + i);
                    }
                }
            }
            return null;
        });
        assertThat(problems).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("layouts")
    void scatterFromEveryRootGivesEachRankItsSlice(Layout layout) {
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        run(layout, comm -> {
            int n = comm.size();
            int call = 0;
            for (int count : new int[] {1, 4, 33}) {
                for (int root = 0; root < n; root++, call++) {
                    long[] send = new long[n * count];
                    for (int d = 0; d < n; d++) {
                        for (int i = 0; i < count; i++) {
                            // Only the root's send buffer counts; the others hold junk that must not leak.
                            send[d * count + i] = comm.rank() == root ? word(d, i, call) : ~word(d, i, call);
                        }
                    }
                    long[] recv = new long[count + 1];
                    recv[count] = SENTINEL;
                    comm.scatter(send, count, recv, root);
                    for (int i = 0; i < count; i++) {
                        expect(problems, recv[i] == word(comm.rank(), i, call), "rank " + comm.rank() + " scatter from "
                                + root + " count " + count + ": word " + i + " = " + recv[i]);
                    }
                    expect(problems, recv[count] == SENTINEL, "scatter wrote past count");
                }
            }
            return null;
        });
        assertThat(problems).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("layouts")
    void alltoallDeliversEveryRanksBlockToEveryRank(Layout layout) {
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        run(layout, comm -> {
            int n = comm.size();
            for (int count : new int[] {1, 2, 7}) {
                long[] send = new long[n * count];
                for (int d = 0; d < n; d++) {
                    for (int i = 0; i < count; i++) {
                        send[d * count + i] = word(comm.rank(), d * 1_000 + i, count);
                    }
                }
                long[] recv = new long[n * count];
                comm.alltoall(send, count, recv);
                for (int s = 0; s < n; s++) {
                    for (int i = 0; i < count; i++) {
                        // Rank s's block for us (d = our rank) lands at recv[s*count ..).
                        expect(problems, recv[s * count + i] == word(s, comm.rank() * 1_000 + i, count), "rank " + comm.rank()
                                + " alltoall count " + count + ": block from " + s + " word " + i);
                    }
                }
            }
            return null;
        });
        assertThat(problems).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("layouts")
    void allreduceOfScalarsAndArraysInterleavedWithOtherCollectives(Layout layout) {
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        run(layout, comm -> {
            int n = comm.size();
            long triangle = (long) n * (n - 1) / 2;
            for (int i = 0; i < 30; i++) {
                long sum = comm.allreduce((long) comm.rank() * i, ReduceOp.SUM);
                expect(problems, sum == triangle * i, "rank " + comm.rank() + " long sum " + i + " = " + sum);
                double max = comm.allreduce(comm.rank() + 0.5 * i, ReduceOp.MAX);
                expect(problems, max == n - 1 + 0.5 * i, "rank " + comm.rank() + " double max " + i + " = " + max);
                long min = comm.allreduce(-(long) comm.rank() - i, ReduceOp.MIN);
                expect(problems, min == -(n - 1) - i, "rank " + comm.rank() + " long min " + i + " = " + min);
                long[] a = {comm.rank(), 1, -comm.rank(), i};
                comm.allreduce(a, 3, ReduceOp.SUM);
                expect(problems, a[0] == triangle && a[1] == n && a[2] == -triangle && a[3] == i,
                        "rank " + comm.rank() + " array sum " + i + " = " + Arrays.toString(a));
                double[] d = {comm.rank() * 0.25, -comm.rank(), 42};
                comm.allreduce(d, 3, ReduceOp.MIN);
                expect(problems, d[0] == 0 && d[1] == -(n - 1) && d[2] == 42,
                        "rank " + comm.rank() + " double array min " + i + " = " + Arrays.toString(d));
                if (i % 10 == 0) {
                    comm.barrier();
                    long[] b = {comm.rank() == i % n ? i : -1};
                    comm.broadcast(b, 1, i % n);
                    expect(problems, b[0] == i, "rank " + comm.rank() + " broadcast in mix " + i);
                }
            }
            return null;
        });
        assertThat(problems).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("layouts")
    void ringOfSendsAndReceivesWithLengthsFromZeroToTheLargestMessage(Layout layout) {
        int[] lengths = {0, 1, 2, 17, 64, 333, HostRuntime.P2P_WORDS};
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        run(layout, comm -> {
            int n = comm.size();
            int right = (comm.rank() + 1) % n;
            int left = (comm.rank() + n - 1) % n;
            long[] send = new long[HostRuntime.P2P_WORDS];
            long[] recv = new long[HostRuntime.P2P_WORDS];
            for (int round = 0; round < 3; round++) {
                for (int length : lengths) {
                    for (int i = 0; i < length; i++) {
                        send[i] = word(comm.rank(), i, round * 10_000 + length);
                    }
                    comm.send(right, send, length);
                    int got = comm.recv(left, recv);
                    expect(problems, got == length, "rank " + comm.rank() + " got " + got + " words from " + left
                            + ", expected " + length);
                    for (int i = 0; i < Math.min(got, length); i++) {
                        if (recv[i] != word(left, i, round * 10_000 + length)) {
                            problems.add("rank " + comm.rank() + " word " + i + " of a " + length + "-word message from " + left);
                            break;
                        }
                    }
                }
            }
            return null;
        });
        assertThat(problems).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("layouts")
    void everyRankSendsToEveryRankAndMessagesArriveInOrderPerSender(Layout layout) {
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        int perPair = 5;
        run(layout, comm -> {
            int n = comm.size();
            long[] buf = new long[3];
            for (int k = 0; k < perPair; k++) {
                for (int d = 0; d < n; d++) {
                    comm.send(d, new long[] {comm.rank(), d, k}, 3);
                }
            }
            for (int s = 0; s < n; s++) {
                for (int k = 0; k < perPair; k++) {
                    int got = comm.recv(s, buf);
                    expect(problems, got == 3 && buf[0] == s && buf[1] == comm.rank() && buf[2] == k,
                            "rank " + comm.rank() + " message " + k + " from " + s + " = " + Arrays.toString(buf));
                }
            }
            return null;
        });
        assertThat(problems).isEmpty();
    }
}
