/*
 * call_cost.c - time per MPI call, for the interposition library's cost (run-call-cost.sh runs it with and
 * without the library, interleaved, and reports the difference).
 *
 * Every rank calls MPI_Allreduce(MPI_SUM) on one long ITERATIONS times, REPEATS times; rank 0 prints one line
 * "call_cost ns_per_call=<best repeat> median_ns=<median repeat>" (ns per call of the slowest rank's loop, taken
 * with an MPI_Reduce(MAX) after each repeat, outside the timed loop).
 * Usage: call_cost [-i ITERATIONS] [-r REPEATS] [-b]  (-b: MPI_Barrier instead of MPI_Allreduce)
 *
 * With -p BLOCKS: the same process alternates blocks of ITERATIONS calls of PMPI_Allreduce (the bare call: the
 * library's wrapper is skipped) and of MPI_Allreduce (through the wrapper when the library is preloaded), BLOCKS
 * pairs, in alternating order, and prints "paired bare_ns=<median> wrapped_ns=<median> added_ns=<median of the
 * pairs' differences> p10=<10th percentile> p90=<90th>". Side by side in one run: the machine's state is the same
 * for both halves of a pair. Without the library preloaded both are the same function (added_ns ~ 0: the control).
 * With -p and -w: each iteration is a non-blocking receive completed by a wait, MPI_Irecv from itself, MPI_Send
 * to itself, MPI_Wait (so the library's request table, its lookup in the wait and the receive record are in the
 * figure); the line says calls=3 and the ns are per iteration (added per call: added_ns / 3).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, opt, barrier = 0, paired = 0, irecv = 0;
    long iterations = 1000000, repeats = 7;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    while ((opt = getopt(argc, argv, "i:r:bp:w")) != -1) {
        switch (opt) {
        case 'p': paired = atoi(optarg); break;
        case 'i': iterations = atol(optarg); break;
        case 'r': repeats = atol(optarg); break;
        case 'b': barrier = 1; break;
        case 'w': irecv = 1; break;
        default: MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    long x = rank, y = 0, check = 0;
    if (paired > 0) {
        double *bare = malloc(sizeof(double) * paired), *wrapped = malloc(sizeof(double) * paired);
        double *diff = malloc(sizeof(double) * paired);
        for (int p = 0; p < paired; p++) {
            for (int half = 0; half < 2; half++) {
                int wrap = (half + p) % 2; /* alternate which goes first */
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = now_ns();
                MPI_Request rq;
                if (irecv && wrap) {
                    for (long i = 0; i < iterations; i++) {
                        MPI_Irecv(&y, 1, MPI_LONG, rank, 5, MPI_COMM_WORLD, &rq);
                        MPI_Send(&x, 1, MPI_LONG, rank, 5, MPI_COMM_WORLD);
                        MPI_Wait(&rq, MPI_STATUS_IGNORE);
                        check += y;
                    }
                } else if (irecv) {
                    for (long i = 0; i < iterations; i++) {
                        PMPI_Irecv(&y, 1, MPI_LONG, rank, 5, MPI_COMM_WORLD, &rq);
                        PMPI_Send(&x, 1, MPI_LONG, rank, 5, MPI_COMM_WORLD);
                        PMPI_Wait(&rq, MPI_STATUS_IGNORE);
                        check += y;
                    }
                } else if (wrap) {
                    for (long i = 0; i < iterations; i++) {
                        MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
                        check += y;
                    }
                } else {
                    for (long i = 0; i < iterations; i++) {
                        PMPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
                        check += y;
                    }
                }
                double mine = (now_ns() - t0) / iterations, slowest;
                PMPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                (wrap ? wrapped : bare)[p] = slowest;
            }
            diff[p] = wrapped[p] - bare[p];
        }
        if (rank == 0) {
            qsort(bare, paired, sizeof(double), cmp);
            qsort(wrapped, paired, sizeof(double), cmp);
            qsort(diff, paired, sizeof(double), cmp);
            printf("paired bare_ns=%.2f wrapped_ns=%.2f added_ns=%.2f p10=%.2f p90=%.2f pairs=%d calls=%d check=%ld\n",
                   bare[paired / 2], wrapped[paired / 2], diff[paired / 2], diff[paired / 10],
                   diff[paired - 1 - paired / 10], paired, irecv ? 3 : 1, check % 1000);
        }
        MPI_Finalize();
        return 0;
    }
    double *per = malloc(sizeof(double) * repeats);
    for (long r = 0; r < repeats; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now_ns();
        for (long i = 0; i < iterations; i++) {
            if (barrier) {
                MPI_Barrier(MPI_COMM_WORLD);
            } else {
                MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
                check += y;
            }
        }
        double mine = (now_ns() - t0) / iterations, slowest;
        MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        per[r] = slowest;
    }
    if (rank == 0) {
        qsort(per, repeats, sizeof(double), cmp);
        printf("call_cost ns_per_call=%.2f median_ns=%.2f check=%ld\n", per[0], per[repeats / 2], check % 1000);
    }
    free(per);
    MPI_Finalize();
    return 0;
}
