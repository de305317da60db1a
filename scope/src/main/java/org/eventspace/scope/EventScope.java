package org.eventspace.scope;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.Wrapper;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.runtime.HostRuntime;
import org.eventspace.scope.filter.FilterSpec;
import org.eventspace.scope.filter.Packet;
import org.eventspace.scope.filter.ScopeFilter;

/**
 * The front-end of an event scope: pulls rounds of monitoring data through the scope's gather tree, on demand.
 * Thread-safe: {@link #open}, {@link #pull} and {@link #close} may be called from any thread and run one at a
 * time, in the calling thread, which is what the scope's wrappers require (one round in the tree at a time).
 *
 * <p>Nothing moves until somebody reads (EventSpace paper §4.1, "on demand data gathering"): the scope's
 * wrappers sit idle on their hosts until {@link #pull} sends a PULL down. The stream follows ToM (§2.2, §3):
 * {@link #open} sends INIT, on which every node makes its filter instance from the spec it was built with and
 * every {@code par:N} gather starts its helper threads; each {@link #pull} asks the filter for the round's command
 * ({@code command(round, previousRoot)}, so a multi-phase filter can carry a phase of an earlier round), sends it
 * down as a PULL and turns the root's answer into a {@link ScopeRound}; {@link #close} sends FIN and returns once
 * the FINACK came back from every node, whose helpers are then stopped.
 *
 * <p>Failures are named, never hung on: a child that fails fails the round with a {@link CommException} naming it
 * and its host. The front-end gives the root a budget, the scope's timeout (the job's, unless its
 * {@link ScopeSpec} set one), and every gather gives its children ¾ of its own, so the deepest failure arrives
 * first. A {@code par:N} gather waits for its children at most its budget and then names the child that did not
 * answer; a {@code seq} gather calls its children in its own thread, so it waits as long as they take — which is
 * bounded too, since a leaf never waits and a hop fails after the job's timeout. A failed round leaves the scope
 * open; {@link #close} still tears it down (and names a child it could not reach).
 *
 * <p>Made on the front-end host, the host of the scope's root: {@code EventScope.on(hostRuntime)} after the host
 * was built and connected.
 */
public final class EventScope implements AutoCloseable {
    private final String name;
    private final HostRuntime host;
    private final Node root;
    private final FilterSpec filterSpec;
    private final long timeoutNanos;
    private final Message message = new Message(64);
    private final ScopeFrame.Counts counts = new ScopeFrame.Counts();
    private Wrapper rootWrapper;
    private ScopeFilter filter;
    private Packet previousRoot;
    private long round;
    private boolean open;

    private EventScope(String name, HostRuntime host, Node root, FilterSpec filterSpec, long timeoutNanos) {
        this.name = name;
        this.host = host;
        this.root = root;
        this.filterSpec = filterSpec;
        this.timeoutNanos = timeoutNanos;
    }

    /** The front-end of the scope named {@value ScopeSpec#DEFAULT_NAME} on {@code frontEnd}. */
    public static EventScope on(HostRuntime frontEnd) {
        return on(frontEnd, ScopeSpec.DEFAULT_NAME);
    }

    /**
     * The front-end of scope {@code scope} on {@code frontEnd}, which must be the host of its root.
     *
     * @throws IllegalArgumentException if the pathmap has no such scope, or its root is on another host.
     */
    public static EventScope on(HostRuntime frontEnd, String scope) {
        Node root = ScopeBuilder.root(frontEnd.pathmap(), scope);
        if (root.host() != frontEnd.host()) {
            throw new IllegalArgumentException("event scope '" + scope + "': its root " + root.name() + " runs on host "
                    + frontEnd.pathmap().spec().topology().host(root.host()).name() + ", not on " + frontEnd.hostName()
                    + "; make the EventScope on the front-end host");
        }
        long timeout = ScopeBuilder.timeoutNanos(root, frontEnd.waitPolicy().timeoutNanos());
        return new EventScope(scope, frontEnd, root, ScopeKinds.filter(root), timeout);
    }

    /**
     * Opens the scope's streams: INIT to every node.
     *
     * @throws IllegalStateException if it is open already.
     * @throws CommException         if a node failed; the nodes that opened are closed again (best effort).
     */
    public synchronized void open() {
        if (open) {
            throw new IllegalStateException("event scope '" + name + "' is already open");
        }
        if (rootWrapper == null) {
            rootWrapper = host.entry(root.id(), 0);
        }
        filter = filterSpec.newInstance();
        previousRoot = null;
        round = 0;
        try {
            exchange(Packet.INIT, Packet.of(Packet.INIT, 0), Packet.INIT);
        } catch (RuntimeException e) {
            try {
                exchange(Packet.FIN, Packet.of(Packet.FIN, 0), Packet.FINACK);
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            filter = null;
            throw e;
        }
        open = true;
    }

    /**
     * Pulls one round: the filter's command goes down, every leaf reads what its host produced since the last
     * pull, the filters combine it on the way up.
     *
     * @throws IllegalStateException if the scope is not open.
     * @throws CommException         naming the node that failed or did not answer in time.
     */
    public synchronized ScopeRound pull() {
        if (!open) {
            throw new IllegalStateException("event scope '" + name + "' is not open; call open() first");
        }
        long r = round++;
        Packet command = filter.command(r, previousRoot);
        long start = System.nanoTime();
        exchange(Packet.PULL, command, Packet.PULL);
        Packet answer = ScopeFrame.packet(message, "event scope '" + name + "', answer of " + root.name());
        long nanos = System.nanoTime() - start;
        previousRoot = answer;
        return new ScopeRound(r, filter.result(answer), counts.produced, counts.gathered, counts.dropped, counts.rawBytes,
                counts.levelBytes(), nanos);
    }

    /** Closes the streams: FIN down, FINACK back from every node. Does nothing if not open. */
    @Override
    public synchronized void close() {
        if (!open) {
            return;
        }
        try {
            exchange(Packet.FIN, Packet.of(Packet.FIN, round), Packet.FINACK);
        } finally {
            open = false;
            filter = null;
        }
    }

    private void exchange(int control, Packet packet, int expected) {
        ScopeFrame.writeDown(message, control, timeoutNanos, packet);
        rootWrapper.call(message);
        String at = "event scope '" + name + "', answer of " + root.name();
        int answer = ScopeFrame.control(message, at);
        if (answer != expected) {
            throw new CommException(at + ": expected " + ScopeFrame.controlName(expected) + ", got " + ScopeFrame.controlName(answer));
        }
        counts.clear();
        ScopeFrame.addCounts(message, counts);
    }

    public synchronized boolean isOpen() {
        return open;
    }

    public String name() {
        return name;
    }

    /** The scope's root node (on this front-end's host). */
    public Node root() {
        return root;
    }

    /** Levels of the scope tree: the root's level + 1. */
    public int levels() {
        return ScopeBuilder.level(root) + 1;
    }

    public String filterName() {
        return root.property(ScopeBuilder.FILTER);
    }

    @Override
    public String toString() {
        return "EventScope{" + name + ", root=" + root.name() + ", filter=" + filterName() + ", open=" + open + ", rounds=" + round + '}';
    }
}
