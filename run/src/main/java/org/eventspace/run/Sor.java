package org.eventspace.run;

import java.util.Arrays;

import org.HdrHistogram.Histogram;
import org.eventspace.comm.Comm;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.job.TimedWindow;
import org.eventspace.trace.CallSite;
import org.eventspace.trace.TracingComm;

/**
 * The one SOR kernel, and the sor workload on it. The kernel (grid blocks, the red-black half-sweep, the halo exchange,
 * the grid's bit sum) also serves the multi-cluster sor ({@link MultiClusterRun}), which tests convergence on the sum of
 * the changes where this workload takes their maximum.
 *
 * <p>sor: red-black successive over-relaxation on a 2-D grid split into blocks of rows, one block per rank — the
 * dissertation's SOR: per iteration a red half-sweep, a halo exchange with the neighbours above and below
 * (send/recv with rank ± 1), a black half-sweep, another exchange, and a convergence allreduce (MAX of the largest
 * change). A fixed number of iterations: the convergence value is reported, not used to stop, so every run does the
 * same calls.
 *
 * <p>Exact result check: with red-black ordering each half-sweep reads only the other colour, complete and exchanged,
 * so the distributed grid is bit for bit the grid a single rank computes. Every rank sums the bit patterns of its
 * cells (a wrapping long sum: exact and order-free), an allreduce(SUM) adds the ranks' sums, and rank 0 compares with
 * the same sum over a grid it computes alone. Rows per rank and columns are small ({@link #ROWS_PER_RANK} ×
 * {@link #COLUMNS}) so that rank 0's reference stays cheap at 256 ranks.
 *
 * <p>Not thread-safe; one call per rank.
 */
final class Sor {
    static final int ROWS_PER_RANK = 4;
    static final int COLUMNS = 16;
    static final double OMEGA = 1.5;

    // Call sites, so a traced run's path-sensitive histograms (--time-encoding path) tell the halo exchange after the
    // red sweep from the one after the black sweep, and the convergence allreduce from the check at the end.
    private static final CallSite SEND_UP = CallSite.named("Sor.exchange send up");
    private static final CallSite SEND_DOWN = CallSite.named("Sor.exchange send down");
    private static final CallSite RECV_UP = CallSite.named("Sor.exchange recv from above");
    private static final CallSite RECV_DOWN = CallSite.named("Sor.exchange recv from below");
    private static final CallSite CONVERGENCE = CallSite.named("Sor.iteration convergence allreduce");
    private static final CallSite CHECK = CallSite.named("Sor.run result check allreduce");

    private Sor() {
    }

    static RankResult run(Comm comm, RunConfig config, TimedWindow window) {
        int rank = comm.rank();
        int size = comm.size();
        // rows 0 and ROWS_PER_RANK + 1 are halos (or the fixed boundary at the ends); columns 0 and COLUMNS + 1 are boundary.
        double[][] u = newBlock(ROWS_PER_RANK, rank == 0);
        long[] halo = new long[COLUMNS + 2];
        Histogram latencies = RankResult.newHistogram();
        // Rounds of --warmup iterations until --warmup-s has passed on every rank, as gsum warms up: the JIT compiles
        // the sweep, the halo exchange and the allreduce paths before the timed iterations, traced or not.
        long warmEnd = System.nanoTime() + config.warmupTime().toNanos();
        do {
            for (int i = 0; i < config.warmup(); i++) {
                iteration(comm, u, halo, rank, size);
            }
        } while (RankWorkloads.keepWarming(comm, warmEnd));
        u = newBlock(ROWS_PER_RANK, rank == 0);
        comm.barrier();
        TracingComm.markTimed(comm);
        window.started(rank);
        long start = System.nanoTime();
        long previous = start;
        double change = 0;
        for (int i = 0; i < config.iterations(); i++) {
            change = iteration(comm, u, halo, rank, size);
            long now = System.nanoTime();
            latencies.recordValue(now - previous);
            previous = now;
        }
        long wall = System.nanoTime() - start;
        window.ended(rank);
        long sum = TracingComm.at(comm, CHECK).allreduce(bitSum(u, ROWS_PER_RANK), ReduceOp.SUM);
        boolean ok = true;
        if (rank == 0) {
            double[][] whole = newBlock(ROWS_PER_RANK * size, true);
            for (int i = 0; i < config.iterations(); i++) {
                sweep(whole, ROWS_PER_RANK * size, 0, 0, false);
                sweep(whole, ROWS_PER_RANK * size, 0, 1, false);
            }
            ok = bitSum(whole, ROWS_PER_RANK * size) == sum && Double.isFinite(change);
        }
        return new RankResult(rank, wall, config.iterations(), 0, ok, null, latencies);
    }

    static double[][] newBlock(int rows, boolean topBoundaryHot) {
        double[][] u = new double[rows + 2][COLUMNS + 2];
        if (topBoundaryHot) {
            Arrays.fill(u[0], 1.0);
        }
        return u;
    }

    /** One red-black iteration with its two halo exchanges and the convergence allreduce; returns the global change. */
    private static double iteration(Comm comm, double[][] u, long[] halo, int rank, int size) {
        int firstRow = rank * ROWS_PER_RANK;
        double change = sweep(u, ROWS_PER_RANK, firstRow, 0, false);
        exchange(comm, u, halo, rank, size);
        change = Math.max(change, sweep(u, ROWS_PER_RANK, firstRow, 1, false));
        exchange(comm, u, halo, rank, size);
        return TracingComm.at(comm, CONVERGENCE).allreduce(change, ReduceOp.MAX);
    }

    /**
     * Updates the cells of one colour ((global row + column) % 2 == colour); returns the largest change, or with
     * {@code sum} the sum of the changes' magnitudes (non-negative: the partial sums only grow).
     */
    static double sweep(double[][] u, int rows, int firstRow, int colour, boolean sum) {
        double change = 0;
        for (int r = 1; r <= rows; r++) {
            int globalRow = firstRow + r - 1;
            for (int c = 1 + ((globalRow + 1 + colour) & 1); c <= COLUMNS; c += 2) {
                double old = u[r][c];
                double gs = 0.25 * (u[r - 1][c] + u[r + 1][c] + u[r][c - 1] + u[r][c + 1]);
                double next = old + OMEGA * (gs - old);
                u[r][c] = next;
                change = sum ? change + Math.abs(next - old) : Math.max(change, Math.abs(next - old));
            }
        }
        return change;
    }

    /** Sends the first and last interior rows to the neighbours above and below and receives their halos. */
    static void exchange(Comm comm, double[][] u, long[] halo, int rank, int size) {
        // Even ranks send first, odd ranks receive first: no cycle of blocked sends, whatever the element capacity.
        for (int phase = 0; phase < 2; phase++) {
            boolean sending = (rank % 2 == 0) == (phase == 0);
            if (sending) {
                if (rank > 0) {
                    send(TracingComm.at(comm, SEND_UP), u[1], halo, rank - 1);
                }
                if (rank + 1 < size) {
                    send(TracingComm.at(comm, SEND_DOWN), u[ROWS_PER_RANK], halo, rank + 1);
                }
            } else {
                if (rank > 0) {
                    receive(TracingComm.at(comm, RECV_UP), u[0], halo, rank - 1);
                }
                if (rank + 1 < size) {
                    receive(TracingComm.at(comm, RECV_DOWN), u[ROWS_PER_RANK + 1], halo, rank + 1);
                }
            }
        }
    }

    private static void send(Comm comm, double[] row, long[] halo, int dest) {
        for (int c = 0; c < row.length; c++) {
            halo[c] = Double.doubleToRawLongBits(row[c]);
        }
        comm.send(dest, halo, row.length);
    }

    private static void receive(Comm comm, double[] row, long[] halo, int source) {
        int n = comm.recv(source, halo);
        for (int c = 0; c < n; c++) {
            row[c] = Double.longBitsToDouble(halo[c]);
        }
    }

    static long bitSum(double[][] u, int rows) {
        long sum = 0;
        for (int r = 1; r <= rows; r++) {
            for (int c = 1; c <= COLUMNS; c++) {
                sum += Double.doubleToRawLongBits(u[r][c]);
            }
        }
        return sum;
    }
}
