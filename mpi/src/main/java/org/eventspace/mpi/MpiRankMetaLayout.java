package org.eventspace.mpi;

/**
 * Layout of a rank's {@code rank-<R>.meta} file (native/es_mpi_layout.h, version 3): 4096 bytes, in the byte order
 * its byte-order byte names (the trace buffer's codes: 0 little-endian).
 * <pre>
 *   0  magic "ESMR" (int)          4 version (short)  6 byte order (byte)
 *   8  state (int: 1 running, 2 finalized)            12 rank (int)      16 size (int)
 *   20 simulated host index (int, −1: none)           24 pid (int)       28 op counters that follow (int)
 *   32 the MPI_Init offset holds at (long, ns)        40 the MPI_Finalize offset holds at (long, ns): local times
 *   48 offset to rank 0 at MPI_Init (long, ns)        56 the round trip to its tree parent (long, ns)
 *   64 offset to rank 0 at MPI_Finalize (long, ns)    72 the round trip to its tree parent (long, ns)
 *   80 untraced calls (long: calls on a thread whose ring could not be made)
 *   88 simulated clock skew (long, ns)                96 host name (64 bytes, NUL-terminated)
 *   160 MPI_Irecv requests the library's table could not track (long: they give no receive record)
 *   168 error bound of the MPI_Init offset (long, ns)  176 of the MPI_Finalize offset (long, ns): half the round
 *       trip to the parent plus the parent's bound, summed along the binomial tree to rank 0
 *   184 thread rings (int: rank-R.t1.trace .. rank-R.tN.trace)    188 communicators lost (int: not listable)
 *   192 per op from MpiOp.FIRST: calls (long), bytes (long), room for {@link #COUNTERS_MAX} ops
 *   1984 how the rank ended: flags (int, END_* bits)     1988 fatal signal (int)  1992 the op it hit (int)
 *   1996 MPI_Abort's code (int)  2000 exit status (int)  2008 first failure at (long, ns, the trace's clock)
 *   2016 watchdog heartbeat (long)  2024 the op the rank is in (int: > 0 inside its call, < 0 returned from it)
 *   2048 communicators (int count), 2056: min(count, 255) × (id int, size int); the rest in rank-R.comms
 * </pre>
 * An offset is {@link #NO_OFFSET} until measured. The counters are exact: the trace ring may overwrite tuples, the
 * counters never lose a call. The end fields are written by the library's MPI_Abort wrapper, fatal-signal handlers
 * and on_exit handler; zero until one of them ran (a rank killed by SIGKILL never writes them).
 */
public final class MpiRankMetaLayout {
    public static final int MAGIC = 0x524d5345;
    public static final short VERSION = 3;
    /**
     * Ping-pongs between each rank r &gt; 0 and its binomial-tree parent {@link #syncParent(int)} per clock
     * synchronisation (MPI_Init, MPI_Finalize): the ping {@link #SYNC_PING_BYTES}, the pong {@link #SYNC_PONG_BYTES}.
     */
    public static final int SYNC_ROUNDS = 10;
    public static final int SYNC_PING_BYTES = 8;
    public static final int SYNC_PONG_BYTES = 24;
    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 4;
    public static final int BYTE_ORDER_OFFSET = 6;
    public static final int STATE_OFFSET = 8;
    public static final int RANK_OFFSET = 12;
    public static final int SIZE_OFFSET = 16;
    public static final int HOST_INDEX_OFFSET = 20;
    public static final int PID_OFFSET = 24;
    public static final int OP_COUNT_OFFSET = 28;
    public static final int INIT_NS_OFFSET = 32;
    public static final int FINALIZE_NS_OFFSET = 40;
    public static final int INIT_OFFSET_NS_OFFSET = 48;
    public static final int INIT_RTT_NS_OFFSET = 56;
    public static final int FINALIZE_OFFSET_NS_OFFSET = 64;
    public static final int FINALIZE_RTT_NS_OFFSET = 72;
    public static final int UNTRACED_CALLS_OFFSET = 80;
    public static final int CLOCK_SKEW_NS_OFFSET = 88;
    public static final int HOSTNAME_OFFSET = 96;
    public static final int HOSTNAME_LENGTH = 64;
    public static final int UNTRACKED_REQUESTS_OFFSET = 160;
    public static final int INIT_ERROR_NS_OFFSET = 168;
    public static final int FINALIZE_ERROR_NS_OFFSET = 176;
    public static final int THREAD_RINGS_OFFSET = 184;
    public static final int COMMS_LOST_OFFSET = 188;
    public static final int COUNTERS_OFFSET = 192;
    public static final int COUNTER_LENGTH = 16;
    public static final int COMMS_COUNT_OFFSET = 2048;
    public static final int COMMS_OFFSET = 2056;
    public static final int COMM_LENGTH = 8;
    public static final int COMMS_MAX = 255;
    public static final int LENGTH = 4096;
    public static final int STATE_RUNNING = 1;
    public static final int STATE_FINALIZED = 2;
    public static final long NO_OFFSET = Long.MAX_VALUE;
    public static final int COUNTERS_MAX = 112;
    public static final int END_FLAGS_OFFSET = 1984;
    public static final int END_SIGNAL_OFFSET = 1988;
    public static final int END_SIGNAL_OP_OFFSET = 1992;
    public static final int END_ABORT_CODE_OFFSET = 1996;
    public static final int END_EXIT_STATUS_OFFSET = 2000;
    public static final int END_FAILED_NS_OFFSET = 2008;
    /** The process exited (exit() or main returned); the exit status is set. */
    public static final int END_EXITED = 1;
    /** It exited without having reached MPI_Finalize. */
    public static final int END_BEFORE_FINALIZE = 2;
    /** It called MPI_Abort; the abort code is set. */
    public static final int END_ABORTED = 4;
    /** A fatal signal arrived; the signal and its op are set. */
    public static final int END_SIGNALED = 8;
    /** The signal arrived inside the op's MPI call (else after the rank returned from it). */
    public static final int END_IN_CALL = 16;
    /** The front-end named by ES_MPI_AGENT_PID was gone: the rank's watchdog ended it. */
    public static final int END_AGENT_LOST = 32;
    /**
     * Beats of the rank's watchdog thread, one every {@link #HEARTBEAT_PERIOD_MS} ms while the process runs (only with
     * ES_MPI_AGENT_PID set; 0 otherwise): a stopped process stops beating.
     */
    public static final int HEARTBEAT_OFFSET = 2016;
    /** The recording thread's op as the watchdog last copied it: &gt; 0 inside its MPI call, &lt; 0 returned from it. */
    public static final int CURRENT_OP_OFFSET = 2024;
    public static final long HEARTBEAT_PERIOD_MS = 500;

    private MpiRankMetaLayout() {
    }

    /** The rank {@code rank} (&gt; 0) synchronises its clock with: its parent in the binomial tree rooted at 0. */
    public static int syncParent(int rank) {
        return rank - Integer.lowestOneBit(rank);
    }
}
