package org.eventspace.monitor;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.agrona.concurrent.IdleStrategy;
import org.eventspace.comm.path.Gred;
import org.eventspace.comm.path.SpinYieldPark;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.events.CollectorKind;

/**
 * Lets the communication system decide when each host's analysis thread runs ({@link Coschedule}). Installed as the
 * job's {@link Gred.ReleaseListener} before the job starts ({@code MonitoredJob.inJvm(config, pathmap -> Coscheduler.of(pathmap, strategy))}); the
 * analysis threads then idle on {@link #idleStrategy(int)}.
 *
 * <p>Strategy (i) releases a host's analysis at {@link Gred.ReleaseListener#allArrived} of each of the host's topmost
 * greds (the last one on the host before the path leaves it: from then on the host's threads wait for the rest of the
 * tree). Strategy (ii) releases it at {@link Gred.ReleaseListener#released} of the greds where ranks enter (the
 * broadcast has just woken the application threads; release order: communication threads, application threads,
 * analysis). The analysis thread makes one pass over its buffers every {@value #RELEASES_PER_PASS} releases and waits
 * for the next, at most {@value #MAX_WAIT_MILLIS} ms, so the last tuples of a run are still read. The callbacks look the gred up by name in a
 * map built once, increment a counter and unpark one thread: no allocation, no lock.
 */
public final class Coscheduler implements Gred.ReleaseListener {
    private static final long MAX_WAIT_MILLIS = 100;
    /**
     * Releases per analysis pass: a pass every release would wake the analysis thread at every collective (a few µs
     * of a shared core each time, measured +12.7 % on a 22 µs TCP allreduce); every 32nd reads 32 calls' tuples at
     * once, far inside what the trace buffers hold.
     */
    static final int RELEASES_PER_PASS = 32;

    private final Coschedule strategy;
    private final Map<String, Gate> byGred = new HashMap<>();
    private final Map<Integer, Gate> byHost = new HashMap<>();

    /** One host's release count and the analysis thread that waits for it. */
    static final class Gate {
        final AtomicLong releases = new AtomicLong();
        volatile Thread waiter;

        void release() {
            long n = releases.incrementAndGet();
            Thread t = waiter;
            if (t != null && n % RELEASES_PER_PASS == 0) {
                LockSupport.unpark(t);
            }
        }
    }

    private Coscheduler(Coschedule strategy) {
        this.strategy = strategy;
    }

    /** A coscheduler for the greds of {@code pathmap} with {@code strategy}. */
    public static Coscheduler of(Pathmap pathmap, Coschedule strategy) {
        Coscheduler c = new Coscheduler(strategy);
        for (Node n : pathmap.nodes()) {
            if (!n.kind().equals(PathmapBuilder.GRED)) {
                continue;
            }
            Gate gate = c.byHost.computeIfAbsent(n.host(), h -> new Gate());
            boolean releases = switch (strategy) {
                case NONE -> false;
                case I -> topmostOnItsHost(pathmap, n);
                case II -> !pathmap.entriesAt(n.id()).isEmpty() || ranksEnterAbove(pathmap, n);
            };
            // Only a gred with collectors feeds the analysis: on a tree without them (the off side of an interleaved
            // overhead run) a release would run analysis work at that tree's calls.
            if (releases && n.parent() >= 0 && pathmap.node(n.parent()).kind().equals(CollectorKind.NAME)) {
                c.byGred.put(n.name(), gate);
            }
        }
        return c;
    }

    /** No other gred of the same host lies between {@code g} and the root. */
    private static boolean topmostOnItsHost(Pathmap pathmap, Node g) {
        for (int id = g.parent(); id >= 0; id = pathmap.node(id).parent()) {
            Node n = pathmap.node(id);
            if (n.host() != g.host()) {
                return true;
            }
            if (n.kind().equals(PathmapBuilder.GRED)) {
                return false;
            }
        }
        return true;
    }

    /** A rank's path enters at a collector (or other wrapper) whose path reaches {@code g} without another gred. */
    private static boolean ranksEnterAbove(Pathmap pathmap, Node g) {
        List<Node> children = pathmap.children(g.id());
        for (Node c : children) {
            Node n = c;
            while (true) {
                if (!pathmap.entriesAt(n.id()).isEmpty()) {
                    return true;
                }
                List<Node> above = pathmap.children(n.id());
                if (above.size() != 1 || above.get(0).kind().equals(PathmapBuilder.GRED)
                        || above.get(0).host() != g.host()) {
                    break;
                }
                n = above.get(0);
            }
        }
        return false;
    }

    public Coschedule strategy() {
        return strategy;
    }

    @Override
    public void allArrived(Gred gred, long round) {
        if (strategy == Coschedule.I) {
            Gate gate = byGred.get(gred.name());
            if (gate != null) {
                gate.release();
            }
        }
    }

    @Override
    public void released(Gred gred, long round) {
        if (strategy == Coschedule.II) {
            Gate gate = byGred.get(gred.name());
            if (gate != null) {
                gate.release();
            }
        }
    }

    /** Greds whose callback releases an analysis thread (for tests). */
    int releasingGreds() {
        return byGred.size();
    }

    /** Releases {@code host}'s analysis counted so far. */
    public long releases(int host) {
        Gate g = byHost.get(host);
        return g == null ? 0 : g.releases.get();
    }

    /**
     * How {@code host}'s analysis thread idles: with {@link Coschedule#NONE} it backs off to 1 ms sleeps; otherwise,
     * after a pass, it parks until the host's next release (or {@value #MAX_WAIT_MILLIS} ms).
     */
    IdleStrategy idleStrategy(int host) {
        if (strategy == Coschedule.NONE) {
            return SpinYieldPark.agentIdle(10, 20, 10_000, TimeUnit.MILLISECONDS.toNanos(1));
        }
        Gate gate = byHost.computeIfAbsent(host, h -> new Gate());
        return new GateIdle(gate);
    }

    /** Parks after every pass until the gate's count moves. */
    private static final class GateIdle implements IdleStrategy {
        private final Gate gate;
        private long seen;

        GateIdle(Gate gate) {
            this.gate = gate;
        }

        @Override
        public void idle(int workCount) {
            idle();
        }

        @Override
        public void idle() {
            gate.waiter = Thread.currentThread();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MAX_WAIT_MILLIS);
            // The gate unparks this thread every RELEASES_PER_PASS releases: park to the deadline, no polling.
            while (gate.releases.get() - seen < RELEASES_PER_PASS) {
                if (!SpinYieldPark.park(this, deadline, SpinYieldPark.UNTIL_DEADLINE)) {
                    break;
                }
            }
            seen = gate.releases.get();
        }

        @Override
        public void reset() {
        }
    }
}
