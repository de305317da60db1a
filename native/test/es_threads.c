/* es_threads.c - MPI_THREAD_MULTIPLE: THREADS threads per rank, each on a communicator of its own (dup'ed from
 * MPI_COMM_WORLD by the main thread, in the same order on every rank), each running ITERATIONS rounds of an
 * MPI_Irecv from the previous rank + MPI_Send to the next + MPI_Wait, and an MPI_Allreduce, then one MPI_Barrier on
 * its communicator; the main thread meets the others at one MPI_Barrier on MPI_COMM_WORLD and frees the
 * communicators. Every thread counts its own calls; rank 0 prints the rank's totals, which the library's counters
 * must equal (every thread records: none of these calls is untraced).
 * Usage: es_threads [THREADS] [ITERATIONS] */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS_MAX 64

typedef struct {
    MPI_Comm comm;
    int iterations;
    long irecvs, sends, waits, allreduces, barriers;
} work;

static void *run(void *arg)
{
    work *w = arg;
    int rank, size;
    MPI_Comm_rank(w->comm, &rank);
    MPI_Comm_size(w->comm, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int i = 0; i < w->iterations; i++) {
        int in = -1, out = rank * 1000 + i;
        MPI_Request rq;
        MPI_Irecv(&in, 1, MPI_INT, prev, 7, w->comm, &rq);
        w->irecvs++;
        MPI_Send(&out, 1, MPI_INT, next, 7, w->comm);
        w->sends++;
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        w->waits++;
        if (in != prev * 1000 + i) {
            fprintf(stderr, "threads: rank %d got %d from %d in round %d\n", rank, in, prev, i);
            MPI_Abort(MPI_COMM_WORLD, 6);
        }
        long mine = i, sum = 0;
        MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, w->comm);
        w->allreduces++;
    }
    MPI_Barrier(w->comm);
    w->barriers++;
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
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    int iterations = argc > 2 ? atoi(argv[2]) : 10;
    if (threads < 1 || threads > THREADS_MAX) {
        fprintf(stderr, "threads: THREADS must be in 1..%d\n", THREADS_MAX);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    work w[THREADS_MAX] = {{0}};
    pthread_t t[THREADS_MAX];
    for (int k = 0; k < threads; k++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &w[k].comm);
        w[k].iterations = iterations;
    }
    for (int k = 0; k < threads; k++) {
        if (pthread_create(&t[k], NULL, run, &w[k]) != 0) {
            fprintf(stderr, "threads: pthread_create failed\n");
            MPI_Abort(MPI_COMM_WORLD, 5);
        }
    }
    long irecvs = 0, sends = 0, waits = 0, allreduces = 0, barriers = 1;
    for (int k = 0; k < threads; k++) {
        pthread_join(t[k], NULL);
        irecvs += w[k].irecvs;
        sends += w[k].sends;
        waits += w[k].waits;
        allreduces += w[k].allreduces;
        barriers += w[k].barriers;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < threads; k++) {
        MPI_Comm_free(&w[k].comm);
    }
    if (rank == 0) {
        printf("threads ok: %d ranks x %d threads; per rank MPI_Irecv=%ld MPI_Send=%ld MPI_Wait=%ld "
               "MPI_Allreduce=%ld MPI_Barrier=%ld\n", size, threads, irecvs, sends, waits, allreduces, barriers);
    }
    MPI_Finalize();
    return 0;
}
