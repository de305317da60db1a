/* es_allreduce.c - an MPI_Allreduce loop that checks every sum; optionally one rank is late, one dies.
 * Usage: es_allreduce [-i ITERATIONS] [-s SLOW_RANK -d DELAY_US] [-k KILLED_RANK] [-x EXIT_CODE]
 * Per rank: ITERATIONS MPI_Allreduce of one long (8 bytes), then one MPI_Barrier.
 * -k R: rank R kills itself (SIGKILL) halfway, as a crash would. -x C: every rank exits with C after
 * MPI_Finalize (the launcher must pass it through). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long iterations = 1000, delay = 0;
    int slow = -1, killed = -1, code = 0, opt;
    while ((opt = getopt(argc, argv, "i:s:d:k:x:")) != -1) {
        switch (opt) {
        case 'i': iterations = atol(optarg); break;
        case 's': slow = atoi(optarg); break;
        case 'd': delay = atol(optarg); break;
        case 'k': killed = atoi(optarg); break;
        case 'x': code = atoi(optarg); break;
        default: MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    int wrong = 0;
    for (long i = 0; i < iterations; i++) {
        if (rank == killed && i == iterations / 2) {
            fprintf(stderr, "es_allreduce: rank %d kills itself at iteration %ld\n", rank, i);
            fflush(stderr);
            raise(SIGKILL);
        }
        if (rank == slow) {
            sleep_us(delay);
        }
        long mine = rank + 1 + i % 7, sum = 0;
        MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (sum != (long)size * (size + 1) / 2 + (long)size * (i % 7)) {
            wrong++;
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("allreduce %s: %d ranks, %ld iterations\n", wrong ? "WRONG" : "ok", size, iterations);
    }
    MPI_Finalize();
    return wrong ? 2 : code;
}
