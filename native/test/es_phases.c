/* es_phases.c - compute phases of known length between MPI calls on MPI_COMM_WORLD, for the replay on MPI
 * (trace replay of an mpirun --trace of it re-issues these calls and waits these phases).
 * Usage: es_phases [ITERATIONS [COMPUTE_US]]   (defaults 200 and 500)
 * Per rank: MPI_Bcast of 64 bytes from rank 0; then per iteration: a compute phase of COMPUTE_US µs (a spin on
 * CLOCK_MONOTONIC: wall time, so the phase lasts the same however the ranks share cores), a ring exchange with both
 * neighbours (2 MPI_Irecv, 2 MPI_Isend of 1 KiB, tag 5, one MPI_Waitall of 4), a compute phase of COMPUTE_US / 2 µs,
 * an MPI_Sendrecv of 256 bytes to the next rank (tag 9), an MPI_Allreduce of one double; every 10th iteration an
 * MPI_Send/MPI_Recv pair between ranks 0 and 1 (tag 3, 8 bytes) and an MPI_Barrier; finally MPI_Gather of 16 bytes
 * and MPI_Reduce of 8 bytes to rank 0. Rank 0 prints "phases ok: P ranks, N iterations" (or WRONG, exit 2). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void compute_us(long us)
{
    long end = now_ns() + us * 1000L;
    while (now_ns() < end) {
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iterations = argc > 1 ? atoi(argv[1]) : 200;
    long us = argc > 2 ? atol(argv[2]) : 500;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    char header[64] = {0}, out[2][1024] = {{0}}, in[2][1024], small[256] = {0}, got[256], gathered[16 * 64];
    if (rank == 0) {
        header[0] = 42;
    }
    MPI_Bcast(header, 64, MPI_CHAR, 0, MPI_COMM_WORLD);
    double sum = 0;
    for (int i = 0; i < iterations; i++) {
        compute_us(us);
        MPI_Request r[4];
        MPI_Irecv(in[0], 1024, MPI_CHAR, prev, 5, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(in[1], 1024, MPI_CHAR, next, 5, MPI_COMM_WORLD, &r[1]);
        MPI_Isend(out[0], 1024, MPI_CHAR, next, 5, MPI_COMM_WORLD, &r[2]);
        MPI_Isend(out[1], 1024, MPI_CHAR, prev, 5, MPI_COMM_WORLD, &r[3]);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
        compute_us(us / 2);
        MPI_Sendrecv(small, 256, MPI_CHAR, next, 9, got, 256, MPI_CHAR, prev, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double one = 1, all = 0;
        MPI_Allreduce(&one, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        sum += all;
        if (i % 10 == 9) {
            long v = i;
            if (rank == 0 && size > 1) {
                MPI_Send(&v, 1, MPI_LONG, 1, 3, MPI_COMM_WORLD);
            } else if (rank == 1) {
                MPI_Recv(&v, 1, MPI_LONG, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    char mine[16] = {(char)rank};
    MPI_Gather(mine, 16, MPI_CHAR, gathered, 16, MPI_CHAR, 0, MPI_COMM_WORLD);
    double total = 0;
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int ok = header[0] == 42 && total == (double)size * size * iterations;
        printf("phases %s: %d ranks, %d iterations\n", ok ? "ok" : "WRONG", size, iterations);
        MPI_Finalize();
        return ok ? 0 : 2;
    }
    MPI_Finalize();
    return 0;
}
