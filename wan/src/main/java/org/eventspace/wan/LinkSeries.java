package org.eventspace.wan;

import java.util.Arrays;

/**
 * A value of an emulated link over time: one constant, or a time series of samples read from a file (Longcut paper,
 * dissertation §8.1 §III: "latency and bandwidth time series read from trace files").
 *
 * <p>Indexing (docs/WAN-FORMAT.md): a sample holds from its time until the next sample's; before the first sample the
 * first value holds, after the last the last value holds. Time is nanoseconds since the emulation started
 * ({@link GatewayScheduler}'s epoch), so every gateway of a job replays the same trace from the same moment.
 *
 * <p>Immutable; {@link #at} allocates nothing and may be called from any thread.
 */
public final class LinkSeries {
    private final long[] timesNs;
    private final double[] values;

    private LinkSeries(long[] timesNs, double[] values) {
        this.timesNs = timesNs;
        this.values = values;
    }

    /** A value that never changes. */
    public static LinkSeries constant(double value) {
        return new LinkSeries(new long[] {0}, new double[] {value});
    }

    /**
     * Samples at strictly increasing times {@code timesNs} (≥ 0) with their values; checked by the file reader, which
     * names the line, and here again for callers that build a series in code.
     */
    public static LinkSeries of(long[] timesNs, double[] values) {
        if (timesNs.length == 0 || timesNs.length != values.length) {
            throw new IllegalArgumentException("a series needs one value per time and at least one sample, times="
                    + timesNs.length + ", values=" + values.length);
        }
        for (int i = 0; i < timesNs.length; i++) {
            if (timesNs[i] < 0 || (i > 0 && timesNs[i] <= timesNs[i - 1])) {
                throw new IllegalArgumentException("sample times must be >= 0 and strictly increasing, sample " + i
                        + " at " + timesNs[i] + " ns");
            }
        }
        return new LinkSeries(timesNs.clone(), values.clone());
    }

    /** The value in force {@code elapsedNs} after the epoch: the last sample at or before it (the first before any). */
    public double at(long elapsedNs) {
        if (timesNs.length == 1 || elapsedNs <= timesNs[0]) {
            return values[0];
        }
        int i = Arrays.binarySearch(timesNs, elapsedNs);
        return values[i >= 0 ? i : -i - 2];
    }

    public int samples() {
        return timesNs.length;
    }

    public boolean isConstant() {
        return timesNs.length == 1;
    }

    /** The smallest and largest value: what the emulated link can range over. */
    public double min() {
        return Arrays.stream(values).min().orElseThrow();
    }

    public double max() {
        return Arrays.stream(values).max().orElseThrow();
    }

    /** The mean over the samples (not weighted by how long each holds). */
    public double mean() {
        return Arrays.stream(values).average().orElseThrow();
    }

    @Override
    public String toString() {
        return isConstant() ? Double.toString(values[0]) : samples() + " samples";
    }
}
