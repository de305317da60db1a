/*
 * pingpong.c - point-to-point latency baseline for EventSpace.
 *
 * Rank 0 sends SIZE bytes to rank 1 with a blocking MPI_Send, rank 1 receives
 * them and sends them back, ITERATIONS times. One-way latency is half of each
 * round trip as measured on rank 0. Ranks above 1, if any, take no part and
 * wait in the final barrier (run with exactly 2 ranks for clean numbers).
 * Rank 0 prints one JSON line to stdout; diagnostics go to stderr.
 *
 * Usage: pingpong [-i ITERATIONS] [-w WARMUP] [-s BYTES]
 *
 * Checking: rank 0 stamps the iteration number into the first and last byte;
 * rank 1 checks the stamp and adds 1 to the first byte before echoing, so
 * rank 0 knows the reply is this iteration's and came from rank 1. Only two
 * bytes are touched, so the check costs the same for every message size.
 *
 * Exit status: 0 if every message was correct, 2 if any was wrong (the JSON
 * line is still printed, with "result_ok":false), 1 on bad arguments.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define TAG_PING 1
#define TAG_PONG 2

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);

    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    long iterations = 20000, warmup = 1000, size = 8;
    int opt, bad = 0;
    while ((opt = getopt(argc, argv, "i:w:s:")) != -1) {
        switch (opt) {
        case 'i': bad |= parse_long_opt(rank, 'i', optarg, 1, 100000000L, &iterations); break;
        case 'w': bad |= parse_long_opt(rank, 'w', optarg, 0, 100000000L, &warmup); break;
        case 's': bad |= parse_long_opt(rank, 's', optarg, 1, 1L << 30, &size); break;
        default: bad = 1; break;
        }
    }
    if (bad || optind != argc) {
        if (rank == 0) {
            fprintf(stderr, "usage: %s [-i ITERATIONS] [-w WARMUP] [-s BYTES]\n", argv[0]);
        }
        MPI_Finalize();
        return 1;
    }
    if (nranks < 2) {
        if (rank == 0) {
            fprintf(stderr, "error: pingpong needs at least 2 ranks (got %d)\n", nranks);
        }
        MPI_Finalize();
        return 1;
    }
    if (nranks > 2 && rank == 0) {
        fprintf(stderr, "warning: pingpong uses ranks 0 and 1 only; %d ranks idle\n",
                nranks - 2);
    }

    unsigned char *sbuf = calloc((size_t)size, 1);
    unsigned char *rbuf = calloc((size_t)size, 1);
    double *lat = calloc(rank == 0 ? (size_t)iterations : 1, sizeof *lat);
    if (sbuf == NULL || rbuf == NULL || lat == NULL) {
        fprintf(stderr, "error: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const long last = size - 1;
    long failures = 0;
    double wall = 0.0;

    /* MPI_Wtime: see allreduce.c. One read per iteration on rank 0, the end
     * of one round trip being the start of the next. The barrier before the
     * timed loop makes both ranks start it together (rank 1 may still be in
     * its last warm-up send when rank 0 leaves warm-up). */
    if (rank == 0) {
        double t_start = 0.0, prev = 0.0;
        for (long k = -warmup; k < iterations; k++) {
            if (k == 0) {
                MPI_Barrier(MPI_COMM_WORLD);
                t_start = prev = MPI_Wtime();
            }
            unsigned long n = (unsigned long)(k + warmup); /* message number */
            unsigned char stamp = (unsigned char)n;
            sbuf[0] = stamp;
            if (last > 0) {
                sbuf[last] = (unsigned char)(n >> 8);
            }
            rbuf[0] = (unsigned char)~(stamp + 1);
            MPI_Send(sbuf, (int)size, MPI_BYTE, 1, TAG_PING, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)size, MPI_BYTE, 1, TAG_PONG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            int good = rbuf[0] == (unsigned char)(stamp + 1);
            if (last > 0) {
                good &= rbuf[last] == (unsigned char)(n >> 8);
            }
            failures += !good;
            if (k >= 0) {
                double now = MPI_Wtime();
                lat[k] = (now - prev) / 2.0; /* one-way = half the round trip */
                prev = now;
            }
        }
        wall = prev - t_start;
    } else if (rank == 1) {
        for (long k = -warmup; k < iterations; k++) {
            if (k == 0) {
                MPI_Barrier(MPI_COMM_WORLD);
            }
            unsigned long n = (unsigned long)(k + warmup); /* message number */
            MPI_Recv(rbuf, (int)size, MPI_BYTE, 0, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            int good = rbuf[0] == (unsigned char)n;
            if (last > 0) {
                good &= rbuf[last] == (unsigned char)(n >> 8);
            }
            failures += !good;
            rbuf[0]++;
            MPI_Send(rbuf, (int)size, MPI_BYTE, 0, TAG_PONG, MPI_COMM_WORLD);
        }
    } else {
        MPI_Barrier(MPI_COMM_WORLD); /* matches the pre-timing barrier */
    }

    long failures_total = 0;
    MPI_Reduce(&failures, &failures_total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);

    int ok = 1;
    if (rank == 0) {
        /* All figures come from rank 0, the side that times whole round trips
         * (rank 1's loop ends after its last send, before the last reply lands). */
        qsort(lat, (size_t)iterations, sizeof *lat, cmp_double);
        ok = failures_total == 0;
        printf("{\"schema\":\"%s\",\"benchmark\":\"pingpong\",\"ranks\":%d,"
               "\"datatype\":\"MPI_BYTE\",\"count\":%ld,\"bytes\":%ld,"
               "\"iterations\":%ld,\"warmup\":%ld,\"wall_s\":%.6f,"
               "\"mean_us\":%.4f,\"p50_us\":%.4f,\"p99_us\":%.4f,\"max_us\":%.4f,"
               "\"wtick_s\":%.3g,\"failures\":%ld,\"result_ok\":%s}\n",
               BENCH_SCHEMA, nranks, size, size, iterations, warmup, wall,
               wall / (double)iterations / 2.0 * 1e6,
               percentile_sorted(lat, iterations, 50.0) * 1e6,
               percentile_sorted(lat, iterations, 99.0) * 1e6,
               lat[iterations - 1] * 1e6,
               MPI_Wtick(), failures_total, ok ? "true" : "false");
        fflush(stdout);
        if (!ok) {
            fprintf(stderr, "error: %ld of %ld pingpong messages were wrong\n",
                    failures_total, 2 * (warmup + iterations));
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);

    free(lat);
    free(rbuf);
    free(sbuf);
    MPI_Finalize();
    return ok ? 0 : 2;
}
