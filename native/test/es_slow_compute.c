/* es_slow_compute.c - a compute + MPI_Allreduce loop in which rank 2 computes three times as long as the others.
 * Usage: es_slow_compute [ITERATIONS [COMPUTE_US]]   (defaults 2000 and 300)
 * Per rank and iteration: busy computing for (rank == 2 ? 3 : 1) x COMPUTE_US µs of the rank's own CPU time (a spin on
 * its thread's CPU clock, not a sleep nor the wall clock: a fixed amount of work, which a rank that shares its core with
 * others, as 4 ranks on 2 cores do, takes longer to finish, as a real imbalance in the work would), then one
 * MPI_Allreduce of one long. Every
 * sum is checked; rank 0 prints "slow_compute ok: P ranks, N iterations" (or WRONG and exit code 2). With fewer than 3
 * ranks nobody is slow. The dashboard's browser test runs it under mpirun --serve and expects rank 2 to be named the
 * slowest rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* Spins for us µs of this thread's CPU time; returns a value that depends on the work so the compiler keeps it. */
static double compute_us(long us)
{
    long end = cpu_ns() + us * 1000L;
    double x = 1.0;
    while (cpu_ns() < end) {
        for (int k = 0; k < 64; k++) {
            x = x * 1.0000001 + 1e-9;
        }
    }
    return x;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long iterations = argc > 1 ? atol(argv[1]) : 2000;
    long us = argc > 2 ? atol(argv[2]) : 300;
    if (iterations < 0 || us < 0) {
        if (rank == 0) {
            fprintf(stderr, "es_slow_compute: ITERATIONS and COMPUTE_US must be >= 0, got %s %s\n", argv[1],
                    argc > 2 ? argv[2] : "300");
        }
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int wrong = 0;
    double sink = 0;
    for (long i = 0; i < iterations; i++) {
        sink += compute_us((rank == 2 ? 3 : 1) * us);
        long mine = rank + 1 + i % 5, sum = 0;
        MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (sum != (long)size * (size + 1) / 2 + (long)size * (i % 5)) {
            wrong++;
        }
    }
    if (rank == 0) {
        printf("slow_compute %s: %d ranks, %ld iterations%s\n", wrong ? "WRONG" : "ok", size, iterations,
               sink < 0 ? " (never)" : "");
    }
    MPI_Finalize();
    return wrong ? 2 : 0;
}
