/* es_threads.c - MPI_THREAD_MULTIPLE with a second thread that calls MPI while the main thread runs a ring.
 * Per rank: the second pthread makes CALLS MPI_Iprobe calls (not traced by the library: only the thread that
 * initialised MPI records; each is counted in the meta file's untraced calls); the main thread passes a token
 * around the ring LAPS times and meets the others at one MPI_Barrier. Usage: es_threads [CALLS] [LAPS] */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int calls = 25;

static void *probe(void *arg)
{
    (void)arg;
    for (int i = 0; i < calls; i++) {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "threads: MPI_THREAD_MULTIPLE not provided (got %d)\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    calls = argc > 1 ? atoi(argv[1]) : 25;
    int laps = argc > 2 ? atoi(argv[2]) : 10;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pthread_t other;
    if (pthread_create(&other, NULL, probe, NULL) != 0) {
        fprintf(stderr, "threads: pthread_create failed\n");
        MPI_Abort(MPI_COMM_WORLD, 5);
    }
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, token = 0;
    for (int i = 0; i < laps; i++) {
        if (rank == 0) {
            MPI_Send(&token, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&token, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
        }
    }
    pthread_join(other, NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("threads ok: %d ranks, %d calls on a second thread each\n", size, calls);
    }
    MPI_Finalize();
    return 0;
}
