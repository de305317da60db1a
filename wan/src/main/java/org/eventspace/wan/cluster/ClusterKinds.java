package org.eventspace.wan.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Condition;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.path.SpinYieldPark;
import org.eventspace.comm.path.ValueType;
import org.eventspace.comm.path.Wrapper;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.runtime.HostRuntime;
import org.eventspace.comm.runtime.WrapperInstance;
import org.eventspace.comm.runtime.WrapperKind;
import org.eventspace.comm.runtime.WrapperKinds;

/**
 * The three wrapper kinds of a multi-cluster allreduce in one process ({@link MultiClusterTrees}): {@code clusterroot}
 * ({@link ClusterRoot}), {@code partialfetch} (serves a remote root's prefetch thread the newest partial result of
 * its cluster, blocking until there is one at least as new as asked) and {@code prefetch} (one thread per remote
 * cluster on each cluster root host, started by the root's first call, keeping that cluster's newest partial result
 * in the root's one-tuple cache: dissertation appendix 7.3 §IV, "prefetch threads that pull tuples from the result
 * elements on other clusters"). They share per host and tree one {@link ClusterState}. Thread-safe.
 */
public final class ClusterKinds implements AutoCloseable {
    private static final long CLOSE_BOUND_MS = 1_000;
    /** How often a prefetch thread holding a reply looks whether its root has decided the cached call. */
    private static final long HOLD_POLL_NANOS = 1_000_000L;
    private final Map<String, ClusterState> states = new ConcurrentHashMap<>();
    private final List<ClusterRoot> roots = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final Map<String, List<Runnable>> prefetchers = new ConcurrentHashMap<>();

    private ClusterState state(HostRuntime host, Node node) {
        int cluster = Integer.parseInt(node.property(MultiClusterTrees.CLUSTER));
        int clusters = host.pathmap().spec().topology().clusters().size();
        int words = host.pathmap().spec().resultWords();
        return states.computeIfAbsent(host.host() + "/" + node.tree(), k -> new ClusterState(cluster, clusters, words));
    }

    /** {@code kinds} with the three kinds registered. */
    public WrapperKinds register(WrapperKinds kinds) {
        return kinds.with(new RootKind()).with(new FetchKind()).with(new PrefetchKind());
    }

    /** Conditional calls decided so far over every cluster root of this process: local, cache, rule, full exchange. */
    public synchronized long[] decided() {
        long[] sum = new long[4];
        for (ClusterRoot r : roots) {
            for (int i = 0; i < sum.length; i++) {
                sum[i] += r.decided[i];
            }
        }
        return sum;
    }

    private final class RootKind implements WrapperKind {
        @Override
        public String name() {
            return MultiClusterTrees.CLUSTER_ROOT;
        }

        @Override
        public WrapperInstance create(Node node, HostRuntime host) {
            ClusterState state = state(host, node);
            String condition = node.properties().get(Condition.PROPERTY);
            Condition c = condition == null ? null : Condition.valueOf(condition);
            double constant = c == null ? 0 : Double.parseDouble(node.property(Condition.CONSTANT_PROPERTY));
            String key = host.host() + "/" + node.tree();
            ClusterRoot root = new ClusterRoot(node.name(), host.downstream(node), state, c, constant,
                    ClusterRoot.paperWait(host.waitPolicy().timeoutNanos()), host.pathmap().spec().resultWords(),
                    () -> startPrefetch(key));
            synchronized (ClusterKinds.this) {
                roots.add(root);
            }
            return WrapperInstance.single(root);
        }
    }

    private final class FetchKind implements WrapperKind {
        @Override
        public String name() {
            return MultiClusterTrees.PARTIAL_FETCH;
        }

        @Override
        public WrapperInstance create(Node node, HostRuntime host) {
            ClusterState state = state(host, node);
            return WrapperInstance.single(m -> {
                try {
                    state.fetch(m.word(0), m);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new CommException(node.name() + ": interrupted while waiting for a partial result");
                }
            });
        }
    }

    private final class PrefetchKind implements WrapperKind {
        @Override
        public String name() {
            return MultiClusterTrees.PREFETCH;
        }

        @Override
        public WrapperInstance create(Node node, HostRuntime host) {
            ClusterState state = state(host, node);
            int from = Integer.parseInt(node.property(MultiClusterTrees.FROM));
            Wrapper below = host.downstream(node);
            String threadName = "es-prefetch-" + node.name();
            prefetchers.computeIfAbsent(host.host() + "/" + node.tree(), k -> new ArrayList<>())
                    .add(() -> startThread(threadName, state, from, below, host.pathmap().spec().resultWords()));
            return port -> {
                throw new IllegalArgumentException(node.name() + " is a prefetch thread's start; nothing calls it");
            };
        }
    }

    private void startPrefetch(String key) {
        for (Runnable r : prefetchers.getOrDefault(key, List.of())) {
            r.run();
        }
    }

    private synchronized void startThread(String name, ClusterState state, int from, Wrapper below, int words) {
        Thread t = new Thread(() -> prefetch(state, from, below, words), name);
        t.setDaemon(true);
        state.prefetchers[from] = t;
        threads.add(t);
        t.start();
    }

    /**
     * One prefetch thread: keeps one request for the remote cluster's next partial result always in flight, and stores
     * each reply in the cache only once the root has decided the call the cache holds, so an exact tuple the root still
     * needs is never overwritten.
     *
     * <p>Why the request goes out before the root decided: MagPIe's wide-area allreduce costs one one-way latency because
     * partial results travel as soon as they exist (dissertation appendix 7.3 §VI-B). A request sent only after the root
     * decided the previous call adds the request's own crossing whenever the compute between calls is shorter than the
     * link's latency: measured over four sites (18.5 ms one way, 10 ms of compute), MagPIe took 48–62 ms an iteration,
     * the two-way latency and more, instead of compute plus one way. The remote cluster cannot pass a plain call this
     * root has not published (it needs this cluster's partial result), but it may run any number of conditional calls
     * decided on its own values ahead: its fetch then answers with the newest tuple, or with its newest plain call's
     * when that is at least the one asked for ({@link ClusterState#fetch}), so a root waiting at a plain call always
     * gets that call's exact partial result.
     */
    private static void prefetch(ClusterState state, int from, Wrapper below, int words) {
        ClusterState.Cache cache = state.caches[from];
        Message m = new Message(ClusterState.HEADER_WORDS + words);
        while (!state.closed()) {
            long cached = cache.seq();
            long want = Math.max(cached + 1, state.done + 1);
            m.op(ReduceOp.SUM).type(ValueType.LONG).until((byte) 0).length(1).word(0, want);
            try {
                below.call(m);
            } catch (CommException e) {
                if (!state.closed()) {
                    cache.fail(e);
                }
                return;
            }
            if (m.word(0) < 0) {
                continue;
            }
            // Hold the reply until the root has decided what the cache holds (it may still need that exact tuple).
            // Park only (SpinYieldPark's park phase, in slices: the root does not unpark it): the root decides within a
            // call, and a prefetch thread beside the ranks must not spin or yield on the cores they compute on.
            while (state.done < cache.seq() && !state.closed()) {
                SpinYieldPark.park(state, SpinYieldPark.NO_DEADLINE, HOLD_POLL_NANOS);
            }
            cache.put(m);
        }
    }

    /**
     * Wakes every waiting fetch and prefetch thread for good (each cluster root's state is closed: a fetch answers "none"
     * at once); the threads end on their own. What {@link #close} starts with; alone, it does not wait.
     */
    public void wake() {
        for (ClusterState s : states.values()) {
            s.close();
        }
    }

    /** Stops every prefetch thread (each within a bound) and wakes every waiting fetch. */
    @Override
    public void close() {
        wake();
        List<Thread> all;
        synchronized (this) {
            all = new ArrayList<>(threads);
        }
        for (Thread t : all) {
            try {
                t.join(CLOSE_BOUND_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
