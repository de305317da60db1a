package org.eventspace.mpi;

import org.eventspace.events.TraceTupleFlyweight;

/**
 * What the fields of a {@link org.eventspace.events.TraceTupleLayout trace tuple} mean when the native MPI library
 * wrote it (native/es_mpi_layout.h, version 2). The bytes are the same 40 as every collector's; the meaning:
 * <pre>
 *   collector id   call-site signature (return address − the load base of the executable or shared library it is in,
 *                  a library's XOR a hash of its file name; low 32 bits: the same on every rank)
 *   op type        {@link MpiOp}
 *   flags          {@link #FLAG_FAILED}, {@link #FLAG_FORTRAN}, {@link #FLAG_NONBLOCKING}, {@link #FLAG_COLLECTIVE}
 *   sequence       communicator id (high 32 bits) | low word: a collective's sequence on that communicator (the same
 *                  on every member), a point-to-point call's tag, a wait's or test's number of requests
 *   value          peer (high 24 bits: 1 + MPI_COMM_WORLD rank of destination, source or root; 0 none) | bytes (40)
 *   start, end     CLOCK_MONOTONIC ns at entry and exit (System.nanoTime's clock), on the rank's own host
 * </pre>
 * A receive record ({@link #RECORD_RECEIVE}) uses the same fields for a receive that completed inside a call.
 * Static decoders only: nothing here allocates.
 */
public final class MpiTuple {
    public static final int COLLECTOR_BASE = 1 << 28;
    public static final int VALUE_BYTES_BITS = 40;
    public static final int SEQUENCE_COMM_SHIFT = 32;
    public static final int COMM_WORLD_ID = 0;
    public static final int COMM_SELF_ID = 1;
    public static final int COMM_UNKNOWN_ID = 0xFFFFFFFF;
    public static final int FLAG_FAILED = 1;
    public static final int FLAG_FORTRAN = 8;
    public static final int FLAG_NONBLOCKING = 16;
    public static final int FLAG_COLLECTIVE = 32;
    public static final int FLAG_IN_PLACE = 64;
    /** The call's peer is MPI_PROC_NULL (its peer field says none): a no-op transfer, 0 bytes. */
    public static final int FLAG_PROC_NULL = 128;
    /**
     * The op type of a receive record: not a call (no counter), written after the call a receive completed in.
     * Flags {@link #FLAG_NONBLOCKING}: an MPI_Irecv completed by the wait or test before it, and the collector id is
     * the low 32 bits of that MPI_Irecv's start; else the receive half of MPI_Sendrecv(_replace), collector id its
     * call site. Sequence: communicator | the tag received; value: the source that matched | bytes received; start
     * and end: the completing call's entry and exit.
     */
    public static final int RECORD_RECEIVE = 1024;
    /**
     * The op type of a collective completion record: not a call, written after the wait or test that completed a
     * non-blocking collective (or MPI_Comm_idup). Collector id: the low 32 bits of the i-call's start; sequence: the
     * i-call's (communicator | its place in the communicator's collective sequence); start and end: the completing
     * call's entry and exit.
     */
    public static final int RECORD_COLLECTIVE_DONE = 1025;

    private MpiTuple() {
    }

    /** The communicator's id, the same on every member. */
    public static int comm(long sequence) {
        return (int) (sequence >>> SEQUENCE_COMM_SHIFT);
    }

    /** A collective's sequence on its communicator, a point-to-point call's tag, a wait's request count. */
    public static int low(long sequence) {
        return (int) sequence;
    }

    public static long bytes(long value) {
        return value & ((1L << VALUE_BYTES_BITS) - 1);
    }

    /** The MPI_COMM_WORLD rank of the peer or root, or −1. */
    public static int peer(long value) {
        return (int) (value >>> VALUE_BYTES_BITS) - 1;
    }

    public static boolean collective(TraceTupleFlyweight t) {
        return (t.flags() & FLAG_COLLECTIVE) != 0;
    }

    public static int site(TraceTupleFlyweight t) {
        return t.collectorId();
    }
}
