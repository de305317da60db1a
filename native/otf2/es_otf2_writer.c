/*
 * es_otf2_writer: reads an event stream in the "es-otf2 1" text form on standard input and writes it as an OTF2
 * archive (ARCHIVE_DIR/traces.otf2, traces.def, traces/) through the OTF2 library (libotf2, 3.x), which defines the
 * binary format. Deliberately thin: every definition and every event is made in Java (org.eventspace.trace.Otf2Writer
 * writes the stream, docs/TRACE-FORMAT.md "OTF2 export" describes it); this program only maps lines to OTF2 calls and
 * counts each location's events for its definition. Exit 0 on success; on bad input or an OTF2 error it names the
 * line and exits 1 (the Java side removes the half-written archive).
 *
 * Usage: es_otf2_writer ARCHIVE_DIR < stream
 *
 * The stream (one record a line, numbers in decimal, a name the rest of its line):
 *   es-otf2 1
 *   clock OFFSET_NS LENGTH_NS                      timer resolution 1 ns, times below are ns from OFFSET_NS
 *   node ID PARENT|-1 CLASS NAME                    system tree node
 *   group ID NODE NAME                              location group (an MPI process), type process
 *   location ID GROUP NAME                          location (a thread of the rank GROUP), type CPU thread;
 *                                                   location r is rank r's main thread, the MPI rank r
 *   region ID ROLE PARADIGM NAME                    ROLE function|point2point|barrier|one2all|all2one|all2all|
 *                                                   other; PARADIGM mpi|user
 *   comm ID N MEMBER... NAME                        a communicator over N ranks (the ranks' locations, in order)
 *   events
 *   e LOC T REGION | l LOC T REGION                 enter, leave
 *   s LOC T PEER COMM TAG BYTES | r ...             MpiSend, MpiRecv
 *   is LOC T PEER COMM TAG BYTES REQ                MpiIsend
 *   ic LOC T REQ                                    MpiIsendComplete
 *   ir LOC T REQ                                    MpiIrecvRequest
 *   iv LOC T PEER COMM TAG BYTES REQ                MpiIrecv
 *   cb LOC T                                        MpiCollectiveBegin
 *   ce LOC T OP COMM ROOT|-1 SENT RECEIVED          MpiCollectiveEnd, OP an OTF2 collective op name (ALLREDUCE)
 *   end
 * Every location's events must be in time order (checked here too: the library does not).
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#define ES_MAX_LINE (1 << 20)

static long es_line_no;

static void es_fail(const char *what)
{
    fprintf(stderr, "es_otf2_writer: line %ld: %s\n", es_line_no, what);
    exit(1);
}

static void es_check(OTF2_ErrorCode code, const char *what)
{
    if (code != OTF2_SUCCESS) {
        fprintf(stderr, "es_otf2_writer: line %ld: %s: %s (%s)\n", es_line_no, what, OTF2_Error_GetName(code),
                OTF2_Error_GetDescription(code));
        exit(1);
    }
}

static OTF2_FlushType es_pre_flush(void *user_data, OTF2_FileType file_type, OTF2_LocationRef location,
                                   void *caller_data, bool final)
{
    (void)user_data; (void)file_type; (void)location; (void)caller_data; (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp es_post_flush(void *user_data, OTF2_FileType file_type, OTF2_LocationRef location)
{
    (void)user_data; (void)file_type; (void)location;
    return 0;
}

static OTF2_FlushCallbacks es_flush = {.otf2_pre_flush = es_pre_flush, .otf2_post_flush = es_post_flush};

/* The definitions are kept until the events are written: a location's definition carries its event count. */
typedef struct {
    char kind;          /* 'n' node, 'g' group, 'l' location, 'r' region, 'c' comm */
    uint64_t id;
    int64_t ref;        /* node: parent (-1 none); group: node; location: group; region: role */
    int paradigm;       /* region */
    char *klass;        /* node: class name */
    char *name;
    uint32_t members;   /* comm */
    uint64_t *member;
} es_def;

static es_def *es_defs;
static size_t es_ndefs, es_capdefs;
static uint64_t *es_events;          /* per location id: events written */
static uint64_t *es_last_time;
static OTF2_EvtWriter **es_writers;
static uint64_t es_nlocations;       /* location ids are 0 .. es_nlocations - 1 */
static uint64_t es_ngroups;          /* ranks: group r and location r are rank r; later locations other threads */

static es_def *es_new_def(void)
{
    if (es_ndefs == es_capdefs) {
        es_capdefs = es_capdefs ? 2 * es_capdefs : 64;
        es_defs = realloc(es_defs, es_capdefs * sizeof *es_defs);
        if (es_defs == NULL) {
            es_fail("out of memory");
        }
    }
    es_def *d = &es_defs[es_ndefs++];
    memset(d, 0, sizeof *d);
    return d;
}

/* The next number of the line, or a failure naming what was expected. */
static int64_t es_num(char **p, const char *what)
{
    char *end;
    while (**p == ' ') {
        (*p)++;
    }
    int64_t v = strtoll(*p, &end, 10);
    if (end == *p || (*end != ' ' && *end != '\0')) {
        char msg[256];
        snprintf(msg, sizeof msg, "expected a number (%s) at \"%.40s\"", what, *p);
        es_fail(msg);
    }
    *p = end;
    return v;
}

static char *es_word(char **p, const char *what)
{
    while (**p == ' ') {
        (*p)++;
    }
    char *start = *p;
    while (**p != ' ' && **p != '\0') {
        (*p)++;
    }
    if (*p == start) {
        char msg[256];
        snprintf(msg, sizeof msg, "expected %s", what);
        es_fail(msg);
    }
    if (**p == ' ') {
        *(*p)++ = '\0';
    }
    return start;
}

static char *es_rest(char **p)
{
    while (**p == ' ') {
        (*p)++;
    }
    char *s = strdup(*p);
    if (s == NULL) {
        es_fail("out of memory");
    }
    return s;
}

static int es_role(const char *r)
{
    static const struct { const char *name; int role; } roles[] = {
        {"function", OTF2_REGION_ROLE_FUNCTION}, {"point2point", OTF2_REGION_ROLE_POINT2POINT},
        {"barrier", OTF2_REGION_ROLE_BARRIER}, {"one2all", OTF2_REGION_ROLE_COLL_ONE2ALL},
        {"all2one", OTF2_REGION_ROLE_COLL_ALL2ONE}, {"all2all", OTF2_REGION_ROLE_COLL_ALL2ALL},
        {"other", OTF2_REGION_ROLE_COLL_OTHER}};
    for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++) {
        if (strcmp(r, roles[i].name) == 0) {
            return roles[i].role;
        }
    }
    es_fail("unknown region role (expected function, point2point, barrier, one2all, all2one, all2all or other)");
    return 0;
}

static OTF2_CollectiveOp es_collective(const char *op)
{
    static const struct { const char *name; OTF2_CollectiveOp op; } ops[] = {
        {"BARRIER", OTF2_COLLECTIVE_OP_BARRIER}, {"BCAST", OTF2_COLLECTIVE_OP_BCAST},
        {"GATHER", OTF2_COLLECTIVE_OP_GATHER}, {"GATHERV", OTF2_COLLECTIVE_OP_GATHERV},
        {"SCATTER", OTF2_COLLECTIVE_OP_SCATTER}, {"SCATTERV", OTF2_COLLECTIVE_OP_SCATTERV},
        {"ALLGATHER", OTF2_COLLECTIVE_OP_ALLGATHER}, {"ALLGATHERV", OTF2_COLLECTIVE_OP_ALLGATHERV},
        {"ALLTOALL", OTF2_COLLECTIVE_OP_ALLTOALL}, {"ALLTOALLV", OTF2_COLLECTIVE_OP_ALLTOALLV},
        {"ALLTOALLW", OTF2_COLLECTIVE_OP_ALLTOALLW}, {"ALLREDUCE", OTF2_COLLECTIVE_OP_ALLREDUCE},
        {"REDUCE", OTF2_COLLECTIVE_OP_REDUCE}, {"REDUCE_SCATTER", OTF2_COLLECTIVE_OP_REDUCE_SCATTER},
        {"SCAN", OTF2_COLLECTIVE_OP_SCAN}, {"EXSCAN", OTF2_COLLECTIVE_OP_EXSCAN},
        {"REDUCE_SCATTER_BLOCK", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK},
        {"CREATE_HANDLE", OTF2_COLLECTIVE_OP_CREATE_HANDLE}, {"DESTROY_HANDLE", OTF2_COLLECTIVE_OP_DESTROY_HANDLE}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (strcmp(op, ops[i].name) == 0) {
            return ops[i].op;
        }
    }
    es_fail("unknown collective op (expected an OTF2_COLLECTIVE_OP_ name without the prefix, e.g. ALLREDUCE)");
    return 0;
}

/* The location's writer, after checking that the event is not earlier than the location's last. */
static OTF2_EvtWriter *es_at(OTF2_Archive *archive, int64_t loc, int64_t t)
{
    if (loc < 0 || (uint64_t)loc >= es_nlocations) {
        es_fail("event on an undefined location");
    }
    if (t < 0 || (uint64_t)t < es_last_time[loc]) {
        es_fail("event earlier than the location's previous one (each location's events must be in time order)");
    }
    es_last_time[loc] = (uint64_t)t;
    es_events[loc]++;
    if (es_writers[loc] == NULL) {
        es_writers[loc] = OTF2_Archive_GetEvtWriter(archive, (OTF2_LocationRef)loc);
        if (es_writers[loc] == NULL) {
            es_fail("OTF2_Archive_GetEvtWriter failed");
        }
    }
    return es_writers[loc];
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: es_otf2_writer ARCHIVE_DIR < stream (es-otf2 1)\n");
        return 2;
    }
    char *line = malloc(ES_MAX_LINE);
    if (line == NULL) {
        es_fail("out of memory");
    }
    uint64_t offset = 0, length = 0;
    int in_events = 0, ended = 0;
    OTF2_Archive *archive = NULL;
    while (fgets(line, ES_MAX_LINE, stdin) != NULL) {
        es_line_no++;
        size_t n = strlen(line);
        if (n > 0 && line[n - 1] == '\n') {
            line[--n] = '\0';
        } else if (!feof(stdin)) {
            es_fail("line longer than 1 MiB");
        }
        char *p = line;
        if (es_line_no == 1) {
            if (strcmp(line, "es-otf2 1") != 0) {
                es_fail("expected the header \"es-otf2 1\"");
            }
            continue;
        }
        if (ended) {
            es_fail("text after \"end\"");
        }
        char *kind = es_word(&p, "a record kind");
        if (!in_events) {
            if (strcmp(kind, "clock") == 0) {
                offset = (uint64_t)es_num(&p, "offset ns");
                length = (uint64_t)es_num(&p, "length ns");
            } else if (strcmp(kind, "node") == 0) {
                es_def *d = es_new_def();
                d->kind = 'n';
                d->id = (uint64_t)es_num(&p, "node id");
                d->ref = es_num(&p, "parent node id or -1");
                d->klass = strdup(es_word(&p, "a class name"));
                d->name = es_rest(&p);
            } else if (strcmp(kind, "group") == 0) {
                es_def *d = es_new_def();
                d->kind = 'g';
                d->id = (uint64_t)es_num(&p, "group id");
                if (d->id + 1 > es_ngroups) {
                    es_ngroups = d->id + 1;
                }
                d->ref = es_num(&p, "node id");
                d->name = es_rest(&p);
            } else if (strcmp(kind, "location") == 0) {
                es_def *d = es_new_def();
                d->kind = 'l';
                d->id = (uint64_t)es_num(&p, "location id");
                d->ref = es_num(&p, "group id");
                d->name = es_rest(&p);
                if (d->id + 1 > es_nlocations) {
                    es_nlocations = d->id + 1;
                }
            } else if (strcmp(kind, "region") == 0) {
                es_def *d = es_new_def();
                d->kind = 'r';
                d->id = (uint64_t)es_num(&p, "region id");
                d->ref = es_role(es_word(&p, "a region role"));
                char *paradigm = es_word(&p, "a paradigm (mpi or user)");
                if (strcmp(paradigm, "mpi") != 0 && strcmp(paradigm, "user") != 0) {
                    es_fail("unknown paradigm (expected mpi or user)");
                }
                d->paradigm = strcmp(paradigm, "mpi") == 0 ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER;
                d->name = es_rest(&p);
            } else if (strcmp(kind, "comm") == 0) {
                es_def *d = es_new_def();
                d->kind = 'c';
                d->id = (uint64_t)es_num(&p, "comm id");
                int64_t members = es_num(&p, "member count");
                if (members < 0 || members > (1 << 24)) {
                    es_fail("member count out of range");
                }
                d->members = (uint32_t)members;
                d->member = calloc((size_t)members + 1, sizeof(uint64_t));
                for (int64_t i = 0; i < members; i++) {
                    d->member[i] = (uint64_t)es_num(&p, "member rank");
                }
                d->name = es_rest(&p);
            } else if (strcmp(kind, "events") == 0) {
                in_events = 1;
                es_events = calloc(es_nlocations + 1, sizeof(uint64_t));
                es_last_time = calloc(es_nlocations + 1, sizeof(uint64_t));
                es_writers = calloc(es_nlocations + 1, sizeof(OTF2_EvtWriter *));
                archive = OTF2_Archive_Open(argv[1], "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                            OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
                if (archive == NULL) {
                    es_fail("OTF2_Archive_Open failed (does the archive exist already?)");
                }
                es_check(OTF2_Archive_SetFlushCallbacks(archive, &es_flush, NULL), "set flush callbacks");
                es_check(OTF2_Archive_SetSerialCollectiveCallbacks(archive), "set collective callbacks");
                es_check(OTF2_Archive_SetCreator(archive, "eventspace trace export --format otf2"), "set creator");
                es_check(OTF2_Archive_OpenEvtFiles(archive), "open event files");
            } else {
                es_fail("unknown definition (expected clock, node, group, location, region, comm or events)");
            }
            continue;
        }
        if (strcmp(kind, "end") == 0) {
            ended = 1;
            continue;
        }
        int64_t loc = es_num(&p, "location");
        int64_t t = es_num(&p, "time ns");
        OTF2_EvtWriter *w = es_at(archive, loc, t);
        OTF2_TimeStamp ts = offset + (uint64_t)t;
        if (strcmp(kind, "e") == 0) {
            es_check(OTF2_EvtWriter_Enter(w, NULL, ts, (OTF2_RegionRef)es_num(&p, "region")), "enter");
        } else if (strcmp(kind, "l") == 0) {
            es_check(OTF2_EvtWriter_Leave(w, NULL, ts, (OTF2_RegionRef)es_num(&p, "region")), "leave");
        } else if (strcmp(kind, "s") == 0 || strcmp(kind, "r") == 0 || strcmp(kind, "is") == 0
                   || strcmp(kind, "iv") == 0) {
            uint32_t peer = (uint32_t)es_num(&p, "peer");
            OTF2_CommRef comm = (OTF2_CommRef)es_num(&p, "comm");
            uint32_t tag = (uint32_t)es_num(&p, "tag");
            uint64_t bytes = (uint64_t)es_num(&p, "bytes");
            if (kind[0] == 's') {
                es_check(OTF2_EvtWriter_MpiSend(w, NULL, ts, peer, comm, tag, bytes), "MpiSend");
            } else if (kind[0] == 'r') {
                es_check(OTF2_EvtWriter_MpiRecv(w, NULL, ts, peer, comm, tag, bytes), "MpiRecv");
            } else {
                uint64_t req = (uint64_t)es_num(&p, "request");
                es_check(kind[1] == 's' ? OTF2_EvtWriter_MpiIsend(w, NULL, ts, peer, comm, tag, bytes, req)
                                        : OTF2_EvtWriter_MpiIrecv(w, NULL, ts, peer, comm, tag, bytes, req),
                         kind[1] == 's' ? "MpiIsend" : "MpiIrecv");
            }
        } else if (strcmp(kind, "ic") == 0) {
            es_check(OTF2_EvtWriter_MpiIsendComplete(w, NULL, ts, (uint64_t)es_num(&p, "request")), "MpiIsendComplete");
        } else if (strcmp(kind, "ir") == 0) {
            es_check(OTF2_EvtWriter_MpiIrecvRequest(w, NULL, ts, (uint64_t)es_num(&p, "request")), "MpiIrecvRequest");
        } else if (strcmp(kind, "cb") == 0) {
            es_check(OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, ts), "MpiCollectiveBegin");
        } else if (strcmp(kind, "ce") == 0) {
            OTF2_CollectiveOp op = es_collective(es_word(&p, "a collective op"));
            OTF2_CommRef comm = (OTF2_CommRef)es_num(&p, "comm");
            int64_t root = es_num(&p, "root or -1");
            uint64_t sent = (uint64_t)es_num(&p, "bytes sent");
            uint64_t received = (uint64_t)es_num(&p, "bytes received");
            es_check(OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, ts, op, comm,
                                                     root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)root, sent, received),
                     "MpiCollectiveEnd");
        } else {
            es_fail("unknown event (expected e, l, s, r, is, ic, ir, iv, cb, ce or end)");
        }
    }
    if (!ended) {
        es_fail("the stream ended before \"end\"");
    }

    for (uint64_t loc = 0; loc < es_nlocations; loc++) {
        if (es_writers[loc] != NULL) {
            es_check(OTF2_Archive_CloseEvtWriter(archive, es_writers[loc]), "close event writer");
        }
    }
    es_check(OTF2_Archive_CloseEvtFiles(archive), "close event files");
    /* One (empty) local definition file per location: readers expect them beside the global one. */
    es_check(OTF2_Archive_OpenDefFiles(archive), "open definition files");
    for (uint64_t loc = 0; loc < es_nlocations; loc++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(archive, (OTF2_LocationRef)loc);
        if (dw == NULL) {
            es_fail("OTF2_Archive_GetDefWriter failed");
        }
        es_check(OTF2_Archive_CloseDefWriter(archive, dw), "close definition writer");
    }
    es_check(OTF2_Archive_CloseDefFiles(archive), "close definition files");

    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(archive);
    if (g == NULL) {
        es_fail("OTF2_Archive_GetGlobalDefWriter failed");
    }
    es_check(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, offset, length, OTF2_UNDEFINED_TIMESTAMP),
             "clock properties");
    OTF2_StringRef strings = 0;
    es_check(OTF2_GlobalDefWriter_WriteString(g, strings++, ""), "string");
    es_check(OTF2_GlobalDefWriter_WriteString(g, strings, "MPI"), "string");
    es_check(OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, strings++, OTF2_PARADIGM_CLASS_PROCESS),
             "paradigm");
    for (size_t k = 0; k < 4; k++) { /* nodes, groups, locations, regions: each kind after what it names */
        const char kinds[] = "nglr";
        for (size_t i = 0; i < es_ndefs; i++) {
            es_def *d = &es_defs[i];
            if (d->kind != kinds[k]) {
                continue;
            }
            OTF2_StringRef name = strings++;
            es_check(OTF2_GlobalDefWriter_WriteString(g, name, d->name), "string");
            switch (d->kind) {
            case 'n': {
                OTF2_StringRef klass = strings++;
                es_check(OTF2_GlobalDefWriter_WriteString(g, klass, d->klass), "string");
                es_check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, d->id, name, klass,
                             d->ref < 0 ? OTF2_UNDEFINED_SYSTEM_TREE_NODE : (OTF2_SystemTreeNodeRef)d->ref),
                         "system tree node");
                break;
            }
            case 'g':
                es_check(OTF2_GlobalDefWriter_WriteLocationGroup(g, d->id, name, OTF2_LOCATION_GROUP_TYPE_PROCESS,
                             (OTF2_SystemTreeNodeRef)d->ref, OTF2_UNDEFINED_LOCATION_GROUP), "location group");
                break;
            case 'l':
                es_check(OTF2_GlobalDefWriter_WriteLocation(g, d->id, name, OTF2_LOCATION_TYPE_CPU_THREAD,
                             es_events[d->id], (OTF2_LocationGroupRef)d->ref), "location");
                break;
            case 'r':
                es_check(OTF2_GlobalDefWriter_WriteRegion(g, d->id, name, name, 0, (OTF2_RegionRole)d->ref,
                             (OTF2_Paradigm)d->paradigm, OTF2_REGION_FLAG_NONE, 0, 0, 0), "region");
                break;
            default:
                break;
            }
        }
        if (kinds[k] == 'r') {
            /* MPI ranks -> locations (rank r is location r), then each communicator's group over those ranks. */
            uint64_t *all = calloc(es_ngroups + 1, sizeof(uint64_t));
            for (uint64_t r = 0; r < es_ngroups; r++) {
                all[r] = r;
            }
            OTF2_StringRef name = strings++;
            es_check(OTF2_GlobalDefWriter_WriteString(g, name, "MPI ranks"), "string");
            es_check(OTF2_GlobalDefWriter_WriteGroup(g, 0, name, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                         OTF2_GROUP_FLAG_NONE, (uint32_t)es_ngroups, all), "group of MPI locations");
            free(all);
        }
    }
    /* Communicators last: group i + 1 for the i-th, after the locations group 0. */
    OTF2_GroupRef group = 1;
    for (size_t i = 0; i < es_ndefs; i++) {
        es_def *d = &es_defs[i];
        if (d->kind != 'c') {
            continue;
        }
        OTF2_StringRef gname = strings++;
        es_check(OTF2_GlobalDefWriter_WriteString(g, gname, d->name), "string");
        es_check(OTF2_GlobalDefWriter_WriteGroup(g, group, gname, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                     OTF2_GROUP_FLAG_NONE, d->members, d->member), "communicator group");
        es_check(OTF2_GlobalDefWriter_WriteComm(g, d->id, gname, group, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE),
                 "communicator");
        group++;
    }
    es_check(OTF2_Archive_CloseGlobalDefWriter(archive, g), "close global definition writer");
    es_check(OTF2_Archive_Close(archive), "close archive");
    free(line);
    return 0;
}
