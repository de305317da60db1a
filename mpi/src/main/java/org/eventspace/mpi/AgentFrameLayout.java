package org.eventspace.mpi;

import org.eventspace.events.TraceTupleLayout;

/**
 * Layout of what a node-agent process and the front-end ({@code eventspace mpirun}'s JVM) say to each other over one
 * TCP connection, little-endian throughout. The agent connects and introduces itself; from then on the front-end
 * pulls (EventSpace paper §4.2: nothing moves until the front-end reads) and the agent answers each pull with one
 * batch holding, per rank that changed, the 64-byte blocks of its meta file that changed since the last batch (a call
 * moves a counter or two: one or two blocks, not the 4 KiB file) and its new trace tuples whole. One batch per pull and
 * host, never a message per MPI call.
 * <pre>
 * Hello, agent to front-end (48 bytes + name):
 *   0 magic "ESNA" (int)   4 version (short)   6 reserved (short)   8 name length (int, 1..64)   12 pid (int)
 *  16 job secret (32 bytes)                    48 host folder name (UTF-8, e.g. "host-1" or "host-node17")
 *
 * Command, front-end to agent (16 bytes):
 *   0 control (int: PULL, FIN)   4 reserved (int)   8 round (long)
 *
 * Batch, agent to front-end (24-byte header + payload):
 *   0 magic "ESNB" (int)   4 ranks in it (int)   8 round (long)   16 flags (int: LAST)   20 payload bytes (int)
 *   per rank (48 bytes):
 *     0 rank (int)   4 ring capacity (int)   8 collector id (int)   12 tuples that follow (int)
 *    16 tuples written to the rank's rings so far (long)   24 tuples the agent's readers missed so far (long)
 *    32 meta blocks that follow (long: bit i set = bytes [64 i, 64 i + 64) of the meta file follow)
 *    40 communicators that follow (int: the next entries of rank-R.comms)   44 reserved (int)
 *     then those blocks of the rank's meta file, in block order, as the rank wrote them,
 *     then each communicator (8 bytes: id int, size int),
 *     then each tuple (40 bytes): TraceTupleLayout's fields at its offsets
 * </pre>
 * A rank's thread rings (MPI_THREAD_MULTIPLE) travel as one stream: each ring's new tuples in its order, one ring
 * after the other, into the front-end's one copy of the rank's ring; its copy of the meta file counts no thread ring.
 */
final class AgentFrameLayout {
    static final int HELLO_MAGIC = 0x414e5345; // "ESNA" little-endian
    static final short VERSION = 3;
    static final int HELLO_MAGIC_OFFSET = 0;
    static final int HELLO_VERSION_OFFSET = HELLO_MAGIC_OFFSET + Integer.BYTES;
    static final int HELLO_NAME_LENGTH_OFFSET = HELLO_VERSION_OFFSET + 2 * Short.BYTES;
    static final int HELLO_PID_OFFSET = HELLO_NAME_LENGTH_OFFSET + Integer.BYTES;
    static final int HELLO_SECRET_OFFSET = HELLO_PID_OFFSET + Integer.BYTES;
    static final int SECRET_LENGTH = 32;
    static final int HELLO_NAME_OFFSET = HELLO_SECRET_OFFSET + SECRET_LENGTH;
    static final int NAME_MAX = 64;

    static final int PULL = 1;
    static final int FIN = 2;
    static final int COMMAND_CONTROL_OFFSET = 0;
    static final int COMMAND_ROUND_OFFSET = COMMAND_CONTROL_OFFSET + 2 * Integer.BYTES;
    static final int COMMAND_LENGTH = COMMAND_ROUND_OFFSET + Long.BYTES;

    static final int BATCH_MAGIC = 0x424e5345; // "ESNB" little-endian
    static final int LAST = 1;
    static final int BATCH_MAGIC_OFFSET = 0;
    static final int BATCH_RANKS_OFFSET = BATCH_MAGIC_OFFSET + Integer.BYTES;
    static final int BATCH_ROUND_OFFSET = BATCH_RANKS_OFFSET + Integer.BYTES;
    static final int BATCH_FLAGS_OFFSET = BATCH_ROUND_OFFSET + Long.BYTES;
    static final int BATCH_PAYLOAD_OFFSET = BATCH_FLAGS_OFFSET + Integer.BYTES;
    static final int BATCH_HEADER_LENGTH = BATCH_PAYLOAD_OFFSET + Integer.BYTES;
    /** The largest payload a front-end accepts (a peer cannot make it allocate more). */
    static final int MAX_PAYLOAD = 256 << 20;

    static final int RANK_RANK_OFFSET = 0;
    static final int RANK_CAPACITY_OFFSET = RANK_RANK_OFFSET + Integer.BYTES;
    static final int RANK_COLLECTOR_OFFSET = RANK_CAPACITY_OFFSET + Integer.BYTES;
    static final int RANK_TUPLES_OFFSET = RANK_COLLECTOR_OFFSET + Integer.BYTES;
    static final int RANK_WRITTEN_OFFSET = RANK_TUPLES_OFFSET + Integer.BYTES;
    static final int RANK_MISSED_OFFSET = RANK_WRITTEN_OFFSET + Long.BYTES;
    static final int RANK_META_BLOCKS_OFFSET = RANK_MISSED_OFFSET + Long.BYTES;
    static final int RANK_COMMS_OFFSET = RANK_META_BLOCKS_OFFSET + Long.BYTES;
    static final int RANK_HEADER_LENGTH = RANK_COMMS_OFFSET + 2 * Integer.BYTES;
    /** A meta file travels in blocks of this many bytes; {@code MpiRankMetaLayout.LENGTH / META_BLOCK} = 64 fit one long. */
    static final int META_BLOCK = 64;

    /** A tuple on the wire: {@link org.eventspace.events.TraceTupleLayout}'s fields at its offsets, little-endian. */
    static final int TUPLE_LENGTH = TraceTupleLayout.LENGTH;

    private AgentFrameLayout() {
    }
}
