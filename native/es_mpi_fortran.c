/*
 * es_mpi_fortran.c - Fortran entry points (included by es_mpi.c).
 *
 * Open MPI's Fortran bindings (mpif.h and `use mpi`: mpi_send_ in libmpi_mpifh; `use mpi_f08`: mpi_send_f08_ in
 * libmpi_usempif08, which calls ompi_send_f) call PMPI_Send directly, so the C wrappers never see a Fortran call
 * (objdump of Open MPI 4.1.4's ompi_send_f: `call PMPI_Send@plt`; NativeFortranTest shows it). As mpiP does, we
 * wrap the Fortran symbols themselves: gfortran's `mpi_x_` and the `ompi_x_f` the f08 module calls, and forward
 * to Open MPI's own `pmpi_x_` with the caller's arguments untouched (so Fortran's MPI_IN_PLACE, MPI_BOTTOM and
 * MPI_STATUS_IGNORE keep their meaning); handles are converted to C only to record the communicator and sizes.
 *
 * Covered: init, init_thread, finalize, abort, send, ssend, bsend, rsend, isend, issend, recv, irecv, sendrecv, wait,
 * waitall, waitany, test, testall, probe, iprobe, barrier, bcast, reduce, allreduce, gather, gatherv, scatter,
 * scatterv, allgather, allgatherv, alltoall, alltoallv, reduce_scatter, scan, comm_dup, comm_split, comm_free.
 * Other Fortran calls run, unrecorded. A Fortran receive records the source and tag it posted (MPI_ANY_SOURCE:
 * no peer) and the bytes it posted.
 */

typedef MPI_Fint F;

static inline es_comm *es_fcomm(const F *comm)
{
    return es_find(PMPI_Comm_f2c(*comm));
}

static inline uint64_t es_fbytes(const F *count, const F *datatype)
{
    return es_bytes((int)*count, PMPI_Type_f2c(*datatype));
}

static inline int es_ffailed(const F *ierr)
{
    return ierr != NULL && *ierr != MPI_SUCCESS ? ES_FLAG_FAILED : 0;
}

/* gfortran's name and the one Open MPI's mpi_f08 module calls, both the same wrapper */
#define ES_FNAMES(lname, ...)                                                                                  \
    extern void pmpi_##lname##_(__VA_ARGS__) __attribute__((weak));                                            \
    ES_EXPORT void mpi_##lname##_(__VA_ARGS__);                                                                \
    ES_EXPORT void ompi_##lname##_f(__VA_ARGS__) __attribute__((alias("mpi_" #lname "_")));                    \
    ES_EXPORT void mpi_##lname##_(__VA_ARGS__)

ES_FNAMES(init, F *ierr)
{
    int64_t t0 = es_now();
    pmpi_init_(ierr);
    if (*ierr == MPI_SUCCESS) {
        es_start(ES_OP_Init, t0, MPI_THREAD_SINGLE, ES_RA);
    }
}

ES_FNAMES(init_thread, F *required, F *provided, F *ierr)
{
    int64_t t0 = es_now();
    pmpi_init_thread_(required, provided, ierr);
    if (*ierr == MPI_SUCCESS) {
        es_start(ES_OP_Init_thread, t0, (int)*provided, ES_RA);
    }
}

ES_FNAMES(abort, F *comm, F *errorcode, F *ierr)
{
    es_aborting(PMPI_Comm_f2c(*comm), (int)*errorcode, ES_FLAG_FORTRAN, ES_RA);
    pmpi_abort_(comm, errorcode, ierr);
}

ES_FNAMES(finalize, F *ierr)
{
    int64_t t0 = es_now();
    es_stop_before();
    pmpi_finalize_(ierr);
    es_stop_after(t0, ES_RA);
}

/* after a Fortran call: mark the tuple as Fortran's */
#define ES_FREC(op, flags, e, low, peer, bytes)                                                                \
    es_record(ES_OP_##op, ES_FLAG_FORTRAN | (flags) | es_ffailed(ierr), (e)->id, (uint32_t)(low), (peer),     \
              (bytes), es_t0, t1, ES_RA)

#define ES_FSEND(lname, op, flags, ...)                                                                        \
    ES_FNAMES(lname, __VA_ARGS__)                                                                              \
    {                                                                                                          \
        if (!es_recording()) {                                                                                 \
            pmpi_##lname##_(ES_FARGS);                                                                         \
            return;                                                                                            \
        }                                                                                                      \
        ES_T0(ES_OP_##op);                                                                                     \
        pmpi_##lname##_(ES_FARGS);                                                                             \
        int64_t t1 = es_now();                                                                                 \
        es_comm *e = es_fcomm(comm);                                                                           \
        ES_FREC(op, flags, e, *tag, es_world_rank(e, (int)*peer), es_fbytes(count, datatype));                 \
    }

#define ES_FARGS buf, count, datatype, peer, tag, comm, ierr
ES_FSEND(send, Send, 0, void *buf, F *count, F *datatype, F *peer, F *tag, F *comm, F *ierr)
ES_FSEND(ssend, Ssend, 0, void *buf, F *count, F *datatype, F *peer, F *tag, F *comm, F *ierr)
ES_FSEND(bsend, Bsend, 0, void *buf, F *count, F *datatype, F *peer, F *tag, F *comm, F *ierr)
ES_FSEND(rsend, Rsend, 0, void *buf, F *count, F *datatype, F *peer, F *tag, F *comm, F *ierr)
#undef ES_FARGS
#define ES_FARGS buf, count, datatype, peer, tag, comm, request, ierr
ES_FSEND(isend, Isend, ES_FLAG_NONBLOCKING, void *buf, F *count, F *datatype, F *peer, F *tag, F *comm, F *request,
         F *ierr)
ES_FSEND(issend, Issend, ES_FLAG_NONBLOCKING, void *buf, F *count, F *datatype, F *peer, F *tag, F *comm,
         F *request, F *ierr)
ES_FSEND(irecv, Irecv, ES_FLAG_NONBLOCKING, void *buf, F *count, F *datatype, F *peer, F *tag, F *comm, F *request,
         F *ierr)
#undef ES_FARGS
#define ES_FARGS buf, count, datatype, peer, tag, comm, status, ierr
ES_FSEND(recv, Recv, 0, void *buf, F *count, F *datatype, F *peer, F *tag, F *comm, F *status, F *ierr)
#undef ES_FARGS

ES_FNAMES(sendrecv, void *sendbuf, F *sendcount, F *sendtype, F *dest, F *sendtag, void *recvbuf, F *recvcount,
          F *recvtype, F *source, F *recvtag, F *comm, F *status, F *ierr)
{
    if (!es_recording()) {
        pmpi_sendrecv_(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                       comm, status, ierr);
        return;
    }
    ES_T0(ES_OP_Sendrecv);
    pmpi_sendrecv_(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm,
                   status, ierr);
    int64_t t1 = es_now();
    es_comm *e = es_fcomm(comm);
    ES_FREC(Sendrecv, 0, e, *sendtag, es_world_rank(e, (int)*dest), es_fbytes(sendcount, sendtype));
}

#define ES_FDONE(lname, op, nreq, ...)                                                                         \
    ES_FNAMES(lname, __VA_ARGS__)                                                                              \
    {                                                                                                          \
        if (!es_recording()) {                                                                                 \
            pmpi_##lname##_(ES_FARGS);                                                                         \
            return;                                                                                            \
        }                                                                                                      \
        ES_T0(ES_OP_##op);                                                                                     \
        pmpi_##lname##_(ES_FARGS);                                                                             \
        int64_t t1 = es_now();                                                                                 \
        ES_FREC(op, 0, &es_unknown, (nreq), -1, 0);                                                            \
    }
#define ES_FARGS request, status, ierr
ES_FDONE(wait, Wait, 1, F *request, F *status, F *ierr)
#undef ES_FARGS
#define ES_FARGS request, flag, status, ierr
ES_FDONE(test, Test, 1, F *request, F *flag, F *status, F *ierr)
#undef ES_FARGS
#define ES_FARGS count, requests, statuses, ierr
ES_FDONE(waitall, Waitall, *count, F *count, F *requests, F *statuses, F *ierr)
#undef ES_FARGS
#define ES_FARGS count, requests, flag, statuses, ierr
ES_FDONE(testall, Testall, *count, F *count, F *requests, F *flag, F *statuses, F *ierr)
#undef ES_FARGS
#define ES_FARGS count, requests, index, status, ierr
ES_FDONE(waitany, Waitany, *count, F *count, F *requests, F *index, F *status, F *ierr)
#undef ES_FARGS

ES_FNAMES(probe, F *source, F *tag, F *comm, F *status, F *ierr)
{
    if (!es_recording()) {
        pmpi_probe_(source, tag, comm, status, ierr);
        return;
    }
    ES_T0(ES_OP_Probe);
    pmpi_probe_(source, tag, comm, status, ierr);
    int64_t t1 = es_now();
    es_comm *e = es_fcomm(comm);
    ES_FREC(Probe, 0, e, *tag, es_world_rank(e, (int)*source), 0);
}

ES_FNAMES(iprobe, F *source, F *tag, F *comm, F *flag, F *status, F *ierr)
{
    if (!es_recording()) {
        pmpi_iprobe_(source, tag, comm, flag, status, ierr);
        return;
    }
    ES_T0(ES_OP_Iprobe);
    pmpi_iprobe_(source, tag, comm, flag, status, ierr);
    int64_t t1 = es_now();
    es_comm *e = es_fcomm(comm);
    ES_FREC(Iprobe, 0, e, *tag, es_world_rank(e, (int)*source), 0);
}

#define ES_FCOLL(lname, op, root, bytes, ...)                                                                  \
    ES_FNAMES(lname, __VA_ARGS__)                                                                              \
    {                                                                                                          \
        if (!es_recording()) {                                                                                 \
            pmpi_##lname##_(ES_FARGS);                                                                         \
            return;                                                                                            \
        }                                                                                                      \
        es_comm *e = es_fcomm(comm);                                                                           \
        uint32_t seq = e->seq++;                                                                               \
        ES_T0(ES_OP_##op);                                                                                     \
        pmpi_##lname##_(ES_FARGS);                                                                             \
        int64_t t1 = es_now();                                                                                 \
        ES_FREC(op, ES_FLAG_COLLECTIVE, e, seq, es_world_rank(e, (root)), (bytes));                           \
    }

#define ES_FARGS comm, ierr
ES_FCOLL(barrier, Barrier, -1, 0, F *comm, F *ierr)
#undef ES_FARGS
#define ES_FARGS buffer, count, datatype, root, comm, ierr
ES_FCOLL(bcast, Bcast, (int)*root, es_fbytes(count, datatype), void *buffer, F *count, F *datatype, F *root,
         F *comm, F *ierr)
#undef ES_FARGS
#define ES_FARGS sendbuf, recvbuf, count, datatype, op, root, comm, ierr
ES_FCOLL(reduce, Reduce, (int)*root, es_fbytes(count, datatype), void *sendbuf, void *recvbuf, F *count,
         F *datatype, F *op, F *root, F *comm, F *ierr)
#undef ES_FARGS
#define ES_FARGS sendbuf, recvbuf, count, datatype, op, comm, ierr
ES_FCOLL(allreduce, Allreduce, -1, es_fbytes(count, datatype), void *sendbuf, void *recvbuf, F *count, F *datatype,
         F *op, F *comm, F *ierr)
ES_FCOLL(scan, Scan, -1, es_fbytes(count, datatype), void *sendbuf, void *recvbuf, F *count, F *datatype, F *op,
         F *comm, F *ierr)
#undef ES_FARGS
#define ES_FARGS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr
ES_FCOLL(gather, Gather, (int)*root, es_fbytes(sendcount, sendtype), void *sendbuf, F *sendcount, F *sendtype,
         void *recvbuf, F *recvcount, F *recvtype, F *root, F *comm, F *ierr)
ES_FCOLL(scatter, Scatter, (int)*root, es_fbytes(recvcount, recvtype), void *sendbuf, F *sendcount, F *sendtype,
         void *recvbuf, F *recvcount, F *recvtype, F *root, F *comm, F *ierr)
#undef ES_FARGS
#define ES_FARGS sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, ierr
ES_FCOLL(gatherv, Gatherv, (int)*root, es_fbytes(sendcount, sendtype), void *sendbuf, F *sendcount, F *sendtype,
         void *recvbuf, F *recvcounts, F *displs, F *recvtype, F *root, F *comm, F *ierr)
#undef ES_FARGS
#define ES_FARGS sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr
ES_FCOLL(scatterv, Scatterv, (int)*root, es_fbytes(recvcount, recvtype), void *sendbuf, F *sendcounts, F *displs,
         F *sendtype, void *recvbuf, F *recvcount, F *recvtype, F *root, F *comm, F *ierr)
#undef ES_FARGS
#define ES_FARGS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr
ES_FCOLL(allgather, Allgather, -1, es_fbytes(sendcount, sendtype), void *sendbuf, F *sendcount, F *sendtype,
         void *recvbuf, F *recvcount, F *recvtype, F *comm, F *ierr)
ES_FCOLL(alltoall, Alltoall, -1, es_fbytes(sendcount, sendtype) * (uint64_t)es_comm_size(PMPI_Comm_f2c(*comm)),
         void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcount, F *recvtype, F *comm, F *ierr)
#undef ES_FARGS
#define ES_FARGS sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, ierr
ES_FCOLL(allgatherv, Allgatherv, -1, es_fbytes(sendcount, sendtype), void *sendbuf, F *sendcount, F *sendtype,
         void *recvbuf, F *recvcounts, F *displs, F *recvtype, F *comm, F *ierr)
#undef ES_FARGS
#define ES_FARGS sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, ierr
ES_FCOLL(alltoallv, Alltoallv, -1, 0, void *sendbuf, F *sendcounts, F *sdispls, F *sendtype, void *recvbuf,
         F *recvcounts, F *rdispls, F *recvtype, F *comm, F *ierr)
#undef ES_FARGS
#define ES_FARGS sendbuf, recvbuf, recvcounts, datatype, op, comm, ierr
ES_FCOLL(reduce_scatter, Reduce_scatter, -1, 0, void *sendbuf, void *recvbuf, F *recvcounts, F *datatype, F *op,
         F *comm, F *ierr)
#undef ES_FARGS

#define ES_FCTOR(lname, op, salt, newc, ...)                                                                   \
    ES_FNAMES(lname, __VA_ARGS__)                                                                              \
    {                                                                                                          \
        if (!es_recording()) {                                                                                 \
            pmpi_##lname##_(ES_FARGS);                                                                         \
            return;                                                                                            \
        }                                                                                                      \
        es_comm *e = es_fcomm(comm);                                                                           \
        uint32_t parent = e->id, seq = e->seq++;                                                               \
        ES_T0(ES_OP_##op);                                                                                     \
        pmpi_##lname##_(ES_FARGS);                                                                             \
        int64_t t1 = es_now();                                                                                 \
        if (*ierr == MPI_SUCCESS) {                                                                            \
            es_register(PMPI_Comm_f2c(*(newc)), parent, seq, (uint32_t)(salt), 0);                                \
        }                                                                                                      \
        es_record(ES_OP_##op, ES_FLAG_FORTRAN | ES_FLAG_COLLECTIVE | es_ffailed(ierr), parent, seq, -1, 0,     \
                  es_t0, t1, ES_RA);                                                                           \
    }
#define ES_FARGS comm, newcomm, ierr
ES_FCTOR(comm_dup, Comm_dup, 1, newcomm, F *comm, F *newcomm, F *ierr)
#undef ES_FARGS
#define ES_FARGS comm, color, key, newcomm, ierr
ES_FCTOR(comm_split, Comm_split, 3 + (uint32_t)*color, newcomm, F *comm, F *color, F *key, F *newcomm, F *ierr)
#undef ES_FARGS

ES_FNAMES(comm_free, F *comm, F *ierr)
{
    if (!es_recording()) {
        pmpi_comm_free_(comm, ierr);
        return;
    }
    MPI_Comm c = PMPI_Comm_f2c(*comm);
    es_comm *e = es_find(c);
    uint32_t id = e->id, seq = e->seq++;
    ES_T0(ES_OP_Comm_free);
    pmpi_comm_free_(comm, ierr);
    int64_t t1 = es_now();
    if (*ierr == MPI_SUCCESS) {
        es_unregister(c);
    }
    es_record(ES_OP_Comm_free, ES_FLAG_FORTRAN | ES_FLAG_COLLECTIVE | es_ffailed(ierr), id, seq, -1, 0, es_t0, t1,
              ES_RA);
}
