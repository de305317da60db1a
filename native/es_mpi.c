/*
 * es_mpi.c - EventSpace's MPI interposition library (PMPI), loaded with LD_PRELOAD or linked before -lmpi.
 *
 * It records, it does not analyse: each wrapped MPI call writes one 40-byte trace tuple (es_mpi_layout.h) into
 * its rank's memory-mapped trace buffer and bumps two counters (calls, bytes) of its op; the Java node agent
 * (org.eventspace.mpi) reads the files. This is how ToM (§3), ScalaTrace (§2) and ibprof (§3.2) reach unmodified
 * MPI programs: through MPI's profiling interface.
 *
 * Hot path, per call: two clock_gettime(CLOCK_MONOTONIC) (served by the vDSO on a tsc/kvm-clock clocksource: no
 * system call), a communicator lookup (MPI_COMM_WORLD first, then an open-addressed table of handles), one
 * MPI_Type_size for calls that move data, the tuple stores (the trace buffer's seqlock: release stores, no CAS) and
 * two counter increments. No allocation, no lock, no system call. Allocation happens only when a communicator is
 * created (its rank translation table). MPI_Irecv also enters its request in a fixed table, and a wait or test
 * that completes such requests looks them up and writes one receive record each (late sender for non-blocking
 * receives); MPI_Sendrecv writes its receive half as such a record too. A non-blocking collective's request enters
 * the same table, and its completion writes a completion record (its departure: CollectiveWaits).
 *
 * Never changes results or semantics: every wrapper passes its arguments unchanged to the PMPI_ function (Fortran
 * wrappers to Open MPI's pmpi_*_ entry points, so Fortran sentinels such as MPI_IN_PLACE keep their meaning) and
 * returns its return value. Its own messages (clock offsets at MPI_Init and MPI_Finalize) go over a private
 * duplicate of MPI_COMM_WORLD. Without ES_MPI_DIR, or if its files cannot be made, it only forwards. No agent is
 * needed while the program runs: the files are the interface, and a rank that crashes leaves them readable (the
 * pages of a MAP_SHARED file survive the process), with how it ended: MPI_Abort's code, the fatal signal and the call
 * it hit, the exit status ("how the rank ended" below).
 *
 * Threads: with MPI_THREAD_MULTIPLE only the thread that initialised MPI records; other threads' calls are counted
 * (atomically) as untraced. The trace buffer has one writer, as TraceBuffer's contract says.
 *
 * Environment: ES_MPI_DIR (folder; files go to ES_MPI_DIR/host-<host>/rank-<R>.trace|.meta), ES_MPI_CAPACITY
 * (tuples per rank, a power of two, default 131072 = 6 MiB), ES_MPI_SIM_HOSTS=H (tests: ranks split in H blocks of
 * simulated hosts, host-0 .. host-(H-1)) with ES_MPI_SIM_SKEW_NS=S (host h's clock reads h*S ns ahead) and
 * ES_MPI_SIM_DRIFT_PPM=D (host h's clock runs h*D ppm fast from MPI_Init on), so clock alignment has work to do.
 * ES_MPI_AGENT_PID=P with ES_MPI_AGENT_HOST=H: the watchdog below ends the rank if process P on host H is gone.
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "es_mpi_layout.h"

#define ES_EXPORT __attribute__((visibility("default")))
#define ES_LIKELY(x) __builtin_expect(!!(x), 1)
#define ES_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* the tuple write is inlined into every wrapper: a call with nine arguments costs a few ns per MPI call */
#define ES_INLINE inline __attribute__((always_inline))

enum {
#define ES_OP_ENUM(name, code) ES_OP_##name = code,
    ES_OPS(ES_OP_ENUM)
#undef ES_OP_ENUM
};

/* ---- state ------------------------------------------------------------------------------------------------ */

typedef struct {
    MPI_Comm handle;
    uint32_t id;       /* the same on every member */
    uint32_t seq;      /* collective calls on it so far */
    int *world;        /* rank in it -> MPI_COMM_WORLD rank; NULL for MPI_COMM_WORLD itself */
    int size;
    void *spare;       /* freed: the next freed entry */
} es_comm;

/*
 * Handles as hash keys. Open MPI's MPI_Comm/MPI_Request/MPI_Datatype/MPI_Win are pointers (aligned: their low four
 * bits say nothing); MPICH's and its derivatives' (Intel MPI, MVAPICH, Cray MPICH) are ints whose low bits are an
 * object index, consecutive for consecutive objects, so they are used whole. 0 is never a live handle of
 * either (MPICH's handle kind 0 is "invalid"): ES_REQ_EMPTY relies on that.
 */
#if defined(OPEN_MPI)
#define ES_HANDLE_KEY(h) ((uint64_t)(uintptr_t)(h) >> 4)
#else
#define ES_HANDLE_KEY(h) ((uint64_t)(uint32_t)(uintptr_t)(h))
#endif

/*
 * The communicator table: open addressing over (handle, entry) slots, linear probing. Entries live apart from the
 * slots (allocated once, reused after MPI_Comm_free, never returned), so an entry's address stays valid while the
 * table grows or is rebuilt. A freed communicator leaves a tombstone; when live entries and tombstones together
 * fill three quarters of the slots the table is rebuilt without tombstones (doubled if the live entries alone
 * fill half), so a lookup stays a few probes whatever churn of MPI_Comm_split / MPI_Comm_free came before.
 * Lookups take no lock (any thread, under MPI_THREAD_MULTIPLE); inserts, removals and rebuilds hold es_comm_lock.
 * A rebuild in place is bracketed by es_table_version (a seqlock: odd while it runs), and a lookup that saw the
 * version change retries; a table replaced by a larger one is kept until MPI_Finalize, as a lookup may still be
 * reading it.
 */
typedef struct {
    MPI_Comm handle;
    es_comm *entry;    /* NULL: empty; ES_TOMB: freed */
} es_comm_slot;

typedef struct es_table {
    uint32_t mask;     /* slots - 1 */
    uint32_t live, used; /* entries; entries + tombstones */
    es_comm_slot *slots;
    struct es_table *retired;
} es_table;

#define ES_TABLE_MIN 64
static es_comm es_tomb_entry;
#define ES_TOMB (&es_tomb_entry)

static es_comm es_world;
static es_comm es_unknown = {MPI_COMM_NULL, ES_COMM_UNKNOWN_ID, 0, NULL, 0, NULL};
static es_comm_slot es_first_slots[ES_TABLE_MIN];
static es_table es_first_table = {ES_TABLE_MIN - 1, 0, 0, es_first_slots, NULL};
static es_table *es_table_now = &es_first_table;
static uint32_t es_table_version;
static es_comm *es_comm_spare;      /* freed entries, linked through their world field */
static pthread_mutex_t es_comm_lock = PTHREAD_MUTEX_INITIALIZER;

static int es_on;                   /* recording */
static int es_multi;                /* MPI_THREAD_MULTIPLE: every thread records, each into a ring of its own */
static int es_sim_clock;            /* simulated hosts only: es_skew and es_drift apply */
static int64_t es_skew;
static double es_drift;             /* ns per ns: the simulated clock's rate is 1 + es_drift */
static int64_t es_drift_base;

/*
 * A trace ring and its one writer's scratch. The thread that initialised MPI writes es_main_ring (rank-<R>.trace);
 * under MPI_THREAD_MULTIPLE every other thread gets a ring of its own at its first call (rank-<R>.t<N>.trace,
 * es_thread_ring), found through a thread-local pointer. One writer per ring keeps TraceBuffer's single-writer
 * protocol (plain stores and a release, no atomic read-modify-write) and the single-threaded path as it was: it
 * tests es_multi and uses es_main_ring, without reading the thread-local pointer. A multi-producer ring would put an
 * atomic fetch-add on every call and make readers skip slots still being written.
 */
typedef struct es_ring {
    char *slots;
    uint64_t mask;
    uint64_t position;
    volatile int64_t *write_position;
    int *done_slot;                 /* a wait's tracked receives (es_req_collect) */
    int *done_index;
    MPI_Status *statuses;           /* statuses a wait fills when its caller ignores them */
    struct es_ring *spare;          /* left by a thread that ended: the next new thread's */
} es_ring;
static es_ring es_main_ring;
static __thread es_ring *es_self __attribute__((tls_model("initial-exec")));
static __thread int es_self_failed __attribute__((tls_model("initial-exec")));
static long es_capacity;
static char es_host_path[4096];
static pthread_mutex_t es_meta_comm_lock = PTHREAD_MUTEX_INITIALIZER;
static char es_comms_path[4200];    /* rank-<R>.comms: the communicators past the meta file's ES_META_COMMS_MAX */
static int es_comms_fd = -1;
static uint64_t *es_counters;       /* [op - ES_OP_FIRST] = {calls, bytes} */
static char *es_meta;
static uintptr_t es_exe_base;
static int es_rank = -1, es_size;
static MPI_Comm es_private = MPI_COMM_NULL;
static int es_sync_wanted;          /* ES_MPI_DIR set: the same on every rank, so collective steps match */
/* > 0: the op whose PMPI call the recording thread is in; < 0: the op it last returned from; 0: none yet */
static volatile sig_atomic_t es_current_op;

static ES_INLINE int64_t es_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t t = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
    if (ES_UNLIKELY(es_sim_clock)) {
        t += es_skew + (int64_t)((double)(t - es_drift_base) * es_drift);
    }
    return t;
}

/* A wrapper's entry: the op it is in (for a fatal signal's report), then the call's start. */
static ES_INLINE int64_t es_enter(int op)
{
    es_current_op = op;
    return es_now();
}

/*
 * Call-site signatures must be the same on every rank of one program (ScalaTrace merges ranks whose calls match), so
 * an address is taken relative to the object it lies in, the executable or a shared library (a code whose MPI calls
 * sit in its own library, as LAMMPS's in liblammps.so, would otherwise get a different signature on every rank, the
 * libraries being mapped at random places), XOR a hash of that object's file name. The objects' address ranges are
 * read once at MPI_Init (dl_iterate_phdr); a call looks at the object of its previous call first, then at the others;
 * an address in none of them (a library opened later) keeps the executable-relative value.
 */
#define ES_OBJECTS_MAX 128
typedef struct {
    uintptr_t lo, hi, base;
    uint32_t salt;
} es_object;
static es_object es_objects[ES_OBJECTS_MAX];
static int es_object_count;
static int es_object_last;

static int es_objects_of(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    if (es_object_count >= ES_OBJECTS_MAX) {
        return 1;
    }
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type == PT_LOAD) {
            uintptr_t a = (uintptr_t)info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            if (a < lo) {
                lo = a;
            }
            if (a + info->dlpi_phdr[i].p_memsz > hi) {
                hi = a + info->dlpi_phdr[i].p_memsz;
            }
        }
    }
    if (lo >= hi) {
        return 0;
    }
    /* FNV-1a of the file's base name (the executable's is empty: salt 0, so its sites stay as they were) */
    const char *name = info->dlpi_name != NULL ? info->dlpi_name : "";
    const char *slash = strrchr(name, '/');
    uint32_t h = 0;
    if (name[0] != '\0') {
        h = 2166136261u;
        for (const char *c = slash != NULL ? slash + 1 : name; *c != '\0'; c++) {
            h = (h ^ (uint8_t)*c) * 16777619u;
        }
    }
    es_objects[es_object_count++] = (es_object){lo, hi, (uintptr_t)info->dlpi_addr, h};
    return 0;
}

static inline uint32_t es_site(void *ra)
{
    uintptr_t a = (uintptr_t)ra;
    const es_object *o = &es_objects[es_object_last];
    if (ES_LIKELY(a >= o->lo && a < o->hi)) {
        return (uint32_t)(a - o->base) ^ o->salt;
    }
    for (int i = 0; i < es_object_count; i++) {
        if (a >= es_objects[i].lo && a < es_objects[i].hi) {
            es_object_last = i;
            return (uint32_t)(a - es_objects[i].base) ^ es_objects[i].salt;
        }
    }
    return (uint32_t)(a - es_exe_base);
}

/* Any bit of a handle may tell two apart: pointers (Open MPI) differ above bit 4, MPICH's int handles below it. */
static inline uint32_t es_comm_home(MPI_Comm c, uint32_t mask)
{
    uint64_t h = (uint64_t)(uintptr_t)c;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return (uint32_t)h & mask;
}

static inline es_comm *es_find(MPI_Comm c)
{
    if (ES_LIKELY(c == MPI_COMM_WORLD)) {
        return &es_world;
    }
    for (;;) {
        uint32_t v = __atomic_load_n(&es_table_version, __ATOMIC_ACQUIRE);
        const es_table *t = __atomic_load_n(&es_table_now, __ATOMIC_ACQUIRE);
        es_comm *found = &es_unknown;
        for (uint32_t n = 0, i = es_comm_home(c, t->mask); n <= t->mask; n++, i = (i + 1) & t->mask) {
            es_comm *e = __atomic_load_n(&t->slots[i].entry, __ATOMIC_ACQUIRE);
            if (e == NULL) {
                break;
            }
            if (e != ES_TOMB && __atomic_load_n(&t->slots[i].handle, __ATOMIC_RELAXED) == c) {
                found = e;
                break;
            }
        }
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (ES_LIKELY(!(v & 1) && __atomic_load_n(&es_table_version, __ATOMIC_RELAXED) == v)) {
            return found;
        }
    }
}

static inline int es_world_rank(const es_comm *e, int r)
{
    if (r < 0) {
        return -1;
    }
    if (e == &es_world) {
        return r;
    }
    return (e->world != NULL && r < e->size) ? e->world[r] : -1;
}

/*
 * Sizes of predefined (named) datatypes, which are never freed, so a handle keeps its size for the whole run: a
 * direct-mapped cache saves the MPI_Type_size call on the hot path. Derived types (which may be freed and their
 * handle reused) always ask MPI.
 */
#define ES_TYPE_SLOTS 64
static MPI_Datatype es_type_handle[ES_TYPE_SLOTS];
static int es_type_size[ES_TYPE_SLOTS];

static int es_type_size_slow(MPI_Datatype t, unsigned slot)
{
    int s = 0, ni, na, nd, combiner;
    if (PMPI_Type_size(t, &s) != MPI_SUCCESS) {
        return 0;
    }
    if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) == MPI_SUCCESS && combiner == MPI_COMBINER_NAMED) {
        es_type_size[slot] = s;
        es_type_handle[slot] = t;
    }
    return s;
}

static ES_INLINE uint64_t es_bytes(int count, MPI_Datatype t)
{
    if (count <= 0 || t == MPI_DATATYPE_NULL) {
        return 0;
    }
    unsigned slot = (unsigned)(ES_HANDLE_KEY(t) & (ES_TYPE_SLOTS - 1));
    int s = es_type_handle[slot] == t ? es_type_size[slot] : es_type_size_slow(t, slot);
    return s > 0 ? (uint64_t)count * (uint64_t)s : 0;
}

static int es_thread_ring(void);
static void es_threads_start(void);

/* Whether this call is recorded: on, and (MPI_THREAD_MULTIPLE) the calling thread has its ring. */
static inline int es_recording(void)
{
    if (ES_UNLIKELY(!es_on)) {
        return 0;
    }
    if (ES_UNLIKELY(es_multi) && ES_UNLIKELY(es_self == NULL)) {
        return es_thread_ring();
    }
    return 1;
}

/* The calling thread's ring (after es_recording said yes). */
static ES_INLINE es_ring *es_ring_of(void)
{
    return ES_LIKELY(!es_multi) ? &es_main_ring : es_self;
}

/* One tuple, the TraceBuffer.write protocol: slot sequence -(p+1), fields, slot sequence p, write position p+1. */
static ES_INLINE void es_write(int op, int flags, uint32_t site, uint32_t comm_id, uint32_t low, int peer_world,
                            uint64_t bytes, int64_t t0, int64_t t1)
{
    es_ring *r = es_ring_of();
    uint64_t p = r->position;
    char *slot = r->slots + (p & r->mask) * ES_BUFFER_SLOT_LENGTH;
    char *t = slot + ES_BUFFER_SLOT_TUPLE_OFFSET;
    __atomic_store_n((int64_t *)(slot + ES_BUFFER_SLOT_SEQUENCE_OFFSET), -(int64_t)(p + 1), __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    uint64_t b = bytes < (1ULL << ES_VALUE_BYTES_BITS) ? bytes : (1ULL << ES_VALUE_BYTES_BITS) - 1;
    *(uint32_t *)(t + ES_TUPLE_COLLECTOR_ID_OFFSET) = site;
    *(uint16_t *)(t + ES_TUPLE_OP_TYPE_OFFSET) = (uint16_t)op;
    *(uint16_t *)(t + ES_TUPLE_FLAGS_OFFSET) = (uint16_t)flags;
    *(uint64_t *)(t + ES_TUPLE_SEQUENCE_OFFSET) = ((uint64_t)comm_id << ES_SEQUENCE_COMM_SHIFT) | low;
    *(uint64_t *)(t + ES_TUPLE_VALUE_OFFSET) = ((uint64_t)(uint32_t)(peer_world + 1) << ES_VALUE_BYTES_BITS) | b;
    *(int64_t *)(t + ES_TUPLE_START_NS_OFFSET) = t0;
    *(int64_t *)(t + ES_TUPLE_END_NS_OFFSET) = t1;
    __atomic_store_n((int64_t *)(slot + ES_BUFFER_SLOT_SEQUENCE_OFFSET), (int64_t)p, __ATOMIC_RELEASE);
    __atomic_store_n(r->write_position, (int64_t)(p + 1), __ATOMIC_RELEASE);
    r->position = p + 1;
}

/* One MPI call: its op's two exact counters, then its tuple. */
static ES_INLINE void es_record(int op, int flags, uint32_t comm_id, uint32_t low, int peer_world, uint64_t bytes,
                             int64_t t0, int64_t t1, void *ra)
{
    uint64_t *counter = es_counters + 2 * (op - ES_OP_FIRST);
    es_current_op = -op;
    if (ES_LIKELY(!es_multi)) {
        counter[0]++;
        counter[1] += bytes;
    } else {
        __atomic_fetch_add(&counter[0], 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&counter[1], bytes, __ATOMIC_RELAXED);
    }
    es_write(op, flags, es_site(ra), comm_id, low, peer_world, bytes, t0, t1);
}

/* ---- files ------------------------------------------------------------------------------------------------ */

static void *es_map_file(const char *path, size_t length)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        return NULL;
    }
    void *p = MAP_FAILED;
    if (ftruncate(fd, (off_t)length) == 0) {
        p = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

static int es_exe_base_of(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(uintptr_t *)data = (uintptr_t)info->dlpi_addr;
    return 1; /* the first object is the executable */
}

static void es_main_scratch(void);

/* Maps a trace buffer of es_capacity slots at path into r: TraceBuffer's header, magic last. 0 if it cannot. */
static int es_ring_open(es_ring *r, const char *path)
{
    size_t length = ES_BUFFER_HEADER_LENGTH + (size_t)es_capacity * ES_BUFFER_SLOT_LENGTH;
    char *buf = es_map_file(path, length);
    if (buf == NULL) {
        return 0;
    }
    *(int16_t *)(buf + ES_BUFFER_VERSION_OFFSET) = ES_BUFFER_VERSION;
    *(int8_t *)(buf + ES_BUFFER_BYTE_ORDER_OFFSET) =
        __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ES_BUFFER_LITTLE_ENDIAN : ES_BUFFER_BIG_ENDIAN;
    *(int32_t *)(buf + ES_BUFFER_TUPLE_LENGTH_OFFSET) = ES_TUPLE_LENGTH;
    *(int32_t *)(buf + ES_BUFFER_SLOT_LENGTH_OFFSET) = ES_BUFFER_SLOT_LENGTH;
    *(int32_t *)(buf + ES_BUFFER_CAPACITY_OFFSET) = (int32_t)es_capacity;
    *(int32_t *)(buf + ES_BUFFER_COLLECTOR_ID_OFFSET) = ES_MPI_COLLECTOR_BASE + es_rank;
    r->slots = buf + ES_BUFFER_HEADER_LENGTH;
    for (long i = 0; i < es_capacity; i++) {
        *(int64_t *)(r->slots + i * ES_BUFFER_SLOT_LENGTH) = -1;
    }
    r->write_position = (volatile int64_t *)(buf + ES_BUFFER_WRITE_POSITION_OFFSET);
    *r->write_position = 0;
    r->mask = (uint64_t)es_capacity - 1;
    r->position = 0;
    __atomic_store_n((int32_t *)(buf + ES_BUFFER_MAGIC_OFFSET), ES_BUFFER_MAGIC, __ATOMIC_RELEASE);
    return 1;
}

static int es_open_files(void)
{
    const char *dir = getenv("ES_MPI_DIR");
    if (dir == NULL || dir[0] == '\0') {
        return 0;
    }
    char host[ES_META_HOSTNAME_LENGTH];
    memset(host, 0, sizeof host);
    gethostname(host, sizeof host - 1);
    int host_index = -1;
    const char *sim = getenv("ES_MPI_SIM_HOSTS");
    if (sim != NULL && atoi(sim) > 0) {
        int hosts = atoi(sim);
        host_index = (int)((long)es_rank * hosts / es_size);
        const char *skew = getenv("ES_MPI_SIM_SKEW_NS");
        const char *drift = getenv("ES_MPI_SIM_DRIFT_PPM");
        es_skew = skew != NULL ? (int64_t)host_index * atoll(skew) : 0;
        es_drift = drift != NULL ? host_index * atof(drift) * 1e-6 : 0;
        es_drift_base = es_now();
        es_sim_clock = es_skew != 0 || es_drift != 0;
        snprintf(host, sizeof host, "%d", host_index);
    }
    char path[4096];
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/host-%s", dir, host);
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "eventspace-mpi: rank %d cannot make %s (%s); this rank is not traced\n", es_rank, path,
                strerror(errno));
        return 0;
    }
    long capacity = 131072;
    const char *cap = getenv("ES_MPI_CAPACITY");
    if (cap != NULL) {
        long c = atol(cap);
        if (c >= ES_BUFFER_MIN_CAPACITY && c <= ES_BUFFER_MAX_CAPACITY && (c & (c - 1)) == 0) {
            capacity = c;
        } else {
            fprintf(stderr, "eventspace-mpi: ES_MPI_CAPACITY=%s is not a power of two in [%d, %d]; using %ld\n",
                    cap, ES_BUFFER_MIN_CAPACITY, ES_BUFFER_MAX_CAPACITY, capacity);
        }
    }
    char file[4200];
    snprintf(file, sizeof file, "%s/rank-%d.meta", path, es_rank);
    char *meta = es_map_file(file, ES_META_LENGTH);
    snprintf(file, sizeof file, "%s/rank-%d.trace", path, es_rank);
    es_capacity = capacity;
    snprintf(es_host_path, sizeof es_host_path, "%s", path);
    snprintf(es_comms_path, sizeof es_comms_path, "%s/rank-%d.comms", path, es_rank);
    unlink(es_comms_path); /* a previous run's */
    es_main_scratch();
    if (meta == NULL || !es_ring_open(&es_main_ring, file)) {
        fprintf(stderr, "eventspace-mpi: rank %d cannot map its trace files in %s (%s); this rank is not traced\n",
                es_rank, path, strerror(errno));
        return 0;
    }
    *(int16_t *)(meta + ES_META_VERSION_OFFSET) = ES_META_VERSION;
    *(int8_t *)(meta + ES_META_BYTE_ORDER_OFFSET) =
        __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ES_BUFFER_LITTLE_ENDIAN : ES_BUFFER_BIG_ENDIAN;
    *(int32_t *)(meta + ES_META_STATE_OFFSET) = ES_META_STATE_RUNNING;
    *(int32_t *)(meta + ES_META_RANK_OFFSET) = es_rank;
    *(int32_t *)(meta + ES_META_SIZE_OFFSET) = es_size;
    *(int32_t *)(meta + ES_META_HOST_INDEX_OFFSET) = host_index;
    *(int32_t *)(meta + ES_META_PID_OFFSET) = (int32_t)getpid();
    *(int32_t *)(meta + ES_META_OP_COUNT_OFFSET) = ES_OP_END - ES_OP_FIRST;
    *(int64_t *)(meta + ES_META_INIT_OFFSET_NS_OFFSET) = ES_META_NO_OFFSET;
    *(int64_t *)(meta + ES_META_FINALIZE_OFFSET_NS_OFFSET) = ES_META_NO_OFFSET;
    *(int64_t *)(meta + ES_META_CLOCK_SKEW_NS_OFFSET) = es_skew;
    gethostname(meta + ES_META_HOSTNAME_OFFSET, ES_META_HOSTNAME_LENGTH - 1);
    es_counters = (uint64_t *)(meta + ES_META_COUNTERS_OFFSET);
    es_meta = meta;
    /* the magic comes last, in es_start, once the clock offset is in: a reader that sees it sees the offset */
    return 1;
}

/* ---- clocks ------------------------------------------------------------------------------------------------ */

/*
 * Offset of this rank's clock to rank 0's, in O(log P) rounds (as Scalasca and Score-P measure offsets at MPI_Init
 * and MPI_Finalize, but along a binomial tree instead of rank 0 serving every rank in turn): rank r > 0 measures its
 * offset to its parent r - (r & -r) by Cristian's algorithm, ES_SYNC_ROUNDS ping-pongs of which the shortest round
 * trip wins (offset = T - (t0 + t1)/2, within half that round trip), once the parent knows its own offset to rank 0;
 * the parent's pong carries that offset and its error bound, so the child's offset to rank 0 is the sum and its
 * bound half its round trip plus the parent's. Then r serves its own children r + s for s = (r & -r)/2, ..., 1,
 * largest subtree first (rank 0: every power of two below P). All pairs of a round run at once; the tree has
 * ceil(log2 P) levels, so the critical path is that many sets of ping-pongs and a bound sums at most that many
 * half round trips. at: the local time the offset holds for (the winning ping-pong's middle), not the end of the
 * synchronisation, which waits for the children too (a drifting clock would make the difference an error). Over the
 * private communicator, so no user receive can match it; the Java side takes these
 * messages (ES_SYNC_* in es_mpi_layout.h) out of Open MPI's traffic counts.
 */
static void es_sync(int64_t *offset, int64_t *rtt, int64_t *error, int64_t *at)
{
    *offset = 0;
    *rtt = 0;
    *error = 0;
    *at = es_now();
    if (es_private == MPI_COMM_NULL) {
        return;
    }
    int low = es_rank & -es_rank;
    if (es_rank != 0) {
        int parent = es_rank - low;
        int64_t best = INT64_MAX;
        for (int k = 0; k < ES_SYNC_ROUNDS; k++) {
            int64_t t0 = es_now(), pong[3];
            PMPI_Send(&t0, 1, MPI_INT64_T, parent, 1, es_private);
            PMPI_Recv(pong, 3, MPI_INT64_T, parent, 2, es_private, MPI_STATUS_IGNORE);
            int64_t t1 = es_now();
            if (t1 - t0 < best) {
                best = t1 - t0;
                *offset = pong[0] - (t0 + t1) / 2 + pong[1];
                *error = (best + 1) / 2 + pong[2];
                *at = t0 + (t1 - t0) / 2;
            }
        }
        *rtt = best;
    }
    int step = low >> 1;
    if (es_rank == 0) {
        for (step = 1; 2 * step < es_size; step *= 2) {
        }
    }
    for (; step >= 1; step >>= 1) {
        int child = es_rank + step;
        if (child >= es_size) {
            continue;
        }
        for (int k = 0; k < ES_SYNC_ROUNDS; k++) {
            int64_t ping, pong[3];
            PMPI_Recv(&ping, 1, MPI_INT64_T, child, 1, es_private, MPI_STATUS_IGNORE);
            pong[0] = es_now();
            pong[1] = *offset;
            pong[2] = *error;
            PMPI_Send(pong, 3, MPI_INT64_T, child, 2, es_private);
        }
    }
}

/* ---- communicators ---------------------------------------------------------------------------------------- */

static uint32_t es_mix(uint32_t h, uint32_t v)
{
    h ^= v + 0x9e3779b9u + (h << 6) + (h >> 2);
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    return h;
}

/* The MPI_COMM_WORLD rank of each member of group g (size members), malloc'd; NULL if it cannot be made. */
static int *es_world_of(MPI_Group g, int size)
{
    int *world = malloc(sizeof(int) * (size_t)size);
    int *ranks = malloc(sizeof(int) * (size_t)size);
    MPI_Group wg;
    if (world == NULL || ranks == NULL || PMPI_Comm_group(MPI_COMM_WORLD, &wg) != MPI_SUCCESS) {
        free(world);
        free(ranks);
        return NULL;
    }
    for (int i = 0; i < size; i++) {
        ranks[i] = i;
    }
    PMPI_Group_translate_ranks(g, size, ranks, wg, world);
    PMPI_Group_free(&wg);
    free(ranks);
    return world;
}

/* The id every member computes alike, and its entry (id, size) in the meta file's table. */
static uint32_t es_name(uint32_t parent_id, uint32_t parent_seq, uint32_t salt, int leader)
{
    uint32_t id = es_mix(es_mix(es_mix(es_mix(0x45534d50u, parent_id), parent_seq), salt), (uint32_t)leader);
    if (id <= ES_COMM_SELF_ID || id == ES_COMM_UNKNOWN_ID) {
        id += 2;
    }
    return id;
}

/*
 * The communicators this rank joined, for the reader: the first ES_META_COMMS_MAX in the meta file, the rest appended
 * to rank-<R>.comms (ES_META_COMM_LENGTH bytes each, entry i at (i - ES_META_COMMS_MAX) * ES_META_COMM_LENGTH), the
 * meta file's count covering both and raised only after the entry is written. One that cannot be written is
 * counted (ES_META_COMMS_LOST_OFFSET) and said on stderr: calls on it are then incomplete, never silently.
 */

static void es_meta_comm(uint32_t id, int size)
{
    pthread_mutex_lock(&es_meta_comm_lock);
    int32_t *count = (int32_t *)(es_meta + ES_META_COMMS_COUNT_OFFSET);
    int32_t n = *count;
    char entry[ES_META_COMM_LENGTH];
    memcpy(entry, &id, 4);
    memcpy(entry + 4, &size, 4);
    int written = 1;
    if (n < ES_META_COMMS_MAX) {
        memcpy(es_meta + ES_META_COMMS_OFFSET + n * ES_META_COMM_LENGTH, entry, ES_META_COMM_LENGTH);
    } else {
        if (es_comms_fd < 0 && es_comms_path[0] != '\0') {
            es_comms_fd = open(es_comms_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        }
        off_t at = (off_t)(n - ES_META_COMMS_MAX) * ES_META_COMM_LENGTH;
        written = es_comms_fd >= 0 && pwrite(es_comms_fd, entry, sizeof entry, at) == (ssize_t)sizeof entry;
    }
    if (written) {
        __atomic_store_n(count, n + 1, __ATOMIC_RELEASE);
    } else if (__atomic_fetch_add((int32_t *)(es_meta + ES_META_COMMS_LOST_OFFSET), 1, __ATOMIC_RELEASE) == 0) {
        fprintf(stderr, "eventspace-mpi: rank %d cannot append to %s (%s); collectives on communicators beyond the "
                "first %d will be reported incomplete\n", es_rank, es_comms_path, strerror(errno), ES_META_COMMS_MAX);
    }
    pthread_mutex_unlock(&es_meta_comm_lock);
}

/* Places (handle, entry) in t, which has an empty or freed slot for it; es_comm_lock held. */
static void es_table_put(es_table *t, MPI_Comm c, es_comm *entry)
{
    for (uint32_t i = es_comm_home(c, t->mask);; i = (i + 1) & t->mask) {
        es_comm_slot *s = &t->slots[i];
        if (s->entry == NULL || s->entry == ES_TOMB) {
            t->used += s->entry == NULL;
            t->live++;
            __atomic_store_n(&s->handle, c, __ATOMIC_RELAXED);
            __atomic_store_n(&s->entry, entry, __ATOMIC_RELEASE);
            return;
        }
    }
}

/*
 * Room for one more entry, es_comm_lock held: rebuilt without tombstones in place (under the version seqlock) when
 * they are what fills the table, else into a table twice as large that replaces it. 0 if memory ran out.
 */
static int es_table_room(void)
{
    es_table *t = es_table_now;
    uint32_t slots = t->mask + 1;
    if (4 * (t->used + 1) <= 3 * slots) {
        return 1;
    }
    int grow = 2 * (t->live + 1) > slots;
    uint32_t n = grow ? 2 * slots : slots;
    es_comm_slot *old = malloc(sizeof(es_comm_slot) * slots);
    es_table *next = grow ? malloc(sizeof(es_table)) : t;
    es_comm_slot *fresh = grow ? calloc(n, sizeof(es_comm_slot)) : t->slots;
    if (old == NULL || next == NULL || fresh == NULL) {
        free(old);
        if (grow) {
            free(next);
            free(fresh);
        }
        return t->used < slots - 1; /* a tombstone can still be reused, keeping one slot empty */
    }
    memcpy(old, t->slots, sizeof(es_comm_slot) * slots);
    if (grow) {
        *next = (es_table){n - 1, 0, 0, fresh, t};
    } else {
        __atomic_store_n(&es_table_version, es_table_version + 1, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_RELEASE);
        for (uint32_t i = 0; i < slots; i++) {
            __atomic_store_n(&t->slots[i].entry, NULL, __ATOMIC_RELAXED);
        }
        t->live = t->used = 0;
    }
    for (uint32_t i = 0; i < slots; i++) {
        if (old[i].entry != NULL && old[i].entry != ES_TOMB) {
            es_table_put(next, old[i].handle, old[i].entry);
        }
    }
    free(old);
    if (grow) {
        __atomic_store_n(&es_table_now, next, __ATOMIC_RELEASE);
    } else {
        __atomic_store_n(&es_table_version, es_table_version + 1, __ATOMIC_RELEASE);
    }
    return 1;
}

/* Registers a communicator every member of which computed the same (parent, parent_seq, salt). */
static void es_register(MPI_Comm c, uint32_t parent_id, uint32_t parent_seq, uint32_t salt, uint32_t forced_id)
{
    if (c == MPI_COMM_NULL || c == MPI_COMM_WORLD) {
        return;
    }
    int inter = 0;
    PMPI_Comm_test_inter(c, &inter);
    int size = 0;
    PMPI_Comm_size(c, &size);
    int *world = NULL;
    int leader = -1;
    MPI_Group g;
    if (!inter && size > 0 && PMPI_Comm_group(c, &g) == MPI_SUCCESS) {
        world = es_world_of(g, size);
        PMPI_Group_free(&g);
        leader = world != NULL ? world[0] : -1;
    }
    uint32_t id = forced_id != 0 ? forced_id : es_name(parent_id, parent_seq, salt, leader);
    es_meta_comm(id, size);
    pthread_mutex_lock(&es_comm_lock);
    es_comm *e = es_find(c);
    if (e == &es_unknown) {
        e = es_comm_spare;
        if (e != NULL) {
            es_comm_spare = e->spare;
        } else {
            e = malloc(sizeof(es_comm));
        }
        if (e == NULL || !es_table_room()) {
            /* no memory: calls on it are recorded with ES_COMM_UNKNOWN_ID (the reader counts them) */
            free(world);
            if (e != NULL) {
                e->spare = es_comm_spare;
                es_comm_spare = e;
            }
            pthread_mutex_unlock(&es_comm_lock);
            return;
        }
        e->world = NULL;
        es_table_put(es_table_now, c, e);
    }
    free(e->world);
    e->handle = c;
    e->id = id;
    e->seq = 0;
    e->world = world;
    e->size = size;
    pthread_mutex_unlock(&es_comm_lock);
}

static void es_unregister(MPI_Comm c)
{
    pthread_mutex_lock(&es_comm_lock);
    es_table *t = es_table_now;
    for (uint32_t n = 0, i = es_comm_home(c, t->mask); n <= t->mask; n++, i = (i + 1) & t->mask) {
        es_comm *e = t->slots[i].entry;
        if (e == NULL) {
            break;
        }
        if (e != ES_TOMB && t->slots[i].handle == c) {
            __atomic_store_n(&t->slots[i].entry, ES_TOMB, __ATOMIC_RELEASE);
            t->live--;
            free(e->world);
            e->handle = MPI_COMM_NULL;
            e->world = NULL;
            e->spare = es_comm_spare;
            es_comm_spare = e;
            break;
        }
    }
    pthread_mutex_unlock(&es_comm_lock);
}

/* ---- how the rank ended -------------------------------------------------------------------------------------- */

/*
 * mpirun says only that some process failed, and then stops the others (Open MPI sends them SIGTERM), so without
 * help every rank looks alike: none reached MPI_Finalize. The meta file's end fields (es_mpi_layout.h) say how this
 * rank ended. The MPI_Abort wrapper writes the error code before PMPI_Abort; handlers for the fatal signals a
 * program can catch (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM: SIGKILL and SIGSTOP cannot be caught, so a
 * rank killed by SIGKILL leaves no end record, and SIGINT is left alone, mpirun forwards it as a request) write the
 * signal and the op the rank was in, then hand the signal on to the handler that was there before (Open MPI
 * installs one that prints a backtrace and raises it again) or, if there was none, die of it as the default
 * action would; an on_exit handler writes the exit status and whether MPI_Finalize had been reached. The handlers
 * only store to the mapped file and call clock_gettime, sigaction and raise, which are async-signal-safe. Under
 * MPI_THREAD_MULTIPLE the op is the recording thread's, whichever thread the signal hit.
 */
static const int es_fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM};
#define ES_FATAL_SIGNALS ((int)(sizeof es_fatal_signals / sizeof es_fatal_signals[0]))
static struct sigaction es_previous[ES_FATAL_SIGNALS];

/*
 * Whether the meta file is this process's: a child the program forked shares the mapping and inherits the handlers,
 * and its crash or exit must not be taken for the rank's (getpid is async-signal-safe).
 */
static int es_end_mine(void)
{
    return es_meta != NULL && *(int32_t *)(es_meta + ES_META_PID_OFFSET) == (int32_t)getpid();
}

static int32_t es_end_flags(void)
{
    return __atomic_load_n((int32_t *)(es_meta + ES_META_END_FLAGS_OFFSET), __ATOMIC_ACQUIRE);
}

/* After the fields it vouches for: the flag; and if this is a failure, the time of the first one. */
static void es_end_mark(int32_t flag, int failed)
{
    int64_t *at = (int64_t *)(es_meta + ES_META_END_FAILED_NS_OFFSET);
    if (failed && *at == 0) {
        *at = es_now();
    }
    __atomic_fetch_or((int32_t *)(es_meta + ES_META_END_FLAGS_OFFSET), flag, __ATOMIC_RELEASE);
}

static void es_fatal(int sig, siginfo_t *info, void *context)
{
    int saved = errno;
    int k = 0;
    while (k < ES_FATAL_SIGNALS && es_fatal_signals[k] != sig) {
        k++;
    }
    if (k == ES_FATAL_SIGNALS) {
        return;
    }
    if (es_end_mine() && !(es_end_flags() & ES_END_SIGNALED)) {
        int op = es_current_op;
        *(int32_t *)(es_meta + ES_META_END_SIGNAL_OFFSET) = sig;
        *(int32_t *)(es_meta + ES_META_END_SIGNAL_OP_OFFSET) = op < 0 ? -op : op;
        es_end_mark(ES_END_SIGNALED | (op > 0 ? ES_END_IN_CALL : 0), 1);
    }
    struct sigaction *prev = &es_previous[k];
    int handler = (prev->sa_flags & SA_SIGINFO) ? prev->sa_sigaction != NULL
                                                 : prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN;
    /* the disposition the signal would have had after the previous handler ran (it may have been one-shot too) */
    struct sigaction after = *prev;
    if (!handler || (prev->sa_flags & SA_RESETHAND)) {
        memset(&after, 0, sizeof after);
        after.sa_handler = SIG_DFL;
        sigemptyset(&after.sa_mask);
    }
    sigaction(sig, &after, NULL);
    if (handler && (prev->sa_flags & SA_SIGINFO)) {
        prev->sa_sigaction(sig, info, context);
    } else if (handler) {
        prev->sa_handler(sig);
    } else {
        /* blocked while this handler runs: delivered, with the default action, when it returns */
        raise(sig);
    }
    errno = saved;
}

#ifdef __GLIBC__
static void es_on_exit(int status, void *arg)
{
    (void)arg;
    if (!es_end_mine() || (es_end_flags() & ES_END_EXITED)) {
        return;
    }
    int before = __atomic_load_n((int32_t *)(es_meta + ES_META_STATE_OFFSET), __ATOMIC_ACQUIRE) != ES_META_STATE_FINALIZED;
    *(int32_t *)(es_meta + ES_META_END_EXIT_STATUS_OFFSET) = status;
    es_end_mark(ES_END_EXITED | (before ? ES_END_BEFORE_FINALIZE : 0), status != 0 || before);
}
#endif

/* At MPI_Init, once the meta file is there (after MPI's own handlers, so ours run first and chain to them). */
static void es_end_watch(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = es_fatal;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (int k = 0; k < ES_FATAL_SIGNALS; k++) {
        struct sigaction prev;
        if (sigaction(es_fatal_signals[k], NULL, &prev) != 0
            || (!(prev.sa_flags & SA_SIGINFO) && prev.sa_handler == SIG_IGN)) {
            continue; /* an ignored signal kills no one: leave it ignored */
        }
        es_previous[k] = prev;
        sigaction(es_fatal_signals[k], &sa, NULL);
    }
#ifdef __GLIBC__
    on_exit(es_on_exit, NULL);
#endif
}

/* MPI_Abort, before PMPI_Abort (which does not return): the code in the meta file, and the call as a tuple. */
static void es_aborting(MPI_Comm comm, int errorcode, int flags, void *ra)
{
    if (!es_end_mine() || (es_end_flags() & ES_END_ABORTED)) {
        return;
    }
    *(int32_t *)(es_meta + ES_META_END_ABORT_CODE_OFFSET) = errorcode;
    es_end_mark(ES_END_ABORTED, 1);
    if (es_recording()) {
        int64_t t0 = es_enter(ES_OP_Abort);
        es_comm *e = es_find(comm);
        es_record(ES_OP_Abort, flags, e->id, (uint32_t)errorcode, -1, 0, t0, t0, ra);
        es_current_op = ES_OP_Abort;
    }
}

ES_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode)
{
    es_aborting(comm, errorcode, 0, __builtin_return_address(0));
    return PMPI_Abort(comm, errorcode);
}

/* ---- watchdog ------------------------------------------------------------------------------------------------ */

/*
 * With ES_MPI_AGENT_PID set (eventspace mpirun sets it to its own pid, with ES_MPI_AGENT_HOST its host's name), one
 * thread per rank wakes every half second: it copies the op the recording thread is in and a heartbeat into the meta
 * file (the front-end's stall detection: a rank stopped by SIGSTOP stops beating, a rank outside MPI shows a negative
 * op), and, on the front-end's host, checks with kill(pid, 0) that the front-end still lives. If it is gone (killed
 * by SIGKILL: no one would stop the job or read its files), the rank marks ES_END_AGENT_LOST and raises SIGTERM on
 * itself (the fatal-signal handler records it; mpirun then ends the other ranks); should that not end it within
 * two seconds, _exit. The thread never calls MPI and never records: it only stores to the meta file.
 */
#define ES_WATCHDOG_PERIOD_NS 500000000L
static pid_t es_agent_pid;

static void *es_watchdog(void *arg)
{
    (void)arg;
    struct timespec period = {0, ES_WATCHDOG_PERIOD_NS};
    for (;;) {
        nanosleep(&period, NULL);
        if (!es_end_mine()) {
            return NULL; /* a forked child: the meta file is its parent's */
        }
        __atomic_store_n((int32_t *)(es_meta + ES_META_CURRENT_OP_OFFSET), (int32_t)es_current_op, __ATOMIC_RELAXED);
        __atomic_fetch_add((int64_t *)(es_meta + ES_META_HEARTBEAT_OFFSET), 1, __ATOMIC_RELEASE);
        if (es_agent_pid > 0 && kill(es_agent_pid, 0) != 0 && errno == ESRCH) {
            es_end_mark(ES_END_AGENT_LOST, 1);
            fprintf(stderr, "eventspace: rank %d: the monitoring front-end (pid %d) is gone; ending this rank\n",
                    es_rank, (int)es_agent_pid);
            kill(getpid(), SIGTERM);
            struct timespec grace = {2, 0};
            nanosleep(&grace, NULL);
            _exit(128 + SIGTERM);
        }
    }
}

/* From es_start, once the meta file is there. */
static void es_watchdog_start(void)
{
    const char *pid = getenv("ES_MPI_AGENT_PID");
    if (pid == NULL || pid[0] == '\0') {
        return;
    }
    const char *host = getenv("ES_MPI_AGENT_HOST");
    char mine[256] = {0};
    /* on another host that pid is someone else's (or no one's): there the thread only beats */
    if (host != NULL && host[0] != '\0' && gethostname(mine, sizeof mine - 1) == 0 && strcmp(mine, host) == 0) {
        es_agent_pid = (pid_t)strtol(pid, NULL, 10);
    }
    sigset_t all, before;
    sigfillset(&all);
    /* the program's signals go to its own threads, never to this one */
    pthread_sigmask(SIG_BLOCK, &all, &before);
    pthread_attr_t attr;
    pthread_t t;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    pthread_create(&t, &attr, es_watchdog, NULL);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
}

/* ---- init and finalize -------------------------------------------------------------------------------------- */

static void es_start(int op, int64_t t0, int provided, void *ra)
{
    es_sync_wanted = getenv("ES_MPI_DIR") != NULL && getenv("ES_MPI_DIR")[0] != '\0';
    if (!es_sync_wanted) {
        return;
    }
    PMPI_Comm_rank(MPI_COMM_WORLD, &es_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &es_size);
    es_world.handle = MPI_COMM_WORLD;
    es_world.id = ES_COMM_WORLD_ID;
    es_world.size = es_size;
    dl_iterate_phdr(es_exe_base_of, &es_exe_base);
    dl_iterate_phdr(es_objects_of, NULL);
    int files = es_open_files();
    /* collective steps run on every rank whatever happened to its files, so no rank waits for another */
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &es_private) != MPI_SUCCESS) {
        es_private = MPI_COMM_NULL;
    }
    int64_t offset, rtt, error, at;
    es_sync(&offset, &rtt, &error, &at);
    if (!files) {
        return;
    }
    es_register(MPI_COMM_SELF, ES_COMM_SELF_ID, 0, 0, ES_COMM_SELF_ID);
    *(int64_t *)(es_meta + ES_META_INIT_OFFSET_NS_OFFSET) = offset;
    *(int64_t *)(es_meta + ES_META_INIT_RTT_NS_OFFSET) = rtt;
    *(int64_t *)(es_meta + ES_META_INIT_ERROR_NS_OFFSET) = error;
    *(int64_t *)(es_meta + ES_META_INIT_NS_OFFSET) = at;
    int64_t t1 = es_now();
    __atomic_store_n((int32_t *)(es_meta + ES_META_MAGIC_OFFSET), ES_META_MAGIC, __ATOMIC_RELEASE);
    es_multi = provided == MPI_THREAD_MULTIPLE;
    es_self = &es_main_ring;
    es_threads_start();
    es_on = 1;
    es_end_watch();
    es_watchdog_start();
    es_record(op, ES_FLAG_COLLECTIVE, ES_COMM_WORLD_ID, es_world.seq++, -1, 0, t0, t1, ra);
}

ES_EXPORT int MPI_Init(int *argc, char ***argv)
{
    int64_t t0 = es_now();
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) {
        es_start(ES_OP_Init, t0, MPI_THREAD_SINGLE, __builtin_return_address(0));
    }
    return rc;
}

ES_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int64_t t0 = es_now();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) {
        es_start(ES_OP_Init_thread, t0, *provided, __builtin_return_address(0));
    }
    return rc;
}

static void es_stop_before(void)
{
    if (!es_sync_wanted) {
        return;
    }
    int64_t offset, rtt, error, at;
    es_sync(&offset, &rtt, &error, &at);
    if (es_meta != NULL) {
        *(int64_t *)(es_meta + ES_META_FINALIZE_RTT_NS_OFFSET) = rtt;
        *(int64_t *)(es_meta + ES_META_FINALIZE_ERROR_NS_OFFSET) = error;
        *(int64_t *)(es_meta + ES_META_FINALIZE_NS_OFFSET) = at;
        __atomic_store_n((int64_t *)(es_meta + ES_META_FINALIZE_OFFSET_NS_OFFSET), offset, __ATOMIC_RELEASE);
    }
    if (es_private != MPI_COMM_NULL) {
        PMPI_Comm_free(&es_private);
    }
}

static void es_stop_after(int64_t t0, void *ra)
{
    if (es_on) {
        if (es_recording()) {
            es_record(ES_OP_Finalize, ES_FLAG_COLLECTIVE, ES_COMM_WORLD_ID, es_world.seq++, -1, 0, t0, es_now(), ra);
        }
        es_on = 0;
        __atomic_store_n((int32_t *)(es_meta + ES_META_STATE_OFFSET), ES_META_STATE_FINALIZED, __ATOMIC_RELEASE);
    }
}

ES_EXPORT int MPI_Finalize(void)
{
    int64_t t0 = es_now();
    es_stop_before();
    int rc = PMPI_Finalize();
    es_stop_after(t0, __builtin_return_address(0));
    return rc;
}

/* ---- non-blocking receives ---------------------------------------------------------------------------------- */

/*
 * A wait does not say which receive it completes, so each MPI_Irecv is remembered by its request handle until a
 * wait or test completes it: then the status names the source that matched and the bytes, and one receive record
 * (ES_REC_RECEIVE) carries them with the completing call's entry and exit, which is what Scalasca's late sender
 * for non-blocking receives needs (the receiver's time in the wait before the matching send started).
 * A fixed table, open-addressed over a window of ES_REQ_PROBE slots (no allocation; a lock only under
 * MPI_THREAD_MULTIPLE); a receive that finds its window full is counted in the meta file (untracked requests) and gives no
 * record. An entry whose request never reaches a wrapped completion (cancelled, freed, completed from Fortran) is
 * overwritten when MPI hands out the same handle again (or shadowed by the new entry, if that one found an empty
 * slot first). Under MPI_THREAD_MULTIPLE the table is shared by the threads and locked.
 */
#define ES_REQ_SLOTS 1024
#define ES_REQ_PROBE 16
#define ES_STATUS_MAX 1024

#define ES_REQ_EMPTY ((MPI_Request)0) /* never a live handle; MPI_REQUEST_NULL need not be 0 */

enum { ES_REQ_IRECV, ES_REQ_IDUP, ES_REQ_ICOLL };

typedef struct {
    int kind;             /* ES_REQ_IRECV, ES_REQ_IDUP (an MPI_Comm_idup, registered when it completes) or
                             ES_REQ_ICOLL (a non-blocking collective: its completion gets a record) */
    MPI_Comm *newcomm;    /* MPI_Comm_idup: where MPI writes the new handle; seq its place in comm_id's sequence */
    const MPI_Fint *fnewcomm; /* the same from Fortran (newcomm NULL): the Fortran handle */
    uint32_t seq;
    MPI_Comm comm;
    es_comm *e;           /* the communicator's entry when posted; used only if it still names the same one */
    uint32_t comm_id;
    int source, tag;      /* as posted (used when the status is not available) */
    MPI_Datatype type;
    int64_t posted;       /* the MPI_Irecv's start */
} es_req;

/*
 * Keys apart from the entries, so a probe window is 16 handles in two cache lines; the arrays run ES_REQ_PROBE past
 * the last home slot, so a window never wraps.
 */
static MPI_Request es_req_keys[ES_REQ_SLOTS + ES_REQ_PROBE];   /* ES_REQ_EMPTY: empty */
static es_req es_reqs[ES_REQ_SLOTS + ES_REQ_PROBE];
static int es_reqs_live;            /* entries in use: waits look requests up only when some are */
static int es_done_slot[ES_REQ_SLOTS + ES_REQ_PROBE];
static int es_done_index[ES_REQ_SLOTS + ES_REQ_PROBE];
static MPI_Status es_statuses[ES_STATUS_MAX];
/* under MPI_THREAD_MULTIPLE the table is shared: every use holds es_req_mutex (one thread: no lock) */
static pthread_mutex_t es_req_mutex = PTHREAD_MUTEX_INITIALIZER;

static void es_main_scratch(void)
{
    es_main_ring.done_slot = es_done_slot;
    es_main_ring.done_index = es_done_index;
    es_main_ring.statuses = es_statuses;
}

static ES_INLINE void es_req_lock(void)
{
    if (ES_UNLIKELY(es_multi)) {
        pthread_mutex_lock(&es_req_mutex);
    }
}

static ES_INLINE void es_req_unlock(void)
{
    if (ES_UNLIKELY(es_multi)) {
        pthread_mutex_unlock(&es_req_mutex);
    }
}

static inline uint32_t es_req_home(MPI_Request r)
{
    return (uint32_t)((ES_HANDLE_KEY(r) * 0x9E3779B97F4A7C15ULL) >> 54) & (ES_REQ_SLOTS - 1);
}

static inline int es_req_find_locked(MPI_Request r)
{
    if (r == MPI_REQUEST_NULL || r == ES_REQ_EMPTY) {
        return -1;
    }
    for (uint32_t i = es_req_home(r), end = i + ES_REQ_PROBE; i < end; i++) {
        if (es_req_keys[i] == r) {
            return (int)i;
        }
    }
    return -1;
}

static inline int es_req_find(MPI_Request r)
{
    es_req_lock();
    int slot = es_req_find_locked(r);
    es_req_unlock();
    return slot;
}

static es_req *es_req_track(MPI_Request r, MPI_Comm comm, es_comm *e, int source, int tag, MPI_Datatype type,
                            int64_t posted)
{
    int free_slot = -1;
    es_req_lock();
    /*
     * The first slot of the window that is empty or holds this handle (a stale entry of a handle MPI reused: taken
     * over). A stale entry further on stays shadowed, as es_req_find returns the first match: the window is scanned
     * only as far as needed, not all 16 slots per MPI_Irecv.
     */
    for (uint32_t i = es_req_home(r), end = i + ES_REQ_PROBE; i < end; i++) {
        MPI_Request k = es_req_keys[i];
        if (k == ES_REQ_EMPTY || k == r) {
            free_slot = (int)i;
            es_reqs_live -= k == r;
            break;
        }
    }
    if (free_slot < 0) {
        es_req_unlock();
        __atomic_fetch_add((uint64_t *)(es_meta + ES_META_UNTRACKED_REQUESTS_OFFSET), 1, __ATOMIC_RELAXED);
        return NULL;
    }
    es_req *q = &es_reqs[free_slot];
    es_req_keys[free_slot] = r;
    q->kind = ES_REQ_IRECV;
    q->newcomm = NULL;
    q->fnewcomm = NULL;
    q->comm = comm;
    q->e = e;
    q->comm_id = e->id;
    q->source = source;
    q->tag = tag;
    q->type = type;
    q->posted = posted;
    es_reqs_live++;
    es_req_unlock();
    return q;
}

/* The receive in slot completed inside [t0, t1] with status st (NULL: not known); the entry is freed. */
static void es_register(MPI_Comm c, uint32_t parent_id, uint32_t parent_seq, uint32_t salt, uint32_t forced_id);

static void es_req_done(int slot, const MPI_Status *st, int64_t t0, int64_t t1)
{
    es_req_lock();
    es_req *q = &es_reqs[slot];
    if (q->kind == ES_REQ_IDUP || q->kind == ES_REQ_ICOLL) {
        if (q->kind == ES_REQ_IDUP) {
            /* the new communicator exists now: named as MPI_Comm_dup names its own, from the place in the parent */
            es_register(q->newcomm != NULL ? *q->newcomm : PMPI_Comm_f2c(*q->fnewcomm), q->comm_id, q->seq, 1, 0);
        }
        /* the collective's departure: the wait or test that completed it (CollectiveWaits) */
        es_write(ES_REC_COLLECTIVE_DONE, ES_FLAG_NONBLOCKING | ES_FLAG_COLLECTIVE, (uint32_t)q->posted, q->comm_id,
                 q->seq, -1, 0, t0, t1);
        es_req_keys[slot] = ES_REQ_EMPTY;
        es_reqs_live--;
        es_req_unlock();
        return;
    }
    int source = q->source, tag = q->tag, got = 0;
    uint64_t bytes = 0;
    if (st != NULL) {
        source = st->MPI_SOURCE;
        tag = st->MPI_TAG;
        if (PMPI_Get_count(st, q->type, &got) == MPI_SUCCESS && got != MPI_UNDEFINED) {
            bytes = es_bytes(got, q->type);
        }
    }
    int world = -1;
    if (q->e == &es_world) {
        world = source;
    } else if (q->e->handle == q->comm && q->e->id == q->comm_id) {
        world = es_world_rank(q->e, source);
    }
    if (source != MPI_PROC_NULL) {
        es_write(ES_REC_RECEIVE, ES_FLAG_NONBLOCKING, (uint32_t)q->posted, q->comm_id, (uint32_t)tag, world, bytes,
                 t0, t1);
    }
    es_req_keys[slot] = ES_REQ_EMPTY;
    es_reqs_live--;
    es_req_unlock();
}

/* Before a wait or test: the tracked receives among requests[0..count), as (index, slot) pairs; their number. */
static inline int es_req_collect(int count, const MPI_Request requests[])
{
    int n = 0;
    if (ES_LIKELY(es_reqs_live == 0) || requests == NULL) {
        return 0;
    }
    es_ring *r = es_ring_of();
    es_req_lock();
    for (int i = 0; i < count && n < ES_REQ_SLOTS + ES_REQ_PROBE; i++) {
        int slot = es_req_find_locked(requests[i]);
        if (slot >= 0) {
            r->done_index[n] = i;
            r->done_slot[n] = slot;
            n++;
        }
    }
    es_req_unlock();
    return n;
}

/* Statuses the call should fill: the caller's, or ours when it ignores them and tracked receives need them. */
static inline MPI_Status *es_statuses_for(int tracked, int count, MPI_Status *statuses)
{
    if (tracked == 0 || statuses != MPI_STATUSES_IGNORE || count > ES_STATUS_MAX) {
        return statuses;
    }
    return es_ring_of()->statuses;
}

/*
 * The calling thread's ring, at its first call under MPI_THREAD_MULTIPLE: one a thread that ended left, or a new
 * rank-<R>.t<N>.trace (N counted in the meta file after the ring's header is written, so a reader that sees N can
 * open it). A thread whose ring cannot be made is counted in the meta file's untraced calls, call by call.
 */
static pthread_mutex_t es_ring_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t es_ring_key;
static int es_ring_keyed;
static es_ring *es_ring_spare;

static void es_ring_release(void *ring)
{
    pthread_mutex_lock(&es_ring_lock);
    ((es_ring *)ring)->spare = es_ring_spare;
    es_ring_spare = ring;
    pthread_mutex_unlock(&es_ring_lock);
}

/* At MPI_Init: without the key (PTHREAD_KEYS_MAX reached) rings of ended threads are not passed on, only more made. */
static void es_threads_start(void)
{
    es_ring_keyed = es_multi && pthread_key_create(&es_ring_key, es_ring_release) == 0;
}

static __attribute__((noinline, cold)) int es_thread_ring(void)
{
    es_ring *r = NULL;
    if (!es_self_failed) {
        pthread_mutex_lock(&es_ring_lock);
        r = es_ring_spare;
        if (r != NULL) {
            es_ring_spare = r->spare;
        } else {
            int32_t *rings = (int32_t *)(es_meta + ES_META_THREAD_RINGS_OFFSET);
            char file[4200];
            snprintf(file, sizeof file, "%s/rank-%d.t%d.trace", es_host_path, es_rank, *rings + 1);
            r = calloc(1, sizeof(es_ring));
            if (r != NULL) {
                r->done_slot = malloc(sizeof(int) * (ES_REQ_SLOTS + ES_REQ_PROBE));
                r->done_index = malloc(sizeof(int) * (ES_REQ_SLOTS + ES_REQ_PROBE));
                r->statuses = malloc(sizeof(MPI_Status) * ES_STATUS_MAX);
            }
            if (r == NULL || r->done_slot == NULL || r->done_index == NULL || r->statuses == NULL
                || !es_ring_open(r, file)) {
                fprintf(stderr, "eventspace-mpi: rank %d cannot map %s (%s); that thread's calls are counted, not "
                        "traced\n", es_rank, file, strerror(errno));
                if (r != NULL) {
                    free(r->done_slot);
                    free(r->done_index);
                    free(r->statuses);
                    free(r);
                }
                r = NULL;
            } else {
                __atomic_store_n(rings, *rings + 1, __ATOMIC_RELEASE);
            }
        }
        pthread_mutex_unlock(&es_ring_lock);
    }
    if (r == NULL) {
        es_self_failed = 1;
        __atomic_fetch_add((uint64_t *)(es_meta + ES_META_UNTRACED_CALLS_OFFSET), 1, __ATOMIC_RELAXED);
        return 0;
    }
    es_self = r;
    if (es_ring_keyed) {
        pthread_setspecific(es_ring_key, r);
    }
    return 1;
}

/* ---- wrappers ----------------------------------------------------------------------------------------------- */

#define ES_T0(op) int64_t es_t0 = es_enter(op)
#define ES_RA __builtin_return_address(0)
#define ES_FAILED(rc) ((rc) != MPI_SUCCESS ? ES_FLAG_FAILED : 0)
#define ES_PROC_NULL(peer) ((peer) == MPI_PROC_NULL ? ES_FLAG_PROC_NULL : 0)

/* point-to-point send side: bytes = count * type size, peer = dest */
#define ES_SEND(name, flags, ...)                                                                              \
    ES_EXPORT int MPI_##name(__VA_ARGS__)                                                                      \
    {                                                                                                          \
        if (!es_recording()) {                                                                                 \
            return PMPI_##name(ES_SEND_ARGS);                                                                  \
        }                                                                                                      \
        ES_T0(ES_OP_##name);                                                                                   \
        int rc = PMPI_##name(ES_SEND_ARGS);                                                                    \
        int64_t t1 = es_now();                                                                                 \
        es_comm *e = es_find(comm);                                                                            \
        es_record(ES_OP_##name, (flags) | ES_FAILED(rc) | ES_PROC_NULL(dest), e->id, (uint32_t)tag,           \
                  es_world_rank(e, dest), dest == MPI_PROC_NULL ? 0 : es_bytes(count, datatype), es_t0, t1, ES_RA); \
        return rc;                                                                                             \
    }

#define ES_SEND_ARGS buf, count, datatype, dest, tag, comm
ES_SEND(Send, 0, const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
ES_SEND(Bsend, 0, const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
ES_SEND(Ssend, 0, const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
ES_SEND(Rsend, 0, const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
#undef ES_SEND_ARGS
#define ES_SEND_ARGS buf, count, datatype, dest, tag, comm, request
ES_SEND(Isend, ES_FLAG_NONBLOCKING, const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
        MPI_Comm comm, MPI_Request *request)
ES_SEND(Ibsend, ES_FLAG_NONBLOCKING, const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
        MPI_Comm comm, MPI_Request *request)
ES_SEND(Issend, ES_FLAG_NONBLOCKING, const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
        MPI_Comm comm, MPI_Request *request)
ES_SEND(Irsend, ES_FLAG_NONBLOCKING, const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
        MPI_Comm comm, MPI_Request *request)
#undef ES_SEND_ARGS

ES_EXPORT int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                       MPI_Status *status)
{
    if (!es_recording()) {
        return PMPI_Recv(buf, count, datatype, source, tag, comm, status);
    }
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    ES_T0(ES_OP_Recv);
    int rc = PMPI_Recv(buf, count, datatype, source, tag, comm, st);
    int64_t t1 = es_now();
    es_comm *e = es_find(comm);
    int got = 0;
    if (rc == MPI_SUCCESS && st->MPI_SOURCE >= 0) {
        PMPI_Get_count(st, datatype, &got);
        source = st->MPI_SOURCE;
        tag = st->MPI_TAG;
    }
    es_record(ES_OP_Recv, ES_FAILED(rc) | ES_PROC_NULL(source), e->id, (uint32_t)tag, es_world_rank(e, source),
              got == MPI_UNDEFINED ? 0 : es_bytes(got, datatype), es_t0, t1, ES_RA);
    return rc;
}

ES_EXPORT int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                        MPI_Request *request)
{
    if (!es_recording()) {
        return PMPI_Irecv(buf, count, datatype, source, tag, comm, request);
    }
    ES_T0(ES_OP_Irecv);
    int rc = PMPI_Irecv(buf, count, datatype, source, tag, comm, request);
    int64_t t1 = es_now();
    es_comm *e = es_find(comm);
    if (rc == MPI_SUCCESS && source != MPI_PROC_NULL) {
        es_req_track(*request, comm, e, source, tag, datatype, es_t0);
    }
    es_record(ES_OP_Irecv, ES_FLAG_NONBLOCKING | ES_FAILED(rc) | ES_PROC_NULL(source), e->id, (uint32_t)tag,
              es_world_rank(e, source), source == MPI_PROC_NULL ? 0 : es_bytes(count, datatype), es_t0, t1, ES_RA);
    return rc;
}

/* The receive half of a sendrecv: one receive record over the call's own entry and exit. */
static inline void es_receive_half(int rc, const MPI_Status *st, es_comm *e, MPI_Datatype type, int64_t t0,
                                   int64_t t1, void *ra)
{
    int got = 0;
    if (rc != MPI_SUCCESS || st->MPI_SOURCE < 0) {
        return; /* failed, or from MPI_PROC_NULL */
    }
    if (PMPI_Get_count(st, type, &got) != MPI_SUCCESS || got == MPI_UNDEFINED) {
        got = 0;
    }
    es_write(ES_REC_RECEIVE, 0, es_site(ra), e->id, (uint32_t)st->MPI_TAG, es_world_rank(e, st->MPI_SOURCE),
             es_bytes(got, type), t0, t1);
}

ES_EXPORT int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                           MPI_Comm comm, MPI_Status *status)
{
    if (!es_recording()) {
        return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                             recvtag, comm, status);
    }
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    ES_T0(ES_OP_Sendrecv);
    int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                           recvtag, comm, st);
    int64_t t1 = es_now();
    es_comm *e = es_find(comm);
    es_record(ES_OP_Sendrecv, ES_FAILED(rc) | ES_PROC_NULL(dest), e->id, (uint32_t)sendtag, es_world_rank(e, dest),
              dest == MPI_PROC_NULL ? 0 : es_bytes(sendcount, sendtype), es_t0, t1, ES_RA);
    es_receive_half(rc, st, e, recvtype, es_t0, t1, ES_RA);
    return rc;
}

ES_EXPORT int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                                   int recvtag, MPI_Comm comm, MPI_Status *status)
{
    if (!es_recording()) {
        return PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
    }
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    ES_T0(ES_OP_Sendrecv_replace);
    int rc = PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, st);
    int64_t t1 = es_now();
    es_comm *e = es_find(comm);
    es_record(ES_OP_Sendrecv_replace, ES_FAILED(rc) | ES_PROC_NULL(dest), e->id, (uint32_t)sendtag,
              es_world_rank(e, dest),
              dest == MPI_PROC_NULL ? 0 : es_bytes(count, datatype), es_t0, t1, ES_RA);
    es_receive_half(rc, st, e, datatype, es_t0, t1, ES_RA);
    return rc;
}

/*
 * Waits and tests: low word = requests, no peer, no bytes. Before the call, the tracked MPI_Irecv requests among
 * them are looked up (only when some are outstanding: a program without MPI_Irecv pays one load); after it, each
 * one it completed writes its receive record, after the call's own tuple. When the caller ignores the statuses
 * and tracked receives are among the requests, the call fills ours instead (MPI_STATUS(ES)_IGNORE only means the
 * caller does not look; the results are the same).
 */
#define ES_COMPLETION_HEAD(name)                                                                                 \
    if (!es_recording()) {                                                                                       \
        return PMPI_##name(ES_ARGS);                                                                             \
    }

ES_EXPORT int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
#define ES_ARGS request, status
    ES_COMPLETION_HEAD(Wait)
#undef ES_ARGS
    int slot = ES_LIKELY(es_reqs_live == 0) ? -1 : es_req_find(*request);
    MPI_Status own;
    MPI_Status *st = slot >= 0 && status == MPI_STATUS_IGNORE ? &own : status;
    ES_T0(ES_OP_Wait);
    int rc = PMPI_Wait(request, st);
    int64_t t1 = es_now();
    es_record(ES_OP_Wait, ES_FAILED(rc), ES_COMM_UNKNOWN_ID, 1, -1, 0, es_t0, t1, ES_RA);
    if (slot >= 0 && rc == MPI_SUCCESS) {
        es_req_done(slot, st, es_t0, t1);
    }
    return rc;
}

ES_EXPORT int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
#define ES_ARGS request, flag, status
    ES_COMPLETION_HEAD(Test)
#undef ES_ARGS
    int slot = ES_LIKELY(es_reqs_live == 0) ? -1 : es_req_find(*request);
    MPI_Status own;
    MPI_Status *st = slot >= 0 && status == MPI_STATUS_IGNORE ? &own : status;
    ES_T0(ES_OP_Test);
    int rc = PMPI_Test(request, flag, st);
    int64_t t1 = es_now();
    es_record(ES_OP_Test, ES_FAILED(rc), ES_COMM_UNKNOWN_ID, 1, -1, 0, es_t0, t1, ES_RA);
    if (slot >= 0 && rc == MPI_SUCCESS && *flag) {
        es_req_done(slot, st, es_t0, t1);
    }
    return rc;
}

/* Waitall and Testall: every request completed (Testall: if the flag says so). */
static inline void es_all_done(int rc, int tracked, int count, MPI_Status *st, int64_t t0, int64_t t1)
{
    if (rc != MPI_SUCCESS) {
        return;
    }
    es_ring *r = es_ring_of();
    for (int k = 0; k < tracked; k++) {
        es_req_done(r->done_slot[k], st == MPI_STATUSES_IGNORE ? NULL : &st[r->done_index[k]], t0, t1);
    }
    (void)count;
}

ES_EXPORT int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
#define ES_ARGS count, array_of_requests, array_of_statuses
    ES_COMPLETION_HEAD(Waitall)
#undef ES_ARGS
    int tracked = es_req_collect(count, array_of_requests);
    MPI_Status *st = es_statuses_for(tracked, count, array_of_statuses);
    ES_T0(ES_OP_Waitall);
    int rc = PMPI_Waitall(count, array_of_requests, st);
    int64_t t1 = es_now();
    es_record(ES_OP_Waitall, ES_FAILED(rc), ES_COMM_UNKNOWN_ID, (uint32_t)count, -1, 0, es_t0, t1, ES_RA);
    es_all_done(rc, tracked, count, st, es_t0, t1);
    return rc;
}

ES_EXPORT int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
#define ES_ARGS count, array_of_requests, flag, array_of_statuses
    ES_COMPLETION_HEAD(Testall)
#undef ES_ARGS
    int tracked = es_req_collect(count, array_of_requests);
    MPI_Status *st = es_statuses_for(tracked, count, array_of_statuses);
    ES_T0(ES_OP_Testall);
    int rc = PMPI_Testall(count, array_of_requests, flag, st);
    int64_t t1 = es_now();
    es_record(ES_OP_Testall, ES_FAILED(rc), ES_COMM_UNKNOWN_ID, (uint32_t)count, -1, 0, es_t0, t1, ES_RA);
    if (rc == MPI_SUCCESS && *flag) {
        es_all_done(rc, tracked, count, st, es_t0, t1);
    }
    return rc;
}

/* Waitany and Testany: the one at *index, if it is a tracked receive. */
static inline void es_any_done(int rc, int tracked, int index, MPI_Status *st, int64_t t0, int64_t t1)
{
    if (rc != MPI_SUCCESS || index == MPI_UNDEFINED) {
        return;
    }
    es_ring *r = es_ring_of();
    for (int k = 0; k < tracked; k++) {
        if (r->done_index[k] == index) {
            es_req_done(r->done_slot[k], st, t0, t1);
            return;
        }
    }
}

ES_EXPORT int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
#define ES_ARGS count, array_of_requests, index, status
    ES_COMPLETION_HEAD(Waitany)
#undef ES_ARGS
    int tracked = es_req_collect(count, array_of_requests);
    MPI_Status own;
    MPI_Status *st = tracked > 0 && status == MPI_STATUS_IGNORE ? &own : status;
    ES_T0(ES_OP_Waitany);
    int rc = PMPI_Waitany(count, array_of_requests, index, st);
    int64_t t1 = es_now();
    es_record(ES_OP_Waitany, ES_FAILED(rc), ES_COMM_UNKNOWN_ID, (uint32_t)count, -1, 0, es_t0, t1, ES_RA);
    es_any_done(rc, tracked, *index, st, es_t0, t1);
    return rc;
}

ES_EXPORT int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status)
{
#define ES_ARGS count, array_of_requests, index, flag, status
    ES_COMPLETION_HEAD(Testany)
#undef ES_ARGS
    int tracked = es_req_collect(count, array_of_requests);
    MPI_Status own;
    MPI_Status *st = tracked > 0 && status == MPI_STATUS_IGNORE ? &own : status;
    ES_T0(ES_OP_Testany);
    int rc = PMPI_Testany(count, array_of_requests, index, flag, st);
    int64_t t1 = es_now();
    es_record(ES_OP_Testany, ES_FAILED(rc), ES_COMM_UNKNOWN_ID, (uint32_t)count, -1, 0, es_t0, t1, ES_RA);
    if (rc == MPI_SUCCESS && *flag) {
        es_any_done(rc, tracked, *index, st, es_t0, t1);
    }
    return rc;
}

/* Waitsome and Testsome: those at array_of_indices[0..outcount). */
static inline void es_some_done(int rc, int tracked, int outcount, const int indices[], MPI_Status *st, int64_t t0,
                                int64_t t1)
{
    if (rc != MPI_SUCCESS || outcount == MPI_UNDEFINED || tracked == 0) {
        return;
    }
    es_ring *r = es_ring_of();
    for (int j = 0; j < outcount; j++) {
        for (int k = 0; k < tracked; k++) {
            if (r->done_index[k] == indices[j]) {
                es_req_done(r->done_slot[k], st == MPI_STATUSES_IGNORE ? NULL : &st[j], t0, t1);
                break;
            }
        }
    }
}

ES_EXPORT int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                           MPI_Status array_of_statuses[])
{
#define ES_ARGS incount, array_of_requests, outcount, array_of_indices, array_of_statuses
    ES_COMPLETION_HEAD(Waitsome)
#undef ES_ARGS
    int tracked = es_req_collect(incount, array_of_requests);
    MPI_Status *st = es_statuses_for(tracked, incount, array_of_statuses);
    ES_T0(ES_OP_Waitsome);
    int rc = PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices, st);
    int64_t t1 = es_now();
    es_record(ES_OP_Waitsome, ES_FAILED(rc), ES_COMM_UNKNOWN_ID, (uint32_t)incount, -1, 0, es_t0, t1, ES_RA);
    es_some_done(rc, tracked, *outcount, array_of_indices, st, es_t0, t1);
    return rc;
}

ES_EXPORT int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                           MPI_Status array_of_statuses[])
{
#define ES_ARGS incount, array_of_requests, outcount, array_of_indices, array_of_statuses
    ES_COMPLETION_HEAD(Testsome)
#undef ES_ARGS
    int tracked = es_req_collect(incount, array_of_requests);
    MPI_Status *st = es_statuses_for(tracked, incount, array_of_statuses);
    ES_T0(ES_OP_Testsome);
    int rc = PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, st);
    int64_t t1 = es_now();
    es_record(ES_OP_Testsome, ES_FAILED(rc), ES_COMM_UNKNOWN_ID, (uint32_t)incount, -1, 0, es_t0, t1, ES_RA);
    es_some_done(rc, tracked, *outcount, array_of_indices, st, es_t0, t1);
    return rc;
}

/* Not a recorded call: a freed receive request will never complete through a wait, so it leaves the table. */
ES_EXPORT int MPI_Request_free(MPI_Request *request)
{
    if (es_on && es_reqs_live > 0) {
        es_req_lock();
        int slot = es_req_find_locked(*request);
        if (slot >= 0) {
            es_req_keys[slot] = ES_REQ_EMPTY;
            es_reqs_live--;
        }
        es_req_unlock();
    }
    return PMPI_Request_free(request);
}

ES_EXPORT int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    if (!es_recording()) {
        return PMPI_Probe(source, tag, comm, status);
    }
    ES_T0(ES_OP_Probe);
    int rc = PMPI_Probe(source, tag, comm, status);
    int64_t t1 = es_now();
    es_comm *e = es_find(comm);
    es_record(ES_OP_Probe, ES_FAILED(rc), e->id, (uint32_t)tag, es_world_rank(e, source), 0, es_t0, t1, ES_RA);
    return rc;
}

ES_EXPORT int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    if (!es_recording()) {
        return PMPI_Iprobe(source, tag, comm, flag, status);
    }
    ES_T0(ES_OP_Iprobe);
    int rc = PMPI_Iprobe(source, tag, comm, flag, status);
    int64_t t1 = es_now();
    es_comm *e = es_find(comm);
    es_record(ES_OP_Iprobe, ES_FAILED(rc), e->id, (uint32_t)tag, es_world_rank(e, source), 0, es_t0, t1, ES_RA);
    return rc;
}

/*
 * Collectives: the communicator's collective sequence is taken at entry (every member calls its collectives in
 * the same order, blocking and non-blocking alike, MPI-3.1 §5.12), so (communicator id, sequence) names one
 * instance on every rank. ROOT is the root's rank in comm or -1; BYTES what this rank contributes.
 */
#define ES_COLL(name, flags, root, bytes, ...)                                                                   \
    ES_EXPORT int MPI_##name(__VA_ARGS__)                                                                         \
    {                                                                                                             \
        if (!es_recording()) {                                                                                    \
            return PMPI_##name(ES_ARGS);                                                                          \
        }                                                                                                         \
        es_comm *e = es_find(comm);                                                                               \
        uint32_t seq = e->seq++;                                                                                  \
        ES_T0(ES_OP_##name);                                                                                      \
        int rc = PMPI_##name(ES_ARGS);                                                                            \
        int64_t t1 = es_now();                                                                                    \
        ES_TRACK_##flags                                                                                          \
        es_record(ES_OP_##name, ES_FLAG_COLLECTIVE | (flags) | ES_FAILED(rc), e->id, seq, es_world_rank(e, root), \
                  (bytes), es_t0, t1, ES_RA);                                                                     \
        return rc;                                                                                                \
    }

/*
 * The flags argument of ES_COLL is one token: 0 or NB (non-blocking), with IP when MPI_IN_PLACE may stand for the
 * send buffer and IPR when it may stand for the receive buffer (MPI_Scatter(v) at the root); a non-blocking one's
 * request enters the request table, so the wait or test that completes it writes its completion record.
 */
#define NBIP (ES_FLAG_NONBLOCKING | IP)
#define NBIPR (ES_FLAG_NONBLOCKING | IPR)
#define IP (sendbuf == MPI_IN_PLACE ? ES_FLAG_IN_PLACE : 0)
#define IPR (recvbuf == MPI_IN_PLACE ? ES_FLAG_IN_PLACE : 0)
#define ES_TRACK_0
#define ES_TRACK_IP
#define ES_TRACK_IPR
#define ES_TRACK_NB es_icoll_track(rc, *request, comm, e, seq, es_t0);
#define ES_TRACK_NBIP ES_TRACK_NB
#define ES_TRACK_NBIPR ES_TRACK_NB

static inline void es_icoll_track(int rc, MPI_Request r, MPI_Comm comm, es_comm *e, uint32_t seq, int64_t t0)
{
    if (rc == MPI_SUCCESS) {
        es_req *q = es_req_track(r, comm, e, MPI_PROC_NULL, 0, MPI_DATATYPE_NULL, t0);
        if (q != NULL) {
            q->kind = ES_REQ_ICOLL;
            q->seq = seq;
        }
    }
}

/*
 * What one rank contributes when MPI_IN_PLACE may stand for a buffer (MPI-3.1 §5.2.2): the arguments MPI then
 * ignores are never read (they may be garbage); the rank's own block, which stays in place, counts as it would
 * have been sent, so a program counts the same bytes with MPI_IN_PLACE as without.
 */
static inline int es_rank_in(MPI_Comm c)
{
    int r = 0;
    PMPI_Comm_rank(c, &r);
    return r;
}

static inline uint64_t es_counts_at(const int counts[], int i, MPI_Datatype t)
{
    return counts == NULL ? 0 : es_bytes(counts[i], t);
}

static inline uint64_t es_w_bytes(const int counts[], const MPI_Datatype types[], int n)
{
    uint64_t b = 0;
    if (counts == NULL || types == NULL) {
        return 0;
    }
    for (int i = 0; i < n; i++) {
        b += es_bytes(counts[i], types[i]);
    }
    return b;
}

/* gather, allgather: the send block, or in place the receive block */
#define ES_IP_SEND(sc, st, rc_, rt) (sendbuf == MPI_IN_PLACE ? es_bytes(rc_, rt) : es_bytes(sc, st))
/* gatherv, allgatherv: in place, this rank's receive count */
#define ES_IP_SENDV(sc, st, rcs, rt) \
    (sendbuf == MPI_IN_PLACE ? es_counts_at(rcs, es_rank_in(comm), rt) : es_bytes(sc, st))
/* scatter: the receive block, or in place (the root) the send block */
#define ES_IP_RECV(sc, st, rc_, rt) (recvbuf == MPI_IN_PLACE ? es_bytes(sc, st) : es_bytes(rc_, rt))
/* alltoallv, alltoallw: the send blocks, or in place the receive blocks */
#define ES_IP_SUM(scs, st, rcs, rt)                                                                            \
    (sendbuf == MPI_IN_PLACE ? es_sum_bytes(rcs, rt, es_comm_size(comm)) : es_sum_bytes(scs, st, es_comm_size(comm)))
#define ES_IP_W(scs, sts, rcs, rts)                                                                            \
    (sendbuf == MPI_IN_PLACE ? es_w_bytes(rcs, rts, es_comm_size(comm)) : es_w_bytes(scs, sts, es_comm_size(comm)))
#define ES_IP_RECVV(scs, st, rc_, rt) \
    (recvbuf == MPI_IN_PLACE ? es_counts_at(scs, es_rank_in(comm), st) : es_bytes(rc_, rt))

static inline int es_comm_size(MPI_Comm c)
{
    int n = 0;
    PMPI_Comm_size(c, &n);
    return n;
}

static inline uint64_t es_sum_bytes(const int counts[], MPI_Datatype t, int n)
{
    uint64_t b = 0;
    if (counts == NULL) {
        return 0;
    }
    for (int i = 0; i < n; i++) {
        b += es_bytes(counts[i], t);
    }
    return b;
}

#define NB ES_FLAG_NONBLOCKING
#define ES_ARGS comm
ES_COLL(Barrier, 0, -1, 0, MPI_Comm comm)
#undef ES_ARGS
#define ES_ARGS comm, request
ES_COLL(Ibarrier, NB, -1, 0, MPI_Comm comm, MPI_Request *request)
#undef ES_ARGS
#define ES_ARGS buffer, count, datatype, root, comm
ES_COLL(Bcast, 0, root, es_bytes(count, datatype), void *buffer, int count, MPI_Datatype datatype, int root,
        MPI_Comm comm)
#undef ES_ARGS
#define ES_ARGS buffer, count, datatype, root, comm, request
ES_COLL(Ibcast, NB, root, es_bytes(count, datatype), void *buffer, int count, MPI_Datatype datatype, int root,
        MPI_Comm comm, MPI_Request *request)
#undef ES_ARGS
#define ES_ARGS sendbuf, recvbuf, count, datatype, op, root, comm
ES_COLL(Reduce, IP, root, es_bytes(count, datatype), const void *sendbuf, void *recvbuf, int count,
        MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
#undef ES_ARGS
#define ES_ARGS sendbuf, recvbuf, count, datatype, op, root, comm, request
ES_COLL(Ireduce, NBIP, root, es_bytes(count, datatype), const void *sendbuf, void *recvbuf, int count,
        MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
#undef ES_ARGS
#define ES_ARGS sendbuf, recvbuf, count, datatype, op, comm
ES_COLL(Allreduce, IP, -1, es_bytes(count, datatype), const void *sendbuf, void *recvbuf, int count,
        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
ES_COLL(Scan, IP, -1, es_bytes(count, datatype), const void *sendbuf, void *recvbuf, int count,
        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
ES_COLL(Exscan, IP, -1, es_bytes(count, datatype), const void *sendbuf, void *recvbuf, int count,
        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
#undef ES_ARGS
#define ES_ARGS sendbuf, recvbuf, count, datatype, op, comm, request
ES_COLL(Iallreduce, NBIP, -1, es_bytes(count, datatype), const void *sendbuf, void *recvbuf, int count,
        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
ES_COLL(Iscan, NBIP, -1, es_bytes(count, datatype), const void *sendbuf, void *recvbuf, int count,
        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
ES_COLL(Iexscan, NBIP, -1, es_bytes(count, datatype), const void *sendbuf, void *recvbuf, int count,
        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
#undef ES_ARGS
#define ES_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm
ES_COLL(Gather, IP, root, ES_IP_SEND(sendcount, sendtype, recvcount, recvtype),
        const void *sendbuf, int sendcount, MPI_Datatype sendtype,
        void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
ES_COLL(Scatter, IPR, root, ES_IP_RECV(sendcount, sendtype, recvcount, recvtype), const void *sendbuf, int sendcount,
        MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
#undef ES_ARGS
#define ES_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request
ES_COLL(Igather, NBIP, root, ES_IP_SEND(sendcount, sendtype, recvcount, recvtype), const void *sendbuf, int sendcount,
        MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
        MPI_Request *request)
ES_COLL(Iscatter, NBIPR, root, ES_IP_RECV(sendcount, sendtype, recvcount, recvtype), const void *sendbuf, int sendcount,
        MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
        MPI_Request *request)
#undef ES_ARGS
#define ES_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm
ES_COLL(Gatherv, IP, root, ES_IP_SENDV(sendcount, sendtype, recvcounts, recvtype),
        const void *sendbuf, int sendcount, MPI_Datatype sendtype,
        void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
#undef ES_ARGS
#define ES_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request
ES_COLL(Igatherv, NBIP, root, ES_IP_SENDV(sendcount, sendtype, recvcounts, recvtype),
        const void *sendbuf, int sendcount,
        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype,
        int root, MPI_Comm comm, MPI_Request *request)
#undef ES_ARGS
#define ES_ARGS sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm
ES_COLL(Scatterv, IPR, root, ES_IP_RECVV(sendcounts, sendtype, recvcount, recvtype),
        const void *sendbuf, const int sendcounts[],
        const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
        MPI_Comm comm)
#undef ES_ARGS
#define ES_ARGS sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request
ES_COLL(Iscatterv, NBIPR, root, ES_IP_RECVV(sendcounts, sendtype, recvcount, recvtype),
        const void *sendbuf, const int sendcounts[],
        const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
        MPI_Comm comm, MPI_Request *request)
#undef ES_ARGS
#define ES_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm
ES_COLL(Allgather, IP, -1, ES_IP_SEND(sendcount, sendtype, recvcount, recvtype),
        const void *sendbuf, int sendcount, MPI_Datatype sendtype,
        void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
ES_COLL(Alltoall, IP, -1, ES_IP_SEND(sendcount, sendtype, recvcount, recvtype) * (uint64_t)es_comm_size(comm),
        const void *sendbuf,
        int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
#undef ES_ARGS
#define ES_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request
ES_COLL(Iallgather, NBIP, -1, ES_IP_SEND(sendcount, sendtype, recvcount, recvtype), const void *sendbuf, int sendcount,
        MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
        MPI_Request *request)
ES_COLL(Ialltoall, NBIP, -1, ES_IP_SEND(sendcount, sendtype, recvcount, recvtype) * (uint64_t)es_comm_size(comm),
        const void *sendbuf,
        int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
        MPI_Request *request)
#undef ES_ARGS
#define ES_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm
ES_COLL(Allgatherv, IP, -1, ES_IP_SENDV(sendcount, sendtype, recvcounts, recvtype),
        const void *sendbuf, int sendcount, MPI_Datatype sendtype,
        void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
#undef ES_ARGS
#define ES_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request
ES_COLL(Iallgatherv, NBIP, -1, ES_IP_SENDV(sendcount, sendtype, recvcounts, recvtype),
        const void *sendbuf, int sendcount,
        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype,
        MPI_Comm comm, MPI_Request *request)
#undef ES_ARGS
#define ES_ARGS sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm
ES_COLL(Alltoallv, IP, -1, ES_IP_SUM(sendcounts, sendtype, recvcounts, recvtype),
        const void *sendbuf,
        const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
#undef ES_ARGS
#define ES_ARGS sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request
ES_COLL(Ialltoallv, NBIP, -1, ES_IP_SUM(sendcounts, sendtype, recvcounts, recvtype),
        const void *sendbuf,
        const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
#undef ES_ARGS
#define ES_ARGS sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm
ES_COLL(Alltoallw, IP, -1, ES_IP_W(sendcounts, sendtypes, recvcounts, recvtypes),
        const void *sendbuf, const int sendcounts[], const int sdispls[],
        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
        const MPI_Datatype recvtypes[], MPI_Comm comm)
#undef ES_ARGS
#define ES_ARGS sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request
ES_COLL(Ialltoallw, NBIP, -1, ES_IP_W(sendcounts, sendtypes, recvcounts, recvtypes),
        const void *sendbuf, const int sendcounts[], const int sdispls[],
        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
        const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
#undef ES_ARGS
#define ES_ARGS sendbuf, recvbuf, recvcounts, datatype, op, comm
ES_COLL(Reduce_scatter, IP, -1, es_sum_bytes(recvcounts, datatype, es_comm_size(comm)), const void *sendbuf,
        void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
#undef ES_ARGS
#define ES_ARGS sendbuf, recvbuf, recvcounts, datatype, op, comm, request
ES_COLL(Ireduce_scatter, NBIP, -1, es_sum_bytes(recvcounts, datatype, es_comm_size(comm)), const void *sendbuf,
        void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
        MPI_Request *request)
#undef ES_ARGS
#define ES_ARGS sendbuf, recvbuf, recvcount, datatype, op, comm
ES_COLL(Reduce_scatter_block, IP, -1, es_bytes(recvcount, datatype) * (uint64_t)es_comm_size(comm),
        const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
#undef ES_ARGS
#define ES_ARGS sendbuf, recvbuf, recvcount, datatype, op, comm, request
ES_COLL(Ireduce_scatter_block, NBIP, -1, es_bytes(recvcount, datatype) * (uint64_t)es_comm_size(comm),
        const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
        MPI_Request *request)
#undef ES_ARGS

/*
 * Neighbourhood collectives (MPI-3.1 §7.6): collective over the communicator (every member calls them, in order),
 * so they take a place in its sequence like any collective; a rank's partners are its topology's neighbours only.
 * BYTES: what this rank sends — to each of its out-neighbours for the alltoall forms.
 */
static int es_out_degree(MPI_Comm c)
{
    int kind = MPI_UNDEFINED, n = 0, in = 0, out = 0, weighted = 0, rank = 0;
    PMPI_Topo_test(c, &kind);
    if (kind == MPI_CART) {
        PMPI_Cartdim_get(c, &n);
        return 2 * n;
    }
    if (kind == MPI_GRAPH) {
        PMPI_Comm_rank(c, &rank);
        PMPI_Graph_neighbors_count(c, rank, &n);
        return n;
    }
    if (kind == MPI_DIST_GRAPH) {
        PMPI_Dist_graph_neighbors_count(c, &in, &out, &weighted);
        return out;
    }
    return 0;
}

#define ES_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm
ES_COLL(Neighbor_allgather, 0, -1, es_bytes(sendcount, sendtype), const void *sendbuf, int sendcount,
        MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
ES_COLL(Neighbor_alltoall, 0, -1, es_bytes(sendcount, sendtype) * (uint64_t)es_out_degree(comm), const void *sendbuf,
        int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
#undef ES_ARGS
#define ES_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request
ES_COLL(Ineighbor_allgather, NB, -1, es_bytes(sendcount, sendtype), const void *sendbuf, int sendcount,
        MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
ES_COLL(Ineighbor_alltoall, NB, -1, es_bytes(sendcount, sendtype) * (uint64_t)es_out_degree(comm),
        const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
        MPI_Comm comm, MPI_Request *request)
#undef ES_ARGS
#define ES_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm
ES_COLL(Neighbor_allgatherv, 0, -1, es_bytes(sendcount, sendtype), const void *sendbuf, int sendcount,
        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype,
        MPI_Comm comm)
#undef ES_ARGS
#define ES_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request
ES_COLL(Ineighbor_allgatherv, NB, -1, es_bytes(sendcount, sendtype), const void *sendbuf, int sendcount,
        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype,
        MPI_Comm comm, MPI_Request *request)
#undef ES_ARGS
#define ES_ARGS sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm
ES_COLL(Neighbor_alltoallv, 0, -1, es_sum_bytes(sendcounts, sendtype, es_out_degree(comm)), const void *sendbuf,
        const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
#undef ES_ARGS
#define ES_ARGS sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request
ES_COLL(Ineighbor_alltoallv, NB, -1, es_sum_bytes(sendcounts, sendtype, es_out_degree(comm)), const void *sendbuf,
        const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
#undef ES_ARGS
#define ES_ARGS sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm
ES_COLL(Neighbor_alltoallw, 0, -1, 0, const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
        const MPI_Datatype recvtypes[], MPI_Comm comm)
#undef ES_ARGS
#define ES_ARGS sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request
ES_COLL(Ineighbor_alltoallw, NB, -1, 0, const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
        const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
#undef ES_ARGS
#undef NB
#undef NBIP
#undef NBIPR
#undef IP
#undef IPR

/*
 * Communicator constructors are collective over the parent (except MPI_Comm_create_group): they take a place
 * in its sequence, and the new communicator's id is a hash of (parent id, that place, a salt every member
 * shares, the MPI_COMM_WORLD rank of its rank 0), so all members agree on it without a message.
 */
#define ES_CTOR(name, salt, newc, ...)                                                                         \
    ES_EXPORT int MPI_##name(__VA_ARGS__)                                                                      \
    {                                                                                                          \
        if (!es_recording()) {                                                                                 \
            return PMPI_##name(ES_ARGS);                                                                       \
        }                                                                                                      \
        es_comm *e = es_find(comm);                                                                            \
        uint32_t parent = e->id, seq = e->seq++;                                                               \
        ES_T0(ES_OP_##name);                                                                                   \
        int rc = PMPI_##name(ES_ARGS);                                                                         \
        int64_t t1 = es_now();                                                                                 \
        if (rc == MPI_SUCCESS) {                                                                               \
            es_register(*(newc), parent, seq, (uint32_t)(salt), 0);                                               \
        }                                                                                                      \
        es_record(ES_OP_##name, ES_FLAG_COLLECTIVE | ES_FAILED(rc), parent, seq, -1, 0, es_t0, t1, ES_RA);     \
        return rc;                                                                                             \
    }
#define ES_ARGS comm, newcomm
ES_CTOR(Comm_dup, 1, newcomm, MPI_Comm comm, MPI_Comm *newcomm)
#undef ES_ARGS
#define ES_ARGS comm, info, newcomm
ES_CTOR(Comm_dup_with_info, 2, newcomm, MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
#undef ES_ARGS
#define ES_ARGS comm, color, key, newcomm
ES_CTOR(Comm_split, 3 + (uint32_t)color, newcomm, MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
#undef ES_ARGS
#define ES_ARGS comm, split_type, key, info, newcomm
ES_CTOR(Comm_split_type, 5 + (uint32_t)split_type, newcomm, MPI_Comm comm, int split_type, int key, MPI_Info info,
        MPI_Comm *newcomm)
#undef ES_ARGS
#define ES_ARGS comm, group, newcomm
ES_CTOR(Comm_create, 7, newcomm, MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
#undef ES_ARGS
#define ES_ARGS comm, ndims, dims, periods, reorder, comm_cart
ES_CTOR(Cart_create, 11, comm_cart, MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
        MPI_Comm *comm_cart)
#undef ES_ARGS
#define ES_ARGS comm, remain_dims, newcomm
ES_CTOR(Cart_sub, 13, newcomm, MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
#undef ES_ARGS

/* Collective over the group only: no place in the parent's sequence; members share the tag. */
ES_EXPORT int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    if (!es_recording()) {
        return PMPI_Comm_create_group(comm, group, tag, newcomm);
    }
    es_comm *e = es_find(comm);
    ES_T0(ES_OP_Comm_create_group);
    int rc = PMPI_Comm_create_group(comm, group, tag, newcomm);
    int64_t t1 = es_now();
    if (rc == MPI_SUCCESS) {
        es_register(*newcomm, e->id, 0xC0000000u, (uint32_t)tag, 0);
    }
    es_record(ES_OP_Comm_create_group, ES_FAILED(rc), e->id, (uint32_t)tag, -1, 0, es_t0, t1, ES_RA);
    return rc;
}

/*
 * Non-blocking: the new handle is valid only once the request completed, so the request is remembered (as an
 * MPI_Irecv's is) and the wait or test that completes it registers the communicator as MPI_Comm_dup would have.
 */
ES_EXPORT int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    if (!es_recording()) {
        return PMPI_Comm_idup(comm, newcomm, request);
    }
    es_comm *e = es_find(comm);
    uint32_t seq = e->seq++;
    ES_T0(ES_OP_Comm_idup);
    int rc = PMPI_Comm_idup(comm, newcomm, request);
    if (rc == MPI_SUCCESS) {
        es_req *q = es_req_track(*request, comm, e, MPI_PROC_NULL, 0, MPI_DATATYPE_NULL, es_t0);
        if (q != NULL) {
            q->kind = ES_REQ_IDUP;
            q->newcomm = newcomm;
            q->seq = seq;
        }
    }
    es_record(ES_OP_Comm_idup, ES_FLAG_COLLECTIVE | ES_FLAG_NONBLOCKING | ES_FAILED(rc), e->id, seq, -1, 0, es_t0,
              es_now(), ES_RA);
    return rc;
}

ES_EXPORT int MPI_Comm_free(MPI_Comm *comm)
{
    if (!es_recording()) {
        return PMPI_Comm_free(comm);
    }
    MPI_Comm c = *comm;
    es_comm *e = es_find(c);
    uint32_t id = e->id, seq = e->seq++;
    ES_T0(ES_OP_Comm_free);
    int rc = PMPI_Comm_free(comm);
    int64_t t1 = es_now();
    if (rc == MPI_SUCCESS) {
        es_unregister(c);
    }
    es_record(ES_OP_Comm_free, ES_FLAG_COLLECTIVE | ES_FAILED(rc), id, seq, -1, 0, es_t0, t1, ES_RA);
    return rc;
}

/* ---- one-sided communication ------------------------------------------------------------------------------- */

/*
 * A window is named as a communicator is, from the communicator it was made over (its id and MPI_Win_create's
 * place in its sequence), and registered in the meta file's table with its group's size, so MPI_Win_fence and
 * MPI_Win_free (collective over the window's group) join as instances of (window id, the window's own sequence):
 * Scalasca's wait at fence. Targets are translated to MPI_COMM_WORLD ranks through the window's group. A fixed
 * table; a window beyond it is recorded with the unknown id.
 */
typedef struct {
    MPI_Win handle;
    int used;          /* 0 never, 1 in use, 2 freed */
    uint32_t id;
    uint32_t seq;
    int *world;
    int size;
} es_win;

#define ES_WIN_SLOTS 256
static es_win es_wins[ES_WIN_SLOTS];
static es_win es_win_unknown = {0, 0, ES_COMM_UNKNOWN_ID, 0, NULL, 0};

static inline uint32_t es_win_home(MPI_Win w)
{
    return (uint32_t)((ES_HANDLE_KEY(w) * 0x9E3779B97F4A7C15ULL) >> 56) & (ES_WIN_SLOTS - 1);
}

static inline es_win *es_win_find(MPI_Win w)
{
    for (uint32_t n = 0, i = es_win_home(w); n < ES_WIN_SLOTS; n++, i = (i + 1) & (ES_WIN_SLOTS - 1)) {
        if (es_wins[i].used == 0) {
            break;
        }
        if (es_wins[i].used == 1 && es_wins[i].handle == w) {
            return &es_wins[i];
        }
    }
    return &es_win_unknown;
}

static inline int es_win_world(const es_win *w, int r)
{
    return (w->world != NULL && r >= 0 && r < w->size) ? w->world[r] : -1;
}

static void es_win_register(MPI_Win w, uint32_t parent_id, uint32_t parent_seq)
{
    MPI_Group g;
    int size = 0;
    int *world = NULL;
    if (PMPI_Win_get_group(w, &g) == MPI_SUCCESS) {
        PMPI_Group_size(g, &size);
        world = size > 0 ? es_world_of(g, size) : NULL;
        PMPI_Group_free(&g);
    }
    uint32_t id = es_name(parent_id, parent_seq, 17, world != NULL ? world[0] : -1);
    es_meta_comm(id, size);
    for (uint32_t n = 0, i = es_win_home(w); n < ES_WIN_SLOTS; n++, i = (i + 1) & (ES_WIN_SLOTS - 1)) {
        if (es_wins[i].used != 1) {
            es_wins[i] = (es_win){w, 1, id, 0, world, size};
            return;
        }
    }
    free(world); /* table full: calls on it are recorded with ES_COMM_UNKNOWN_ID */
}

ES_EXPORT int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    if (!es_recording()) {
        return PMPI_Win_create(base, size, disp_unit, info, comm, win);
    }
    es_comm *e = es_find(comm);
    uint32_t parent = e->id, seq = e->seq++;
    ES_T0(ES_OP_Win_create);
    int rc = PMPI_Win_create(base, size, disp_unit, info, comm, win);
    int64_t t1 = es_now();
    if (rc == MPI_SUCCESS) {
        es_win_register(*win, parent, seq);
    }
    es_record(ES_OP_Win_create, ES_FLAG_COLLECTIVE | ES_FAILED(rc), parent, seq, -1, size > 0 ? (uint64_t)size : 0,
              es_t0, t1, ES_RA);
    return rc;
}

ES_EXPORT int MPI_Win_free(MPI_Win *win)
{
    if (!es_recording()) {
        return PMPI_Win_free(win);
    }
    es_win *w = es_win_find(*win);
    uint32_t id = w->id, seq = w->seq++;
    ES_T0(ES_OP_Win_free);
    int rc = PMPI_Win_free(win);
    int64_t t1 = es_now();
    if (rc == MPI_SUCCESS && w != &es_win_unknown) {
        free(w->world);
        w->world = NULL;
        w->used = 2;
    }
    es_record(ES_OP_Win_free, ES_FLAG_COLLECTIVE | ES_FAILED(rc), id, seq, -1, 0, es_t0, t1, ES_RA);
    return rc;
}

ES_EXPORT int MPI_Win_fence(int assert, MPI_Win win)
{
    if (!es_recording()) {
        return PMPI_Win_fence(assert, win);
    }
    es_win *w = es_win_find(win);
    uint32_t seq = w->seq++;
    ES_T0(ES_OP_Win_fence);
    int rc = PMPI_Win_fence(assert, win);
    es_record(ES_OP_Win_fence, ES_FLAG_COLLECTIVE | ES_FAILED(rc), w->id, seq, -1, 0, es_t0, es_now(), ES_RA);
    return rc;
}

ES_EXPORT int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    if (!es_recording()) {
        return PMPI_Win_lock(lock_type, rank, assert, win);
    }
    ES_T0(ES_OP_Win_lock);
    int rc = PMPI_Win_lock(lock_type, rank, assert, win);
    int64_t t1 = es_now();
    es_win *w = es_win_find(win);
    es_record(ES_OP_Win_lock, ES_FAILED(rc), w->id, (uint32_t)lock_type, es_win_world(w, rank), 0, es_t0, t1, ES_RA);
    return rc;
}

ES_EXPORT int MPI_Win_unlock(int rank, MPI_Win win)
{
    if (!es_recording()) {
        return PMPI_Win_unlock(rank, win);
    }
    ES_T0(ES_OP_Win_unlock);
    int rc = PMPI_Win_unlock(rank, win);
    int64_t t1 = es_now();
    es_win *w = es_win_find(win);
    es_record(ES_OP_Win_unlock, ES_FAILED(rc), w->id, 0, es_win_world(w, rank), 0, es_t0, t1, ES_RA);
    return rc;
}

/* Put, Get, Accumulate: non-blocking by nature (complete at the next fence or unlock); bytes = the origin's. */
#define ES_RMA(name, ...)                                                                                        \
    ES_EXPORT int MPI_##name(__VA_ARGS__)                                                                        \
    {                                                                                                            \
        if (!es_recording()) {                                                                                   \
            return PMPI_##name(ES_ARGS);                                                                         \
        }                                                                                                        \
        ES_T0(ES_OP_##name);                                                                                     \
        int rc = PMPI_##name(ES_ARGS);                                                                           \
        int64_t t1 = es_now();                                                                                   \
        es_win *w = es_win_find(win);                                                                            \
        es_record(ES_OP_##name, ES_FLAG_NONBLOCKING | ES_FAILED(rc), w->id, 0, es_win_world(w, target_rank),     \
                  es_bytes(origin_count, origin_datatype), es_t0, t1, ES_RA);                                    \
        return rc;                                                                                               \
    }
#define ES_ARGS origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win
ES_RMA(Put, const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
       MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
ES_RMA(Get, void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
       int target_count, MPI_Datatype target_datatype, MPI_Win win)
#undef ES_ARGS
#define ES_ARGS origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, \
                op, win
ES_RMA(Accumulate, const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
       MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
#undef ES_ARGS

/*
 * The Fortran entry points: all of Open MPI's (its bindings call PMPI_ directly); of MPICH's only the mpi_f08 calls
 * that reach PMPI_ (its other bindings call the C MPI_ entry points above, which must not count them twice). The
 * table of which is where is at the top of es_mpi_fortran.c.
 */
#include "es_mpi_fortran.c"
