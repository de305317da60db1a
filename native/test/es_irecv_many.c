/* es_irecv_many.c - many receives outstanding at once, as a halo exchange over many neighbours or a pipelined
 * solver posts them. Usage: es_irecv_many ROUNDS POSTED
 * Per round every rank posts POSTED MPI_Irecv from its left neighbour (tags 0..POSTED-1), then POSTED MPI_Isend to
 * its right one, and completes all 2 x POSTED requests with one MPI_Waitall. The library keeps each posted receive
 * in its request table until a wait completes it: MPI hands out consecutive handles for consecutive requests (MPICH's
 * are an index in an int), which the table must spread rather than pile on one home slot, or receives go untracked.
 * Every received value is checked; rank 0 prints "irecv many ok: N ranks, R rounds of P". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    int posted = argc > 2 ? atoi(argv[2]) : 100;
    int left = (rank + size - 1) % size, right = (rank + 1) % size, wrong = 0;
    int *in = malloc(sizeof(int) * posted), *out = malloc(sizeof(int) * posted);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * 2 * posted);
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < posted; k++) {
            in[k] = -1;
            MPI_Irecv(&in[k], 1, MPI_INT, left, k, MPI_COMM_WORLD, &rq[k]);
        }
        for (int k = 0; k < posted; k++) {
            out[k] = rank * 100000 + r * 1000 + k;
            MPI_Isend(&out[k], 1, MPI_INT, right, k, MPI_COMM_WORLD, &rq[posted + k]);
        }
        MPI_Waitall(2 * posted, rq, MPI_STATUSES_IGNORE);
        for (int k = 0; k < posted; k++) {
            wrong |= in[k] != left * 100000 + r * 1000 + k;
        }
    }
    int any = 0;
    MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0) {
        printf(any ? "irecv many WRONG\n" : "irecv many ok: %d ranks, %d rounds of %d\n", size, rounds, posted);
    }
    free(in);
    free(out);
    free(rq);
    MPI_Finalize();
    return any;
}
