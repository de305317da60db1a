/* es_stencil.c - a 2-D Jacobi stencil: halo exchange with MPI_Sendrecv on a periodic Cartesian grid of ranks,
 * a convergence MPI_Allreduce every iteration and a row MPI_Allreduce on a communicator from MPI_Comm_split.
 * Usage: es_stencil [ITERATIONS] [N]   (N x N doubles per rank)
 * Per rank: 1 MPI_Cart_create, 1 MPI_Comm_split, 4*ITERATIONS MPI_Sendrecv of N doubles (8N bytes),
 * 2*ITERATIONS MPI_Allreduce, 1 MPI_Comm_free. */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iterations = argc > 1 ? atoi(argv[1]) : 50, n = argc > 2 ? atoi(argv[2]) : 32;
    int dims[2] = {0, 0}, periods[2] = {1, 1};
    MPI_Dims_create(size, 2, dims);
    MPI_Comm grid, row;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Comm_rank(grid, &rank);
    int coords[2];
    MPI_Cart_coords(grid, rank, 2, coords);
    MPI_Comm_split(grid, coords[0], coords[1], &row);
    int up, down, left, right;
    MPI_Cart_shift(grid, 0, 1, &up, &down);
    MPI_Cart_shift(grid, 1, 1, &left, &right);
    int w = n + 2;
    double *u = calloc((size_t)w * w, sizeof(double)), *v = calloc((size_t)w * w, sizeof(double));
    double *sendcol = malloc(sizeof(double) * n), *recvcol = malloc(sizeof(double) * n);
    for (int i = 1; i <= n; i++) {
        for (int j = 1; j <= n; j++) {
            u[i * w + j] = (double)(rank + i * j % 5);
        }
    }
    double residual = 0, rowsum = 0;
    for (int it = 0; it < iterations; it++) {
        MPI_Sendrecv(&u[1 * w + 1], n, MPI_DOUBLE, up, 1, &u[(n + 1) * w + 1], n, MPI_DOUBLE, down, 1, grid,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[n * w + 1], n, MPI_DOUBLE, down, 2, &u[0 * w + 1], n, MPI_DOUBLE, up, 2, grid,
                     MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++) sendcol[i] = u[(i + 1) * w + 1];
        MPI_Sendrecv(sendcol, n, MPI_DOUBLE, left, 3, recvcol, n, MPI_DOUBLE, right, 3, grid, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++) u[(i + 1) * w + n + 1] = recvcol[i];
        for (int i = 0; i < n; i++) sendcol[i] = u[(i + 1) * w + n];
        MPI_Sendrecv(sendcol, n, MPI_DOUBLE, right, 4, recvcol, n, MPI_DOUBLE, left, 4, grid, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++) u[(i + 1) * w + 0] = recvcol[i];
        double local = 0;
        for (int i = 1; i <= n; i++) {
            for (int j = 1; j <= n; j++) {
                v[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
                local += fabs(v[i * w + j] - u[i * w + j]);
            }
        }
        double *t = u; u = v; v = t;
        MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, grid);
        MPI_Allreduce(&local, &rowsum, 1, MPI_DOUBLE, MPI_SUM, row);
    }
    if (rank == 0) {
        printf("stencil ok: %d ranks (%dx%d), %d iterations, residual %.6e\n", size, dims[0], dims[1], iterations,
               residual);
    }
    MPI_Comm_free(&row);
    MPI_Finalize();
    return 0;
}
