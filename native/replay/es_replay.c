/* es_replay.c - re-issues one rank's part of a compressed MPI trace under mpirun (ScalaTrace's replay, Ratn et al.
 * ICS 2008 §3.4: the compressed trace is interpreted, loops as loops, never expanded).
 *
 * Usage: es_replay DIR
 *   reads DIR/rank-R.program (R: this rank, from OMPI_COMM_WORLD_RANK or PMI_RANK, read before MPI_Init so the
 *   parse is not timed), the form org.eventspace.mpi.MpiReplayProgram writes and docs/MPI.md "Replay on MPI"
 *   documents ("eventspace.mpi-replay/1"), and writes DIR/rank-R.report after MPI_Finalize: its wall time from
 *   before MPI_Init to after MPI_Finalize, the compute it waited, and its calls per op.
 *
 * The C stays thin: Java decided every parameter (absolute peers, tags, bytes per occurrence, which delta to wait)
 * and refused what this cannot issue; this only walks the program. Payloads are never checked: a replay re-issues
 * the calls, not the data (one send and one receive buffer of the largest call serve every call).
 * Compute deltas are waited by spinning on CLOCK_MONOTONIC to deadlines, lateness carried as a debt and taken off
 * the next deadline, as trace/Replay.java does. Nonblocking calls keep their requests in a FIFO table: a wait
 * completes the oldest one, a waitall the N oldest (N: the request count the trace kept). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FORMAT "eventspace.mpi-replay/1"

enum {
    OP_INIT, OP_INIT_THREAD, OP_FINALIZE, OP_SEND, OP_BSEND, OP_SSEND, OP_RSEND, OP_ISEND, OP_IBSEND, OP_ISSEND,
    OP_IRSEND, OP_RECV, OP_IRECV, OP_SENDRECV, OP_SENDRECV_REPLACE, OP_WAIT, OP_WAITALL, OP_PROBE, OP_IPROBE,
    OP_BARRIER, OP_BCAST, OP_REDUCE, OP_ALLREDUCE, OP_SCAN, OP_EXSCAN, OP_GATHER, OP_GATHERV, OP_SCATTER,
    OP_SCATTERV, OP_ALLGATHER, OP_ALLGATHERV, OP_ALLTOALL, OP_ALLTOALLV, OP_COUNT
};
static const char *OP_NAMES[OP_COUNT] = {
    "mpi_init", "mpi_init_thread", "mpi_finalize", "mpi_send", "mpi_bsend", "mpi_ssend", "mpi_rsend", "mpi_isend",
    "mpi_ibsend", "mpi_issend", "mpi_irsend", "mpi_recv", "mpi_irecv", "mpi_sendrecv", "mpi_sendrecv_replace",
    "mpi_wait", "mpi_waitall", "mpi_probe", "mpi_iprobe", "mpi_barrier", "mpi_bcast", "mpi_reduce", "mpi_allreduce",
    "mpi_scan", "mpi_exscan", "mpi_gather", "mpi_gatherv", "mpi_scatter", "mpi_scatterv", "mpi_allgather",
    "mpi_allgatherv", "mpi_alltoall", "mpi_alltoallv"};

enum { KIND_LOOP, KIND_END, KIND_CALL };

/* One histogram's draws (DeltaSampler.Draw): position walks n sample positions by step; bins by frequency. */
typedef struct {
    long prev; /* the previous call's site this histogram is for (path encoding), or -1: any */
    long n, step, pos;
    int k;
    long *freq, *avg;
} table_t;

typedef struct {
    int kind;
    long iters; /* loop */
    int end;    /* loop: index of its END; END: index of its LOOP */
    int op;
    long site, peer, tag, root;
    int nruns;
    long *runs; /* value, length pairs: this rank's bytes occurrence by occurrence */
    int run_i;
    long run_left;
    long mean;
    int ntables;
    table_t *tables;
} ins_t;

static void die(const char *file, long line, const char *what)
{
    fprintf(stderr, "es_replay: %s: line %ld: %s\n", file, line, what);
    exit(2);
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static long next_long(FILE *f, const char *file, long line)
{
    long v;
    if (fscanf(f, "%ld", &v) != 1) {
        die(file, line, "expected an integer");
    }
    return v;
}

static ins_t *prog;
static int nprog;
static long buffer_bytes, expected_calls;
static int rank_of_file, ranks_of_file;

static void load(const char *file)
{
    FILE *f = fopen(file, "r");
    if (f == NULL) {
        perror(file);
        exit(2);
    }
    char word[64];
    long line = 1;
    if (fscanf(f, "%63s", word) != 1 || strcmp(word, FORMAT) != 0) {
        die(file, line, "expected the header " FORMAT);
    }
    rank_of_file = (int)next_long(f, file, line);
    ranks_of_file = (int)next_long(f, file, line);
    buffer_bytes = next_long(f, file, line);
    expected_calls = next_long(f, file, line);
    nprog = (int)next_long(f, file, line);
    if (nprog < 0 || buffer_bytes < 0) {
        die(file, line, "expected counts >= 0");
    }
    prog = calloc((size_t)nprog + 1, sizeof(ins_t));
    int stack[256], depth = 0;
    for (int i = 0; i < nprog; i++) {
        line++;
        ins_t *p = &prog[i];
        if (fscanf(f, "%63s", word) != 1) {
            die(file, line, "expected loop, end or call");
        }
        if (strcmp(word, "loop") == 0) {
            p->kind = KIND_LOOP;
            p->iters = next_long(f, file, line);
            if (depth == 256) {
                die(file, line, "loops nested deeper than 256");
            }
            stack[depth++] = i;
        } else if (strcmp(word, "end") == 0) {
            p->kind = KIND_END;
            if (depth == 0) {
                die(file, line, "end without loop");
            }
            p->end = stack[--depth];
            prog[p->end].end = i;
        } else if (strcmp(word, "call") == 0) {
            p->kind = KIND_CALL;
            if (fscanf(f, "%63s", word) != 1) {
                die(file, line, "expected an op name");
            }
            p->op = -1;
            for (int o = 0; o < OP_COUNT; o++) {
                if (strcmp(word, OP_NAMES[o]) == 0) {
                    p->op = o;
                }
            }
            if (p->op < 0) {
                die(file, line, "an op this replayer does not issue (the Java side should have refused it)");
            }
            p->site = next_long(f, file, line);
            p->peer = next_long(f, file, line);
            p->tag = next_long(f, file, line);
            p->root = next_long(f, file, line);
            p->nruns = (int)next_long(f, file, line);
            if (p->nruns < 1) {
                die(file, line, "expected at least one run of bytes");
            }
            p->runs = malloc(sizeof(long) * 2 * (size_t)p->nruns);
            for (int r = 0; r < 2 * p->nruns; r++) {
                p->runs[r] = next_long(f, file, line);
            }
            p->run_left = p->runs[1];
            p->mean = next_long(f, file, line);
            p->ntables = (int)next_long(f, file, line);
            p->tables = calloc((size_t)p->ntables + 1, sizeof(table_t));
            for (int t = 0; t < p->ntables; t++) {
                table_t *h = &p->tables[t];
                h->prev = next_long(f, file, line);
                h->n = next_long(f, file, line);
                h->step = next_long(f, file, line);
                h->pos = next_long(f, file, line);
                h->k = (int)next_long(f, file, line);
                if (h->n < 1 || h->k < 1) {
                    die(file, line, "expected a histogram of n >= 1 samples in k >= 1 bins");
                }
                h->freq = malloc(sizeof(long) * (size_t)h->k);
                h->avg = malloc(sizeof(long) * (size_t)h->k);
                for (int b = 0; b < h->k; b++) {
                    h->freq[b] = next_long(f, file, line);
                    h->avg[b] = next_long(f, file, line);
                }
            }
        } else {
            die(file, line, "expected loop, end or call");
        }
    }
    if (depth != 0) {
        die(file, line, "a loop without its end");
    }
    fclose(f);
}

/* This occurrence's bytes; then on to the next (CountRuns). */
static long bytes_of(ins_t *p)
{
    long v = p->runs[2 * p->run_i];
    if (--p->run_left == 0 && p->run_i + 1 < p->nruns) {
        p->run_i++;
        p->run_left = p->runs[2 * p->run_i + 1];
    }
    return v;
}

/* DeltaSampler's choice: the histogram of any previous site, else of this one, else the mean. */
static long delta_of(ins_t *p, long previous_site)
{
    table_t *h = NULL;
    for (int t = 0; t < p->ntables && h == NULL; t++) {
        if (p->tables[t].prev == -1 || p->tables[t].prev == previous_site) {
            h = &p->tables[t];
        }
    }
    if (h == NULL) {
        return p->mean;
    }
    long sample = h->pos;
    h->pos += h->step;
    if (h->pos >= h->n) {
        h->pos -= h->n;
    }
    for (int b = 0; b < h->k; b++) {
        sample -= h->freq[b];
        if (sample < 0) {
            return h->avg[b];
        }
    }
    return h->avg[h->k - 1];
}

static MPI_Request *requests;
static int req_head, req_count, req_capacity;

static MPI_Request *push_request(void)
{
    if (req_count == req_capacity) {
        int cap = req_capacity == 0 ? 64 : 2 * req_capacity;
        MPI_Request *r = malloc(sizeof(MPI_Request) * (size_t)cap);
        for (int i = 0; i < req_count; i++) {
            r[i] = requests[(req_head + i) % req_capacity];
        }
        free(requests);
        requests = r;
        req_head = 0;
        req_capacity = cap;
    }
    return &requests[(req_head + req_count++) % req_capacity];
}

static void complete_oldest(int n)
{
    for (int i = 0; i < n && req_count > 0; i++) {
        MPI_Wait(&requests[req_head], MPI_STATUS_IGNORE);
        req_head = (req_head + 1) % req_capacity;
        req_count--;
    }
}

static char *sbuf, *rbuf;
static int world_size;
static int *vcounts, *vdispls;

static int src_of(long peer)
{
    return peer == -2 ? MPI_PROC_NULL : peer < 0 ? MPI_ANY_SOURCE : (int)peer;
}

static int tag_of(long tag)
{
    return tag < 0 ? MPI_ANY_TAG : (int)tag;
}

static void equal_counts(int bytes)
{
    for (int i = 0; i < world_size; i++) {
        vcounts[i] = bytes;
        vdispls[i] = i * bytes;
    }
}

static void issue(ins_t *p, int bytes)
{
    MPI_Comm c = MPI_COMM_WORLD;
    int peer = src_of(p->peer), tag = (int)p->tag, root = (int)p->root;
    int big = (int)(buffer_bytes < 0x7fffffff ? buffer_bytes : 0x7fffffff);
    switch (p->op) {
    case OP_INIT: case OP_INIT_THREAD: case OP_FINALIZE:
        break; /* issued by main, around the program */
    case OP_SEND: case OP_BSEND: case OP_RSEND:
        MPI_Send(sbuf, bytes, MPI_BYTE, peer, tag, c);
        break;
    case OP_SSEND:
        MPI_Ssend(sbuf, bytes, MPI_BYTE, peer, tag, c);
        break;
    case OP_ISEND: case OP_IBSEND: case OP_IRSEND:
        MPI_Isend(sbuf, bytes, MPI_BYTE, peer, tag, c, push_request());
        break;
    case OP_ISSEND:
        MPI_Issend(sbuf, bytes, MPI_BYTE, peer, tag, c, push_request());
        break;
    case OP_RECV:
        MPI_Recv(rbuf, bytes, MPI_BYTE, peer, tag_of(p->tag), c, MPI_STATUS_IGNORE);
        break;
    case OP_IRECV:
        MPI_Irecv(rbuf, bytes, MPI_BYTE, peer, tag_of(p->tag), c, push_request());
        break;
    case OP_SENDRECV: case OP_SENDRECV_REPLACE:
        /* the receive half's source and tag are not in the trace: any source, the send's tag, any size up to the buffer */
        MPI_Sendrecv(sbuf, bytes, MPI_BYTE, peer, tag, rbuf, big, MPI_BYTE, p->peer == -2 ? MPI_PROC_NULL : MPI_ANY_SOURCE,
                     tag, c, MPI_STATUS_IGNORE);
        break;
    case OP_WAIT:
        complete_oldest(1);
        break;
    case OP_WAITALL:
        complete_oldest(tag);
        break;
    case OP_PROBE:
        MPI_Probe(peer, tag_of(p->tag), c, MPI_STATUS_IGNORE);
        break;
    case OP_IPROBE: {
        int flag;
        MPI_Iprobe(peer, tag_of(p->tag), c, &flag, MPI_STATUS_IGNORE);
        break;
    }
    case OP_BARRIER:
        MPI_Barrier(c);
        break;
    case OP_BCAST:
        MPI_Bcast(sbuf, bytes, MPI_BYTE, root, c);
        break;
    case OP_REDUCE:
        MPI_Reduce(sbuf, rbuf, bytes, MPI_BYTE, MPI_BOR, root, c);
        break;
    case OP_ALLREDUCE:
        MPI_Allreduce(sbuf, rbuf, bytes, MPI_BYTE, MPI_BOR, c);
        break;
    case OP_SCAN:
        MPI_Scan(sbuf, rbuf, bytes, MPI_BYTE, MPI_BOR, c);
        break;
    case OP_EXSCAN:
        MPI_Exscan(sbuf, rbuf, bytes, MPI_BYTE, MPI_BOR, c);
        break;
    case OP_GATHER:
        MPI_Gather(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, root, c);
        break;
    case OP_GATHERV:
        equal_counts(bytes);
        MPI_Gatherv(sbuf, bytes, MPI_BYTE, rbuf, vcounts, vdispls, MPI_BYTE, root, c);
        break;
    case OP_SCATTER:
        MPI_Scatter(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, root, c);
        break;
    case OP_SCATTERV:
        equal_counts(bytes);
        MPI_Scatterv(sbuf, vcounts, vdispls, MPI_BYTE, rbuf, bytes, MPI_BYTE, root, c);
        break;
    case OP_ALLGATHER:
        MPI_Allgather(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, c);
        break;
    case OP_ALLGATHERV:
        equal_counts(bytes);
        MPI_Allgatherv(sbuf, bytes, MPI_BYTE, rbuf, vcounts, vdispls, MPI_BYTE, c);
        break;
    case OP_ALLTOALL:
        MPI_Alltoall(sbuf, bytes / world_size, MPI_BYTE, rbuf, bytes / world_size, MPI_BYTE, c);
        break;
    case OP_ALLTOALLV:
        equal_counts(bytes / world_size);
        MPI_Alltoallv(sbuf, vcounts, vdispls, MPI_BYTE, rbuf, vcounts, vdispls, MPI_BYTE, c);
        break;
    default:
        fprintf(stderr, "es_replay: op %d not issued\n", p->op);
        MPI_Abort(c, 2);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: es_replay DIR (reads DIR/rank-R.program, writes DIR/rank-R.report)\n");
        return 2;
    }
    const char *env = getenv("OMPI_COMM_WORLD_RANK");
    if (env == NULL) {
        env = getenv("PMI_RANK");
    }
    if (env == NULL) {
        fprintf(stderr, "es_replay: neither OMPI_COMM_WORLD_RANK nor PMI_RANK is set: run it under mpirun\n");
        return 2;
    }
    int rank = atoi(env);
    char file[4096];
    snprintf(file, sizeof file, "%s/rank-%d.program", argv[1], rank);
    load(file);
    if (rank_of_file != rank) {
        die(file, 1, "the program is another rank's");
    }
    sbuf = calloc((size_t)buffer_bytes + 1, 1);
    rbuf = calloc((size_t)buffer_bytes + 1, 1);

    int64_t start = now_ns();
    MPI_Init(&argc, &argv);
    int64_t last_end = now_ns();
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (world_size != ranks_of_file) {
        fprintf(stderr, "es_replay: %s is for %d ranks, this job has %d\n", file, ranks_of_file, world_size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    vcounts = malloc(sizeof(int) * (size_t)world_size);
    vdispls = malloc(sizeof(int) * (size_t)world_size);

    long counts[OP_COUNT] = {0};
    long remaining[256];
    int depth = 0, finalized = 0;
    long previous_site = 0, calls = 0;
    int64_t debt = 0, compute = 0;
    for (int pc = 0; pc < nprog; pc++) {
        ins_t *p = &prog[pc];
        if (p->kind == KIND_LOOP) {
            if (p->iters <= 0) {
                pc = p->end;
            } else {
                remaining[depth++] = p->iters;
            }
            continue;
        }
        if (p->kind == KIND_END) {
            if (--remaining[depth - 1] > 0) {
                pc = p->end; /* back to the loop's first instruction */
            } else {
                depth--;
            }
            continue;
        }
        long delta = delta_of(p, previous_site);
        long bytes = bytes_of(p);
        if (delta < 0) {
            delta = 0;
        }
        compute += delta;
        int64_t target = last_end + delta - debt, now = now_ns();
        while (now < target) {
            now = now_ns();
        }
        debt = now - target;
        if (p->op == OP_FINALIZE) {
            MPI_Finalize();
            finalized = 1;
        } else if (p->op != OP_INIT && p->op != OP_INIT_THREAD) {
            issue(p, (int)bytes);
        }
        last_end = now_ns();
        previous_site = p->site;
        counts[p->op]++;
        calls++;
    }
    if (!finalized) {
        MPI_Finalize(); /* a trace cut before MPI_Finalize (a lost tail): the job still ends */
    }
    int64_t wall = now_ns() - start;
    snprintf(file, sizeof file, "%s/rank-%d.report", argv[1], rank);
    FILE *out = fopen(file, "w");
    if (out == NULL) {
        perror(file);
        return 2;
    }
    fprintf(out, "eventspace.mpi-replay-report/1\nrank %d\nwall_ns %lld\ncompute_ns %lld\ncalls %ld\n", rank,
            (long long)wall, (long long)compute, calls);
    for (int o = 0; o < OP_COUNT; o++) {
        if (counts[o] > 0) {
            fprintf(out, "op %s %ld\n", OP_NAMES[o], counts[o]);
        }
    }
    fclose(out);
    return calls == expected_calls ? 0 : 3;
}
