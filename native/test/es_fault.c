/* es_fault.c - a run in which one rank fails, so the report must name it with its signal or code.
 * Usage: es_fault MODE RANK [CODE]
 * Every rank runs 5 MPI_Allreduce of one int; then rank RANK fails as MODE says, the others go on to a sixth
 * MPI_Allreduce (which cannot complete without RANK) unless MODE is "exit":
 *   segv   RANK writes through a null pointer (SIGSEGV, outside any MPI call)
 *   abort  RANK calls MPI_Abort(MPI_COMM_WORLD, CODE)
 *   exit   every rank reaches MPI_Finalize; then RANK returns CODE from main, the others 0
 *   early  RANK calls exit(CODE) without MPI_Finalize */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) {
        if (rank == 0) {
            fprintf(stderr, "usage: es_fault segv|abort|exit|early RANK [CODE]\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const char *mode = argv[1];
    int failing = atoi(argv[2]), code = argc > 3 ? atoi(argv[3]) : 1;
    int sum = 0;
    for (int i = 0; i < 5; i++) {
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == failing) {
        fprintf(stderr, "es_fault: rank %d fails (%s)\n", rank, mode);
        fflush(stderr);
        if (strcmp(mode, "segv") == 0) {
            volatile int *nothing = NULL;
            *nothing = sum;
        } else if (strcmp(mode, "abort") == 0) {
            MPI_Abort(MPI_COMM_WORLD, code);
        } else if (strcmp(mode, "early") == 0) {
            exit(code);
        }
    }
    if (strcmp(mode, "exit") != 0) {
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    if (rank == 0) {
        printf("fault %s: %d ranks, sum %d\n", mode, size, sum);
    }
    return rank == failing && strcmp(mode, "exit") == 0 ? code : 0;
}
