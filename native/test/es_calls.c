/*
 * es_calls.c - every wrapped C function once per rank (on 2 or more ranks), each with a result checked, so a test
 * can hold the library's counts to exactly one per call and see that no wrapper changed a result.
 * Rank 0 prints "calls ok" or names the first wrong result and exits 2.
 * Point-to-point between ranks 0 and 1 only; the other ranks do the same calls with MPI_PROC_NULL.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrong;
#define CHECK(cond, what) do { if (!(cond) && !wrong) { wrong = 1; fprintf(stderr, "es_calls: wrong %s\n", what); } } while (0)

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int peer = rank == 0 ? 1 : rank == 1 ? 0 : MPI_PROC_NULL;
    int a = rank + 10, b = -1, flag = 0, index = -1, outcount = 0, indices[2];
    MPI_Status st;
    MPI_Request rq[2];

    /* blocking point-to-point: 0 sends first with each mode, 1 receives */
    int modes = 0;
    for (int m = 0; m < 4; m++) {
        if (rank == 0) {
            if (m == 0) MPI_Send(&a, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
            if (m == 1) MPI_Ssend(&a, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
            if (m == 2) {
                int size;
                MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &size);
                size += MPI_BSEND_OVERHEAD;
                void *buf = malloc(size);
                MPI_Buffer_attach(buf, size);
                MPI_Bsend(&a, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
                MPI_Buffer_detach(&buf, &size);
                free(buf);
            }
            if (m == 3) {
                MPI_Recv(&b, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* 1 is ready */
                MPI_Rsend(&a, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
            }
        } else if (rank == 1) {
            if (m == 3) {
                MPI_Irecv(&b, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &rq[0]);
                MPI_Send(&a, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
                MPI_Wait(&rq[0], &st);
            } else {
                MPI_Recv(&b, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            }
            CHECK(b == 10, "blocking receive");
            modes++;
        } else {
            /* the same number of calls per op as rank 0 or 1 would be unequal; others use PROC_NULL */
        }
    }
    (void)modes;

    /* non-blocking, waits and tests, probes */
    MPI_Isend(&a, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(&b, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    if (peer != MPI_PROC_NULL) CHECK(b == peer + 10, "isend/irecv");
    /* MPICH wants an attached buffer even for an empty buffered send (Open MPI does not) */
    int bsize = MPI_BSEND_OVERHEAD;
    void *bbuf = malloc(bsize);
    MPI_Buffer_attach(bbuf, bsize);
    MPI_Ibsend(&a, 0, MPI_INT, peer, 4, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(&b, 0, MPI_INT, peer, 4, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitany(2, rq, &index, MPI_STATUS_IGNORE);
    MPI_Waitsome(2, rq, &outcount, indices, MPI_STATUSES_IGNORE);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    MPI_Buffer_detach(&bbuf, &bsize);
    free(bbuf);
    MPI_Issend(&a, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &rq[0]);
    MPI_Probe(peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    do {
        MPI_Iprobe(peer, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    } while (!flag);
    MPI_Recv(&b, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE);
    if (!flag) MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Irsend(&a, 0, MPI_INT, MPI_PROC_NULL, 6, MPI_COMM_WORLD, &rq[0]);
    rq[1] = MPI_REQUEST_NULL;
    MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE);
    if (!flag) MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    rq[0] = rq[1] = MPI_REQUEST_NULL;
    MPI_Testany(2, rq, &index, &flag, MPI_STATUS_IGNORE);
    MPI_Testsome(2, rq, &outcount, indices, MPI_STATUSES_IGNORE);
    MPI_Sendrecv(&a, 1, MPI_INT, peer, 7, &b, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (peer != MPI_PROC_NULL) CHECK(b == peer + 10, "sendrecv");
    b = a;
    MPI_Sendrecv_replace(&b, 1, MPI_INT, peer, 8, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (peer != MPI_PROC_NULL) CHECK(b == peer + 10, "sendrecv_replace");

    /* blocking collectives */
    long one = rank + 1, sum = 0, sumExpected = (long)n * (n + 1) / 2;
    long *all = calloc(n, sizeof(long)), *all2 = calloc(n, sizeof(long));
    int *counts = malloc(sizeof(int) * n), *displs = malloc(sizeof(int) * n);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * n);
    for (int i = 0; i < n; i++) { counts[i] = 1; displs[i] = i; types[i] = MPI_LONG; }
    int tdispls[64];
    for (int i = 0; i < n && i < 64; i++) tdispls[i] = i * (int)sizeof(long);
    MPI_Barrier(MPI_COMM_WORLD);
    long root = rank == 0 ? 42 : 0;
    MPI_Bcast(&root, 1, MPI_LONG, 0, MPI_COMM_WORLD); CHECK(root == 42, "bcast");
    MPI_Reduce(&one, &sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD); if (rank == 0) CHECK(sum == sumExpected, "reduce");
    MPI_Allreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD); CHECK(sum == sumExpected, "allreduce");
    sum = one;
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD); CHECK(sum == sumExpected, "allreduce in place");
    MPI_Gather(&one, 1, MPI_LONG, all, 1, MPI_LONG, 0, MPI_COMM_WORLD); if (rank == 0) CHECK(all[n - 1] == n, "gather");
    MPI_Gatherv(&one, 1, MPI_LONG, all, counts, displs, MPI_LONG, 0, MPI_COMM_WORLD);
    MPI_Scatter(all, 1, MPI_LONG, &sum, 1, MPI_LONG, 0, MPI_COMM_WORLD); CHECK(sum == rank + 1, "scatter");
    MPI_Scatterv(all, counts, displs, MPI_LONG, &sum, 1, MPI_LONG, 0, MPI_COMM_WORLD); CHECK(sum == rank + 1, "scatterv");
    MPI_Allgather(&one, 1, MPI_LONG, all, 1, MPI_LONG, MPI_COMM_WORLD); CHECK(all[n - 1] == n, "allgather");
    MPI_Allgatherv(&one, 1, MPI_LONG, all, counts, displs, MPI_LONG, MPI_COMM_WORLD);
    MPI_Alltoall(all, 1, MPI_LONG, all2, 1, MPI_LONG, MPI_COMM_WORLD); CHECK(all2[0] == rank + 1, "alltoall");
    MPI_Alltoallv(all, counts, displs, MPI_LONG, all2, counts, displs, MPI_LONG, MPI_COMM_WORLD);
    MPI_Alltoallw(all, counts, tdispls, types, all2, counts, tdispls, types, MPI_COMM_WORLD);
    MPI_Reduce_scatter(all, &sum, counts, MPI_LONG, MPI_SUM, MPI_COMM_WORLD); CHECK(sum == (long)n * (rank + 1), "reduce_scatter");
    MPI_Reduce_scatter_block(all, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Scan(&one, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD); CHECK(sum == (long)(rank + 1) * (rank + 2) / 2, "scan");
    MPI_Exscan(&one, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);

    /* non-blocking collectives, completed by one MPI_Waitall */
    MPI_Request c[17];
    long s2[17];
    long *g[8];
    for (int i = 0; i < 8; i++) g[i] = calloc(n, sizeof(long));
    MPI_Ibarrier(MPI_COMM_WORLD, &c[0]);
    MPI_Ibcast(&root, 1, MPI_LONG, 0, MPI_COMM_WORLD, &c[1]);
    MPI_Ireduce(&one, &s2[2], 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD, &c[2]);
    MPI_Iallreduce(&one, &s2[3], 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &c[3]);
    MPI_Igather(&one, 1, MPI_LONG, g[0], 1, MPI_LONG, 0, MPI_COMM_WORLD, &c[4]);
    MPI_Igatherv(&one, 1, MPI_LONG, g[1], counts, displs, MPI_LONG, 0, MPI_COMM_WORLD, &c[5]);
    MPI_Iscatter(all, 1, MPI_LONG, &s2[6], 1, MPI_LONG, 0, MPI_COMM_WORLD, &c[6]);
    MPI_Iscatterv(all, counts, displs, MPI_LONG, &s2[7], 1, MPI_LONG, 0, MPI_COMM_WORLD, &c[7]);
    MPI_Iallgather(&one, 1, MPI_LONG, g[2], 1, MPI_LONG, MPI_COMM_WORLD, &c[8]);
    MPI_Iallgatherv(&one, 1, MPI_LONG, g[3], counts, displs, MPI_LONG, MPI_COMM_WORLD, &c[9]);
    MPI_Ialltoall(all, 1, MPI_LONG, g[4], 1, MPI_LONG, MPI_COMM_WORLD, &c[10]);
    MPI_Ialltoallv(all, counts, displs, MPI_LONG, g[5], counts, displs, MPI_LONG, MPI_COMM_WORLD, &c[11]);
    MPI_Ialltoallw(all, counts, tdispls, types, g[6], counts, tdispls, types, MPI_COMM_WORLD, &c[12]);
    MPI_Ireduce_scatter(all, &s2[13], counts, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &c[13]);
    MPI_Ireduce_scatter_block(all, &s2[14], 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &c[14]);
    MPI_Iscan(&one, &s2[15], 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &c[15]);
    MPI_Iexscan(&one, &s2[16], 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &c[16]);
    MPI_Waitall(17, c, MPI_STATUSES_IGNORE);
    CHECK(s2[3] == sumExpected, "iallreduce");
    CHECK(s2[15] == (long)(rank + 1) * (rank + 2) / 2, "iscan");

    /* communicators */
    MPI_Comm dup, dupi, split, stype, created, cgroup, cart, sub, idup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &dupi);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &split);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &stype);
    MPI_Group wg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_create(MPI_COMM_WORLD, wg, &created);
    MPI_Comm_create_group(MPI_COMM_WORLD, wg, 9, &cgroup);
    MPI_Group_free(&wg);
    int dims[1] = {n}, periods[1] = {1}, remain[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Cart_sub(cart, remain, &sub);
    MPI_Request ir;
    MPI_Comm_idup(MPI_COMM_WORLD, &idup, &ir);
    MPI_Wait(&ir, MPI_STATUS_IGNORE);
    sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, idup); CHECK(sum == sumExpected, "allreduce on an idup communicator");
    sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, split);
    long half = 0;
    for (int r = rank % 2; r < n; r += 2) half += r + 1;
    CHECK(sum == half, "allreduce on a split communicator");
    /* neighbourhood collectives on the 1-D periodic cart: neighbours left (index 0) and right (index 1) */
    int left = (rank + n - 1) % n, right = (rank + 1) % n;
    long nb[2] = {-1, -1}, sb[2] = {rank * 10L, rank * 10L + 1}, rb[2] = {-1, -1}, nb2[5][2];
    int c2[2] = {1, 1}, d2[2] = {0, 1};
    MPI_Aint w2[2] = {0, sizeof(long)};
    MPI_Datatype t2[2] = {MPI_LONG, MPI_LONG};
    MPI_Neighbor_allgather(&one, 1, MPI_LONG, nb, 1, MPI_LONG, cart);
    CHECK(nb[0] == left + 1 && nb[1] == right + 1, "neighbor_allgather");
    MPI_Neighbor_allgatherv(&one, 1, MPI_LONG, nb, c2, d2, MPI_LONG, cart);
    MPI_Neighbor_alltoall(sb, 1, MPI_LONG, rb, 1, MPI_LONG, cart);
    CHECK(rb[0] == left * 10L + 1 && rb[1] == right * 10L, "neighbor_alltoall");
    MPI_Neighbor_alltoallv(sb, c2, d2, MPI_LONG, rb, c2, d2, MPI_LONG, cart);
    MPI_Neighbor_alltoallw(sb, c2, w2, t2, rb, c2, w2, t2, cart);
    CHECK(rb[0] == left * 10L + 1 && rb[1] == right * 10L, "neighbor_alltoallw");
    MPI_Request nr[5];
    MPI_Ineighbor_allgather(&one, 1, MPI_LONG, nb2[0], 1, MPI_LONG, cart, &nr[0]);
    MPI_Ineighbor_allgatherv(&one, 1, MPI_LONG, nb2[1], c2, d2, MPI_LONG, cart, &nr[1]);
    MPI_Ineighbor_alltoall(sb, 1, MPI_LONG, nb2[2], 1, MPI_LONG, cart, &nr[2]);
    MPI_Ineighbor_alltoallv(sb, c2, d2, MPI_LONG, nb2[3], c2, d2, MPI_LONG, cart, &nr[3]);
    MPI_Ineighbor_alltoallw(sb, c2, w2, t2, nb2[4], c2, w2, t2, cart, &nr[4]);
    MPI_Waitall(5, nr, MPI_STATUSES_IGNORE);
    CHECK(nb2[0][1] == right + 1 && nb2[2][0] == left * 10L + 1 && nb2[4][1] == right * 10L, "ineighbor_*");

    /* one-sided: a fence epoch with a put, a get and an accumulate to the right neighbour, then a lock epoch */
    long wb[3] = {-1, rank * 10L, 100}, got = -1;
    MPI_Win win;
    MPI_Win_create(wb, sizeof wb, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Put(&one, 1, MPI_LONG, right, 0, 1, MPI_LONG, win);
    MPI_Get(&got, 1, MPI_LONG, right, 1, 1, MPI_LONG, win);
    MPI_Accumulate(&one, 1, MPI_LONG, right, 2, 1, MPI_LONG, MPI_SUM, win);
    MPI_Win_fence(0, win);
    CHECK(wb[0] == left + 1 && got == right * 10L && wb[2] == 100 + left + 1, "put/get/accumulate");
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    MPI_Win_unlock(right, win);
    MPI_Win_free(&win);

    MPI_Comm *comms[] = {&dup, &dupi, &split, &stype, &created, &cgroup, &cart, &sub, &idup};
    for (int i = 0; i < 9; i++) MPI_Comm_free(comms[i]);

    if (rank == 0) {
        printf("calls %s\n", wrong ? "WRONG" : "ok");
    }
    MPI_Finalize();
    return wrong ? 2 : 0;
}
