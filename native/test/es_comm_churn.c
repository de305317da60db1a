/* es_comm_churn.c - communicator churn: CYCLES rounds of MPI_Comm_split (even and odd ranks) + MPI_Comm_free, then
 * ITERATIONS MPI_Allreduce on one more split communicator and on MPI_COMM_WORLD, so the library's communicator table
 * and the meta file's communicator list see CYCLES + 1 communicators come and go before the collectives that must
 * still be named and complete. With -t it prints the per-call time of the allreduces on the split communicator
 * before the churn and after it (native/bench/run-comm-churn.sh).
 * Usage: es_comm_churn [CYCLES] [ITERATIONS] [-t] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The best of 5 runs of ITERATIONS allreduces on comm, in ns per call (the slowest rank's). */
static double allreduce_ns(MPI_Comm comm, int iterations)
{
    double best = 1e300;
    for (int r = 0; r < 5; r++) {
        long x = 1, y = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now_ns();
        for (int i = 0; i < iterations; i++) {
            MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_SUM, comm);
        }
        double mine = (now_ns() - t0) / iterations, slowest;
        PMPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        best = slowest < best ? slowest : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int cycles = argc > 1 ? atoi(argv[1]) : 1000;
    int iterations = argc > 2 ? atoi(argv[2]) : 100;
    int timed = argc > 3 && strcmp(argv[3], "-t") == 0;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double before = 0;
    MPI_Comm kept;
    if (timed) {
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &kept);
        before = allreduce_ns(kept, iterations);
        MPI_Comm_free(&kept);
    }
    for (int c = 0; c < cycles; c++) {
        MPI_Comm s;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &s);
        MPI_Comm_free(&s);
    }
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &kept);
    if (timed) {
        double after = allreduce_ns(kept, iterations);
        if (rank == 0) {
            printf("comm_churn cycles=%d before_ns=%.2f after_ns=%.2f\n", cycles, before, after);
        }
    }
    long sum = 0, one = 1;
    for (int i = 0; i < iterations; i++) {
        MPI_Allreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, kept);
        MPI_Allreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Comm_free(&kept);
    if (rank == 0) {
        printf("comm churn ok: %d ranks, %d split/free cycles, %d allreduces on a split communicator\n", size, cycles,
               iterations);
    }
    MPI_Finalize();
    return 0;
}
