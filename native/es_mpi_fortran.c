/*
 * es_mpi_fortran.c - Fortran entry points (included by es_mpi.c).
 *
 * Which Fortran calls the C wrappers already see depends on the library (objdump of each binding):
 *   Open MPI 4.1  mpif.h and `use mpi` call mpi_send_ (with its aliases mpi_send, mpi_send__, MPI_SEND) in
 *                 libmpi_mpifh, and `use mpi_f08`'s mpi_send_f08_ calls ompi_send_f there; both call PMPI_Send, so the
 *                 C wrappers never see a Fortran call. Every call is wrapped here, under every name.
 *   MPICH 4.0     mpi_send_ (and its aliases) call the C MPI_Send, so the C wrappers see them and a Fortran wrapper
 *                 would count them twice: none is defined. The mpi_f08 entry points of calls with a choice buffer
 *                 (mpi_send_f08ts_) call MPI_Send too; those without one (mpi_barrier_f08_, mpi_wait_f08_,
 *                 mpi_comm_dup_f08_, ...) call PMPI_Barrier: only those are wrapped, as mpi_x_f08_.
 * MpiBindingsTest (Open MPI, through eventspace mpirun) and native/test/check-bindings.sh (Open MPI or MPICH, natively)
 * run programs that count their own calls from C, C++, mpif.h, use mpi and use mpi_f08: every call is counted once.
 *
 * As mpiP does, a wrapper forwards to the library's own profiling entry point with the caller's arguments untouched
 * (Open MPI's pmpi_x_, MPICH's pmpir_x_f08_), so Fortran's MPI_IN_PLACE, MPI_BOTTOM and MPI_STATUS_IGNORE keep their
 * meaning. If that symbol is absent (it is weak: a library built without the profiling layer), the wrapper converts
 * the handles and calls the C PMPI_X itself. Handles are converted to C to record the communicator, sizes and
 * requests: an MPI_Irecv or a non-blocking collective enters the request table as in C, and the Fortran wait or test
 * that completes it writes its receive or completion record. MPI_IN_PLACE (Open MPI's common-block sentinel) and
 * MPI_PROC_NULL are handled as the C wrappers handle them: the arguments MPI ignores are never read, a transfer
 * with MPI_PROC_NULL counts 0 bytes.
 *
 * Covered, under Open MPI with every name: the calls of es_mpi.c (ES_OPS) but the neighbourhood alltoallw forms,
 * which run unrecorded from Fortran (docs/MPI.md, "Language bindings", has the table).
 */

typedef MPI_Fint F;

#if defined(MPICH)
#define ES_F_MPICH 1
#define ES_FSYM(lname) pmpir_##lname##_f08_
#define ES_FDEF(lname, UNAME, ...)                                                                             \
    extern void pmpir_##lname##_f08_(__VA_ARGS__) __attribute__((weak));                                       \
    ES_EXPORT void mpi_##lname##_f08_(__VA_ARGS__)
#else
#define ES_F_MPICH 0
#define ES_FSYM(lname) pmpi_##lname##_
/* gfortran's name, the other manglings a compiler may use, and the one Open MPI's mpi_f08 module calls */
#define ES_FDEF(lname, UNAME, ...)                                                                             \
    extern void pmpi_##lname##_(__VA_ARGS__) __attribute__((weak));                                            \
    ES_EXPORT void mpi_##lname##_(__VA_ARGS__);                                                                \
    ES_EXPORT void mpi_##lname(__VA_ARGS__) __attribute__((alias("mpi_" #lname "_")));                         \
    ES_EXPORT void mpi_##lname##__(__VA_ARGS__) __attribute__((alias("mpi_" #lname "_")));                     \
    ES_EXPORT void MPI_##UNAME(__VA_ARGS__) __attribute__((alias("mpi_" #lname "_")));                         \
    ES_EXPORT void ompi_##lname##_f(__VA_ARGS__) __attribute__((alias("mpi_" #lname "_")));                    \
    ES_EXPORT void mpi_##lname##_(__VA_ARGS__)
/* Open MPI's Fortran sentinels: common blocks, one address for the whole process */
extern F mpi_fortran_in_place_ __attribute__((weak));
extern F mpi_fortran_bottom_ __attribute__((weak));
#endif

/*
 * The library's own entry point, or (weak symbol absent) the C fallback: never a null pointer. Built with
 * -DES_FPMPI=0 the wrappers always take the fallback (native/Makefile's check-fortran-fallback runs the Fortran
 * tests so).
 */
#ifndef ES_FPMPI
#define ES_FPMPI 1
#endif
#define ES_FCALL(lname, fallback)                                                                              \
    do {                                                                                                       \
        if (ES_FPMPI && ES_FSYM(lname) != NULL) {                                                              \
            ES_FSYM(lname)(ES_FARGS);                                                                          \
        } else {                                                                                               \
            fallback;                                                                                          \
        }                                                                                                      \
    } while (0)

/* mpi_f08's ierror is optional: the pointer may be NULL */
#define ES_SETERR(rc)                                                                                          \
    do {                                                                                                       \
        int es_rc_ = (rc);                                                                                     \
        if (ierr != NULL) {                                                                                    \
            *ierr = es_rc_;                                                                                    \
        }                                                                                                      \
    } while (0)
#define ES_FOK(ierr) ((ierr) == NULL || *(ierr) == MPI_SUCCESS)

#define ES_FSTATUS_INTS ((int)(sizeof(MPI_Status) / sizeof(F)))

static inline MPI_Comm es_fc(const F *c)
{
    return PMPI_Comm_f2c(*c);
}

static inline MPI_Datatype es_ft(const F *t)
{
    return PMPI_Type_f2c(*t);
}

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

/* Fortran's MPI_IN_PLACE (only Open MPI's Fortran buffers reach these wrappers) */
static inline int es_fip(const void *buf)
{
#if ES_F_MPICH
    (void)buf;
    return 0;
#else
    return &mpi_fortran_in_place_ != NULL && buf == (const void *)&mpi_fortran_in_place_;
#endif
}

/* a Fortran choice buffer as C sees it: the sentinels become C's */
static inline void *es_fbuf(void *buf)
{
#if !ES_F_MPICH
    if (es_fip(buf)) {
        return MPI_IN_PLACE;
    }
    if (&mpi_fortran_bottom_ != NULL && buf == (void *)&mpi_fortran_bottom_) {
        return MPI_BOTTOM;
    }
#endif
    return buf;
}

static inline int es_fstatus_ignored(const F *s)
{
    return s == NULL || s == MPI_F_STATUS_IGNORE
#if ES_F_MPICH
           || (const void *)s == (const void *)MPI_F08_STATUS_IGNORE
#endif
        ;
}

static inline int es_fstatuses_ignored(const F *s)
{
    return s == NULL || s == MPI_F_STATUSES_IGNORE
#if ES_F_MPICH
           || (const void *)s == (const void *)MPI_F08_STATUSES_IGNORE
#endif
        ;
}

/* the C status of a Fortran one (NULL when ignored) */
static inline MPI_Status *es_fstatus_in(const F *s, MPI_Status *c)
{
    if (es_fstatus_ignored(s) || PMPI_Status_f2c(s, c) != MPI_SUCCESS) {
        return NULL;
    }
    return c;
}

/* C fallbacks: a C status into the caller's Fortran one (unless ignored) */
static inline MPI_Status *es_cstatus(F *s, MPI_Status *c)
{
    return es_fstatus_ignored(s) ? MPI_STATUS_IGNORE : c;
}

static inline void es_cstatus_out(int rc, F *s, MPI_Status *c)
{
    if (rc == MPI_SUCCESS && !es_fstatus_ignored(s)) {
        PMPI_Status_c2f(c, s);
    }
}

/* after a Fortran call: mark the tuple as Fortran's */
#define ES_FREC(op, flags, e, low, peer, bytes)                                                                \
    es_record(ES_OP_##op, ES_FLAG_FORTRAN | (flags) | es_ffailed(ierr), (e)->id, (uint32_t)(low), (peer),     \
              (bytes), es_t0, t1, ES_RA)

/* ---- init, finalize, abort ---------------------------------------------------------------------------------- */

#define ES_FARGS ierr
ES_FDEF(init, INIT, F *ierr)
{
    int64_t t0 = es_now();
    ES_FCALL(init, ES_SETERR(PMPI_Init(NULL, NULL)));
    if (ES_FOK(ierr)) {
        es_start(ES_OP_Init, t0, MPI_THREAD_SINGLE, ES_RA);
    }
}

ES_FDEF(finalize, FINALIZE, F *ierr)
{
    int64_t t0 = es_now();
    es_stop_before();
    ES_FCALL(finalize, ES_SETERR(PMPI_Finalize()));
    es_stop_after(t0, ES_RA);
}
#undef ES_FARGS

#define ES_FARGS required, provided, ierr
ES_FDEF(init_thread, INIT_THREAD, F *required, F *provided, F *ierr)
{
    int64_t t0 = es_now();
    ES_FCALL(init_thread, {
        int p = 0;
        ES_SETERR(PMPI_Init_thread(NULL, NULL, (int)*required, &p));
        *provided = p;
    });
    if (ES_FOK(ierr)) {
        es_start(ES_OP_Init_thread, t0, (int)*provided, ES_RA);
    }
}
#undef ES_FARGS

#define ES_FARGS comm, errorcode, ierr
ES_FDEF(abort, ABORT, F *comm, F *errorcode, F *ierr)
{
    es_aborting(es_fc(comm), (int)*errorcode, ES_FLAG_FORTRAN, ES_RA);
    ES_FCALL(abort, ES_SETERR(PMPI_Abort(es_fc(comm), (int)*errorcode)));
}
#undef ES_FARGS

/* ---- waits and tests ------------------------------------------------------------------------------------------ */

/*
 * As the C wrappers: the tracked requests among them are looked up before the call (their C handles), and each one
 * the call completed writes its record after the call's own tuple. A caller that ignores the status gets ours
 * filled instead when a tracked request is among them.
 */
static F es_fstatus_own[ES_STATUS_MAX * 8];

static inline int es_freq_collect(int count, const F *requests)
{
    int n = 0;
    if (ES_LIKELY(es_reqs_live == 0) || requests == NULL) {
        return 0;
    }
    es_ring *r = es_ring_of();
    es_req_lock();
    for (int i = 0; i < count && n < ES_REQ_SLOTS + ES_REQ_PROBE; i++) {
        int slot = es_req_find_locked(PMPI_Request_f2c(requests[i]));
        if (slot >= 0) {
            r->done_index[n] = i;
            r->done_slot[n] = slot;
            n++;
        }
    }
    es_req_unlock();
    return n;
}

/* Fortran statuses the call should fill: the caller's, or ours when it ignores them and tracked requests need them */
static inline F *es_fstatuses_for(int tracked, int count, F *statuses)
{
    if (tracked == 0 || !es_fstatuses_ignored(statuses) || count > ES_STATUS_MAX || ES_FSTATUS_INTS > 8) {
        return statuses;
    }
    return es_fstatus_own;
}

static inline void es_freq_done(int slot, const F *fstatus, int64_t t0, int64_t t1)
{
    MPI_Status c;
    es_req_done(slot, fstatus == NULL ? NULL : es_fstatus_in(fstatus, &c), t0, t1);
}

/* the C fallback for arrays of requests: converted in, and back out (MPI sets completed ones to MPI_REQUEST_NULL) */
#define ES_FREQS_IN(n)                                                                                         \
    MPI_Request es_creqs_small[64];                                                                            \
    MPI_Status es_cst_small[64];                                                                               \
    MPI_Request *creqs = (n) <= 64 ? es_creqs_small : malloc(sizeof(MPI_Request) * (size_t)(n));               \
    MPI_Status *cst = (n) <= 64 ? es_cst_small : malloc(sizeof(MPI_Status) * (size_t)(n));                     \
    if (creqs == NULL || cst == NULL) {                                                                        \
        ES_SETERR(MPI_ERR_NO_MEM);                                                                             \
        break;                                                                                                 \
    }                                                                                                          \
    for (int i = 0; i < (n); i++) {                                                                            \
        creqs[i] = PMPI_Request_f2c(requests[i]);                                                              \
    }
#define ES_FREQS_OUT(n, rc, nst)                                                                               \
    for (int i = 0; i < (n); i++) {                                                                            \
        requests[i] = PMPI_Request_c2f(creqs[i]);                                                              \
    }                                                                                                          \
    if ((rc) == MPI_SUCCESS && !es_fstatuses_ignored(statuses)) {                                              \
        for (int i = 0; i < (nst); i++) {                                                                      \
            PMPI_Status_c2f(&cst[i], statuses + (size_t)i * ES_FSTATUS_INTS);                                  \
        }                                                                                                      \
    }                                                                                                          \
    if (creqs != es_creqs_small) {                                                                             \
        free(creqs);                                                                                           \
    }                                                                                                          \
    if (cst != es_cst_small) {                                                                                 \
        free(cst);                                                                                             \
    }

#define ES_FARGS request, st, ierr
#define ES_FWAIT_FALLBACK                                                                                      \
    {                                                                                                          \
        MPI_Request r = PMPI_Request_f2c(*request);                                                            \
        MPI_Status c;                                                                                          \
        int rc = PMPI_Wait(&r, es_cstatus(st, &c));                                                            \
        *request = PMPI_Request_c2f(r);                                                                        \
        es_cstatus_out(rc, st, &c);                                                                            \
        ES_SETERR(rc);                                                                                         \
    }
ES_FDEF(wait, WAIT, F *request, F *status, F *ierr)
{
    F *st = status;
    if (!es_recording()) {
        ES_FCALL(wait, ES_FWAIT_FALLBACK);
        return;
    }
    int slot = ES_LIKELY(es_reqs_live == 0) ? -1 : es_req_find(PMPI_Request_f2c(*request));
    F own[32];
    if (slot >= 0 && es_fstatus_ignored(status)) {
        st = own;
    }
    ES_T0(ES_OP_Wait);
    ES_FCALL(wait, ES_FWAIT_FALLBACK);
    int64_t t1 = es_now();
    ES_FREC(Wait, 0, &es_unknown, 1, -1, 0);
    if (slot >= 0 && ES_FOK(ierr)) {
        es_freq_done(slot, st, es_t0, t1);
    }
}
#undef ES_FWAIT_FALLBACK
#undef ES_FARGS

#define ES_FARGS request, flag, st, ierr
#define ES_FTEST_FALLBACK                                                                                      \
    {                                                                                                          \
        MPI_Request r = PMPI_Request_f2c(*request);                                                            \
        MPI_Status c;                                                                                          \
        int f = 0;                                                                                             \
        int rc = PMPI_Test(&r, &f, es_cstatus(st, &c));                                                        \
        *request = PMPI_Request_c2f(r);                                                                        \
        *flag = f;                                                                                             \
        if (f) {                                                                                               \
            es_cstatus_out(rc, st, &c);                                                                        \
        }                                                                                                      \
        ES_SETERR(rc);                                                                                         \
    }
ES_FDEF(test, TEST, F *request, F *flag, F *status, F *ierr)
{
    F *st = status;
    if (!es_recording()) {
        ES_FCALL(test, ES_FTEST_FALLBACK);
        return;
    }
    int slot = ES_LIKELY(es_reqs_live == 0) ? -1 : es_req_find(PMPI_Request_f2c(*request));
    F own[32];
    if (slot >= 0 && es_fstatus_ignored(status)) {
        st = own;
    }
    ES_T0(ES_OP_Test);
    ES_FCALL(test, ES_FTEST_FALLBACK);
    int64_t t1 = es_now();
    ES_FREC(Test, 0, &es_unknown, 1, -1, 0);
    if (slot >= 0 && ES_FOK(ierr) && *flag) {
        es_freq_done(slot, st, es_t0, t1);
    }
}
#undef ES_FTEST_FALLBACK
#undef ES_FARGS

/* waitall, testall: every request (testall: if the flag says so) */
#define ES_FARGS count, requests, st, ierr
#define ES_FWAITALL_FALLBACK                                                                                   \
    do {                                                                                                       \
        ES_FREQS_IN(*count)                                                                                    \
        int rc = PMPI_Waitall((int)*count, creqs, es_fstatuses_ignored(st) ? MPI_STATUSES_IGNORE : cst);       \
        F *statuses = st;                                                                                      \
        ES_FREQS_OUT(*count, rc, *count)                                                                       \
        ES_SETERR(rc);                                                                                         \
    } while (0)
ES_FDEF(waitall, WAITALL, F *count, F *requests, F *statuses, F *ierr)
{
    F *st = statuses;
    if (!es_recording()) {
        ES_FCALL(waitall, ES_FWAITALL_FALLBACK);
        return;
    }
    int tracked = es_freq_collect((int)*count, requests);
    st = es_fstatuses_for(tracked, (int)*count, statuses);
    ES_T0(ES_OP_Waitall);
    ES_FCALL(waitall, ES_FWAITALL_FALLBACK);
    int64_t t1 = es_now();
    ES_FREC(Waitall, 0, &es_unknown, *count, -1, 0);
    if (ES_FOK(ierr)) {
        for (int k = 0; k < tracked; k++) {
            const F *one = es_fstatuses_ignored(st) ? NULL : st + (size_t)es_ring_of()->done_index[k] * ES_FSTATUS_INTS;
            es_freq_done(es_ring_of()->done_slot[k], one, es_t0, t1);
        }
    }
}
#undef ES_FWAITALL_FALLBACK
#undef ES_FARGS

#define ES_FARGS count, requests, flag, st, ierr
#define ES_FTESTALL_FALLBACK                                                                                   \
    do {                                                                                                       \
        ES_FREQS_IN(*count)                                                                                    \
        int f = 0;                                                                                             \
        int rc = PMPI_Testall((int)*count, creqs, &f, es_fstatuses_ignored(st) ? MPI_STATUSES_IGNORE : cst);   \
        *flag = f;                                                                                             \
        F *statuses = st;                                                                                      \
        ES_FREQS_OUT(*count, rc, f ? *count : 0)                                                               \
        ES_SETERR(rc);                                                                                         \
    } while (0)
ES_FDEF(testall, TESTALL, F *count, F *requests, F *flag, F *statuses, F *ierr)
{
    F *st = statuses;
    if (!es_recording()) {
        ES_FCALL(testall, ES_FTESTALL_FALLBACK);
        return;
    }
    int tracked = es_freq_collect((int)*count, requests);
    st = es_fstatuses_for(tracked, (int)*count, statuses);
    ES_T0(ES_OP_Testall);
    ES_FCALL(testall, ES_FTESTALL_FALLBACK);
    int64_t t1 = es_now();
    ES_FREC(Testall, 0, &es_unknown, *count, -1, 0);
    if (ES_FOK(ierr) && *flag) {
        for (int k = 0; k < tracked; k++) {
            const F *one = es_fstatuses_ignored(st) ? NULL : st + (size_t)es_ring_of()->done_index[k] * ES_FSTATUS_INTS;
            es_freq_done(es_ring_of()->done_slot[k], one, es_t0, t1);
        }
    }
}
#undef ES_FTESTALL_FALLBACK
#undef ES_FARGS

/* waitany, testany: the one at index (Fortran's index counts from 1) */
static inline void es_fany_done(int tracked, int index, const F *st, int64_t t0, int64_t t1)
{
    for (int k = 0; k < tracked; k++) {
        if (es_ring_of()->done_index[k] == index) {
            es_freq_done(es_ring_of()->done_slot[k], st, t0, t1);
            return;
        }
    }
}

#define ES_FARGS count, requests, index, st, ierr
#define ES_FWAITANY_FALLBACK                                                                                   \
    do {                                                                                                       \
        ES_FREQS_IN(*count)                                                                                    \
        int i0 = MPI_UNDEFINED;                                                                                \
        MPI_Status one;                                                                                        \
        int rc = PMPI_Waitany((int)*count, creqs, &i0, es_cstatus(st, &one));                                  \
        *index = i0 == MPI_UNDEFINED ? MPI_UNDEFINED : i0 + 1;                                                 \
        F *statuses = MPI_F_STATUSES_IGNORE;                                                                   \
        ES_FREQS_OUT(*count, rc, 0)                                                                            \
        if (i0 != MPI_UNDEFINED) {                                                                             \
            es_cstatus_out(rc, st, &one);                                                                      \
        }                                                                                                      \
        ES_SETERR(rc);                                                                                         \
    } while (0)
ES_FDEF(waitany, WAITANY, F *count, F *requests, F *index, F *status, F *ierr)
{
    F *st = status;
    if (!es_recording()) {
        ES_FCALL(waitany, ES_FWAITANY_FALLBACK);
        return;
    }
    int tracked = es_freq_collect((int)*count, requests);
    F own[32];
    if (tracked > 0 && es_fstatus_ignored(status)) {
        st = own;
    }
    ES_T0(ES_OP_Waitany);
    ES_FCALL(waitany, ES_FWAITANY_FALLBACK);
    int64_t t1 = es_now();
    ES_FREC(Waitany, 0, &es_unknown, *count, -1, 0);
    if (ES_FOK(ierr) && *index != MPI_UNDEFINED) {
        es_fany_done(tracked, (int)*index - 1, st, es_t0, t1);
    }
}
#undef ES_FWAITANY_FALLBACK
#undef ES_FARGS

#define ES_FARGS count, requests, index, flag, st, ierr
#define ES_FTESTANY_FALLBACK                                                                                   \
    do {                                                                                                       \
        ES_FREQS_IN(*count)                                                                                    \
        int i0 = MPI_UNDEFINED, f = 0;                                                                         \
        MPI_Status one;                                                                                        \
        int rc = PMPI_Testany((int)*count, creqs, &i0, &f, es_cstatus(st, &one));                              \
        *index = i0 == MPI_UNDEFINED ? MPI_UNDEFINED : i0 + 1;                                                 \
        *flag = f;                                                                                             \
        F *statuses = MPI_F_STATUSES_IGNORE;                                                                   \
        ES_FREQS_OUT(*count, rc, 0)                                                                            \
        if (f && i0 != MPI_UNDEFINED) {                                                                        \
            es_cstatus_out(rc, st, &one);                                                                      \
        }                                                                                                      \
        ES_SETERR(rc);                                                                                         \
    } while (0)
ES_FDEF(testany, TESTANY, F *count, F *requests, F *index, F *flag, F *status, F *ierr)
{
    F *st = status;
    if (!es_recording()) {
        ES_FCALL(testany, ES_FTESTANY_FALLBACK);
        return;
    }
    int tracked = es_freq_collect((int)*count, requests);
    F own[32];
    if (tracked > 0 && es_fstatus_ignored(status)) {
        st = own;
    }
    ES_T0(ES_OP_Testany);
    ES_FCALL(testany, ES_FTESTANY_FALLBACK);
    int64_t t1 = es_now();
    ES_FREC(Testany, 0, &es_unknown, *count, -1, 0);
    if (ES_FOK(ierr) && *flag && *index != MPI_UNDEFINED) {
        es_fany_done(tracked, (int)*index - 1, st, es_t0, t1);
    }
}
#undef ES_FTESTANY_FALLBACK
#undef ES_FARGS

/* waitsome, testsome: those at indices[0..outcount) (from 1) */
static inline void es_fsome_done(int tracked, int outcount, const F *indices, const F *st, int64_t t0, int64_t t1)
{
    if (outcount == MPI_UNDEFINED || tracked == 0) {
        return;
    }
    for (int j = 0; j < outcount; j++) {
        for (int k = 0; k < tracked; k++) {
            if (es_ring_of()->done_index[k] == (int)indices[j] - 1) {
                es_freq_done(es_ring_of()->done_slot[k], es_fstatuses_ignored(st) ? NULL : st + (size_t)j * ES_FSTATUS_INTS, t0,
                             t1);
                break;
            }
        }
    }
}

#define ES_FARGS incount, requests, outcount, indices, st, ierr
#define ES_FSOME(lname, UNAME, op)                                                                             \
    ES_FDEF(lname, UNAME, F *incount, F *requests, F *outcount, F *indices, F *statuses, F *ierr)              \
    {                                                                                                          \
        F *st = statuses;                                                                                      \
        int recording = es_recording();                                                                        \
        int tracked = recording ? es_freq_collect((int)*incount, requests) : 0;                                \
        st = es_fstatuses_for(tracked, (int)*incount, statuses);                                               \
        ES_T0(ES_OP_##op);                                                                                     \
        ES_FCALL(lname, do {                                                                                   \
            ES_FREQS_IN(*incount)                                                                              \
            int out = 0;                                                                                       \
            int *ci = malloc(sizeof(int) * (size_t)(*incount > 0 ? *incount : 1));                             \
            int rc = ci == NULL ? MPI_ERR_NO_MEM                                                               \
                                : PMPI_##op((int)*incount, creqs, &out, ci,                                    \
                                            es_fstatuses_ignored(st) ? MPI_STATUSES_IGNORE : cst);             \
            *outcount = out;                                                                                   \
            for (int j = 0; rc == MPI_SUCCESS && out != MPI_UNDEFINED && j < out; j++) {                       \
                indices[j] = ci[j] + 1;                                                                        \
            }                                                                                                  \
            free(ci);                                                                                          \
            F *statuses = st;                                                                                  \
            ES_FREQS_OUT(*incount, rc, out == MPI_UNDEFINED ? 0 : out)                                         \
            ES_SETERR(rc);                                                                                     \
        } while (0));                                                                                          \
        if (!recording) {                                                                                      \
            return;                                                                                            \
        }                                                                                                      \
        int64_t t1 = es_now();                                                                                 \
        ES_FREC(op, 0, &es_unknown, *incount, -1, 0);                                                          \
        if (ES_FOK(ierr)) {                                                                                    \
            es_fsome_done(tracked, (int)*outcount, indices, st, es_t0, t1);                                    \
        }                                                                                                      \
    }
ES_FSOME(waitsome, WAITSOME, Waitsome)
ES_FSOME(testsome, TESTSOME, Testsome)
#undef ES_FSOME
#undef ES_FARGS

#if !ES_F_MPICH
/*
 * Open MPI's mpi_f08 MPI_Test, MPI_Testall, MPI_Testany, MPI_Testsome and MPI_Iprobe (and MPI_Cart_create and
 * MPI_Cart_sub below: those with a LOGICAL argument) call pmpi_x_ directly, not ompi_x_f (objdump of
 * libmpi_usempif08): their f08 entry points are wrapped too, by the wrapper above (ierror is optional in mpi_f08:
 * ours when the caller passes none). The call site recorded is this shim's.
 */
#define ES_F08_SHIM(lname, params, ...)                                                                        \
    ES_EXPORT void mpi_##lname##_f08_ params                                                                    \
    {                                                                                                          \
        F own_ierr = MPI_SUCCESS;                                                                              \
        mpi_##lname##_(__VA_ARGS__, ierr != NULL ? ierr : &own_ierr);                                          \
    }
ES_F08_SHIM(test, (F *request, F *flag, F *status, F *ierr), request, flag, status)
ES_F08_SHIM(testall, (F *count, F *requests, F *flag, F *statuses, F *ierr), count, requests, flag, statuses)
ES_F08_SHIM(testany, (F *count, F *requests, F *index, F *flag, F *status, F *ierr), count, requests, index, flag,
            status)
ES_F08_SHIM(testsome, (F *incount, F *requests, F *outcount, F *indices, F *statuses, F *ierr), incount, requests,
            outcount, indices, statuses)
#endif

/* not a recorded call: a freed request leaves the table (as MPI_Request_free's C wrapper) */
#define ES_FARGS request, ierr
ES_FDEF(request_free, REQUEST_FREE, F *request, F *ierr)
{
    if (es_on && es_reqs_live > 0) {
        es_req_lock();
        int slot = es_req_find_locked(PMPI_Request_f2c(*request));
        if (slot >= 0) {
            es_req_keys[slot] = ES_REQ_EMPTY;
            es_reqs_live--;
        }
        es_req_unlock();
    }
    ES_FCALL(request_free, {
        MPI_Request r = PMPI_Request_f2c(*request);
        int rc = PMPI_Request_free(&r);
        *request = PMPI_Request_c2f(r);
        ES_SETERR(rc);
    });
}
#undef ES_FARGS

/* ---- probes ------------------------------------------------------------------------------------------------- */

#define ES_FARGS source, tag, comm, status, ierr
ES_FDEF(probe, PROBE, F *source, F *tag, F *comm, F *status, F *ierr)
{
#define ES_FPROBE_FALLBACK                                                                                     \
    {                                                                                                          \
        MPI_Status c;                                                                                          \
        int rc = PMPI_Probe((int)*source, (int)*tag, es_fc(comm), es_cstatus(status, &c));                     \
        es_cstatus_out(rc, status, &c);                                                                        \
        ES_SETERR(rc);                                                                                         \
    }
    if (!es_recording()) {
        ES_FCALL(probe, ES_FPROBE_FALLBACK);
        return;
    }
    ES_T0(ES_OP_Probe);
    ES_FCALL(probe, ES_FPROBE_FALLBACK);
    int64_t t1 = es_now();
    es_comm *e = es_fcomm(comm);
    ES_FREC(Probe, 0, e, *tag, es_world_rank(e, (int)*source), 0);
#undef ES_FPROBE_FALLBACK
}
#undef ES_FARGS

#define ES_FARGS source, tag, comm, flag, status, ierr
ES_FDEF(iprobe, IPROBE, F *source, F *tag, F *comm, F *flag, F *status, F *ierr)
{
#define ES_FIPROBE_FALLBACK                                                                                    \
    {                                                                                                          \
        MPI_Status c;                                                                                          \
        int f = 0;                                                                                             \
        int rc = PMPI_Iprobe((int)*source, (int)*tag, es_fc(comm), &f, es_cstatus(status, &c));                \
        *flag = f;                                                                                             \
        if (f) {                                                                                               \
            es_cstatus_out(rc, status, &c);                                                                    \
        }                                                                                                      \
        ES_SETERR(rc);                                                                                         \
    }
    if (!es_recording()) {
        ES_FCALL(iprobe, ES_FIPROBE_FALLBACK);
        return;
    }
    ES_T0(ES_OP_Iprobe);
    ES_FCALL(iprobe, ES_FIPROBE_FALLBACK);
    int64_t t1 = es_now();
    es_comm *e = es_fcomm(comm);
    ES_FREC(Iprobe, 0, e, *tag, es_world_rank(e, (int)*source), 0);
#undef ES_FIPROBE_FALLBACK
}
#undef ES_FARGS
#if !ES_F_MPICH
ES_F08_SHIM(iprobe, (F *source, F *tag, F *comm, F *flag, F *status, F *ierr), source, tag, comm, flag, status)
#endif

/* ---- collectives ---------------------------------------------------------------------------------------------- */

/*
 * As ES_COLL: the communicator's sequence taken at entry. FLAGS is one token, as there: 0 or NB, with IP (Fortran's
 * MPI_IN_PLACE may stand for sendbuf) or IPR (for recvbuf); a non-blocking one's request (converted after the call)
 * enters the request table. CALL is the C fallback's PMPI call, with es_r for a non-blocking one's request.
 */
#define ES_FCOLL(lname, UNAME, op, flags, root, bytes, CALL, ...)                                              \
    ES_FDEF(lname, UNAME, __VA_ARGS__)                                                                         \
    {                                                                                                          \
        if (!es_recording()) {                                                                                 \
            ES_FCALL(lname, ES_FC_##flags(CALL));                                                              \
            return;                                                                                            \
        }                                                                                                      \
        MPI_Comm c = es_fc(comm);                                                                              \
        es_comm *e = es_find(c);                                                                               \
        uint32_t seq = e->seq++;                                                                               \
        ES_T0(ES_OP_##op);                                                                                     \
        ES_FCALL(lname, ES_FC_##flags(CALL));                                                                  \
        int64_t t1 = es_now();                                                                                 \
        ES_FTRACK_##flags                                                                                      \
        ES_FREC(op, ES_FLAG_COLLECTIVE | (flags), e, seq, es_world_rank(e, (root)), (bytes));                  \
        (void)c;                                                                                               \
    }

#define ES_FC_BLOCKING(CALL) ES_SETERR(PMPI_##CALL)
#define ES_FC_NONBLOCKING(CALL)                                                                                \
    {                                                                                                          \
        MPI_Request es_r = MPI_REQUEST_NULL;                                                                   \
        int es_rc = PMPI_##CALL;                                                                               \
        if (es_rc == MPI_SUCCESS) {                                                                            \
            *request = PMPI_Request_c2f(es_r);                                                                 \
        }                                                                                                      \
        ES_SETERR(es_rc);                                                                                      \
    }
#define ES_FC_0 ES_FC_BLOCKING
#define ES_FC_IP ES_FC_BLOCKING
#define ES_FC_IPR ES_FC_BLOCKING
#define ES_FC_NB ES_FC_NONBLOCKING
#define ES_FC_NBIP ES_FC_NONBLOCKING
#define ES_FC_NBIPR ES_FC_NONBLOCKING
#define NB ES_FLAG_NONBLOCKING
#define IP (es_fip(sendbuf) ? ES_FLAG_IN_PLACE : 0)
#define IPR (es_fip(recvbuf) ? ES_FLAG_IN_PLACE : 0)
#define NBIP (ES_FLAG_NONBLOCKING | IP)
#define NBIPR (ES_FLAG_NONBLOCKING | IPR)
#define ES_FTRACK_0
#define ES_FTRACK_IP
#define ES_FTRACK_IPR
#define ES_FTRACK_NB                                                                                           \
    if (ES_FOK(ierr)) {                                                                                        \
        es_icoll_track(MPI_SUCCESS, PMPI_Request_f2c(*request), c, e, seq, es_t0);                             \
    }
#define ES_FTRACK_NBIP ES_FTRACK_NB
#define ES_FTRACK_NBIPR ES_FTRACK_NB

/* bytes with Fortran's MPI_IN_PLACE, as ES_IP_SEND & co. for C */
#define ES_FIP_SEND(sc, st, rc_, rt) (es_fip(sendbuf) ? es_fbytes(rc_, rt) : es_fbytes(sc, st))
#define ES_FIP_SENDV(sc, st, rcs, rt)                                                                          \
    (es_fip(sendbuf) ? es_counts_at((const int *)(rcs), es_rank_in(c), es_ft(rt)) : es_fbytes(sc, st))
#define ES_FIP_RECV(sc, st, rc_, rt) (es_fip(recvbuf) ? es_fbytes(sc, st) : es_fbytes(rc_, rt))
#define ES_FIP_RECVV(scs, st, rc_, rt)                                                                         \
    (es_fip(recvbuf) ? es_counts_at((const int *)(scs), es_rank_in(c), es_ft(st)) : es_fbytes(rc_, rt))
#define ES_FIP_SUM(scs, st, rcs, rt, n)                                                                        \
    (es_fip(sendbuf) ? es_sum_bytes((const int *)(rcs), es_ft(rt), (n))                                        \
                     : es_sum_bytes((const int *)(scs), es_ft(st), (n)))

#if !ES_F_MPICH
static uint64_t es_fw_bytes(const F *counts, const F *types, int n)
{
    uint64_t b = 0;
    for (int i = 0; counts != NULL && types != NULL && i < n; i++) {
        b += es_bytes((int)counts[i], PMPI_Type_f2c(types[i]));
    }
    return b;
}

/* the C fallback of the alltoallw forms: the arrays of type handles converted */
static int es_fc_types(const F *f, MPI_Datatype *c, int n)
{
    for (int i = 0; i < n; i++) {
        c[i] = PMPI_Type_f2c(f[i]);
    }
    return n;
}

#endif

#define B(x) es_fbuf(x)
#define T(x) es_ft(x)
#define C(x) es_fc(x)
#define O(x) PMPI_Op_f2c(*(x))

#define ES_FARGS comm, ierr
ES_FCOLL(barrier, BARRIER, Barrier, 0, -1, 0, Barrier(C(comm)), F *comm, F *ierr)
#undef ES_FARGS
#define ES_FARGS comm, request, ierr
ES_FCOLL(ibarrier, IBARRIER, Ibarrier, NB, -1, 0, Ibarrier(C(comm), &es_r), F *comm, F *request, F *ierr)
#undef ES_FARGS

#if !ES_F_MPICH
#define ES_FARGS buffer, count, datatype, root, comm, ierr
ES_FCOLL(bcast, BCAST, Bcast, 0, (int)*root, es_fbytes(count, datatype),
         Bcast(B(buffer), *count, T(datatype), *root, C(comm)), void *buffer, F *count, F *datatype, F *root,
         F *comm, F *ierr)
#undef ES_FARGS
#define ES_FARGS buffer, count, datatype, root, comm, request, ierr
ES_FCOLL(ibcast, IBCAST, Ibcast, NB, (int)*root, es_fbytes(count, datatype),
         Ibcast(B(buffer), *count, T(datatype), *root, C(comm), &es_r), void *buffer, F *count, F *datatype,
         F *root, F *comm, F *request, F *ierr)
#undef ES_FARGS
#define ES_FARGS sendbuf, recvbuf, count, datatype, op, root, comm, ierr
ES_FCOLL(reduce, REDUCE, Reduce, IP, (int)*root, es_fbytes(count, datatype),
         Reduce(B(sendbuf), B(recvbuf), *count, T(datatype), O(op), *root, C(comm)), void *sendbuf, void *recvbuf,
         F *count, F *datatype, F *op, F *root, F *comm, F *ierr)
#undef ES_FARGS
#define ES_FARGS sendbuf, recvbuf, count, datatype, op, root, comm, request, ierr
ES_FCOLL(ireduce, IREDUCE, Ireduce, NBIP, (int)*root, es_fbytes(count, datatype),
         Ireduce(B(sendbuf), B(recvbuf), *count, T(datatype), O(op), *root, C(comm), &es_r), void *sendbuf,
         void *recvbuf, F *count, F *datatype, F *op, F *root, F *comm, F *request, F *ierr)
#undef ES_FARGS
#define ES_FARGS sendbuf, recvbuf, count, datatype, op, comm, ierr
#define ES_FREDUCE(lname, UNAME, op_)                                                                          \
    ES_FCOLL(lname, UNAME, op_, IP, -1, es_fbytes(count, datatype),                                            \
             op_(B(sendbuf), B(recvbuf), *count, T(datatype), O(op), C(comm)), void *sendbuf, void *recvbuf,    \
             F *count, F *datatype, F *op, F *comm, F *ierr)
ES_FREDUCE(allreduce, ALLREDUCE, Allreduce)
ES_FREDUCE(scan, SCAN, Scan)
ES_FREDUCE(exscan, EXSCAN, Exscan)
#undef ES_FREDUCE
#undef ES_FARGS
#define ES_FARGS sendbuf, recvbuf, count, datatype, op, comm, request, ierr
#define ES_FIREDUCE(lname, UNAME, op_)                                                                         \
    ES_FCOLL(lname, UNAME, op_, NBIP, -1, es_fbytes(count, datatype),                                          \
             op_(B(sendbuf), B(recvbuf), *count, T(datatype), O(op), C(comm), &es_r), void *sendbuf,            \
             void *recvbuf, F *count, F *datatype, F *op, F *comm, F *request, F *ierr)
ES_FIREDUCE(iallreduce, IALLREDUCE, Iallreduce)
ES_FIREDUCE(iscan, ISCAN, Iscan)
ES_FIREDUCE(iexscan, IEXSCAN, Iexscan)
#undef ES_FIREDUCE
#undef ES_FARGS

#define ES_FARGS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr
#define ES_FCALL_ARGS B(sendbuf), *sendcount, T(sendtype), B(recvbuf), *recvcount, T(recvtype), *root, C(comm)
ES_FCOLL(gather, GATHER, Gather, IP, (int)*root, ES_FIP_SEND(sendcount, sendtype, recvcount, recvtype),
         Gather(ES_FCALL_ARGS), void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcount,
         F *recvtype, F *root, F *comm, F *ierr)
ES_FCOLL(scatter, SCATTER, Scatter, IPR, (int)*root, ES_FIP_RECV(sendcount, sendtype, recvcount, recvtype),
         Scatter(ES_FCALL_ARGS), void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcount,
         F *recvtype, F *root, F *comm, F *ierr)
#undef ES_FARGS
#define ES_FARGS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request, ierr
ES_FCOLL(igather, IGATHER, Igather, NBIP, (int)*root, ES_FIP_SEND(sendcount, sendtype, recvcount, recvtype),
         Igather(ES_FCALL_ARGS, &es_r), void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcount,
         F *recvtype, F *root, F *comm, F *request, F *ierr)
ES_FCOLL(iscatter, ISCATTER, Iscatter, NBIPR, (int)*root, ES_FIP_RECV(sendcount, sendtype, recvcount, recvtype),
         Iscatter(ES_FCALL_ARGS, &es_r), void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcount,
         F *recvtype, F *root, F *comm, F *request, F *ierr)
#undef ES_FCALL_ARGS
#undef ES_FARGS

#define ES_FARGS sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, ierr
#define ES_FCALL_ARGS B(sendbuf), *sendcount, T(sendtype), B(recvbuf), recvcounts, displs, T(recvtype), *root, C(comm)
ES_FCOLL(gatherv, GATHERV, Gatherv, IP, (int)*root, ES_FIP_SENDV(sendcount, sendtype, recvcounts, recvtype),
         Gatherv(ES_FCALL_ARGS), void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcounts,
         F *displs, F *recvtype, F *root, F *comm, F *ierr)
#undef ES_FARGS
#define ES_FARGS sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request, ierr
ES_FCOLL(igatherv, IGATHERV, Igatherv, NBIP, (int)*root, ES_FIP_SENDV(sendcount, sendtype, recvcounts, recvtype),
         Igatherv(ES_FCALL_ARGS, &es_r), void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcounts,
         F *displs, F *recvtype, F *root, F *comm, F *request, F *ierr)
#undef ES_FCALL_ARGS
#undef ES_FARGS

#define ES_FARGS sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr
#define ES_FCALL_ARGS B(sendbuf), sendcounts, displs, T(sendtype), B(recvbuf), *recvcount, T(recvtype), *root, C(comm)
ES_FCOLL(scatterv, SCATTERV, Scatterv, IPR, (int)*root, ES_FIP_RECVV(sendcounts, sendtype, recvcount, recvtype),
         Scatterv(ES_FCALL_ARGS), void *sendbuf, F *sendcounts, F *displs, F *sendtype, void *recvbuf,
         F *recvcount, F *recvtype, F *root, F *comm, F *ierr)
#undef ES_FARGS
#define ES_FARGS sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request, ierr
ES_FCOLL(iscatterv, ISCATTERV, Iscatterv, NBIPR, (int)*root, ES_FIP_RECVV(sendcounts, sendtype, recvcount, recvtype),
         Iscatterv(ES_FCALL_ARGS, &es_r), void *sendbuf, F *sendcounts, F *displs, F *sendtype, void *recvbuf,
         F *recvcount, F *recvtype, F *root, F *comm, F *request, F *ierr)
#undef ES_FCALL_ARGS
#undef ES_FARGS

#define ES_FARGS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr
#define ES_FCALL_ARGS B(sendbuf), *sendcount, T(sendtype), B(recvbuf), *recvcount, T(recvtype), C(comm)
ES_FCOLL(allgather, ALLGATHER, Allgather, IP, -1, ES_FIP_SEND(sendcount, sendtype, recvcount, recvtype),
         Allgather(ES_FCALL_ARGS), void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcount,
         F *recvtype, F *comm, F *ierr)
ES_FCOLL(alltoall, ALLTOALL, Alltoall, IP, -1,
         ES_FIP_SEND(sendcount, sendtype, recvcount, recvtype) * (uint64_t)es_comm_size(c), Alltoall(ES_FCALL_ARGS),
         void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcount, F *recvtype, F *comm, F *ierr)
ES_FCOLL(neighbor_allgather, NEIGHBOR_ALLGATHER, Neighbor_allgather, 0, -1, es_fbytes(sendcount, sendtype),
         Neighbor_allgather(ES_FCALL_ARGS), void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcount,
         F *recvtype, F *comm, F *ierr)
ES_FCOLL(neighbor_alltoall, NEIGHBOR_ALLTOALL, Neighbor_alltoall, 0, -1,
         es_fbytes(sendcount, sendtype) * (uint64_t)es_out_degree(c), Neighbor_alltoall(ES_FCALL_ARGS),
         void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcount, F *recvtype, F *comm, F *ierr)
#undef ES_FARGS
#define ES_FARGS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, ierr
ES_FCOLL(iallgather, IALLGATHER, Iallgather, NBIP, -1, ES_FIP_SEND(sendcount, sendtype, recvcount, recvtype),
         Iallgather(ES_FCALL_ARGS, &es_r), void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcount,
         F *recvtype, F *comm, F *request, F *ierr)
ES_FCOLL(ialltoall, IALLTOALL, Ialltoall, NBIP, -1,
         ES_FIP_SEND(sendcount, sendtype, recvcount, recvtype) * (uint64_t)es_comm_size(c),
         Ialltoall(ES_FCALL_ARGS, &es_r), void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcount,
         F *recvtype, F *comm, F *request, F *ierr)
ES_FCOLL(ineighbor_allgather, INEIGHBOR_ALLGATHER, Ineighbor_allgather, NB, -1, es_fbytes(sendcount, sendtype),
         Ineighbor_allgather(ES_FCALL_ARGS, &es_r), void *sendbuf, F *sendcount, F *sendtype, void *recvbuf,
         F *recvcount, F *recvtype, F *comm, F *request, F *ierr)
ES_FCOLL(ineighbor_alltoall, INEIGHBOR_ALLTOALL, Ineighbor_alltoall, NB, -1,
         es_fbytes(sendcount, sendtype) * (uint64_t)es_out_degree(c), Ineighbor_alltoall(ES_FCALL_ARGS, &es_r),
         void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcount, F *recvtype, F *comm, F *request,
         F *ierr)
#undef ES_FCALL_ARGS
#undef ES_FARGS

#define ES_FARGS sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, ierr
#define ES_FCALL_ARGS B(sendbuf), *sendcount, T(sendtype), B(recvbuf), recvcounts, displs, T(recvtype), C(comm)
ES_FCOLL(allgatherv, ALLGATHERV, Allgatherv, IP, -1, ES_FIP_SENDV(sendcount, sendtype, recvcounts, recvtype),
         Allgatherv(ES_FCALL_ARGS), void *sendbuf, F *sendcount, F *sendtype, void *recvbuf, F *recvcounts,
         F *displs, F *recvtype, F *comm, F *ierr)
ES_FCOLL(neighbor_allgatherv, NEIGHBOR_ALLGATHERV, Neighbor_allgatherv, 0, -1, es_fbytes(sendcount, sendtype),
         Neighbor_allgatherv(ES_FCALL_ARGS), void *sendbuf, F *sendcount, F *sendtype, void *recvbuf,
         F *recvcounts, F *displs, F *recvtype, F *comm, F *ierr)
#undef ES_FARGS
#define ES_FARGS sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request, ierr
ES_FCOLL(iallgatherv, IALLGATHERV, Iallgatherv, NBIP, -1, ES_FIP_SENDV(sendcount, sendtype, recvcounts, recvtype),
         Iallgatherv(ES_FCALL_ARGS, &es_r), void *sendbuf, F *sendcount, F *sendtype, void *recvbuf,
         F *recvcounts, F *displs, F *recvtype, F *comm, F *request, F *ierr)
ES_FCOLL(ineighbor_allgatherv, INEIGHBOR_ALLGATHERV, Ineighbor_allgatherv, NB, -1, es_fbytes(sendcount, sendtype),
         Ineighbor_allgatherv(ES_FCALL_ARGS, &es_r), void *sendbuf, F *sendcount, F *sendtype, void *recvbuf,
         F *recvcounts, F *displs, F *recvtype, F *comm, F *request, F *ierr)
#undef ES_FCALL_ARGS
#undef ES_FARGS

#define ES_FARGS sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, ierr
#define ES_FCALL_ARGS                                                                                          \
    B(sendbuf), sendcounts, sdispls, T(sendtype), B(recvbuf), recvcounts, rdispls, T(recvtype), C(comm)
ES_FCOLL(alltoallv, ALLTOALLV, Alltoallv, IP, -1,
         ES_FIP_SUM(sendcounts, sendtype, recvcounts, recvtype, es_comm_size(c)), Alltoallv(ES_FCALL_ARGS),
         void *sendbuf, F *sendcounts, F *sdispls, F *sendtype, void *recvbuf, F *recvcounts, F *rdispls,
         F *recvtype, F *comm, F *ierr)
ES_FCOLL(neighbor_alltoallv, NEIGHBOR_ALLTOALLV, Neighbor_alltoallv, 0, -1,
         es_sum_bytes((const int *)sendcounts, T(sendtype), es_out_degree(c)), Neighbor_alltoallv(ES_FCALL_ARGS),
         void *sendbuf, F *sendcounts, F *sdispls, F *sendtype, void *recvbuf, F *recvcounts, F *rdispls,
         F *recvtype, F *comm, F *ierr)
#undef ES_FARGS
#define ES_FARGS sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request, ierr
ES_FCOLL(ialltoallv, IALLTOALLV, Ialltoallv, NBIP, -1,
         ES_FIP_SUM(sendcounts, sendtype, recvcounts, recvtype, es_comm_size(c)), Ialltoallv(ES_FCALL_ARGS, &es_r),
         void *sendbuf, F *sendcounts, F *sdispls, F *sendtype, void *recvbuf, F *recvcounts, F *rdispls,
         F *recvtype, F *comm, F *request, F *ierr)
ES_FCOLL(ineighbor_alltoallv, INEIGHBOR_ALLTOALLV, Ineighbor_alltoallv, NB, -1,
         es_sum_bytes((const int *)sendcounts, T(sendtype), es_out_degree(c)),
         Ineighbor_alltoallv(ES_FCALL_ARGS, &es_r), void *sendbuf, F *sendcounts, F *sdispls, F *sendtype,
         void *recvbuf, F *recvcounts, F *rdispls, F *recvtype, F *comm, F *request, F *ierr)
#undef ES_FCALL_ARGS
#undef ES_FARGS

/* alltoallw: the C fallback converts the type arrays (as many as the communicator has ranks) */
#define ES_FW_TYPES(n)                                                                                         \
    MPI_Datatype *cst_ = malloc(sizeof(MPI_Datatype) * (size_t)(n) * 2 + 1);                                   \
    MPI_Datatype *crt_ = cst_ == NULL ? NULL : cst_ + (n);                                                     \
    if (cst_ == NULL) {                                                                                        \
        ES_SETERR(MPI_ERR_NO_MEM);                                                                             \
        break;                                                                                                 \
    }                                                                                                          \
    if (!es_fip(sendbuf)) {                                                                                    \
        es_fc_types(sendtypes, cst_, (n));                                                                     \
    }                                                                                                          \
    es_fc_types(recvtypes, crt_, (n));
#define ES_FARGS sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, ierr
ES_FDEF(alltoallw, ALLTOALLW, void *sendbuf, F *sendcounts, F *sdispls, F *sendtypes, void *recvbuf, F *recvcounts,
        F *rdispls, F *recvtypes, F *comm, F *ierr)
{
    MPI_Comm c = es_fc(comm);
#define ES_FALLTOALLW_FALLBACK                                                                                 \
    do {                                                                                                       \
        int n = es_comm_size(c);                                                                               \
        ES_FW_TYPES(n)                                                                                         \
        ES_SETERR(PMPI_Alltoallw(B(sendbuf), sendcounts, sdispls, cst_, B(recvbuf), recvcounts, rdispls, crt_, c)); \
        free(cst_);                                                                                            \
    } while (0)
    if (!es_recording()) {
        ES_FCALL(alltoallw, ES_FALLTOALLW_FALLBACK);
        return;
    }
    es_comm *e = es_find(c);
    uint32_t seq = e->seq++;
    ES_T0(ES_OP_Alltoallw);
    ES_FCALL(alltoallw, ES_FALLTOALLW_FALLBACK);
    int64_t t1 = es_now();
    int n = es_comm_size(c);
    ES_FREC(Alltoallw, ES_FLAG_COLLECTIVE | IP, e, seq, -1,
            es_fip(sendbuf) ? es_fw_bytes(recvcounts, recvtypes, n) : es_fw_bytes(sendcounts, sendtypes, n));
}
#undef ES_FARGS
#define ES_FARGS sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request, ierr
ES_FDEF(ialltoallw, IALLTOALLW, void *sendbuf, F *sendcounts, F *sdispls, F *sendtypes, void *recvbuf,
        F *recvcounts, F *rdispls, F *recvtypes, F *comm, F *request, F *ierr)
{
    MPI_Comm c = es_fc(comm);
    /* MPI may read the type arrays until the request completes: the fallback's copies are not freed (rare path) */
#define ES_FIALLTOALLW_FALLBACK                                                                                \
    do {                                                                                                       \
        int n = es_comm_size(c);                                                                               \
        ES_FW_TYPES(n)                                                                                         \
        MPI_Request es_r = MPI_REQUEST_NULL;                                                                   \
        int es_rc = PMPI_Ialltoallw(B(sendbuf), sendcounts, sdispls, cst_, B(recvbuf), recvcounts, rdispls,    \
                                    crt_, c, &es_r);                                                           \
        if (es_rc == MPI_SUCCESS) {                                                                            \
            *request = PMPI_Request_c2f(es_r);                                                                 \
        }                                                                                                      \
        ES_SETERR(es_rc);                                                                                      \
    } while (0)
    if (!es_recording()) {
        ES_FCALL(ialltoallw, ES_FIALLTOALLW_FALLBACK);
        return;
    }
    es_comm *e = es_find(c);
    uint32_t seq = e->seq++;
    ES_T0(ES_OP_Ialltoallw);
    ES_FCALL(ialltoallw, ES_FIALLTOALLW_FALLBACK);
    int64_t t1 = es_now();
    ES_FTRACK_NB
    int n = es_comm_size(c);
    ES_FREC(Ialltoallw, ES_FLAG_COLLECTIVE | NBIP, e, seq, -1,
            es_fip(sendbuf) ? es_fw_bytes(recvcounts, recvtypes, n) : es_fw_bytes(sendcounts, sendtypes, n));
}
#undef ES_FARGS
#undef ES_FW_TYPES

#define ES_FARGS sendbuf, recvbuf, recvcounts, datatype, op, comm, ierr
ES_FCOLL(reduce_scatter, REDUCE_SCATTER, Reduce_scatter, IP, -1,
         es_sum_bytes((const int *)recvcounts, T(datatype), es_comm_size(c)),
         Reduce_scatter(B(sendbuf), B(recvbuf), recvcounts, T(datatype), O(op), C(comm)), void *sendbuf,
         void *recvbuf, F *recvcounts, F *datatype, F *op, F *comm, F *ierr)
#undef ES_FARGS
#define ES_FARGS sendbuf, recvbuf, recvcounts, datatype, op, comm, request, ierr
ES_FCOLL(ireduce_scatter, IREDUCE_SCATTER, Ireduce_scatter, NBIP, -1,
         es_sum_bytes((const int *)recvcounts, T(datatype), es_comm_size(c)),
         Ireduce_scatter(B(sendbuf), B(recvbuf), recvcounts, T(datatype), O(op), C(comm), &es_r), void *sendbuf,
         void *recvbuf, F *recvcounts, F *datatype, F *op, F *comm, F *request, F *ierr)
#undef ES_FARGS
#define ES_FARGS sendbuf, recvbuf, recvcount, datatype, op, comm, ierr
ES_FCOLL(reduce_scatter_block, REDUCE_SCATTER_BLOCK, Reduce_scatter_block, IP, -1,
         es_fbytes(recvcount, datatype) * (uint64_t)es_comm_size(c),
         Reduce_scatter_block(B(sendbuf), B(recvbuf), *recvcount, T(datatype), O(op), C(comm)), void *sendbuf,
         void *recvbuf, F *recvcount, F *datatype, F *op, F *comm, F *ierr)
#undef ES_FARGS
#define ES_FARGS sendbuf, recvbuf, recvcount, datatype, op, comm, request, ierr
ES_FCOLL(ireduce_scatter_block, IREDUCE_SCATTER_BLOCK, Ireduce_scatter_block, NBIP, -1,
         es_fbytes(recvcount, datatype) * (uint64_t)es_comm_size(c),
         Ireduce_scatter_block(B(sendbuf), B(recvbuf), *recvcount, T(datatype), O(op), C(comm), &es_r),
         void *sendbuf, void *recvbuf, F *recvcount, F *datatype, F *op, F *comm, F *request, F *ierr)
#undef ES_FARGS

/* ---- point to point ----------------------------------------------------------------------------------------- */

/* send side: bytes = count * type size (0 to MPI_PROC_NULL), peer = dest */
#define ES_FSEND(lname, UNAME, op, flags, CALL, ...)                                                           \
    ES_FDEF(lname, UNAME, __VA_ARGS__)                                                                         \
    {                                                                                                          \
        if (!es_recording()) {                                                                                 \
            ES_FCALL(lname, ES_FC_##flags(CALL));                                                              \
            return;                                                                                            \
        }                                                                                                      \
        ES_T0(ES_OP_##op);                                                                                     \
        ES_FCALL(lname, ES_FC_##flags(CALL));                                                                  \
        int64_t t1 = es_now();                                                                                 \
        es_comm *e = es_fcomm(comm);                                                                           \
        int proc_null = *dest == MPI_PROC_NULL;                                                                \
        ES_FREC(op, (flags) | (proc_null ? ES_FLAG_PROC_NULL : 0), e, *tag, es_world_rank(e, (int)*dest),     \
                proc_null ? 0 : es_fbytes(count, datatype));                                                   \
    }

#define ES_FARGS buf, count, datatype, dest, tag, comm, ierr
#define ES_FSEND_BLOCKING(lname, UNAME, op)                                                                    \
    ES_FSEND(lname, UNAME, op, 0, op(B(buf), *count, T(datatype), *dest, *tag, C(comm)), void *buf, F *count,   \
             F *datatype, F *dest, F *tag, F *comm, F *ierr)
ES_FSEND_BLOCKING(send, SEND, Send)
ES_FSEND_BLOCKING(ssend, SSEND, Ssend)
ES_FSEND_BLOCKING(bsend, BSEND, Bsend)
ES_FSEND_BLOCKING(rsend, RSEND, Rsend)
#undef ES_FSEND_BLOCKING
#undef ES_FARGS
#define ES_FARGS buf, count, datatype, dest, tag, comm, request, ierr
#define ES_FSEND_NB(lname, UNAME, op)                                                                          \
    ES_FSEND(lname, UNAME, op, NB, op(B(buf), *count, T(datatype), *dest, *tag, C(comm), &es_r), void *buf,     \
             F *count, F *datatype, F *dest, F *tag, F *comm, F *request, F *ierr)
ES_FSEND_NB(isend, ISEND, Isend)
ES_FSEND_NB(issend, ISSEND, Issend)
ES_FSEND_NB(ibsend, IBSEND, Ibsend)
ES_FSEND_NB(irsend, IRSEND, Irsend)
#undef ES_FSEND_NB
#undef ES_FARGS

/* a blocking receive: the source and tag matched and the bytes received when the status is there, else as posted */
#define ES_FARGS buf, count, datatype, source, tag, comm, status, ierr
ES_FDEF(recv, RECV, void *buf, F *count, F *datatype, F *source, F *tag, F *comm, F *status, F *ierr)
{
#define ES_FRECV_FALLBACK                                                                                      \
    {                                                                                                          \
        MPI_Status cs;                                                                                         \
        int rc = PMPI_Recv(B(buf), *count, T(datatype), *source, *tag, C(comm), es_cstatus(status, &cs));      \
        es_cstatus_out(rc, status, &cs);                                                                       \
        ES_SETERR(rc);                                                                                         \
    }
    if (!es_recording()) {
        ES_FCALL(recv, ES_FRECV_FALLBACK);
        return;
    }
    ES_T0(ES_OP_Recv);
    ES_FCALL(recv, ES_FRECV_FALLBACK);
    int64_t t1 = es_now();
    es_comm *e = es_fcomm(comm);
    int src = (int)*source, tg = (int)*tag;
    uint64_t bytes = src == MPI_PROC_NULL ? 0 : es_fbytes(count, datatype);
    MPI_Status cs;
    if (ES_FOK(ierr) && es_fstatus_in(status, &cs) != NULL && cs.MPI_SOURCE >= 0) {
        int got = 0;
        PMPI_Get_count(&cs, es_ft(datatype), &got);
        src = cs.MPI_SOURCE;
        tg = cs.MPI_TAG;
        bytes = got == MPI_UNDEFINED ? 0 : es_bytes(got, es_ft(datatype));
    }
    ES_FREC(Recv, (*source == MPI_PROC_NULL ? ES_FLAG_PROC_NULL : 0), e, tg, es_world_rank(e, src), bytes);
#undef ES_FRECV_FALLBACK
}
#undef ES_FARGS

/* as MPI_Irecv's C wrapper: the request enters the table, so the wait or test that completes it writes its record */
#define ES_FARGS buf, count, datatype, source, tag, comm, request, ierr
ES_FDEF(irecv, IRECV, void *buf, F *count, F *datatype, F *source, F *tag, F *comm, F *request, F *ierr)
{
    if (!es_recording()) {
        ES_FCALL(irecv, ES_FC_NB(Irecv(B(buf), *count, T(datatype), *source, *tag, C(comm), &es_r)));
        return;
    }
    ES_T0(ES_OP_Irecv);
    ES_FCALL(irecv, ES_FC_NB(Irecv(B(buf), *count, T(datatype), *source, *tag, C(comm), &es_r)));
    int64_t t1 = es_now();
    MPI_Comm c = es_fc(comm);
    es_comm *e = es_find(c);
    int proc_null = *source == MPI_PROC_NULL;
    if (ES_FOK(ierr) && !proc_null) {
        es_req_track(PMPI_Request_f2c(*request), c, e, (int)*source, (int)*tag, es_ft(datatype), es_t0);
    }
    ES_FREC(Irecv, ES_FLAG_NONBLOCKING | (proc_null ? ES_FLAG_PROC_NULL : 0), e, *tag,
            es_world_rank(e, (int)*source), proc_null ? 0 : es_fbytes(count, datatype));
}
#undef ES_FARGS

/* sendrecv: the send half's tuple, and the receive half as a receive record when the status is there */
#define ES_FARGS                                                                                               \
    sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, st, ierr
ES_FDEF(sendrecv, SENDRECV, void *sendbuf, F *sendcount, F *sendtype, F *dest, F *sendtag, void *recvbuf,
        F *recvcount, F *recvtype, F *source, F *recvtag, F *comm, F *status, F *ierr)
{
#define ES_FSENDRECV_FALLBACK                                                                                  \
    {                                                                                                          \
        MPI_Status cs;                                                                                         \
        int rc = PMPI_Sendrecv(B(sendbuf), *sendcount, T(sendtype), *dest, *sendtag, B(recvbuf), *recvcount,   \
                               T(recvtype), *source, *recvtag, C(comm), es_cstatus(st, &cs));                   \
        es_cstatus_out(rc, st, &cs);                                                                           \
        ES_SETERR(rc);                                                                                         \
    }
    F *st = status;
    if (!es_recording()) {
        ES_FCALL(sendrecv, ES_FSENDRECV_FALLBACK);
        return;
    }
    F own[32];
    if (es_fstatus_ignored(status)) {
        st = own;
    }
    ES_T0(ES_OP_Sendrecv);
    ES_FCALL(sendrecv, ES_FSENDRECV_FALLBACK);
    int64_t t1 = es_now();
    es_comm *e = es_fcomm(comm);
    int proc_null = *dest == MPI_PROC_NULL;
    ES_FREC(Sendrecv, proc_null ? ES_FLAG_PROC_NULL : 0, e, *sendtag, es_world_rank(e, (int)*dest),
            proc_null ? 0 : es_fbytes(sendcount, sendtype));
    MPI_Status cs;
    es_receive_half(ES_FOK(ierr) && es_fstatus_in(st, &cs) != NULL ? MPI_SUCCESS : MPI_ERR_OTHER, &cs, e,
                    es_ft(recvtype), es_t0, t1, ES_RA);
#undef ES_FSENDRECV_FALLBACK
}
#undef ES_FARGS

#define ES_FARGS buf, count, datatype, dest, sendtag, source, recvtag, comm, st, ierr
ES_FDEF(sendrecv_replace, SENDRECV_REPLACE, void *buf, F *count, F *datatype, F *dest, F *sendtag, F *source,
        F *recvtag, F *comm, F *status, F *ierr)
{
#define ES_FSENDRECV_REPLACE_FALLBACK                                                                          \
    {                                                                                                          \
        MPI_Status cs;                                                                                         \
        int rc = PMPI_Sendrecv_replace(B(buf), *count, T(datatype), *dest, *sendtag, *source, *recvtag,        \
                                       C(comm), es_cstatus(st, &cs));                                          \
        es_cstatus_out(rc, st, &cs);                                                                           \
        ES_SETERR(rc);                                                                                         \
    }
    F *st = status;
    if (!es_recording()) {
        ES_FCALL(sendrecv_replace, ES_FSENDRECV_REPLACE_FALLBACK);
        return;
    }
    F own[32];
    if (es_fstatus_ignored(status)) {
        st = own;
    }
    ES_T0(ES_OP_Sendrecv_replace);
    ES_FCALL(sendrecv_replace, ES_FSENDRECV_REPLACE_FALLBACK);
    int64_t t1 = es_now();
    es_comm *e = es_fcomm(comm);
    int proc_null = *dest == MPI_PROC_NULL;
    ES_FREC(Sendrecv_replace, proc_null ? ES_FLAG_PROC_NULL : 0, e, *sendtag, es_world_rank(e, (int)*dest),
            proc_null ? 0 : es_fbytes(count, datatype));
    MPI_Status cs;
    es_receive_half(ES_FOK(ierr) && es_fstatus_in(st, &cs) != NULL ? MPI_SUCCESS : MPI_ERR_OTHER, &cs, e,
                    es_ft(datatype), es_t0, t1, ES_RA);
#undef ES_FSENDRECV_REPLACE_FALLBACK
}
#undef ES_FARGS
#endif /* !ES_F_MPICH: the calls with a choice buffer */

#undef B
#undef T
#undef O
#undef NB
#undef IP
#undef IPR
#undef NBIP
#undef NBIPR

/* ---- communicators ------------------------------------------------------------------------------------------ */

#define ES_FCTOR(lname, UNAME, op, salt, newc, CALL, ...)                                                      \
    ES_FDEF(lname, UNAME, __VA_ARGS__)                                                                         \
    {                                                                                                          \
        if (!es_recording()) {                                                                                 \
            ES_FCALL(lname, ES_FCTOR_FALLBACK(CALL, newc));                                                    \
            return;                                                                                            \
        }                                                                                                      \
        es_comm *e = es_fcomm(comm);                                                                           \
        uint32_t parent = e->id, seq = e->seq++;                                                               \
        ES_T0(ES_OP_##op);                                                                                     \
        ES_FCALL(lname, ES_FCTOR_FALLBACK(CALL, newc));                                                        \
        int64_t t1 = es_now();                                                                                 \
        if (ES_FOK(ierr)) {                                                                                    \
            es_register(PMPI_Comm_f2c(*(newc)), parent, seq, (uint32_t)(salt), 0);                             \
        }                                                                                                      \
        es_record(ES_OP_##op, ES_FLAG_FORTRAN | ES_FLAG_COLLECTIVE | es_ffailed(ierr), parent, seq, -1, 0,     \
                  es_t0, t1, ES_RA);                                                                           \
    }
#define ES_FCTOR_FALLBACK(CALL, newc)                                                                          \
    {                                                                                                          \
        MPI_Comm es_new = MPI_COMM_NULL;                                                                       \
        int es_rc = PMPI_##CALL;                                                                               \
        if (es_rc == MPI_SUCCESS) {                                                                            \
            *(newc) = PMPI_Comm_c2f(es_new);                                                                   \
        }                                                                                                      \
        ES_SETERR(es_rc);                                                                                      \
    }
#define ES_FARGS comm, newcomm, ierr
ES_FCTOR(comm_dup, COMM_DUP, Comm_dup, 1, newcomm, Comm_dup(C(comm), &es_new), F *comm, F *newcomm, F *ierr)
#undef ES_FARGS
#define ES_FARGS comm, info, newcomm, ierr
ES_FCTOR(comm_dup_with_info, COMM_DUP_WITH_INFO, Comm_dup_with_info, 2, newcomm,
         Comm_dup_with_info(C(comm), PMPI_Info_f2c(*info), &es_new), F *comm, F *info, F *newcomm, F *ierr)
#undef ES_FARGS
#define ES_FARGS comm, color, key, newcomm, ierr
ES_FCTOR(comm_split, COMM_SPLIT, Comm_split, 3 + (uint32_t)*color, newcomm,
         Comm_split(C(comm), *color, *key, &es_new), F *comm, F *color, F *key, F *newcomm, F *ierr)
#undef ES_FARGS
#define ES_FARGS comm, split_type, key, info, newcomm, ierr
ES_FCTOR(comm_split_type, COMM_SPLIT_TYPE, Comm_split_type, 5 + (uint32_t)*split_type, newcomm,
         Comm_split_type(C(comm), *split_type, *key, PMPI_Info_f2c(*info), &es_new), F *comm, F *split_type,
         F *key, F *info, F *newcomm, F *ierr)
#undef ES_FARGS
#define ES_FARGS comm, group, newcomm, ierr
ES_FCTOR(comm_create, COMM_CREATE, Comm_create, 7, newcomm,
         Comm_create(C(comm), PMPI_Group_f2c(*group), &es_new), F *comm, F *group, F *newcomm, F *ierr)
#undef ES_FARGS
#undef ES_FCTOR
#undef ES_FCTOR_FALLBACK

/* collective over the group only: no place in the parent's sequence (as the C wrapper) */
#define ES_FARGS comm, group, tag, newcomm, ierr
ES_FDEF(comm_create_group, COMM_CREATE_GROUP, F *comm, F *group, F *tag, F *newcomm, F *ierr)
{
#define ES_FCREATE_GROUP_FALLBACK                                                                              \
    {                                                                                                          \
        MPI_Comm es_new = MPI_COMM_NULL;                                                                       \
        int rc = PMPI_Comm_create_group(C(comm), PMPI_Group_f2c(*group), *tag, &es_new);                       \
        if (rc == MPI_SUCCESS) {                                                                               \
            *newcomm = PMPI_Comm_c2f(es_new);                                                                  \
        }                                                                                                      \
        ES_SETERR(rc);                                                                                         \
    }
    if (!es_recording()) {
        ES_FCALL(comm_create_group, ES_FCREATE_GROUP_FALLBACK);
        return;
    }
    es_comm *e = es_fcomm(comm);
    ES_T0(ES_OP_Comm_create_group);
    ES_FCALL(comm_create_group, ES_FCREATE_GROUP_FALLBACK);
    int64_t t1 = es_now();
    if (ES_FOK(ierr)) {
        es_register(PMPI_Comm_f2c(*newcomm), e->id, 0xC0000000u, (uint32_t)*tag, 0);
    }
    es_record(ES_OP_Comm_create_group, ES_FLAG_FORTRAN | es_ffailed(ierr), e->id, (uint32_t)*tag, -1, 0, es_t0, t1,
              ES_RA);
#undef ES_FCREATE_GROUP_FALLBACK
}
#undef ES_FARGS

/*
 * Non-blocking: registered when the wait or test completes it (as the C wrapper). The new handle's C value is read
 * then from the Fortran variable, which MPI writes at completion: the table entry keeps where it is.
 */
#define ES_FARGS comm, newcomm, request, ierr
ES_FDEF(comm_idup, COMM_IDUP, F *comm, F *newcomm, F *request, F *ierr)
{
#define ES_FIDUP_FALLBACK                                                                                      \
    {                                                                                                          \
        MPI_Request es_r = MPI_REQUEST_NULL;                                                                   \
        MPI_Comm es_new = MPI_COMM_NULL;                                                                       \
        int rc = PMPI_Comm_idup(C(comm), &es_new, &es_r);                                                      \
        if (rc == MPI_SUCCESS) {                                                                               \
            /* as Open MPI's own binding: the new communicator's object exists from the call on */            \
            *newcomm = PMPI_Comm_c2f(es_new);                                                                  \
            *request = PMPI_Request_c2f(es_r);                                                                 \
        }                                                                                                      \
        ES_SETERR(rc);                                                                                         \
    }
    if (!es_recording()) {
        ES_FCALL(comm_idup, ES_FIDUP_FALLBACK);
        return;
    }
    MPI_Comm c = es_fc(comm);
    es_comm *e = es_find(c);
    uint32_t seq = e->seq++;
    ES_T0(ES_OP_Comm_idup);
    ES_FCALL(comm_idup, ES_FIDUP_FALLBACK);
    if (ES_FOK(ierr)) {
        es_req *q = es_req_track(PMPI_Request_f2c(*request), c, e, MPI_PROC_NULL, 0, MPI_DATATYPE_NULL, es_t0);
        if (q != NULL) {
            /* the Fortran handle is written at completion; its C value then is what es_req_done registers */
            q->kind = ES_REQ_IDUP;
            q->fnewcomm = newcomm;
            q->seq = seq;
        }
    }
    es_record(ES_OP_Comm_idup, ES_FLAG_FORTRAN | ES_FLAG_COLLECTIVE | ES_FLAG_NONBLOCKING | es_ffailed(ierr), e->id,
              seq, -1, 0, es_t0, es_now(), ES_RA);
#undef ES_FIDUP_FALLBACK
}
#undef ES_FARGS

#define ES_FARGS comm, ierr
ES_FDEF(comm_free, COMM_FREE, F *comm, F *ierr)
{
#define ES_FCOMM_FREE_FALLBACK                                                                                 \
    {                                                                                                          \
        MPI_Comm cc = C(comm);                                                                                 \
        int rc = PMPI_Comm_free(&cc);                                                                          \
        *comm = PMPI_Comm_c2f(cc);                                                                             \
        ES_SETERR(rc);                                                                                         \
    }
    if (!es_recording()) {
        ES_FCALL(comm_free, ES_FCOMM_FREE_FALLBACK);
        return;
    }
    MPI_Comm c = PMPI_Comm_f2c(*comm);
    es_comm *e = es_find(c);
    uint32_t id = e->id, seq = e->seq++;
    ES_T0(ES_OP_Comm_free);
    ES_FCALL(comm_free, ES_FCOMM_FREE_FALLBACK);
    int64_t t1 = es_now();
    if (ES_FOK(ierr)) {
        es_unregister(c);
    }
    es_record(ES_OP_Comm_free, ES_FLAG_FORTRAN | ES_FLAG_COLLECTIVE | es_ffailed(ierr), id, seq, -1, 0, es_t0, t1,
              ES_RA);
#undef ES_FCOMM_FREE_FALLBACK
}
#undef ES_FARGS

/* topologies: constructors on the parent's sequence, as MPI_Cart_create and MPI_Cart_sub's C wrappers */
static int *es_flogicals(const F *f, int n)
{
    int *c = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; c != NULL && i < n; i++) {
        c[i] = f[i] != 0;
    }
    return c;
}

#define ES_FARGS comm, ndims, dims, periods, reorder, comm_cart, ierr
ES_FDEF(cart_create, CART_CREATE, F *comm, F *ndims, F *dims, F *periods, F *reorder, F *comm_cart, F *ierr)
{
#define ES_FCART_CREATE_FALLBACK                                                                               \
    {                                                                                                          \
        int *cp = es_flogicals(periods, (int)*ndims);                                                          \
        MPI_Comm es_new = MPI_COMM_NULL;                                                                       \
        int rc = cp == NULL ? MPI_ERR_NO_MEM                                                                   \
                            : PMPI_Cart_create(C(comm), *ndims, dims, cp, *reorder != 0, &es_new);             \
        free(cp);                                                                                              \
        if (rc == MPI_SUCCESS) {                                                                               \
            *comm_cart = PMPI_Comm_c2f(es_new);                                                                \
        }                                                                                                      \
        ES_SETERR(rc);                                                                                         \
    }
    if (!es_recording()) {
        ES_FCALL(cart_create, ES_FCART_CREATE_FALLBACK);
        return;
    }
    es_comm *e = es_fcomm(comm);
    uint32_t parent = e->id, seq = e->seq++;
    ES_T0(ES_OP_Cart_create);
    ES_FCALL(cart_create, ES_FCART_CREATE_FALLBACK);
    int64_t t1 = es_now();
    if (ES_FOK(ierr)) {
        es_register(PMPI_Comm_f2c(*comm_cart), parent, seq, 11, 0);
    }
    es_record(ES_OP_Cart_create, ES_FLAG_FORTRAN | ES_FLAG_COLLECTIVE | es_ffailed(ierr), parent, seq, -1, 0, es_t0,
              t1, ES_RA);
#undef ES_FCART_CREATE_FALLBACK
}
#undef ES_FARGS

#define ES_FARGS comm, remain_dims, newcomm, ierr
ES_FDEF(cart_sub, CART_SUB, F *comm, F *remain_dims, F *newcomm, F *ierr)
{
#define ES_FCART_SUB_FALLBACK                                                                                  \
    {                                                                                                          \
        int nd = 0;                                                                                            \
        PMPI_Cartdim_get(C(comm), &nd);                                                                        \
        int *cr = es_flogicals(remain_dims, nd);                                                               \
        MPI_Comm es_new = MPI_COMM_NULL;                                                                       \
        int rc = cr == NULL ? MPI_ERR_NO_MEM : PMPI_Cart_sub(C(comm), cr, &es_new);                            \
        free(cr);                                                                                              \
        if (rc == MPI_SUCCESS) {                                                                               \
            *newcomm = PMPI_Comm_c2f(es_new);                                                                  \
        }                                                                                                      \
        ES_SETERR(rc);                                                                                         \
    }
    if (!es_recording()) {
        ES_FCALL(cart_sub, ES_FCART_SUB_FALLBACK);
        return;
    }
    es_comm *e = es_fcomm(comm);
    uint32_t parent = e->id, seq = e->seq++;
    ES_T0(ES_OP_Cart_sub);
    ES_FCALL(cart_sub, ES_FCART_SUB_FALLBACK);
    int64_t t1 = es_now();
    if (ES_FOK(ierr)) {
        es_register(PMPI_Comm_f2c(*newcomm), parent, seq, 13, 0);
    }
    es_record(ES_OP_Cart_sub, ES_FLAG_FORTRAN | ES_FLAG_COLLECTIVE | es_ffailed(ierr), parent, seq, -1, 0, es_t0, t1,
              ES_RA);
#undef ES_FCART_SUB_FALLBACK
}
#undef ES_FARGS

#if !ES_F_MPICH
/* Open MPI's mpi_f08 MPI_Cart_create and MPI_Cart_sub (LOGICAL arguments) call pmpi_x_ directly, as its tests do */
ES_F08_SHIM(cart_create, (F *comm, F *ndims, F *dims, F *periods, F *reorder, F *comm_cart, F *ierr), comm, ndims,
            dims, periods, reorder, comm_cart)
ES_F08_SHIM(cart_sub, (F *comm, F *remain_dims, F *newcomm, F *ierr), comm, remain_dims, newcomm)

/* ---- windows: creation and the one-sided calls (choice buffers: Open MPI only, as the C wrappers) -------------- */

#define ES_FARGS base, size, disp_unit, info, comm, win, ierr
ES_FDEF(win_create, WIN_CREATE, void *base, MPI_Aint *size, F *disp_unit, F *info, F *comm, F *win, F *ierr)
{
#define ES_FWIN_CREATE_FALLBACK                                                                                \
    {                                                                                                          \
        MPI_Win w = MPI_WIN_NULL;                                                                              \
        int rc = PMPI_Win_create(es_fbuf(base), *size, *disp_unit, PMPI_Info_f2c(*info), C(comm), &w);          \
        if (rc == MPI_SUCCESS) {                                                                               \
            *win = PMPI_Win_c2f(w);                                                                            \
        }                                                                                                      \
        ES_SETERR(rc);                                                                                         \
    }
    if (!es_recording()) {
        ES_FCALL(win_create, ES_FWIN_CREATE_FALLBACK);
        return;
    }
    es_comm *e = es_fcomm(comm);
    uint32_t parent = e->id, seq = e->seq++;
    ES_T0(ES_OP_Win_create);
    ES_FCALL(win_create, ES_FWIN_CREATE_FALLBACK);
    int64_t t1 = es_now();
    if (ES_FOK(ierr)) {
        es_win_register(PMPI_Win_f2c(*win), parent, seq);
    }
    es_record(ES_OP_Win_create, ES_FLAG_FORTRAN | ES_FLAG_COLLECTIVE | es_ffailed(ierr), parent, seq, -1,
              *size > 0 ? (uint64_t)*size : 0, es_t0, t1, ES_RA);
#undef ES_FWIN_CREATE_FALLBACK
}
#undef ES_FARGS

/* Put, Get, Accumulate: bytes = the origin's, as the C wrappers */
#define ES_FRMA(lname, UNAME, op, CALL, ...)                                                                   \
    ES_FDEF(lname, UNAME, __VA_ARGS__)                                                                         \
    {                                                                                                          \
        if (!es_recording()) {                                                                                 \
            ES_FCALL(lname, ES_SETERR(PMPI_##CALL));                                                           \
            return;                                                                                            \
        }                                                                                                      \
        ES_T0(ES_OP_##op);                                                                                     \
        ES_FCALL(lname, ES_SETERR(PMPI_##CALL));                                                               \
        int64_t t1 = es_now();                                                                                 \
        es_win *w = es_win_find(PMPI_Win_f2c(*win));                                                           \
        es_record(ES_OP_##op, ES_FLAG_FORTRAN | ES_FLAG_NONBLOCKING | es_ffailed(ierr), w->id, 0,              \
                  es_win_world(w, (int)*target_rank), es_fbytes(origin_count, origin_datatype), es_t0, t1, ES_RA); \
    }
#define ES_FARGS origin, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win, \
                 ierr
ES_FRMA(put, PUT, Put,
        Put(es_fbuf(origin), *origin_count, es_ft(origin_datatype), *target_rank, *target_disp, *target_count,
            es_ft(target_datatype), PMPI_Win_f2c(*win)),
        void *origin, F *origin_count, F *origin_datatype, F *target_rank, MPI_Aint *target_disp, F *target_count,
        F *target_datatype, F *win, F *ierr)
ES_FRMA(get, GET, Get,
        Get(es_fbuf(origin), *origin_count, es_ft(origin_datatype), *target_rank, *target_disp, *target_count,
            es_ft(target_datatype), PMPI_Win_f2c(*win)),
        void *origin, F *origin_count, F *origin_datatype, F *target_rank, MPI_Aint *target_disp, F *target_count,
        F *target_datatype, F *win, F *ierr)
#undef ES_FARGS
#define ES_FARGS origin, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, op, \
                 win, ierr
ES_FRMA(accumulate, ACCUMULATE, Accumulate,
        Accumulate(es_fbuf(origin), *origin_count, es_ft(origin_datatype), *target_rank, *target_disp, *target_count,
                   es_ft(target_datatype), PMPI_Op_f2c(*op), PMPI_Win_f2c(*win)),
        void *origin, F *origin_count, F *origin_datatype, F *target_rank, MPI_Aint *target_disp, F *target_count,
        F *target_datatype, F *op, F *win, F *ierr)
#undef ES_FARGS
#undef ES_FRMA
#endif

/* ---- windows: synchronisation (the window's own sequence, as the C wrappers) ---------------------------------- */

#define ES_FARGS assert_, win, ierr
ES_FDEF(win_fence, WIN_FENCE, F *assert_, F *win, F *ierr)
{
    if (!es_recording()) {
        ES_FCALL(win_fence, ES_SETERR(PMPI_Win_fence(*assert_, PMPI_Win_f2c(*win))));
        return;
    }
    es_win *w = es_win_find(PMPI_Win_f2c(*win));
    uint32_t seq = w->seq++;
    ES_T0(ES_OP_Win_fence);
    ES_FCALL(win_fence, ES_SETERR(PMPI_Win_fence(*assert_, PMPI_Win_f2c(*win))));
    es_record(ES_OP_Win_fence, ES_FLAG_FORTRAN | ES_FLAG_COLLECTIVE | es_ffailed(ierr), w->id, seq, -1, 0, es_t0,
              es_now(), ES_RA);
}
#undef ES_FARGS

#define ES_FARGS win, ierr
ES_FDEF(win_free, WIN_FREE, F *win, F *ierr)
{
#define ES_FWIN_FREE_FALLBACK                                                                                  \
    {                                                                                                          \
        MPI_Win cw = PMPI_Win_f2c(*win);                                                                       \
        int rc = PMPI_Win_free(&cw);                                                                           \
        *win = PMPI_Win_c2f(cw);                                                                               \
        ES_SETERR(rc);                                                                                         \
    }
    if (!es_recording()) {
        ES_FCALL(win_free, ES_FWIN_FREE_FALLBACK);
        return;
    }
    es_win *w = es_win_find(PMPI_Win_f2c(*win));
    uint32_t id = w->id, seq = w->seq++;
    ES_T0(ES_OP_Win_free);
    ES_FCALL(win_free, ES_FWIN_FREE_FALLBACK);
    int64_t t1 = es_now();
    if (ES_FOK(ierr) && w != &es_win_unknown) {
        free(w->world);
        w->world = NULL;
        w->used = 2;
    }
    es_record(ES_OP_Win_free, ES_FLAG_FORTRAN | ES_FLAG_COLLECTIVE | es_ffailed(ierr), id, seq, -1, 0, es_t0, t1,
              ES_RA);
#undef ES_FWIN_FREE_FALLBACK
}
#undef ES_FARGS

#define ES_FARGS lock_type, rank, assert_, win, ierr
ES_FDEF(win_lock, WIN_LOCK, F *lock_type, F *rank, F *assert_, F *win, F *ierr)
{
    if (!es_recording()) {
        ES_FCALL(win_lock, ES_SETERR(PMPI_Win_lock(*lock_type, *rank, *assert_, PMPI_Win_f2c(*win))));
        return;
    }
    ES_T0(ES_OP_Win_lock);
    ES_FCALL(win_lock, ES_SETERR(PMPI_Win_lock(*lock_type, *rank, *assert_, PMPI_Win_f2c(*win))));
    int64_t t1 = es_now();
    es_win *w = es_win_find(PMPI_Win_f2c(*win));
    es_record(ES_OP_Win_lock, ES_FLAG_FORTRAN | es_ffailed(ierr), w->id, (uint32_t)*lock_type,
              es_win_world(w, (int)*rank), 0, es_t0, t1, ES_RA);
}
#undef ES_FARGS

#define ES_FARGS rank, win, ierr
ES_FDEF(win_unlock, WIN_UNLOCK, F *rank, F *win, F *ierr)
{
    if (!es_recording()) {
        ES_FCALL(win_unlock, ES_SETERR(PMPI_Win_unlock(*rank, PMPI_Win_f2c(*win))));
        return;
    }
    ES_T0(ES_OP_Win_unlock);
    ES_FCALL(win_unlock, ES_SETERR(PMPI_Win_unlock(*rank, PMPI_Win_f2c(*win))));
    int64_t t1 = es_now();
    es_win *w = es_win_find(PMPI_Win_f2c(*win));
    es_record(ES_OP_Win_unlock, ES_FLAG_FORTRAN | es_ffailed(ierr), w->id, 0, es_win_world(w, (int)*rank), 0, es_t0,
              t1, ES_RA);
}
#undef ES_FARGS
#undef C
