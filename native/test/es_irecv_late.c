/* es_irecv_late.c - a ring of non-blocking receives in which one rank sends late on purpose.
 * Usage: es_irecv_late ITERATIONS LATE_RANK DELAY_US
 * Per iteration every rank posts MPI_Irecv from its left neighbour and MPI_Isend to its right one, then completes
 * both: even iterations with one MPI_Waitall, odd ones with MPI_Wait on the receive, then on the send (statuses
 * ignored both ways, as many programs do); LATE_RANK sleeps DELAY_US before its MPI_Isend, so its right neighbour
 * waits for a late sender in every completion; an MPI_Barrier ends the iteration, so the delay does not travel on
 * around the ring. Every received value is checked; rank 0 prints "irecv ok: N ranks, I iterations". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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
    for (int i = 0; i < iterations; i++) {
        int in = -1, out = rank * 1000 + i;
        MPI_Request rq[2];
        MPI_Irecv(&in, 1, MPI_INT, left, 11, MPI_COMM_WORLD, &rq[0]);
        if (rank == late) {
            struct timespec ts = {delay / 1000000, (delay % 1000000) * 1000};
            nanosleep(&ts, NULL);
        }
        MPI_Isend(&out, 1, MPI_INT, right, 11, MPI_COMM_WORLD, &rq[1]);
        if (i % 2 == 0) {
            MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        } else {
            MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
            MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
        }
        wrong |= in != left * 1000 + i;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    int any = 0;
    MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0) {
        printf(any ? "irecv WRONG\n" : "irecv ok: %d ranks, %d iterations\n", size, iterations);
    }
    MPI_Finalize();
    return any ? 2 : 0;
}
