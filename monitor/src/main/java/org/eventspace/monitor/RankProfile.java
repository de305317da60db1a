package org.eventspace.monitor;

import java.util.concurrent.atomic.AtomicLongArray;

import org.eventspace.events.TraceBuffer;
import org.eventspace.events.TraceBufferReader;
import org.eventspace.events.TraceOp;
import org.eventspace.events.TraceTupleFlyweight;

/**
 * One rank's calls on one tree, as the collector where its path enters saw them: per operation, calls and time from the
 * call to its return (the per-rank profile mpiP users read first). Allocates nothing and takes no lock: one thread at a
 * time counts (the host's pass, which holds the host's pass flag, or the front-end's round), so each counter is a
 * single-writer value published with a release store, and {@link #snapshot} reads them from any thread.
 *
 * <p>Where the entry collector is also the collector above a port of a monitored gred on the same host, that gred's
 * reader counts the call while it reads the tuple ({@link LiveGred#feeds}): the tuple is read once, not twice.
 */
final class RankProfile {
    /** Operation types a trace tuple can carry ({@link TraceOp}); the arrays are indexed by them. */
    private static final int OPS = 8;

    private final int rank;
    /** The tree whose entry collector this reads; -1 for a profile the front-end feeds. */
    private final int tree;
    /** Its own reader of the entry collector, or null where a gred's reader or the front-end feeds it. */
    private final TraceBufferReader reader;
    private final AtomicLongArray calls = new AtomicLongArray(OPS);
    private final AtomicLongArray nanos = new AtomicLongArray(OPS);

    /** A profile that reads {@code entry} itself. */
    RankProfile(int rank, int tree, TraceBuffer entry) {
        this(rank, tree, entry.newReader());
    }

    private RankProfile(int rank, int tree, TraceBufferReader reader) {
        this.rank = rank;
        this.tree = tree;
        this.reader = reader;
    }

    /** A profile the front-end feeds ({@link #offer}): the centralised analysis. */
    RankProfile(int rank) {
        this(rank, -1, (TraceBufferReader) null);
    }

    /** A profile that a gred's reader of the rank's entry collector counts ({@link LiveGred#feeds}). */
    static RankProfile fed(int rank, int tree) {
        return new RankProfile(rank, tree, (TraceBufferReader) null);
    }

    /** Whether a pass must poll this profile: it has a reader of its own. */
    boolean reads() {
        return reader != null;
    }

    /** Central analysis: one call of operation {@code op} from {@code t0} to {@code t1}. */
    void offer(int op, long t0, long t1, boolean failedCall) {
        if (!failedCall) {
            count(op, t1 - t0);
        }
    }

    /** One call of operation {@code op} that took {@code nanosTaken}; by the one thread that counts now. */
    void count(int op, long nanosTaken) {
        if (op < 0 || op >= OPS) {
            return;
        }
        calls.lazySet(op, calls.get(op) + 1);
        nanos.lazySet(op, nanos.get(op) + nanosTaken);
    }

    int rank() {
        return rank;
    }

    int tree() {
        return tree;
    }

    /** Reads up to {@code batch} of the collector's tuples, if it has a reader of its own. */
    int poll(TraceTupleFlyweight tuple, int batch) {
        if (reader == null) {
            return 0;
        }
        int read = 0;
        while (read < batch && reader.readNext(tuple)) {
            read++;
            if ((tuple.flags() & TraceOp.FLAG_FAILED) == 0) {
                count(tuple.opType(), tuple.endNs() - tuple.startNs());
            }
        }
        return read;
    }

    /**
     * {calls, nanos} per operation type, a copy. Read while a pass counts, an operation's calls and time may be one
     * call apart; once the monitors stopped they are exact.
     */
    long[][] snapshot() {
        long[][] s = new long[2][OPS];
        for (int op = 0; op < OPS; op++) {
            s[0][op] = calls.get(op);
            s[1][op] = nanos.get(op);
        }
        return s;
    }

    static int operations() {
        return OPS;
    }
}
