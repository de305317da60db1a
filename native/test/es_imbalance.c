/* es_imbalance.c - a compute + MPI_Allreduce loop whose ranks compute equally long, or one rank FACTOR times longer.
 * Usage: es_imbalance [-i ITERATIONS] [-c COMPUTE_US] [-s SLOW_RANK -f FACTOR]
 * Per iteration every rank spins for COMPUTE_US µs of CPU (SLOW_RANK: FACTOR x as long), then one MPI_Allreduce of one
 * long, checked. The verdict's tests: balanced (no -s) must be "within chance", -s R -f 3 must name R. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Busy work, not a sleep: a slow rank is slow because it computes, as in a real imbalance. */
static volatile double sink;
static void compute_us(double us)
{
    double end = now_us() + us, x = 1.0;
    while (now_us() < end) {
        for (int k = 0; k < 64; k++) {
            x = x * 1.0000001 + 1e-9;
        }
    }
    sink = x;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long iterations = 2000;
    double compute = 200, factor = 1;
    int slow = -1, opt;
    while ((opt = getopt(argc, argv, "i:c:s:f:")) != -1) {
        switch (opt) {
        case 'i': iterations = atol(optarg); break;
        case 'c': compute = atof(optarg); break;
        case 's': slow = atoi(optarg); break;
        case 'f': factor = atof(optarg); break;
        default: MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    int wrong = 0;
    for (long i = 0; i < iterations; i++) {
        compute_us(rank == slow ? compute * factor : compute);
        long mine = rank + 1, sum = 0;
        MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        wrong += sum != (long)size * (size + 1) / 2;
    }
    MPI_Finalize();
    if (wrong != 0) {
        fprintf(stderr, "es_imbalance: rank %d got %d wrong sums\n", rank, wrong);
        return 1;
    }
    return 0;
}
