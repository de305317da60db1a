/*
 * es_mpi_layout.h - the bytes the interposition library writes, version 3 (version 2 had one ring per rank, at most
 * ES_META_COMMS_MAX communicators and no clock error bounds; version 1 no receive records and no untracked-request
 * counter).
 *
 * Every number here is also a constant of the Java side; MpiLayoutHeaderTest (mpi module) parses this file
 * and fails the build if one differs from org.eventspace.events.TraceTupleLayout / TraceBufferLayout or from
 * org.eventspace.mpi.MpiOp, MpiTuple and MpiRankMetaLayout. Change both sides together, never renumber an op.
 *
 * Per rank, in $ES_MPI_DIR/host-<host>/:
 *   rank-<R>.trace  a trace buffer exactly as TraceBufferLayout describes (magic "ESTB", version 1, 128-byte header,
 *                   48-byte slots = seqlock + 40-byte trace tuple), collector id ES_MPI_COLLECTOR_BASE + R,
 *                   readable by TraceBufferReader.open like any mapped event-space buffer.
 *   rank-<R>.meta   ES_META_LENGTH bytes (magic "ESMR"): rank, size, host, state, clock offsets measured at
 *                   MPI_Init and MPI_Finalize with their error bounds, the MPI_Irecv requests its table could not
 *                   track, per op the exact call and byte counters (the rings may overwrite tuples; the counters
 *                   never lose a call), the number of thread rings, and the first ES_META_COMMS_MAX communicators
 *                   this rank joined as (id, size) pairs, so a reader knows when every member of a collective
 *                   instance has arrived; and how the rank ended (MPI_Abort's code, the fatal signal and the call
 *                   it arrived in, the exit status), so a crash names its rank.
 *   rank-<R>.comms  the communicators past the first ES_META_COMMS_MAX, (id, size) pairs appended in order
 *                   (written only when a rank joins more).
 *   rank-<R>.t<N>.trace  under MPI_THREAD_MULTIPLE, the ring of the N-th other thread that called MPI (a trace
 *                   buffer as rank-<R>.trace, same collector id); a ring of a thread that ended passes to the next
 *                   new thread.
 *
 * An MPI trace tuple uses the 40-byte TraceTupleLayout with these meanings:
 *   collector id (int)  call-site signature: the caller's return address minus the load base of the object it is
 *                       in (the executable, or a shared library XOR a hash of its file name), truncated to 32 bits:
 *                       the same on every rank of one program, wherever its libraries were mapped
 *   op type (short)     ES_OP_* below (256 and up: TraceOp's codes for MPI calls)
 *   flags (short)       ES_FLAG_* below
 *   sequence (long)     communicator id << 32 | low word: for a collective (and a communicator constructor) the
 *                       communicator's collective call sequence, the same on every member (the join key of one
 *                       collective instance); for point-to-point the tag (the actual one for a receive);
 *                       for waits and tests the number of requests. One-sided calls use the window's id as
 *                       communicator id (a window is named like a communicator, from the one it was made over):
 *                       MPI_Win_fence and MPI_Win_free take a place in the window's collective sequence,
 *                       MPI_Win_lock the lock type, MPI_Put/Get/Accumulate 0; their peer is the target
 *   value (long)        peer << 40 | bytes: bytes (40 bits, saturating) this rank sends (for a receive: receives);
 *                       peer = 1 + the MPI_COMM_WORLD rank of the destination, source or root, 0 = none or unknown
 *   start, end (long)   CLOCK_MONOTONIC ns at entry and exit (the clock System.nanoTime reads)
 *
 * A receive record (op type ES_REC_RECEIVE) is not a call and bumps no counter: it says that a receive completed
 * inside the call around it, so late senders can be found where PMPI cannot name the receive by its call alone.
 *   flags               ES_FLAG_NONBLOCKING: an MPI_Irecv completed by a wait or test (the call this record is
 *                       written after); else the receive half of MPI_Sendrecv / MPI_Sendrecv_replace
 *   collector id        nonblocking: the low 32 bits of the MPI_Irecv's start (its tuple's start field), which
 *                       links the two; else the call-site signature
 *   sequence            communicator id << 32 | the tag received (from the status)
 *   value               (1 + MPI_COMM_WORLD rank of the source that matched) << 40 | bytes received
 *   start, end          entry and exit of the call that completed the receive (the wait, test or sendrecv); every
 *                       receive one wait completed carries the same two
 *
 * A collective completion record (op type ES_REC_COLLECTIVE_DONE) is not a call either: a non-blocking collective
 * (or MPI_Comm_idup) completed inside the wait or test before it.
 *   collector id        the low 32 bits of the i-call's start (its tuple's start field), which links the two
 *   sequence            communicator id << 32 | the i-call's place in the communicator's collective sequence
 *   value               0
 *   start, end          entry and exit of the wait or test that completed it
 */
#ifndef ES_MPI_LAYOUT_H
#define ES_MPI_LAYOUT_H

/* TraceTupleLayout */
#define ES_TUPLE_COLLECTOR_ID_OFFSET 0
#define ES_TUPLE_OP_TYPE_OFFSET 4
#define ES_TUPLE_FLAGS_OFFSET 6
#define ES_TUPLE_SEQUENCE_OFFSET 8
#define ES_TUPLE_VALUE_OFFSET 16
#define ES_TUPLE_START_NS_OFFSET 24
#define ES_TUPLE_END_NS_OFFSET 32
#define ES_TUPLE_LENGTH 40

/* TraceBufferLayout */
#define ES_BUFFER_MAGIC 0x42545345
#define ES_BUFFER_VERSION 1
#define ES_BUFFER_LITTLE_ENDIAN 0
#define ES_BUFFER_BIG_ENDIAN 1
#define ES_BUFFER_MAGIC_OFFSET 0
#define ES_BUFFER_VERSION_OFFSET 4
#define ES_BUFFER_BYTE_ORDER_OFFSET 6
#define ES_BUFFER_TUPLE_LENGTH_OFFSET 8
#define ES_BUFFER_SLOT_LENGTH_OFFSET 12
#define ES_BUFFER_CAPACITY_OFFSET 16
#define ES_BUFFER_COLLECTOR_ID_OFFSET 20
#define ES_BUFFER_WRITE_POSITION_OFFSET 64
#define ES_BUFFER_HEADER_LENGTH 128
#define ES_BUFFER_SLOT_SEQUENCE_OFFSET 0
#define ES_BUFFER_SLOT_TUPLE_OFFSET 8
#define ES_BUFFER_SLOT_LENGTH 48
#define ES_BUFFER_MIN_CAPACITY 2
#define ES_BUFFER_MAX_CAPACITY 16777216

/* MpiTuple */
#define ES_MPI_COLLECTOR_BASE 268435456
#define ES_VALUE_BYTES_BITS 40
#define ES_SEQUENCE_COMM_SHIFT 32
#define ES_COMM_WORLD_ID 0
#define ES_COMM_SELF_ID 1
#define ES_COMM_UNKNOWN_ID 0xFFFFFFFF
#define ES_FLAG_FAILED 1
#define ES_FLAG_FORTRAN 8
#define ES_FLAG_NONBLOCKING 16
#define ES_FLAG_COLLECTIVE 32
#define ES_FLAG_IN_PLACE 64
/* the call's peer is MPI_PROC_NULL (its peer field says none): a no-op transfer, 0 bytes */
#define ES_FLAG_PROC_NULL 128
#define ES_REC_RECEIVE 1024
/* a non-blocking collective completed inside the call before it (ES_REC_COLLECTIVE_DONE below) */
#define ES_REC_COLLECTIVE_DONE 1025

/* MpiRankMetaLayout: little-endian on the hosts we run on; the byte order byte says which. */
#define ES_META_MAGIC 0x524d5345
#define ES_META_VERSION 3
/*
 * Clock synchronisation at MPI_Init and MPI_Finalize, along a binomial tree over MPI_COMM_WORLD (rank r > 0 syncs
 * with its parent r - (r & -r), after the parent synced with its own): ES_SYNC_ROUNDS ping-pongs per rank with its
 * parent, the ping one int64 (ES_SYNC_PING_BYTES), the pong three (ES_SYNC_PONG_BYTES: the parent's clock, its
 * offset to rank 0 and that offset's error bound).
 */
#define ES_SYNC_ROUNDS 10
#define ES_SYNC_PING_BYTES 8
#define ES_SYNC_PONG_BYTES 24
#define ES_META_MAGIC_OFFSET 0
#define ES_META_VERSION_OFFSET 4
#define ES_META_BYTE_ORDER_OFFSET 6
#define ES_META_STATE_OFFSET 8
#define ES_META_RANK_OFFSET 12
#define ES_META_SIZE_OFFSET 16
#define ES_META_HOST_INDEX_OFFSET 20
#define ES_META_PID_OFFSET 24
#define ES_META_OP_COUNT_OFFSET 28
#define ES_META_INIT_NS_OFFSET 32
#define ES_META_FINALIZE_NS_OFFSET 40
#define ES_META_INIT_OFFSET_NS_OFFSET 48
#define ES_META_INIT_RTT_NS_OFFSET 56
#define ES_META_FINALIZE_OFFSET_NS_OFFSET 64
#define ES_META_FINALIZE_RTT_NS_OFFSET 72
#define ES_META_UNTRACED_CALLS_OFFSET 80
#define ES_META_CLOCK_SKEW_NS_OFFSET 88
#define ES_META_HOSTNAME_OFFSET 96
#define ES_META_HOSTNAME_LENGTH 64
#define ES_META_UNTRACKED_REQUESTS_OFFSET 160
/* error bounds of the offsets to rank 0: half the round trip to the parent plus the parent's bound */
#define ES_META_INIT_ERROR_NS_OFFSET 168
#define ES_META_FINALIZE_ERROR_NS_OFFSET 176
/* rings of threads other than the one that initialised MPI: rank-<R>.t<N>.trace for N = 1 .. this count */
#define ES_META_THREAD_RINGS_OFFSET 184
/* communicators that could not be written to rank-<R>.comms (the list past ES_META_COMMS_MAX) */
#define ES_META_COMMS_LOST_OFFSET 188
#define ES_META_COUNTERS_OFFSET 192
#define ES_META_COUNTER_LENGTH 16
/* communicators joined: the first ES_META_COMMS_MAX here, the rest in rank-<R>.comms; the count covers both */
#define ES_META_COMMS_COUNT_OFFSET 2048
#define ES_META_COMMS_OFFSET 2056
#define ES_META_COMM_LENGTH 8
#define ES_META_COMMS_MAX 255
#define ES_META_LENGTH 4096
#define ES_META_STATE_RUNNING 1
#define ES_META_STATE_FINALIZED 2
#define ES_META_NO_OFFSET 0x7fffffffffffffffLL
/*
 * How the rank ended, in the space the counters do not use (they stop at ES_META_COUNTERS_MAX ops): written by the
 * library's MPI_Abort wrapper, its fatal-signal handlers and its on_exit handler, each at most once, with plain
 * stores only (a signal handler may write them). Zero everywhere until something happened.
 *   flags (int)          ES_END_* bits below
 *   signal (int)         the first fatal signal the rank received (ES_END_SIGNALED)
 *   signal op (int)      the op the rank was in (ES_END_IN_CALL) or had last returned from, 0: none yet
 *   abort code (int)     MPI_Abort's error code (ES_END_ABORTED)
 *   exit status (int)    the status exit() was given or main returned (ES_END_EXITED)
 *   failed at (long, ns) when the first abort, fatal signal or non-zero exit was recorded, the trace's clock
 */
#define ES_META_COUNTERS_MAX 112
#define ES_META_END_FLAGS_OFFSET 1984
#define ES_META_END_SIGNAL_OFFSET 1988
#define ES_META_END_SIGNAL_OP_OFFSET 1992
#define ES_META_END_ABORT_CODE_OFFSET 1996
#define ES_META_END_EXIT_STATUS_OFFSET 2000
#define ES_META_END_FAILED_NS_OFFSET 2008
#define ES_END_EXITED 1
#define ES_END_BEFORE_FINALIZE 2
#define ES_END_ABORTED 4
#define ES_END_SIGNALED 8
#define ES_END_IN_CALL 16
/* The front-end that ran the job (ES_MPI_AGENT_PID) was gone: the rank's watchdog ended it (es_mpi.c "watchdog"). */
#define ES_END_AGENT_LOST 32
/*
 * Written by the rank's watchdog thread every ES_WATCHDOG_PERIOD_NS (only with ES_MPI_AGENT_PID set):
 *   heartbeat (long)     beats so far; a stopped process (SIGSTOP, a debugger) stops beating
 *   current op (int)     the recording thread's op: > 0 inside that op's MPI call, < 0 returned from it, 0 none yet
 */
#define ES_META_HEARTBEAT_OFFSET 2016
#define ES_META_CURRENT_OP_OFFSET 2024

/*
 * Op codes: ES_OP(name, code). Never renumber; add at the end. MpiOp (Java) lists the same.
 */
#define ES_OP_FIRST 256
#define ES_OPS(ES_OP) \
    ES_OP(Init, 256) ES_OP(Init_thread, 257) ES_OP(Finalize, 258) \
    ES_OP(Send, 259) ES_OP(Bsend, 260) ES_OP(Ssend, 261) ES_OP(Rsend, 262) \
    ES_OP(Isend, 263) ES_OP(Ibsend, 264) ES_OP(Issend, 265) ES_OP(Irsend, 266) \
    ES_OP(Recv, 267) ES_OP(Irecv, 268) ES_OP(Sendrecv, 269) ES_OP(Sendrecv_replace, 270) \
    ES_OP(Wait, 271) ES_OP(Waitall, 272) ES_OP(Waitany, 273) ES_OP(Waitsome, 274) \
    ES_OP(Test, 275) ES_OP(Testall, 276) ES_OP(Testany, 277) ES_OP(Testsome, 278) \
    ES_OP(Probe, 279) ES_OP(Iprobe, 280) \
    ES_OP(Barrier, 281) ES_OP(Bcast, 282) ES_OP(Reduce, 283) ES_OP(Allreduce, 284) \
    ES_OP(Gather, 285) ES_OP(Gatherv, 286) ES_OP(Scatter, 287) ES_OP(Scatterv, 288) \
    ES_OP(Allgather, 289) ES_OP(Allgatherv, 290) ES_OP(Alltoall, 291) ES_OP(Alltoallv, 292) \
    ES_OP(Alltoallw, 293) ES_OP(Reduce_scatter, 294) ES_OP(Reduce_scatter_block, 295) \
    ES_OP(Scan, 296) ES_OP(Exscan, 297) \
    ES_OP(Ibarrier, 298) ES_OP(Ibcast, 299) ES_OP(Ireduce, 300) ES_OP(Iallreduce, 301) \
    ES_OP(Igather, 302) ES_OP(Igatherv, 303) ES_OP(Iscatter, 304) ES_OP(Iscatterv, 305) \
    ES_OP(Iallgather, 306) ES_OP(Iallgatherv, 307) ES_OP(Ialltoall, 308) ES_OP(Ialltoallv, 309) \
    ES_OP(Ialltoallw, 310) ES_OP(Ireduce_scatter, 311) ES_OP(Ireduce_scatter_block, 312) \
    ES_OP(Iscan, 313) ES_OP(Iexscan, 314) \
    ES_OP(Comm_dup, 315) ES_OP(Comm_split, 316) ES_OP(Comm_split_type, 317) ES_OP(Comm_create, 318) \
    ES_OP(Comm_create_group, 319) ES_OP(Cart_create, 320) ES_OP(Cart_sub, 321) ES_OP(Comm_free, 322) \
    ES_OP(Comm_idup, 323) ES_OP(Comm_dup_with_info, 324) \
    ES_OP(Neighbor_allgather, 325) ES_OP(Neighbor_allgatherv, 326) ES_OP(Neighbor_alltoall, 327) \
    ES_OP(Neighbor_alltoallv, 328) ES_OP(Neighbor_alltoallw, 329) \
    ES_OP(Ineighbor_allgather, 330) ES_OP(Ineighbor_allgatherv, 331) ES_OP(Ineighbor_alltoall, 332) \
    ES_OP(Ineighbor_alltoallv, 333) ES_OP(Ineighbor_alltoallw, 334) \
    ES_OP(Put, 335) ES_OP(Get, 336) ES_OP(Accumulate, 337) ES_OP(Win_fence, 338) ES_OP(Win_lock, 339) \
    ES_OP(Win_unlock, 340) ES_OP(Win_create, 341) ES_OP(Win_free, 342) \
    ES_OP(Abort, 343)
#define ES_OP_END 344

#endif
