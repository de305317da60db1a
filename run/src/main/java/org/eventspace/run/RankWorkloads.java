package org.eventspace.run;

import java.util.Arrays;

import org.HdrHistogram.Histogram;
import org.eventspace.comm.Comm;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.job.TimedWindow;
import org.eventspace.trace.CallSite;
import org.eventspace.trace.TracingComm;

/**
 * The body each rank runs for each benchmark. Every benchmark warms up (in rounds of {@code warmup} iterations
 * until {@code warmupTime} has passed on every rank), meets the others at a barrier, then
 * times its iterations with one {@link System#nanoTime()} per operation (the end of one is the start of the
 * next), so timing adds one clock read per operation and nothing is allocated in the loop.
 */
public final class RankWorkloads {
    // Call sites, so a path-sensitive trace (run --trace --time-encoding path) tells gsum's and compute-gsum's calls
    // apart by what preceded them (ScalaTrace §3.3); marking costs one type check per call when the run is not traced.
    private static final CallSite CHECKED = CallSite.named("RankWorkloads checked allreduce");
    private static final CallSite AFTER_SORT = CallSite.named("RankWorkloads.computeGsum allreduce after the sort");
    private static final CallSite WARMUP_BARRIER = CallSite.named("RankWorkloads.keepWarming barrier");
    private static final CallSite WARMUP_VOTE = CallSite.named("RankWorkloads.keepWarming vote allreduce");
    private static final CallSite START_BARRIER = CallSite.named("RankWorkloads timed-loop start barrier");

    private RankWorkloads() {
    }

    public static RankResult run(Comm comm, RunConfig config) {
        return run(comm, config, TimedWindow.NONE);
    }

    /** As {@link #run(Comm, RunConfig)}, telling {@code window} when this rank starts and ends its timed iterations. */
    public static RankResult run(Comm comm, RunConfig config, TimedWindow window) {
        return run(comm, config, window, Progress.NONE);
    }

    /** As {@link #run(Comm, RunConfig, TimedWindow)}, rank 0 telling {@code progress} which phase it is in. */
    static RankResult run(Comm comm, RunConfig config, TimedWindow window, Progress progress) {
        Progress mine = comm.rank() == 0 ? progress : Progress.NONE;
        return switch (config.benchmark()) {
            case GSUM -> gsum(comm, config, window, mine);
            case COMPUTE_GSUM -> computeGsum(comm, config, window, mine);
            case PINGPONG -> pingpong(comm, config, window);
            case SOR -> Sor.run(comm, config, window);
            case ALLTOALL -> AllToAll.run(comm, config, window);
            case GSUM_INTERLEAVED -> gsumInterleaved(comm, config, window, mine);
        };
    }

    /** Rank r contributes r + i in iteration i (in every word); the exact sum is known to every rank. */
    static long contribution(int rank, int iteration) {
        return rank + (long) iteration;
    }

    static long expectedSum(int ranks, int iteration) {
        return (long) ranks * (ranks - 1) / 2 + (long) ranks * iteration;
    }

    /**
     * gsum: allreduce after allreduce, trees alternating (Comm rotates over the job's trees). Warm-up and timed
     * iterations run through the same loop, so the timed ones run code the JIT already compiled.
     */
    public static RankResult gsum(Comm comm, RunConfig config) {
        return gsum(comm, config, TimedWindow.NONE);
    }

    static RankResult gsum(Comm comm, RunConfig config, TimedWindow window) {
        return gsum(comm, config, window, Progress.NONE);
    }

    static RankResult gsum(Comm comm, RunConfig config, TimedWindow window, Progress progress) {
        long[] values = new long[config.payloadWords()];
        Histogram latencies = RankResult.newHistogram();
        boolean ok = true;
        long warmEnd = System.nanoTime() + config.warmupTime().toNanos();
        WarmupRounds rounds = new WarmupRounds(config.warmup(), config.warmupTime());
        long warmed = 0;
        do {
            int n = rounds.next();
            ok &= gsumLoop(comm, values, n, latencies, config.faults(), warmed);
            warmed += n;
            progress.phase("warm-up", warmed, 0);
            // Both, in this order, every round: each runs collectives every rank must call.
        } while (keepWarming(comm, warmEnd) | rounds.owes(comm));
        latencies.reset();
        TracingComm.at(comm, START_BARRIER).barrier();
        TracingComm.markTimed(comm);
        progress.phase("timed iterations (running)", 0, config.iterations());
        window.started(comm.rank());
        long start = System.nanoTime();
        ok &= gsumLoop(comm, values, config.iterations(), latencies, config.faults(), warmed);
        long wall = System.nanoTime() - start;
        window.ended(comm.rank());
        progress.phase("timed iterations (done)", config.iterations(), config.iterations());
        return new RankResult(comm.rank(), wall, config.iterations(), 0, ok, null, latencies);
    }

    /**
     * gsum-interleaved: pairs of allreduces, one on tree 0 and one on tree 1 (a rank's call i uses tree i mod 2, counted
     * from the first call of its {@link Comm}: this method makes every call the rank makes, so it knows each call's
     * tree); even blocks run tree 0 first in each pair, odd blocks tree 1 first. Each call is timed on its own; a block's two sums, tree-0 time and tree-1
     * time over {@code config.block()} pairs, go into {@link RankResult#blocks()}. With collectors on tree 0 only, the
     * difference is what collecting costs, measured in the same process, at the same moment, on the same ranks. The
     * warm-up runs both trees for {@code warmupTime}, in rounds of {@code warmup} calls, the ranks agreeing when to stop.
     */
    static RankResult gsumInterleaved(Comm comm, RunConfig config, TimedWindow window, Progress progress) {
        long[] values = new long[config.payloadWords()];
        Histogram latencies = RankResult.newHistogram();
        boolean ok = true;
        long calls = 0;
        int iteration = 0;
        int round = Math.max(2, config.warmup() + config.warmup() % 2);
        long warmEnd = System.nanoTime() + config.warmupTime().toNanos();
        boolean more;
        do {
            for (int i = 0; i < round; i++) {
                ok &= allreduceChecked(comm, values, values.length, iteration++);
            }
            calls += round;
            progress.phase("warm-up", calls, 0);
            more = comm.allreduce(System.nanoTime() - warmEnd < 0 ? 1L : 0L, ReduceOp.MAX) == 1L;
            calls++;
            if (calls % 2 != 0) {
                comm.allreduce(0L, ReduceOp.SUM); // the next call must use tree 0
                calls++;
            }
        } while (more);
        int blocks = config.iterations() / config.block();
        long[] sums = new long[2 * blocks];
        progress.phase("interleaved blocks (running)", 0, config.iterations());
        window.started(comm.rank());
        long start = System.nanoTime();
        for (int b = 0; b < blocks; b++) {
            // Odd blocks start with one untimed call, so their pairs run tree 1 first: whatever a call's place in its pair
            // does to its time falls on both trees alike.
            if (b % 2 == 1) {
                ok &= allreduceChecked(comm, values, values.length, iteration++);
                calls++;
            }
            long[] byTree = new long[2];
            for (int j = 0; j < config.block(); j++) {
                long t0 = System.nanoTime();
                ok &= allreduceChecked(comm, values, values.length, iteration++);
                long t1 = System.nanoTime();
                ok &= allreduceChecked(comm, values, values.length, iteration++);
                long t2 = System.nanoTime();
                int first = (int) (calls % 2);
                byTree[first] += t1 - t0;
                byTree[1 - first] += t2 - t1;
                calls += 2;
                latencies.recordValue(first == 0 ? t1 - t0 : t2 - t1);
            }
            if (b % 2 == 1) {
                ok &= allreduceChecked(comm, values, values.length, iteration++);
                calls++;
            }
            sums[2 * b] = byTree[0];
            sums[2 * b + 1] = byTree[1];
        }
        long wall = System.nanoTime() - start;
        window.ended(comm.rank());
        progress.phase("interleaved blocks (done)", config.iterations(), config.iterations());
        return new RankResult(comm.rank(), wall, config.iterations() * 2, 0, ok, null, latencies, 0, sums);
    }

    /**
     * Whether to run another round of warm-up: until every rank has warmed for the configured time, since the
     * JIT keeps compiling in the background for a while after the first iterations, on the cores the timed
     * loop needs. All ranks agree through an allreduce, so they run the same number of collectives.
     */
    static boolean keepWarming(Comm comm, long warmEnd) {
        // The timed loop starts with a barrier: run one every round, so its path (a payload of 0 words through
        // every gred and collector) is compiled too. Unseen, it deoptimised the collectors' compiled code at the
        // start of the timed loop, and the recompiles took a core from a rank (stalls of 4-8 ms).
        TracingComm.at(comm, WARMUP_BARRIER).barrier();
        return TracingComm.at(comm, WARMUP_VOTE).allreduce(System.nanoTime() - warmEnd < 0 ? 1L : 0L, ReduceOp.MAX) == 1L;
    }

    private static boolean gsumLoop(Comm comm, long[] values, int iterations, Histogram latencies) {
        return gsumLoop(comm, values, iterations, latencies, Faults.NONE, 0);
    }

    /** {@code iterations} checked allreduces, each after what {@code faults} add; {@code first} numbers the first. */
    private static boolean gsumLoop(Comm comm, long[] values, int iterations, Histogram latencies, Faults faults, long first) {
        boolean ok = true;
        boolean faulty = faults.any();
        long previous = System.nanoTime();
        for (int i = 0; i < iterations; i++) {
            if (faulty) {
                faults.before(comm.rank(), comm.size(), first + i);
            }
            ok &= allreduceChecked(comm, values, values.length, i);
            long now = System.nanoTime();
            latencies.recordValue(now - previous);
            previous = now;
        }
        return ok;
    }

    private static boolean allreduceChecked(Comm comm, long[] values, int words, int iteration) {
        return allreduceChecked(comm, CHECKED, values, words, iteration);
    }

    private static boolean allreduceChecked(Comm comm, CallSite site, long[] values, int words, int iteration) {
        long expected = expectedSum(comm.size(), iteration);
        if (words == 1) {
            return TracingComm.at(comm, site).allreduce(contribution(comm.rank(), iteration), ReduceOp.SUM) == expected;
        }
        Arrays.fill(values, 0, words, contribution(comm.rank(), iteration));
        TracingComm.at(comm, site).allreduce(values, words, ReduceOp.SUM);
        boolean ok = true;
        for (int w = 0; w < words; w++) {
            ok &= values[w] == expected;
        }
        return ok;
    }

    /**
     * compute-gsum: each iteration sorts an integer array, then allreduces. The array length is calibrated in
     * the warm-up so that one sort takes about as long as one allreduce (compute ≈ 50% of the time), and all
     * ranks agree on it through an allreduce(MAX), so they do equal work.
     */
    public static RankResult computeGsum(Comm comm, RunConfig config) {
        return computeGsum(comm, config, TimedWindow.NONE);
    }

    static RankResult computeGsum(Comm comm, RunConfig config, TimedWindow window) {
        return computeGsum(comm, config, window, Progress.NONE);
    }

    static RankResult computeGsum(Comm comm, RunConfig config, TimedWindow window, Progress progress) {
        int words = config.payloadWords();
        long[] values = new long[words];
        boolean ok = true;
        Histogram latencies = RankResult.newHistogram();
        long warmEnd = System.nanoTime() + config.warmupTime().toNanos();
        WarmupRounds rounds = new WarmupRounds(Math.max(config.warmup(), 200), config.warmupTime());
        long allreduceNanos;
        long warmed = 0;
        do {
            int warm = rounds.next();
            long t0 = System.nanoTime();
            ok &= gsumLoop(comm, values, warm, latencies);
            allreduceNanos = (System.nanoTime() - t0) / warm;
            warmed += warm;
            progress.phase("warm-up", warmed, 0);
        } while (keepWarming(comm, warmEnd) | rounds.owes(comm));
        // When the ranks outnumber the cores (every rank of a run is on this machine, over TCP too), a sort that takes
        // as long as an allreduce on each rank would take ranks/cores times that on the machine: each rank sorts its
        // share, so the sorts of an iteration together take about one allreduce, and compute stays about half of it.
        // Fitting the length to the measured allreduce then feeds on itself (the allreduce includes waiting for the
        // others' sorts) and the length grew round after round: the rounds only warm the sort up.
        int cores = Runtime.getRuntime().availableProcessors();
        boolean oversubscribed = comm.size() > cores;
        long target = oversubscribed ? allreduceNanos * cores / comm.size() : allreduceNanos;
        // A fixed length still runs the calibration rounds, unused: they are the sort loop's JIT warm-up, and
        // without it the compiler thread takes a core from a rank in the timed loop (time slices of ms).
        int fixed = config.sortLength();
        int length = fixed > 0 ? fixed
                : (int) comm.allreduce((long) IntegerSort.lengthTakingNanos(Math.max(1, target)), ReduceOp.MAX);
        for (int round = 0; round < (oversubscribed ? 1 : CALIBRATION_ROUNDS); round++) {
            progress.phase("sort calibration round " + (round + 1) + ", " + length + " ints", (long) round * CALIBRATION_ITERATIONS,
                    (oversubscribed ? 1L : CALIBRATION_ROUNDS) * CALIBRATION_ITERATIONS);
            int proposal = calibrate(comm, values, length);
            length = fixed > 0 || oversubscribed ? length : proposal;
        }
        IntegerSort sort = new IntegerSort(length, comm.rank());
        latencies.reset();
        TracingComm.at(comm, START_BARRIER).barrier();
        TracingComm.markTimed(comm);
        progress.phase("timed iterations (running), sorts of " + length + " ints", 0, config.iterations());
        window.started(comm.rank());
        long compute = 0;
        long start = System.nanoTime();
        long previous = start;
        boolean faulty = config.faults().any();
        for (int i = 0; i < config.iterations(); i++) {
            sort.run();
            if (faulty) {
                config.faults().before(comm.rank(), comm.size(), i);
            }
            long sorted = System.nanoTime();
            compute += sorted - previous;
            ok &= allreduceChecked(comm, AFTER_SORT, values, words, i);
            long now = System.nanoTime();
            latencies.recordValue(now - sorted);
            previous = now;
        }
        window.ended(comm.rank());
        progress.phase("timed iterations (done)", config.iterations(), config.iterations());
        ok &= sort.checksum() != Long.MIN_VALUE;
        return new RankResult(comm.rank(), previous - start, config.iterations(), compute, ok, null, latencies, length);
    }

    private static final int CALIBRATION_ROUNDS = 4;

    /**
     * The sizes of warm-up rounds: {@code warmup} iterations each, as configured, unless that many would take longer
     * than the warm-up time (or a second, if longer): slow iterations (ranks outnumbering cores, long payloads) made a
     * round of 10 000 last minutes. The first round is a probe of at most {@value #PROBE} iterations; the ranks agree
     * on its slowest time per iteration, so every rank runs rounds of the same size. Not thread-safe: one per rank.
     */
    static final class WarmupRounds {
        static final int PROBE = 100;
        private final int warmup;
        private final long budgetNanos;
        private long probeStart;
        private long done;
        /** With rounds longer than the probe: 0 before the probe, -1 during it, then the agreed round size. */
        private int size;

        WarmupRounds(int warmup, java.time.Duration warmupTime) {
            this.warmup = warmup;
            this.budgetNanos = Math.max(warmupTime.toNanos(), 1_000_000_000L);
            // Rounds no longer than a probe need none: they are the configured rounds, as they always were.
            this.size = warmup <= PROBE ? warmup : 0;
        }

        /** The size of the next round: the probe first, then the agreed size. */
        int next() {
            int n;
            if (size == 0) {
                size = -1;
                probeStart = System.nanoTime();
                n = PROBE;
            } else {
                n = size;
            }
            done += n;
            return n;
        }

        /**
         * Whether the warm-up still owes iterations: at least one full round after the probe, so that a run with no
         * warm-up time still warms up its configured rounds (bounded as above). After the probe this agrees on the
         * round size with the other ranks (one allreduce); every rank calls it after every round, in step.
         */
        boolean owes(Comm comm) {
            if (warmup <= PROBE) {
                return done < warmup;
            }
            if (size < 0) {
                long perIteration = Math.max(1, (System.nanoTime() - probeStart) / PROBE);
                size = sizeFor(warmup, budgetNanos, comm.allreduce(perIteration, ReduceOp.MAX));
                return true;
            }
            return done < PROBE + (long) size;
        }

        /** Rounds of {@code warmup} iterations, fewer (at least {@value #PROBE}) where they would exceed the budget. */
        static int sizeFor(int warmup, long budgetNanos, long perIterationNanos) {
            long fit = budgetNanos / Math.max(1, perIterationNanos);
            return (int) Math.max(Math.min(warmup, PROBE), Math.min(warmup, fit));
        }
    }
    private static final int CALIBRATION_ITERATIONS = 300;

    /**
     * One round of fitting the sort to the allreduce under the run's real conditions (the other ranks and the
     * service threads share the cores): time sort and allreduce alternating, scale the length by their ratio,
     * and agree on the ranks' mean proposal so every rank does the same work. (The largest would overshoot: a
     * rank's allreduce time includes waiting for the others' sorts.)
     */
    private static int calibrate(Comm comm, long[] values, int length) {
        IntegerSort sort = new IntegerSort(length, comm.rank());
        long compute = 0;
        long communicate = 0;
        for (int i = 0; i < CALIBRATION_ITERATIONS; i++) {
            long t0 = System.nanoTime();
            sort.run();
            long t1 = System.nanoTime();
            allreduceChecked(comm, values, values.length, i);
            long t2 = System.nanoTime();
            compute += t1 - t0;
            communicate += t2 - t1;
        }
        long proposal = Math.max(16, Math.min(1 << 24, (long) (length * (double) communicate / Math.max(1, compute))));
        return (int) Math.max(16, comm.allreduce(proposal, ReduceOp.SUM) / comm.size());
    }

    /**
     * pingpong: rank 0 sends to rank 1, which sends it back; one-way latency is half the round trip. Warm-up
     * runs through the same loop; after each warm-up round rank 0 tells rank 1 whether another follows.
     */
    public static RankResult pingpong(Comm comm, RunConfig config) {
        return pingpong(comm, config, TimedWindow.NONE);
    }

    static RankResult pingpong(Comm comm, RunConfig config, TimedWindow window) {
        int words = config.payloadWords();
        long[] buffer = new long[Math.max(words, 1)];
        boolean ok = true;
        Histogram latencies = RankResult.newHistogram();
        int rank = comm.rank();
        long wall = 0;
        if (rank <= 1) {
            int peer = 1 - rank;
            long warmEnd = System.nanoTime() + config.warmupTime().toNanos();
            long[] control = new long[1];
            boolean again;
            do {
                ok &= pingpongLoop(comm, peer, buffer, words, config.warmup(), latencies);
                if (rank == 0) {
                    control[0] = System.nanoTime() - warmEnd < 0 ? 1 : 0;
                    comm.send(peer, control, 1);
                } else {
                    comm.recv(peer, control);
                }
                again = control[0] == 1;
            } while (again);
            latencies.reset();
            window.started(rank);
            long start = System.nanoTime();
            ok &= pingpongLoop(comm, peer, buffer, words, config.iterations(), latencies);
            wall = System.nanoTime() - start;
            window.ended(rank);
        } else {
            window.started(rank);
            window.ended(rank);
        }
        comm.barrier();
        return new RankResult(rank, wall, rank <= 1 ? config.iterations() : 0, 0, ok, null, latencies);
    }

    private static boolean pingpongLoop(Comm comm, int peer, long[] buffer, int words, int iterations, Histogram latencies) {
        boolean ok = true;
        long previous = System.nanoTime();
        for (int i = 0; i < iterations; i++) {
            if (comm.rank() == 0) {
                Arrays.fill(buffer, 0, words, i);
                comm.send(peer, buffer, words);
                ok &= comm.recv(peer, buffer) == words && buffer[0] == i + 1L;
            } else {
                ok &= comm.recv(peer, buffer) == words && buffer[0] == i;
                Arrays.fill(buffer, 0, words, i + 1L);
                comm.send(peer, buffer, words);
            }
            long now = System.nanoTime();
            latencies.recordValue((now - previous) / 2);
            previous = now;
        }
        return ok;
    }
}
