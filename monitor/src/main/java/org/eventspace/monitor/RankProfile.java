package org.eventspace.monitor;

import org.eventspace.events.TraceBuffer;
import org.eventspace.events.TraceBufferReader;
import org.eventspace.events.TraceOp;
import org.eventspace.events.TraceTupleFlyweight;

/**
 * One rank's calls on one tree, as the collector where its path enters saw them: per operation, calls and time from the
 * call to its return (the per-rank profile mpiP users read first). Read on the host's analysis thread; allocates
 * nothing; {@link #snapshot} copies under the same lock.
 */
final class RankProfile {
    /** Operation types a trace tuple can carry ({@link TraceOp}); the arrays are indexed by them. */
    private static final int OPS = 8;

    private final int rank;
    /** The tree whose entry collector this reads; -1 for a profile the front-end feeds. */
    private final int tree;
    private final TraceBufferReader reader;
    private final long[] calls = new long[OPS];
    private final long[] nanos = new long[OPS];

    RankProfile(int rank, int tree, TraceBuffer entry) {
        this.rank = rank;
        this.tree = tree;
        this.reader = entry.newReader();
    }

    /** A profile the front-end feeds ({@link #offer}): the centralised analysis. */
    RankProfile(int rank) {
        this.rank = rank;
        this.tree = -1;
        this.reader = null;
    }

    /** Central analysis: one call of operation {@code op} from {@code t0} to {@code t1}. */
    synchronized void offer(int op, long t0, long t1, boolean failedCall) {
        if (op < 0 || op >= OPS || failedCall) {
            return;
        }
        calls[op]++;
        nanos[op] += t1 - t0;
    }

    int rank() {
        return rank;
    }

    int tree() {
        return tree;
    }

    /** Reads up to {@code batch} of the collector's tuples; the lock is taken once, and only when there is one. */
    int poll(TraceTupleFlyweight tuple, int batch) {
        if (reader == null || reader.position() >= reader.writePosition()) {
            return 0;
        }
        int read = 0;
        synchronized (this) {
            while (read < batch && reader.readNext(tuple)) {
                read++;
                int op = tuple.opType();
                if (op < 0 || op >= OPS || (tuple.flags() & TraceOp.FLAG_FAILED) != 0) {
                    continue;
                }
                calls[op]++;
                nanos[op] += tuple.endNs() - tuple.startNs();
            }
        }
        return read;
    }

    /** {calls, nanos} per operation type, a copy. */
    synchronized long[][] snapshot() {
        return new long[][] {calls.clone(), nanos.clone()};
    }

    static int operations() {
        return OPS;
    }
}
