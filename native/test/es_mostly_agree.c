/* es_mostly_agree.c - ranks that agree on almost everything: ITERATIONS steps of a ring exchange (MPI_Sendrecv to the
 * next rank, from the previous) and an MPI_Allreduce after compute of UNIT_US microseconds (eight times that on the
 * last rank: a load imbalance at the allreduce, which the ranks that share the loop show); rank 0 alone also polls for "I/O" requests every EVERY steps (three MPI_Iprobe
 * calls no other rank makes); and at the end ranks 1 and 2 order an MPI_Send and an MPI_Barrier differently (rank 1
 * sends first, rank 2 enters the barrier first; both sends are eager, one int). What a partial cross-rank merge keeps
 * shared and what it keeps apart. Usage: es_mostly_agree [ITERATIONS [EVERY [UNIT_US]]] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Busy work for about us microseconds: compute, not a sleep, as a real step's would be. */
static double work(double us)
{
    double x = 1.0, end = now_us() + us;
    while (now_us() < end) {
        for (int i = 0; i < 100; i++) {
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
    int iterations = argc > 1 ? atoi(argv[1]) : 1000;
    int every = argc > 2 ? atoi(argv[2]) : 50;
    double unit = argc > 3 ? atof(argv[3]) : 5.0;
    if (size < 3 || iterations < 1 || every < 1) {
        if (rank == 0) {
            fprintf(stderr, "es_mostly_agree: needs 3 or more ranks, ITERATIONS >= 1, EVERY >= 1\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    double sink = 0;
    for (int i = 0; i < iterations; i++) {
        double out = rank + i, in = 0, local, sum;
        MPI_Sendrecv(&out, 1, MPI_DOUBLE, next, 1, &in, 1, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        local = work((rank == size - 1 ? 8 : 1) * unit) + in;
        MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        sink += sum;
        if (rank == 0 && (i + 1) % every == 0) {
            for (int k = 0; k < 3; k++) {
                int flag;
                MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            }
        }
    }
    int token = rank;
    if (rank == 1) {
        MPI_Send(&token, 1, MPI_INT, 2, 5, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, 2, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 2) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0) {
        printf("mostly_agree ok: %d ranks, %d steps, %s\n", size, iterations, sink > 0 ? "sum positive" : "sum zero");
    }
    MPI_Finalize();
    return 0;
}
