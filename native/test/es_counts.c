/*
 * es_counts.c - every call a program makes, counted by the program itself: point-to-point with neighbours on a
 * non-periodic line (the end ranks send to and receive from MPI_PROC_NULL, as a halo exchange does), sends and a
 * receive with MPI_PROC_NULL, sendrecv_replace, waitsome/testany/testsome, collectives with MPI_IN_PLACE, exscan,
 * reduce_scatter_block, alltoallw, non-blocking collectives completed by wait, waitall, waitsome and test loops,
 * MPI_Comm_split_type, MPI_Comm_create and MPI_Comm_idup. Rank 0 prints, summed over the ranks, "calls MPI_X N" and
 * "bytes MPI_X N" for each call (bytes as the library defines them: what this rank sends or contributes; 0 to
 * MPI_PROC_NULL; with MPI_IN_PLACE the rank's own block), then "counts ok". MpiRunTest compares the report with it.
 * es_counts_cxx.cpp builds this same file with mpicxx.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum {
    INIT, FINALIZE, SEND, ISEND, RECV, IRECV, SENDRECV, SENDRECV_REPLACE, WAIT, WAITALL, WAITSOME, TEST, TESTANY,
    TESTSOME, BARRIER, ALLREDUCE, REDUCE, GATHER, ALLGATHER, EXSCAN, REDUCE_SCATTER_BLOCK, ALLTOALLW, IBARRIER,
    IALLREDUCE, IBCAST, IGATHER, IALLGATHER, IREDUCE_SCATTER_BLOCK, IEXSCAN, ISCAN, IALLTOALLW, IALLTOALL, IREDUCE,
    ISCATTER, COMM_SPLIT_TYPE, COMM_CREATE, COMM_IDUP, COMM_FREE, N_OPS
};
static const char *const names[N_OPS] = {
    "MPI_Init", "MPI_Finalize", "MPI_Send", "MPI_Isend", "MPI_Recv", "MPI_Irecv", "MPI_Sendrecv",
    "MPI_Sendrecv_replace", "MPI_Wait", "MPI_Waitall", "MPI_Waitsome", "MPI_Test", "MPI_Testany", "MPI_Testsome",
    "MPI_Barrier", "MPI_Allreduce", "MPI_Reduce", "MPI_Gather", "MPI_Allgather", "MPI_Exscan",
    "MPI_Reduce_scatter_block", "MPI_Alltoallw", "MPI_Ibarrier", "MPI_Iallreduce", "MPI_Ibcast", "MPI_Igather",
    "MPI_Iallgather", "MPI_Ireduce_scatter_block", "MPI_Iexscan", "MPI_Iscan", "MPI_Ialltoallw", "MPI_Ialltoall",
    "MPI_Ireduce", "MPI_Iscatter", "MPI_Comm_split_type", "MPI_Comm_create", "MPI_Comm_idup", "MPI_Comm_free"};
static long long counted[2 * N_OPS]; /* calls, then bytes */

static void count(int op, long long bytes)
{
    counted[op]++;
    counted[N_OPS + op] += bytes;
}

#define MAXP 64

int main(int argc, char **argv)
{
    int rank, size, wrong = 0;
    MPI_Init(&argc, &argv);
    count(INIT, 0);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXP) {
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    int ints[MAXP * 2], got[MAXP * 2], flag = 0, index = 0, outcount = 0, indices[4];
    double d[4] = {1, 2, 3, 4}, dgot[4];
    MPI_Request req[4];
    MPI_Status st[4];

    /* point to point: halo on a line, the ends exchange with MPI_PROC_NULL */
    for (int i = 0; i < 8; i++) {
        ints[i] = rank;
    }
    MPI_Sendrecv(ints, 8, MPI_INT, right, 1, got, 8, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    count(SENDRECV, right == MPI_PROC_NULL ? 0 : 32);
    wrong += left != MPI_PROC_NULL && got[7] != left;
    MPI_Sendrecv_replace(ints, 8, MPI_INT, left, 2, right, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    count(SENDRECV_REPLACE, left == MPI_PROC_NULL ? 0 : 32);
    wrong += right != MPI_PROC_NULL && ints[0] != right;
    MPI_Irecv(dgot, 4, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &req[0]);
    count(IRECV, left == MPI_PROC_NULL ? 0 : 32);
    MPI_Isend(d, 4, MPI_DOUBLE, right, 3, MPI_COMM_WORLD, &req[1]);
    count(ISEND, right == MPI_PROC_NULL ? 0 : 32);
    MPI_Waitall(2, req, st);
    count(WAITALL, 0);
    /* a send and a receive with MPI_PROC_NULL: no-ops, 0 bytes */
    MPI_Send(ints, 16, MPI_INT, MPI_PROC_NULL, 4, MPI_COMM_WORLD);
    count(SEND, 0);
    MPI_Recv(got, 16, MPI_INT, MPI_PROC_NULL, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    count(RECV, 0);
    /* completed by waitsome, testany, testsome loops */
    MPI_Irecv(dgot, 4, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, &req[0]);
    count(IRECV, left == MPI_PROC_NULL ? 0 : 32);
    MPI_Isend(d, 4, MPI_DOUBLE, right, 5, MPI_COMM_WORLD, &req[1]);
    count(ISEND, right == MPI_PROC_NULL ? 0 : 32);
    for (int done = 0; done < 2;) {
        MPI_Waitsome(2, req, &outcount, indices, st);
        count(WAITSOME, 0);
        done += outcount == MPI_UNDEFINED ? 2 : outcount;
    }
    MPI_Irecv(dgot, 4, MPI_DOUBLE, left, 6, MPI_COMM_WORLD, &req[0]);
    count(IRECV, left == MPI_PROC_NULL ? 0 : 32);
    MPI_Isend(d, 4, MPI_DOUBLE, right, 6, MPI_COMM_WORLD, &req[1]);
    count(ISEND, right == MPI_PROC_NULL ? 0 : 32);
    for (;;) {
        MPI_Testany(2, req, &index, &flag, MPI_STATUS_IGNORE);
        count(TESTANY, 0);
        if (flag && index == MPI_UNDEFINED) {
            break;
        }
    }
    MPI_Irecv(dgot, 4, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &req[0]);
    count(IRECV, left == MPI_PROC_NULL ? 0 : 32);
    MPI_Isend(d, 4, MPI_DOUBLE, right, 7, MPI_COMM_WORLD, &req[1]);
    count(ISEND, right == MPI_PROC_NULL ? 0 : 32);
    for (;;) {
        MPI_Testsome(2, req, &outcount, indices, MPI_STATUSES_IGNORE);
        count(TESTSOME, 0);
        if (outcount == MPI_UNDEFINED) {
            break;
        }
    }
    MPI_Isend(d, 4, MPI_DOUBLE, MPI_PROC_NULL, 8, MPI_COMM_WORLD, &req[0]);
    count(ISEND, 0);
    do {
        MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);
        count(TEST, 0);
    } while (!flag);

    /* blocking collectives, MPI_IN_PLACE where it applies */
    MPI_Barrier(MPI_COMM_WORLD);
    count(BARRIER, 0);
    long long sum[3] = {rank, 1, 2};
    MPI_Allreduce(MPI_IN_PLACE, sum, 3, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    count(ALLREDUCE, 24);
    wrong += sum[1] != size;
    for (int i = 0; i < 2 * size; i++) {
        got[i] = -1;
    }
    got[2 * rank] = got[2 * rank + 1] = rank;
    ints[0] = ints[1] = rank;
    if (rank == 0) {
        MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, got, 2, MPI_INT, 0, MPI_COMM_WORLD);
        wrong += got[2 * (size - 1)] != size - 1;
    } else {
        MPI_Gather(ints, 2, MPI_INT, got, 2, MPI_INT, 0, MPI_COMM_WORLD);
    }
    count(GATHER, 8);
    double all[MAXP];
    all[rank] = rank;
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    count(ALLGATHER, 8);
    wrong += all[size - 1] != size - 1;
    int one = 1, before = 0;
    MPI_Exscan(&one, &before, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    count(EXSCAN, 4);
    wrong += rank > 0 && before != rank;
    for (int i = 0; i < 2 * size; i++) {
        ints[i] = 1;
    }
    MPI_Reduce_scatter_block(ints, got, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    count(REDUCE_SCATTER_BLOCK, 8LL * size);
    wrong += got[0] != size;
    int counts[MAXP], displs[MAXP];
    MPI_Datatype types[MAXP];
    for (int i = 0; i < size; i++) {
        counts[i] = 1;
        displs[i] = i * (int)sizeof(int);
        types[i] = MPI_INT;
        ints[i] = rank;
    }
    MPI_Alltoallw(ints, counts, displs, types, got, counts, displs, types, MPI_COMM_WORLD);
    count(ALLTOALLW, 4LL * size);
    wrong += got[size - 1] != size - 1;

    /* non-blocking collectives */
    MPI_Ibarrier(MPI_COMM_WORLD, &req[0]);
    count(IBARRIER, 0);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    count(WAIT, 0);
    double dsum[2] = {1, (double)rank};
    MPI_Iallreduce(MPI_IN_PLACE, dsum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req[0]);
    count(IALLREDUCE, 16);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    count(WAIT, 0);
    wrong += dsum[0] != size;
    int five[5] = {rank, rank, rank, rank, rank};
    MPI_Ibcast(five, 5, MPI_INT, 1 % size, MPI_COMM_WORLD, &req[0]);
    count(IBCAST, 20);
    do {
        MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);
        count(TEST, 0);
    } while (!flag);
    wrong += five[4] != 1 % size;
    MPI_Igather(&rank, 1, MPI_INT, got, 1, MPI_INT, 0, MPI_COMM_WORLD, &req[0]);
    count(IGATHER, 4);
    all[rank] = rank;
    MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_DOUBLE, MPI_COMM_WORLD, &req[1]);
    count(IALLGATHER, 8);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    count(WAITALL, 0);
    for (int i = 0; i < size; i++) {
        ints[i] = 1;
    }
    MPI_Ireduce_scatter_block(ints, got, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
    count(IREDUCE_SCATTER_BLOCK, 4LL * size);
    for (int done = 0; done < 1;) {
        MPI_Waitsome(1, req, &outcount, indices, MPI_STATUSES_IGNORE);
        count(WAITSOME, 0);
        done += outcount == MPI_UNDEFINED ? 1 : outcount;
    }
    int ex = 0, inc = 0;
    MPI_Iexscan(&one, &ex, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
    count(IEXSCAN, 4);
    MPI_Iscan(&one, &inc, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[1]);
    count(ISCAN, 4);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    count(WAITALL, 0);
    wrong += inc != rank + 1;
    for (int i = 0; i < size; i++) {
        ints[i] = rank;
    }
    MPI_Ialltoallw(ints, counts, displs, types, got, counts, displs, types, MPI_COMM_WORLD, &req[0]);
    count(IALLTOALLW, 4LL * size);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    count(WAIT, 0);
    MPI_Ialltoall(ints, 1, MPI_INT, got, 1, MPI_INT, MPI_COMM_WORLD, &req[0]);
    count(IALLTOALL, 4LL * size);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    count(WAIT, 0);
    int red = 0;
    MPI_Ireduce(&one, &red, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &req[0]);
    count(IREDUCE, 4);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    count(WAIT, 0);
    for (int i = 0; i < size; i++) {
        ints[i] = i;
    }
    int mine = -1;
    if (rank == 0) {
        MPI_Iscatter(ints, 1, MPI_INT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD, &req[0]);
    } else {
        MPI_Iscatter(ints, 1, MPI_INT, &mine, 1, MPI_INT, 0, MPI_COMM_WORLD, &req[0]);
    }
    count(ISCATTER, 4);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    count(WAIT, 0);
    wrong += rank > 0 && mine != rank;

    /* communicators */
    MPI_Comm node, copy, dup;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    count(COMM_SPLIT_TYPE, 0);
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Comm_create(MPI_COMM_WORLD, world, &copy);
    count(COMM_CREATE, 0);
    MPI_Group_free(&world);
    MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req[0]);
    count(COMM_IDUP, 0);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    count(WAIT, 0);
    MPI_Barrier(dup);
    count(BARRIER, 0);
    MPI_Comm_free(&dup);
    count(COMM_FREE, 0);
    MPI_Comm_free(&copy);
    count(COMM_FREE, 0);
    MPI_Comm_free(&node);
    count(COMM_FREE, 0);

    /* the totals: this reduce and the finalize are counted before they happen */
    count(REDUCE, 2LL * N_OPS * (long long)sizeof(long long));
    count(FINALIZE, 0);
    long long total[2 * N_OPS];
    MPI_Reduce(counted, total, 2 * N_OPS, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int wrongs = 0;
    MPI_Allreduce(&wrong, &wrongs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int op = 0; op < N_OPS; op++) {
            /* the allreduce of the verdict above is the last call counted here */
            long long calls = total[op] + (op == ALLREDUCE ? size : 0);
            long long bytes = total[N_OPS + op] + (op == ALLREDUCE ? 4LL * size : 0);
            printf("calls %s %lld\nbytes %s %lld\n", names[op], calls, names[op], bytes);
        }
        printf(wrongs == 0 ? "counts ok\n" : "counts WRONG\n");
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
