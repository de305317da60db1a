package org.eventspace.mpi;

/**
 * One host's clock mapped onto rank 0's, as Score-P and Scalasca do it: the offset {@code base − local} is measured
 * at MPI_Init and again at MPI_Finalize (Cristian's algorithm: the ping-pong with the shortest round trip of 10, so
 * each offset is within half that round trip), and every timestamp between is moved by the offset interpolated
 * linearly between the two (constant drift, the clocks' rates differing by a fixed ratio). Each offset comes with its
 * error bound: half the round trip of the winning ping-pong to the rank's parent in the synchronisation tree plus
 * the parent's bound, summed along the path to rank 0 (native/es_mpi.c, es_sync):
 * <pre>
 *   offset(t) = offsetInit + (offsetFinalize − offsetInit) · (t − tInit) / (tFinalize − tInit)
 *   base(t)   = t + offset(t)
 * </pre>
 * {@code tInit} and {@code tFinalize} are the local times the two measurements ended at; the same line extends
 * before and after them. Without a measurement at MPI_Finalize (the rank died, or the analysis runs while the
 * program does) the map is the MPI_Init offset alone.
 *
 * <p>Error bound: each end is off by at most its bound, so the interpolation is off by at most the larger of the
 * two ({@link #errorBoundNs()}) — if the drift was constant; a drift that changes during the run adds
 * an error this cannot see.
 *
 * <p>Immutable.
 */
record ClockMap(long initAtNs, long offsetInitNs, long errorInitNs, long finalizeAtNs, long offsetFinalizeNs,
                long errorFinalizeNs, boolean linear) {

    /** The identity: rank 0's host. */
    static final ClockMap IDENTITY = new ClockMap(0, 0, 0, 0, 0, 0, false);

    /** The MPI_Init offset alone. */
    static ClockMap constant(long initAtNs, long offsetNs, long errorNs) {
        return new ClockMap(initAtNs, offsetNs, errorNs, initAtNs, offsetNs, errorNs, false);
    }

    /** Both offsets; the constant map if the two were taken at the same local time (nothing to interpolate over). */
    static ClockMap linear(long initAtNs, long offsetInitNs, long errorInitNs, long finalizeAtNs, long offsetFinalizeNs,
                           long errorFinalizeNs) {
        if (finalizeAtNs <= initAtNs) {
            return constant(initAtNs, offsetInitNs, errorInitNs);
        }
        return new ClockMap(initAtNs, offsetInitNs, errorInitNs, finalizeAtNs, offsetFinalizeNs, errorFinalizeNs, true);
    }

    /** The offset to add to a local timestamp {@code localNs}. */
    long offsetAt(long localNs) {
        if (!linear) {
            return offsetInitNs;
        }
        // (Δoffset · Δt) overflows a long after ~3 h at 1 ms of drift; a double keeps ns over any run's span
        return offsetInitNs + Math.round((double) (offsetFinalizeNs - offsetInitNs) * (localNs - initAtNs)
                / (finalizeAtNs - initAtNs));
    }

    /** {@code localNs} on rank 0's clock. */
    long toBase(long localNs) {
        return localNs + offsetAt(localNs);
    }

    /** The change of the offset over the run (ns; 0 without a MPI_Finalize measurement). */
    long driftNs() {
        return linear ? offsetFinalizeNs - offsetInitNs : 0;
    }

    /** The drift as a rate: ns of offset per s of local time, i.e. parts per million. */
    double driftPpm() {
        return linear ? (offsetFinalizeNs - offsetInitNs) * 1e6 / (finalizeAtNs - initAtNs) : 0;
    }

    /** How far a mapped timestamp may be off (ns), if the drift was constant: the larger of the two bounds. */
    long errorBoundNs() {
        return Math.max(errorInitNs, linear ? errorFinalizeNs : 0);
    }
}
