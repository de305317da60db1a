package org.eventspace.scope.filter;

import java.util.Arrays;

/**
 * The bounded cache of blocks one edge has sent, kept identically at both ends (the sender's is a mirror of the
 * receiver's): block ids count up from 0 in each epoch, block {@code id} lives in slot {@code id mod capacity}, and a
 * new block evicts the oldest, so both ends agree on what is held from the ids alone. Allocated once; not
 * thread-safe.
 */
final class BlockCache {
    final int capacity;
    final int slotBytes;
    final byte[] data;
    final int[] lengths;
    /** The id the next stored block gets. */
    long next;

    BlockCache(int capacity, int slotBytes) {
        this.capacity = capacity;
        this.slotBytes = slotBytes;
        this.data = new byte[Math.multiplyExact(capacity, slotBytes)];
        this.lengths = new int[capacity];
    }

    boolean holds(long id) {
        return id >= 0 && id < next && id >= next - capacity;
    }

    int offset(long id) {
        return (int) (id % capacity) * slotBytes;
    }

    int length(long id) {
        return lengths[(int) (id % capacity)];
    }

    /** Stores {@code src[from, from + length)} as block {@link #next}, evicting the oldest; returns its id. */
    long add(byte[] src, int from, int length) {
        long id = next++;
        System.arraycopy(src, from, data, offset(id), length);
        lengths[(int) (id % capacity)] = length;
        return id;
    }

    /** Whether block {@code id} holds exactly {@code src[from, from + length)}. */
    boolean same(long id, byte[] src, int from, int length) {
        if (!holds(id) || length(id) != length) {
            return false;
        }
        int at = offset(id);
        return Arrays.equals(data, at, at + length, src, from, from + length);
    }

    void clear() {
        next = 0;
    }
}
