package org.eventspace.events;

import org.agrona.BitUtil;

/**
 * Layout of one trace tuple: what an {@link EventCollector} records per operation (EventSpace paper §4.2,
 * EventSpace paper §4.1). 40 bytes, every long 8-byte aligned, written in the writer's native byte order (the paper's
 * "binary format in memory using native byte ordering", §4.1) and decoded by the order its buffer's header
 * names ({@link TraceBufferLayout#BYTE_ORDER_OFFSET}).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                     Collector id (int)                        |
 *  +-------------------------------+-------------------------------+
 *  |      Op type (short)          |         Flags (short)         |
 *  +-------------------------------+-------------------------------+
 *  |                     Sequence number (long)                    |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                  Value: result or size (long)                 |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |             Start timestamp, t_down (long, ns)                |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |           Completion timestamp, t_up (long, ns)               |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>Why each field is there (dissertation §7.1, paper §4.1):
 * <ul>
 *   <li><b>Collector id</b>: the path position, hence the wrapper and the contributor. A collector above a
 *   gred's port i sits on contributor i's path and is run by that contributor's thread, so its tuples are
 *   t1,i/t4,i; the one below the gred gives t2/t3 and is run by the last arriver, whom the t1,i name. The
 *   collector before a stub and the first one run by the serving thread give the t1..t4 of the two-way
 *   latency formula. "Which thread" is therefore implied by the id and needs no field of its own.</li>
 *   <li><b>Op type</b> ({@link TraceOp}): which collective, so a scope can filter (allreduce, broadcast,
 *   send, …) and the latencies of different operations are not mixed.</li>
 *   <li><b>Flags</b> ({@link TraceOp#FLAG_FAILED} …): a failed operation must not count as a fast one, and
 *   the value's meaning (result word or size) is recorded, not guessed.</li>
 *   <li><b>Sequence number</b>: the sequence the core assigned to the call, read on the way up, the same in
 *   every contributor's message of one call on one tree. It is the join key that puts the t1,i of all
 *   contributors, t2/t3 and t4,i of one allreduce together (arrival and departure order, waits).</li>
 *   <li><b>Value</b>: the paper's return value (one-word results) or the payload size in words.</li>
 *   <li><b>Start / completion</b>: {@code System.nanoTime()} before calling the next wrapper and after it
 *   returned; monotonic, comparable across the threads of one host (not across hosts: the two-way latency
 *   formula never subtracts timestamps of different hosts).</li>
 * </ul>
 */
public final class TraceTupleLayout {
    public static final int COLLECTOR_ID_OFFSET = 0;
    public static final int OP_TYPE_OFFSET = COLLECTOR_ID_OFFSET + BitUtil.SIZE_OF_INT;
    public static final int FLAGS_OFFSET = OP_TYPE_OFFSET + BitUtil.SIZE_OF_SHORT;
    public static final int SEQUENCE_OFFSET = FLAGS_OFFSET + BitUtil.SIZE_OF_SHORT;
    public static final int VALUE_OFFSET = SEQUENCE_OFFSET + BitUtil.SIZE_OF_LONG;
    public static final int START_NS_OFFSET = VALUE_OFFSET + BitUtil.SIZE_OF_LONG;
    public static final int END_NS_OFFSET = START_NS_OFFSET + BitUtil.SIZE_OF_LONG;
    /** Bytes of one tuple. */
    public static final int LENGTH = END_NS_OFFSET + BitUtil.SIZE_OF_LONG;

    private TraceTupleLayout() {
    }
}
