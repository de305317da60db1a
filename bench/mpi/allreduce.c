/*
 * allreduce.c - MPI_Allreduce latency baseline for EventSpace.
 *
 * Every rank repeatedly calls MPI_Allreduce(MPI_SUM) on COUNT longs
 * (default 1, i.e. an 8-byte value) and checks the exact result each time.
 * Rank 0 prints one JSON line to stdout; diagnostics go to stderr.
 *
 * Usage: allreduce [-i ITERATIONS] [-w WARMUP] [-c COUNT]
 *
 * Values: element j of rank r in iteration k is r + 1 + (k + j) % 7, so the
 * exact expected sum over n ranks is n(n+1)/2 + n * ((k + j) % 7). The value
 * changes from one iteration to the next, so a stale buffer is caught too.
 *
 * Exit status: 0 if every result was correct, 2 if any was wrong (the JSON
 * line is still printed, with "result_ok":false), 1 on bad arguments.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

/* Fills the send buffer for iteration k and clears the receive buffer. */
static void fill(long *send, long *recv, long count, int rank, long k)
{
    for (long j = 0; j < count; j++) {
        send[j] = (long)rank + 1 + (k + j) % 7;
        recv[j] = -1;
    }
}

/* Returns 1 if recv holds the exact expected sums for iteration k. */
static int check(const long *recv, long count, int nranks, long k)
{
    long base = (long)nranks * (nranks + 1) / 2;
    for (long j = 0; j < count; j++) {
        if (recv[j] != base + (long)nranks * ((k + j) % 7)) {
            return 0;
        }
    }
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);

    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    long iterations = 20000, warmup = 1000, count = 1;
    int opt, bad = 0;
    while ((opt = getopt(argc, argv, "i:w:c:")) != -1) {
        switch (opt) {
        case 'i': bad |= parse_long_opt(rank, 'i', optarg, 1, 100000000L, &iterations); break;
        case 'w': bad |= parse_long_opt(rank, 'w', optarg, 0, 100000000L, &warmup); break;
        case 'c': bad |= parse_long_opt(rank, 'c', optarg, 1, 1L << 24, &count); break;
        default: bad = 1; break;
        }
    }
    if (bad || optind != argc) {
        if (rank == 0) {
            fprintf(stderr, "usage: %s [-i ITERATIONS] [-w WARMUP] [-c COUNT]\n", argv[0]);
        }
        MPI_Finalize();
        return 1;
    }

    long *send = malloc((size_t)count * sizeof *send);
    long *recv = malloc((size_t)count * sizeof *recv);
    double *lat = malloc((size_t)iterations * sizeof *lat);
    if (send == NULL || recv == NULL || lat == NULL) {
        fprintf(stderr, "error: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* Touch the sample array now so no page fault lands in the timed loop. */
    memset(lat, 0, (size_t)iterations * sizeof *lat);

    long failures = 0;

    /* Warm-up: connection setup, first-touch of shared-memory segments, lazy
     * allocations in the collective component. Checked but not timed. */
    for (long k = 0; k < warmup; k++) {
        fill(send, recv, count, rank, k);
        MPI_Allreduce(send, recv, (int)count, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        failures += !check(recv, count, nranks, k);
    }

    /* The barrier lines the ranks up so the timed region starts together on
     * all of them; otherwise a rank still finishing warm-up (or descheduled
     * while oversubscribed) would show up as latency in the first samples of
     * the others. */
    MPI_Barrier(MPI_COMM_WORLD);

    /* MPI_Wtime is the clock the MPI standard defines for this (Open MPI maps
     * it to a monotonic high-resolution clock; MPI_Wtick reports its
     * resolution), and it is what other MPI benchmarks use, so the numbers
     * are comparable. One read per iteration: the end of one iteration is the
     * start of the next, so the samples add up exactly to the wall time and
     * the clock read is paid once, not twice. */
    double t_start = MPI_Wtime();
    double prev = t_start;
    for (long k = 0; k < iterations; k++) {
        long kk = warmup + k; /* continue the value sequence after warm-up */
        fill(send, recv, count, rank, kk);
        MPI_Allreduce(send, recv, (int)count, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        failures += !check(recv, count, nranks, kk);
        double now = MPI_Wtime();
        lat[k] = now - prev;
        prev = now;
    }
    double wall = prev - t_start;

    /* mean: the slowest rank's wall time (max), since the collective is done
     * only when every rank is done. Percentiles: rank 0's own samples. */
    double wall_max = 0.0;
    long failures_total = 0;
    MPI_Reduce(&wall, &wall_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&failures, &failures_total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);

    int ok = 1;
    if (rank == 0) {
        qsort(lat, (size_t)iterations, sizeof *lat, cmp_double);
        ok = failures_total == 0;
        printf("{\"schema\":\"%s\",\"benchmark\":\"allreduce\",\"ranks\":%d,"
               "\"datatype\":\"MPI_LONG\",\"op\":\"MPI_SUM\",\"count\":%ld,\"bytes\":%ld,"
               "\"iterations\":%ld,\"warmup\":%ld,\"wall_s\":%.6f,"
               "\"mean_us\":%.4f,\"p50_us\":%.4f,\"p99_us\":%.4f,\"max_us\":%.4f,"
               "\"wtick_s\":%.3g,\"failures\":%ld,\"result_ok\":%s}\n",
               BENCH_SCHEMA, nranks, count, count * (long)sizeof(long),
               iterations, warmup, wall_max,
               wall_max / (double)iterations * 1e6,
               percentile_sorted(lat, iterations, 50.0) * 1e6,
               percentile_sorted(lat, iterations, 99.0) * 1e6,
               lat[iterations - 1] * 1e6,
               MPI_Wtick(), failures_total, ok ? "true" : "false");
        fflush(stdout);
        if (!ok) {
            fprintf(stderr, "error: %ld of %ld allreduce results were wrong\n",
                    failures_total, (warmup + iterations) * nranks);
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);

    free(lat);
    free(recv);
    free(send);
    MPI_Finalize();
    return ok ? 0 : 2;
}
