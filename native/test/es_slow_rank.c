/* es_slow_rank.c - rank 2 computes 3x longer than the others (a load imbalance a timeline must show on rank 2's
 * track alone). Per iteration: busy work of (rank == 2 ? 3 : 1) x WORK_US µs, a ring MPI_Sendrecv (to rank+1, from
 * rank-1), a ring MPI_Irecv + MPI_Send + MPI_Wait (the receive completes in the wait), then an MPI_Allreduce.
 * Usage: es_slow_rank [ITERATIONS] [WORK_US]  (defaults 200, 400) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double busy(double us)
{
    double until = MPI_Wtime() + us * 1e-6, x = 1.0;
    while (MPI_Wtime() < until) {
        for (int i = 0; i < 64; i++) {
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
    int iterations = argc > 1 ? atoi(argv[1]) : 200;
    double work_us = argc > 2 ? atof(argv[2]) : 400.0;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    double sink = 0, out[8] = {0}, in[8] = {0}, sum = 0;
    for (int i = 0; i < iterations; i++) {
        sink += busy((rank == 2 ? 3 : 1) * work_us);
        out[0] = rank + i;
        MPI_Sendrecv(out, 8, MPI_DOUBLE, next, 11, in, 8, MPI_DOUBLE, prev, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (in[0] != prev + i) {
            fprintf(stderr, "slow_rank: rank %d got %g from %d, expected %d\n", rank, in[0], prev, prev + i);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        MPI_Request req;
        MPI_Irecv(in, 8, MPI_DOUBLE, prev, 12, MPI_COMM_WORLD, &req);
        MPI_Send(out, 8, MPI_DOUBLE, next, 12, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        double mine = in[0] + (sink > 0 ? 0 : 1), total = 0;
        MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        sum += total;
    }
    if (rank == 0) {
        printf("slow_rank ok: %d ranks, %d iterations, rank 2 x3 of %.0f us (sum %g)\n", size, iterations, work_us, sum);
    }
    MPI_Finalize();
    return 0;
}
