/* es_halo_late.c - a 1-D periodic halo exchange with MPI_Sendrecv in which one rank is late on purpose.
 * Usage: es_halo_late ITERATIONS LATE_RANK DELAY_US
 * Per iteration LATE_RANK sleeps DELAY_US, then every rank exchanges a row of 16 doubles with both neighbours:
 * MPI_Sendrecv (to the right, from the left), then MPI_Sendrecv_replace (to the left, from the right); both
 * neighbours of LATE_RANK wait in one of them for its late send. An MPI_Barrier ends the iteration. Every halo is
 * checked; rank 0 prints "halo ok: N ranks, I iterations". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROW 16

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iterations = argc > 1 ? atoi(argv[1]) : 10;
    int late = argc > 2 ? atoi(argv[2]) : -1;
    long delay = argc > 3 ? atol(argv[3]) : 0;
    int left = (rank + size - 1) % size, right = (rank + 1) % size, wrong = 0;
    double mine[ROW], halo[ROW];
    for (int i = 0; i < iterations; i++) {
        if (rank == late) {
            struct timespec ts = {delay / 1000000, (delay % 1000000) * 1000};
            nanosleep(&ts, NULL);
        }
        for (int k = 0; k < ROW; k++) {
            mine[k] = rank * 100000.0 + i * 100 + k;
        }
        MPI_Sendrecv(mine, ROW, MPI_DOUBLE, right, 21, halo, ROW, MPI_DOUBLE, left, 21, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        wrong |= halo[ROW - 1] != left * 100000.0 + i * 100 + ROW - 1;
        for (int k = 0; k < ROW; k++) {
            halo[k] = mine[k];
        }
        MPI_Sendrecv_replace(halo, ROW, MPI_DOUBLE, left, 22, right, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        wrong |= halo[0] != right * 100000.0 + i * 100;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    int any = 0;
    MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0) {
        printf(any ? "halo WRONG\n" : "halo ok: %d ranks, %d iterations\n", size, iterations);
    }
    MPI_Finalize();
    return any ? 2 : 0;
}
