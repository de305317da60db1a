package org.eventspace.trace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A set of ranks as arithmetic runs {@code (start, stride, count)}: the compressed ranklist of ScalaTrace's
 * inter-node merge (Ratn et al., "Preserving Time in Large-Scale Communication Traces", ICS 2008, §2 and §5.5), of
 * constant size for regular patterns ("all ranks", "every even rank") and growing sub-linearly otherwise.
 *
 * <p>The runs are the canonical greedy encoding of the sorted set (each run starts at the smallest rank not yet
 * covered and takes the stride to the next one), so equal sets have equal encodings whatever order they were built
 * in: that makes the cross-rank merge independent of the merge tree's shape. Immutable.
 */
public final class RankList {
    private final int[] runs; // start, stride, count; stride 1 for a run of one

    private RankList(int[] runs) {
        this.runs = runs;
    }

    public static RankList of(int rank) {
        return new RankList(new int[] {rank, 1, 1});
    }

    /** Ranks {@code 0..n-1}. */
    public static RankList all(int n) {
        return new RankList(new int[] {0, 1, n});
    }

    public static RankList ofSorted(int[] sorted) {
        List<Integer> out = new ArrayList<>();
        int i = 0;
        while (i < sorted.length) {
            int start = sorted[i];
            if (i + 1 == sorted.length) {
                out.add(start); out.add(1); out.add(1);
                break;
            }
            int stride = sorted[i + 1] - start;
            int count = 2;
            while (i + count < sorted.length && sorted[i + count] - sorted[i + count - 1] == stride) {
                count++;
            }
            out.add(start); out.add(stride); out.add(count);
            i += count;
        }
        return new RankList(out.stream().mapToInt(Integer::intValue).toArray());
    }

    /** From runs as a trace file holds them; null if they are not a valid encoding. */
    public static RankList ofRuns(int[] runs) {
        if (runs.length == 0 || runs.length % 3 != 0) {
            return null;
        }
        for (int r = 0; r < runs.length; r += 3) {
            if (runs[r] < 0 || runs[r + 1] < 1 || runs[r + 2] < 1) {
                return null;
            }
        }
        return new RankList(runs.clone());
    }

    public int[] ranks() {
        int n = 0;
        for (int r = 0; r < runs.length; r += 3) {
            n += runs[r + 2];
        }
        int[] out = new int[n];
        int i = 0;
        for (int r = 0; r < runs.length; r += 3) {
            for (int c = 0; c < runs[r + 2]; c++) {
                out[i++] = runs[r] + c * runs[r + 1];
            }
        }
        Arrays.sort(out);
        return out;
    }

    public int size() {
        int n = 0;
        for (int r = 0; r < runs.length; r += 3) {
            n += runs[r + 2];
        }
        return n;
    }

    public int first() {
        return ranks()[0];
    }

    public boolean contains(int rank) {
        for (int r = 0; r < runs.length; r += 3) {
            int d = rank - runs[r];
            if (d >= 0 && d % runs[r + 1] == 0 && d / runs[r + 1] < runs[r + 2]) {
                return true;
            }
        }
        return false;
    }

    public RankList union(RankList other) {
        int[] a = ranks();
        int[] b = other.ranks();
        int[] merged = new int[a.length + b.length];
        int i = 0, j = 0, n = 0;
        while (i < a.length || j < b.length) {
            int next = j >= b.length || (i < a.length && a[i] <= b[j]) ? a[i++] : b[j++];
            if (n == 0 || merged[n - 1] != next) {
                merged[n++] = next;
            }
        }
        return ofSorted(Arrays.copyOf(merged, n));
    }

    public int[] runs() {
        return runs.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RankList other && Arrays.equals(runs, other.runs);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(runs);
    }

    /** {@code 0..255}, {@code 0..254/2}, {@code 3}, joined by commas. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        for (int r = 0; r < runs.length; r += 3) {
            if (s.length() > 0) {
                s.append(',');
            }
            int start = runs[r], stride = runs[r + 1], count = runs[r + 2];
            s.append(start);
            if (count > 1) {
                s.append("..").append(start + (count - 1) * stride);
                if (stride != 1) {
                    s.append('/').append(stride);
                }
            }
        }
        return s.toString();
    }
}
