package org.eventspace.comm.element;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import org.agrona.BitUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.path.SpinYieldPark;
import org.eventspace.comm.path.ValueType;
import org.eventspace.comm.path.WaitPolicy;

/**
 * A PastSet element: a named, explicitly allocated, bounded buffer of tuples (dissertation §7.1).
 *
 * <p>Every tuple written gets the next sequence number, starting at 0. When the element holds
 * {@code capacity} tuples, a write discards the oldest. Readers keep their own {@link ElementCursor} and
 * may read the next tuple (blocking or not) or the newest; a reader that fell more than {@code capacity}
 * tuples behind is told exactly how many it missed.
 *
 * <p>Tuples live off-heap in a ring of fixed-size slots ({@link TupleSlotLayout}). Any number of threads may
 * write (writes are serialised by a spin lock held for one slot copy; the gred that calls a core already
 * serialises its writers, so the lock is uncontended there) and any number may read at once;
 * reads take no lock and detect a slot overwritten under them by its seqlock.
 */
public final class Element {
    private static final int PAD = 16;
    private static final int READER_SLOTS = 8;
    /** How long a reader without a slot parks between polls. */
    private static final long UNSLOTTED_PARK_NANOS = 50_000;
    /** How long a reader of an exclusive-writer element parks between polls (its writer does not fence). */
    private static final long EXCLUSIVE_PARK_NANOS = 200_000;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    private final String name;
    private final int capacity;
    private final int maxWords;
    private final int slotBytes;
    private final UnsafeBuffer ring;
    /**
     * The write lock and the next sequence number in one padded word, {@code (next << 1) | locked}: a writer
     * takes the lock and learns its sequence with one CAS and publishes the tuple and frees the lock with one
     * store, so a write moves one contended cache line besides the slot itself.
     */
    private final long[] state = new long[2 * PAD + 1];
    /**
     * Readers parked in {@link #readNext}, in a few fixed slots so that parking and waking allocate nothing; a
     * reader that finds every slot taken polls with short timed parks instead. A writer looks at the slots only
     * when {@link #parkedReaders} is non-zero.
     */
    private final AtomicReferenceArray<Thread> readerSlots = new AtomicReferenceArray<>(READER_SLOTS);
    private final AtomicInteger parkedReaders = new AtomicInteger();
    /**
     * Whether writes are known never to overlap, each happening-before the next (a tree's core is only ever
     * called by its gred's last arriver or by its hop's one service thread). Such an element is written with
     * plain stores and one release, no CAS and no fence, so the write's cache misses overlap with what the
     * writer does next; its parked readers then wake by polling in {@link #EXCLUSIVE_PARK_NANOS} slices too.
     */
    private final boolean exclusiveWriter;

    Element(String name, int capacity, int maxWords, boolean exclusiveWriter) {
        if (!BitUtil.isPowerOfTwo(capacity)) {
            throw new IllegalArgumentException("element " + name + ": capacity must be a power of two, capacity=" + capacity);
        }
        if (maxWords < 0) {
            throw new IllegalArgumentException("element " + name + ": maxWords must be >= 0, maxWords=" + maxWords);
        }
        this.name = name;
        this.exclusiveWriter = exclusiveWriter;
        this.capacity = capacity;
        this.maxWords = maxWords;
        this.slotBytes = TupleSlotLayout.slotBytes(maxWords);
        long ringBytes = (long) capacity * slotBytes;
        if (ringBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("element " + name + ": " + capacity + " slots of " + maxWords + " words need "
                    + ringBytes + " bytes, more than one buffer holds (" + Integer.MAX_VALUE + ")");
        }
        this.ring = new UnsafeBuffer(ByteBuffer.allocateDirect((int) ringBytes));
        for (int i = 0; i < capacity; i++) {
            ring.putLong(i * slotBytes + TupleSlotLayout.SEQUENCE_OFFSET, -1L);
        }
    }

    public String name() {
        return name;
    }

    public int capacity() {
        return capacity;
    }

    public int maxWords() {
        return maxWords;
    }

    public boolean exclusiveWriter() {
        return exclusiveWriter;
    }

    /** Sequence number the next write will get; equals the number of tuples ever written. */
    public long nextSequence() {
        return (long) LONGS.getVolatile(state, PAD) >>> 1;
    }

    /** A cursor positioned at the oldest tuple still held. */
    public ElementCursor cursorAtOldest() {
        return new ElementCursor(Math.max(0, nextSequence() - capacity));
    }

    /** A cursor positioned at sequence {@code sequence}; tuples discarded before it reads them count as missed. */
    public ElementCursor cursorAt(long sequence) {
        return new ElementCursor(sequence);
    }

    /** A cursor positioned at the next tuple to be written. */
    public ElementCursor cursorAtNext() {
        return new ElementCursor(nextSequence());
    }

    /**
     * Stores the payload of {@code message} as a new tuple and sets the message's sequence to the one assigned.
     * Returns when the tuple is readable. Allocates nothing.
     */
    public long write(Message message) {
        int length = message.length();
        if (length > maxWords) {
            throw new CommException("element " + name + " holds tuples of at most " + maxWords
                    + " words, length=" + length);
        }
        long sequence;
        if (exclusiveWriter) {
            sequence = (long) LONGS.getAcquire(state, PAD) >>> 1;
            writeSlot(sequence, message);
            LONGS.setRelease(state, PAD, (sequence + 1) << 1);
        } else {
            long locked;
            while (true) {
                locked = (long) LONGS.getVolatile(state, PAD);
                if ((locked & 1) == 0 && LONGS.compareAndSet(state, PAD, locked, locked | 1)) {
                    break;
                }
                Thread.onSpinWait();
            }
            sequence = locked >>> 1;
            try {
                writeSlot(sequence, message);
                locked = (sequence + 1) << 1;
            } finally {
                LONGS.setVolatile(state, PAD, locked & ~1L);
            }
        }
        if (parkedReaders.get() != 0) {
            for (int i = 0; i < READER_SLOTS; i++) {
                Thread reader = readerSlots.get(i);
                if (reader != null) {
                    LockSupport.unpark(reader);
                }
            }
        }
        message.sequence(sequence);
        return sequence;
    }

    private void writeSlot(long sequence, Message message) {
        int length = message.length();
        int offset = (int) (sequence & (capacity - 1)) * slotBytes;
        ring.putLongOrdered(offset + TupleSlotLayout.SEQUENCE_OFFSET, -(sequence + 1));
        VarHandle.storeStoreFence();
        ring.putInt(offset + TupleSlotLayout.LENGTH_OFFSET, length);
        ring.putByte(offset + TupleSlotLayout.OP_OFFSET, (byte) message.op().ordinal());
        ring.putByte(offset + TupleSlotLayout.TYPE_OFFSET, (byte) message.type().ordinal());
        long[] words = message.words();
        int payload = offset + TupleSlotLayout.PAYLOAD_OFFSET;
        for (int i = 0; i < length; i++) {
            ring.putLong(payload + i * BitUtil.SIZE_OF_LONG, words[i]);
        }
        ring.putLongOrdered(offset + TupleSlotLayout.SEQUENCE_OFFSET, sequence);
    }

    /**
     * Reads the tuple at the cursor into {@code into} and advances the cursor, if one is there.
     * If the cursor's tuple was already overwritten, the cursor jumps to the oldest tuple held and counts the
     * tuples skipped in {@link ElementCursor#missed()}.
     *
     * @return true if a tuple was read.
     */
    public boolean tryReadNext(ElementCursor cursor, Message into) {
        while (true) {
            long wanted = cursor.next();
            long head = nextSequence();
            if (wanted >= head) {
                return false;
            }
            long oldest = head - capacity;
            if (wanted < oldest) {
                cursor.skipTo(oldest);
                continue;
            }
            if (copyOut(wanted, into)) {
                cursor.advance();
                return true;
            }
            cursor.skipTo(Math.max(wanted + 1, nextSequence() - capacity));
        }
    }

    /**
     * Blocks until the tuple at the cursor is there, then reads it: spins a little, then parks. Builds its wait
     * strategy per call: for tests and tools; the paths use {@link #readNext(ElementCursor, Message, SpinYieldPark)}.
     *
     * @throws CommException if nothing arrives within {@code timeoutNanos}.
     */
    public void readNext(ElementCursor cursor, Message into, long timeoutNanos) {
        readNext(cursor, into, new SpinYieldPark(new WaitPolicy(10_000, 0, timeoutNanos)));
    }

    /**
     * Blocks until the tuple at the cursor is there, then reads it, waiting as {@code wait} says: spin, then
     * yield (until the deadline), then park until a writer wakes this reader.
     *
     * @throws CommException if nothing arrives within the policy's timeout.
     */
    public void readNext(ElementCursor cursor, Message into, SpinYieldPark wait) {
        for (int i = 0; ; i++) {
            if (tryReadNext(cursor, into)) {
                return;
            }
            if (!wait.spin(i)) {
                break;
            }
        }
        // The timeout counts from the end of the spin phase, as a gred's does.
        long deadline = wait.deadlineFromNow();
        for (int i = 0; ; i++) {
            if (tryReadNext(cursor, into)) {
                return;
            }
            if (!wait.yield(i, deadline)) {
                break;
            }
        }
        Thread self = Thread.currentThread();
        int slot = -1;
        for (int i = 0; i < READER_SLOTS && slot < 0; i++) {
            if (readerSlots.compareAndSet(i, null, self)) {
                slot = i;
            }
        }
        // The count is raised (a full fence) before the re-check below, and a writer publishes its tuple before it
        // reads the count: either we see the tuple or the writer sees us and unparks us. No wake-up is lost.
        parkedReaders.incrementAndGet();
        try {
            long slice = slot < 0 ? UNSLOTTED_PARK_NANOS : exclusiveWriter ? EXCLUSIVE_PARK_NANOS : SpinYieldPark.UNTIL_DEADLINE;
            while (!tryReadNext(cursor, into)) {
                if (!SpinYieldPark.park(this, deadline, slice)) {
                    throw new CommException("element " + name + ": no tuple with sequence " + cursor.next()
                            + " within " + wait.policy().timeoutNanos() / 1_000_000 + " ms");
                }
            }
        } finally {
            parkedReaders.decrementAndGet();
            if (slot >= 0) {
                readerSlots.set(slot, null);
            }
        }
    }

    /** Reads the newest tuple, if any was written. */
    public boolean readNewest(Message into) {
        while (true) {
            long head = nextSequence();
            if (head == 0) {
                return false;
            }
            if (copyOut(head - 1, into)) {
                return true;
            }
        }
    }

    private boolean copyOut(long sequence, Message into) {
        int offset = (int) (sequence & (capacity - 1)) * slotBytes;
        if (ring.getLongVolatile(offset + TupleSlotLayout.SEQUENCE_OFFSET) != sequence) {
            return false;
        }
        int length = ring.getInt(offset + TupleSlotLayout.LENGTH_OFFSET);
        if (length < 0 || length > maxWords) {
            return false;
        }
        ReduceOp op = ReduceOp.ofCode(ring.getByte(offset + TupleSlotLayout.OP_OFFSET));
        ValueType type = ValueType.ofCode(ring.getByte(offset + TupleSlotLayout.TYPE_OFFSET));
        into.length(length);
        long[] words = into.words();
        int payload = offset + TupleSlotLayout.PAYLOAD_OFFSET;
        for (int i = 0; i < length; i++) {
            words[i] = ring.getLong(payload + i * BitUtil.SIZE_OF_LONG);
        }
        VarHandle.loadLoadFence();
        if (ring.getLongVolatile(offset + TupleSlotLayout.SEQUENCE_OFFSET) != sequence) {
            return false;
        }
        into.op(op).type(type).sequence(sequence);
        return true;
    }

    @Override
    public String toString() {
        return "Element{" + name + ", capacity=" + capacity + ", maxWords=" + maxWords + ", next=" + nextSequence() + '}';
    }
}
