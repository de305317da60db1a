/* es_ring.c - a token passed around a ring of ranks ITERATIONS times (blocking Send/Recv of one int).
 * Per rank: ITERATIONS MPI_Send and ITERATIONS MPI_Recv, 4 bytes each. Usage: es_ring [ITERATIONS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iterations = argc > 1 ? atoi(argv[1]) : 100;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, token = 0;
    for (int i = 0; i < iterations; i++) {
        if (rank == 0) {
            token = i;
            MPI_Send(&token, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (token != i + size - 1) {
                fprintf(stderr, "ring: token %d, expected %d\n", token, i + size - 1);
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
        } else {
            MPI_Recv(&token, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token++;
            MPI_Send(&token, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
        }
    }
    if (rank == 0) {
        printf("ring ok: %d ranks, %d laps\n", size, iterations);
    }
    MPI_Finalize();
    return 0;
}
