/*
 * common.h - helpers shared by the EventSpace Open MPI baseline benchmarks
 * (allreduce.c, pingpong.c): option parsing and latency statistics.
 *
 * Everything here is static so each benchmark stays a single translation unit.
 */
#ifndef EVENTSPACE_MPI_COMMON_H
#define EVENTSPACE_MPI_COMMON_H

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define BENCH_SCHEMA "eventspace.mpi-baseline/1"

/*
 * Parses a decimal integer option value in [min, max].
 * Returns 0 on success, -1 (after printing a message on rank 0) otherwise.
 * Every rank parses the same argv, so every rank reaches the same verdict and
 * can leave through MPI_Finalize without a collective disagreement.
 */
static int parse_long_opt(int rank, char opt, const char *text, long min, long max, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < min || v > max) {
        if (rank == 0) {
            fprintf(stderr, "error: -%c expects an integer in [%ld, %ld], got '%s'\n",
                    opt, min, max, text);
        }
        return -1;
    }
    *out = v;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;
    return (x > y) - (x < y);
}

/*
 * Nearest-rank percentile of an ascending array: the smallest sample such that
 * at least p percent of the samples are <= it (p in (0, 100]).
 * No interpolation, so the value is always one that was actually measured.
 */
static double percentile_sorted(const double *sorted, long n, double p)
{
    long idx = (long)ceil(p / 100.0 * (double)n) - 1;
    if (idx < 0) {
        idx = 0;
    }
    if (idx >= n) {
        idx = n - 1;
    }
    return sorted[idx];
}

#endif /* EVENTSPACE_MPI_COMMON_H */
