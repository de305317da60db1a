package org.eventspace.comm.element;

/**
 * One reader's position in an {@link Element}, and how many tuples it missed because they were discarded
 * before it read them. Not thread-safe: one cursor per reading thread.
 */
public final class ElementCursor {
    private long next;
    private long missed;

    ElementCursor(long next) {
        this.next = next;
    }

    /** Sequence number of the tuple this cursor reads next. */
    public long next() {
        return next;
    }

    /** Tuples discarded before this reader could read them, since the cursor was made. */
    public long missed() {
        return missed;
    }

    void advance() {
        next++;
    }

    void skipTo(long sequence) {
        if (sequence > next) {
            missed += sequence - next;
            next = sequence;
        }
    }
}
