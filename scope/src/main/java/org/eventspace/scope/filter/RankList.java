package org.eventspace.scope.filter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * A set of ranks written as runs (first, last, stride): the ranklist of a functional class (ToM §4.3). Strided
 * runs because classes of ranks playing roles are often strided (even/odd ranks, every k-th rank a master), and a
 * plain range list would then grow with the rank count while a class's statistics do not. The runs are computed
 * greedily from the sorted set, so a set has exactly one encoding whatever order it was built in: merging
 * children's lists up the tree gives the list a central grouping would give. Ranks may be −1 (host records).
 */
final class RankList {
    /** Longs per run: first rank, last rank, stride (≥ 1; 1 for a single rank). */
    static final int RUN_LONGS = 3;

    private final BitSet shifted = new BitSet(); // bit r + 1 for rank r, so −1 fits

    void add(int rank) {
        shifted.set(rank + 1);
    }

    /** Adds the {@code runs} runs stored at {@code longs[from]}; returns the index after them. */
    int addRuns(long[] longs, int from, int runs, String filter, int child) {
        for (int i = 0; i < runs; i++) {
            long first = longs[from + RUN_LONGS * i];
            long last = longs[from + RUN_LONGS * i + 1];
            long stride = longs[from + RUN_LONGS * i + 2];
            if (first < -1 || last < first || last > Integer.MAX_VALUE || stride < 1 || (last - first) % stride != 0) {
                throw PacketChecks.malformed(filter, child, "a rank run first<=last, stride>=1",
                        "first=" + first + ", last=" + last + ", stride=" + stride);
            }
            for (long r = first; r <= last; r += stride) {
                shifted.set((int) (r + 1));
            }
        }
        return from + RUN_LONGS * runs;
    }

    int size() {
        return shifted.cardinality();
    }

    /** The canonical runs: from the smallest rank, each run extended while the stride holds. */
    long[] runs() {
        int[] ranks = shifted.stream().map(r -> r - 1).toArray();
        long[] out = new long[RUN_LONGS * ranks.length];
        int n = 0;
        int i = 0;
        while (i < ranks.length) {
            int j = i;
            long stride = 1;
            if (i + 1 < ranks.length) {
                stride = (long) ranks[i + 1] - ranks[i];
                j = i + 1;
                while (j + 1 < ranks.length && (long) ranks[j + 1] - ranks[j] == stride) {
                    j++;
                }
            }
            out[n++] = ranks[i];
            out[n++] = ranks[j];
            out[n++] = stride;
            i = j + 1;
        }
        return Arrays.copyOf(out, n);
    }

    /** The runs as text: {@code 5}, {@code 0-7}, {@code 0-126/2}. */
    static List<String> text(long[] runs) {
        List<String> out = new ArrayList<>(runs.length / RUN_LONGS);
        for (int i = 0; i < runs.length; i += RUN_LONGS) {
            long first = runs[i];
            long last = runs[i + 1];
            long stride = runs[i + 2];
            out.add(first == last ? Long.toString(first)
                    : stride == 1 ? first + "-" + last : first + "-" + last + "/" + stride);
        }
        return out;
    }
}
