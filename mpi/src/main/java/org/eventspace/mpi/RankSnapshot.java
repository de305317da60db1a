package org.eventspace.mpi;

/**
 * A rank's meta file and trace position, copied once the run ended, so the report outlives the mappings.
 */
record RankSnapshot(int rank, int host, String hostName, int pid, boolean finalized, long initNs, long finalizeNs,
                    long initOffsetNs, long initRttNs, long finalizeOffsetNs, long finalizeRttNs, long untracedCalls,
                    long skewNs, long untrackedRequests, long[] calls, long[] bytes, long tuplesWritten, int endFlags,
                    int endSignal, int endSignalOp, int abortCode, int exitStatus, long failedNs, long initErrorNs,
                    long finalizeErrorNs, int communicatorsLost) {

    static RankSnapshot of(MpiRankFiles f) {
        int n = f.opCount();
        long[] calls = new long[n];
        long[] bytes = new long[n];
        for (int i = 0; i < n; i++) {
            calls[i] = f.calls(i);
            bytes[i] = f.bytes(i);
        }
        return new RankSnapshot(f.rank(), f.host(), f.hostName(), f.pid(), f.finalized(), f.initNs(), f.finalizeNs(),
                f.initOffsetNs(), f.initRttNs(), f.finalizeOffsetNs(), f.finalizeRttNs(), f.untracedCalls(), f.skewNs(),
                f.untrackedRequests(), calls, bytes, f.written(), f.endFlags(), f.endSignal(),
                f.endSignalOp(), f.abortCode(), f.exitStatus(), f.failedNs(), f.initErrorNs(), f.finalizeErrorNs(),
                f.communicatorsLost());
    }

    boolean ended(int endFlag) {
        return (endFlags & endFlag) != 0;
    }

    long calls(int i) {
        return i < calls.length ? calls[i] : 0;
    }

    long bytes(int i) {
        return i < bytes.length ? bytes[i] : 0;
    }
}
