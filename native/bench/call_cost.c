/*
 * call_cost.c - time per MPI call, for the interposition library's cost (run-call-cost.sh runs it with and
 * without the library, interleaved, and reports the difference).
 *
 * Every rank calls MPI_Allreduce(MPI_SUM) on one long ITERATIONS times, REPEATS times; rank 0 prints one line
 * "call_cost ns_per_call=<best repeat> median_ns=<median repeat>" (ns per call of the slowest rank's loop, taken
 * with an MPI_Reduce(MAX) after each repeat, outside the timed loop).
 * Usage: call_cost [-i ITERATIONS] [-r REPEATS] [-b]  (-b: MPI_Barrier instead of MPI_Allreduce)
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
    int rank, opt, barrier = 0;
    long iterations = 1000000, repeats = 7;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    while ((opt = getopt(argc, argv, "i:r:b")) != -1) {
        switch (opt) {
        case 'i': iterations = atol(optarg); break;
        case 'r': repeats = atol(optarg); break;
        case 'b': barrier = 1; break;
        default: MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    double *per = malloc(sizeof(double) * repeats);
    long x = rank, y = 0, check = 0;
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
