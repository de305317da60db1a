package org.eventspace.run;

import org.HdrHistogram.Histogram;
import org.eventspace.comm.Comm;
import org.eventspace.job.TimedWindow;

/**
 * alltoall: a personalised all-to-all over point-to-point messages, the pattern of the ibprof paper's overhead
 * microbenchmark (§4.1, MPI_Alltoall) built from sends and receives, so that every byte crosses the network as a message
 * between two ranks and the traffic counters see the algorithm's whole communication matrix. In each iteration rank r
 * sends {@code payload} words to every other rank, in the shifted order r + 1, r + 2, … (so no rank is everybody's first
 * destination at once), then receives one message from every other rank, in the order r − 1, r − 2, ….
 *
 * <p>What the matrix must be: every ordered pair (s, d), s ≠ d, carries exactly one message of {@code 8 × payload} bytes
 * per iteration, in phase {@value #WARMUP_PHASE} for the {@code warmup} warm-up iterations and {@value #TIMED_PHASE} for
 * the timed ones; nothing else is sent from rank to rank. The warm-up is exactly {@code warmup} iterations (not the
 * warm-up time), so that the matrix is known before the run; one barrier between warm-up and timed iterations (a tree
 * collective: it appears in the host × host matrix only).
 *
 * <p>Exact results: word w of the message s sends d in iteration i is {@link #word}(s, d, i, w); every receiver checks
 * every word. A rank is at most one iteration ahead of any other (it waits for every rank's message of its iteration),
 * so no mailbox holds more than two messages. Not thread-safe; one call per rank.
 */
final class AllToAll {
    static final String WARMUP_PHASE = "warmup";
    static final String TIMED_PHASE = "alltoall";

    private AllToAll() {
    }

    /** The exact value of word {@code w} of the message {@code source} sends {@code dest} in iteration {@code i}. */
    static long word(int source, int dest, int iteration, int w) {
        return ((long) source << 44) ^ ((long) dest << 24) ^ ((long) iteration << 8) ^ w;
    }

    static RankResult run(Comm comm, RunConfig config, TimedWindow window) {
        int rank = comm.rank();
        int words = config.payloadWords();
        long[] out = new long[Math.max(words, 1)];
        long[] in = new long[Math.max(words, 1)];
        Histogram latencies = RankResult.newHistogram();
        boolean ok = true;
        comm.phase(WARMUP_PHASE);
        for (int i = 0; i < config.warmup(); i++) {
            ok &= iteration(comm, rank, words, i, out, in);
        }
        comm.barrier();
        comm.phase(TIMED_PHASE);
        window.started(rank);
        long start = System.nanoTime();
        long previous = start;
        for (int i = 0; i < config.iterations(); i++) {
            ok &= iteration(comm, rank, words, config.warmup() + i, out, in);
            long now = System.nanoTime();
            latencies.recordValue(now - previous);
            previous = now;
        }
        window.ended(rank);
        return new RankResult(rank, previous - start, config.iterations(), 0, ok, null, latencies);
    }

    private static boolean iteration(Comm comm, int rank, int words, int i, long[] out, long[] in) {
        int size = comm.size();
        for (int k = 1; k < size; k++) {
            int dest = (rank + k) % size;
            for (int w = 0; w < words; w++) {
                out[w] = word(rank, dest, i, w);
            }
            comm.send(dest, out, words);
        }
        boolean ok = true;
        for (int k = 1; k < size; k++) {
            int source = (rank - k + size) % size;
            int got = comm.recv(source, in);
            ok &= got == words;
            for (int w = 0; w < Math.min(got, words); w++) {
                ok &= in[w] == word(source, rank, i, w);
            }
        }
        return ok;
    }
}
