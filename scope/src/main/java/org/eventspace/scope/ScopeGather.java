package org.eventspace.scope;

import java.util.ArrayList;
import java.util.List;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.Wrapper;
import org.eventspace.comm.runtime.HostRuntime;
import org.eventspace.scope.filter.FilterSpec;
import org.eventspace.scope.filter.Packet;
import org.eventspace.scope.filter.ScopeFilter;

/**
 * A gather wrapper of an event scope (EventSpace paper §4.2: gather wrappers "read tuples from several PastSet
 * buffers, concatenate these and return one large tuple"; here the filter decides what "concatenate" means, as
 * ToM's up-stream filters do, §2.3). For each message from its parent it:
 * <ol>
 *   <li>reads the command frame (INIT, PULL with the filter's command, or FIN);</li>
 *   <li>passes {@code filter.down(command)} to every child, each in the child's own preallocated message, with a
 *       budget of ¾ of its own so that a failure below reaches it before it gives up;</li>
 *   <li>calls the children: in its caller's thread one after the other ({@code seq}), or through its N helper
 *       threads in parallel ({@code par:N}), waiting at most its budget;</li>
 *   <li>sums the children's counts, combines their packets with {@code filter.up}, and answers in the same
 *       message, adding the bytes of its own answer to the count of its level.</li>
 * </ol>
 * A child that fails, or (under {@code par:N}) does not answer in time, fails the round with a
 * {@link CommException} naming the child and its host. INIT makes the node's filter instance and starts its
 * helpers; FIN is passed to every child even if one fails, then stops the helpers and drops the filter.
 *
 * <p>One caller at a time: the front-end's thread for the root, otherwise the thread serving the gather's hop
 * or the gather above it (or one of its helpers); each call happens after the previous one returned.
 */
final class ScopeGather implements Wrapper {
    private final String name;
    private final String hostName;
    private final int level;
    private final FilterSpec filterSpec;
    private final GatherMode mode;
    private final long timeoutNanos;
    private final HostRuntime host;
    private final ScopeChild[] children;
    private final ScopeFrame.Counts counts = new ScopeFrame.Counts();
    private ScopeFilter filter;
    private GatherHelpers helpers;

    /**
     * @param timeoutNanos how long a round may take here when the command brings no budget.
     * @param children     the children in gather order; those on this host are resolved at INIT.
     */
    ScopeGather(String name, HostRuntime host, int level, FilterSpec filterSpec, GatherMode mode, long timeoutNanos,
                ScopeChild[] children) {
        this.name = name;
        this.hostName = host.hostName();
        this.host = host;
        this.level = level;
        this.filterSpec = filterSpec;
        this.mode = mode;
        this.timeoutNanos = timeoutNanos;
        this.children = children;
    }

    @Override
    public void call(Message m) {
        String at = "scope gather " + name;
        int control = ScopeFrame.control(m, at);
        Packet command = ScopeFrame.packet(m, at);
        long budget = ScopeFrame.budget(m) > 0 ? ScopeFrame.budget(m) : timeoutNanos;
        long deadline = System.nanoTime() + budget;
        long childBudget = Math.max(1, budget / 4 * 3);
        counts.clear();
        switch (control) {
            case Packet.INIT -> {
                open();
                forward(Packet.INIT, command, childBudget, deadline, budget);
                replies(Packet.INIT, false);
                ScopeFrame.writeUp(m, Packet.INIT, counts, level, Packet.of(Packet.INIT, command.round()), name);
            }
            case Packet.PULL -> {
                if (filter == null) {
                    throw new CommException(at + ": PULL for round " + command.round() + " before INIT; open the scope first");
                }
                forward(Packet.PULL, filter.down(command), childBudget, deadline, budget);
                List<Packet> packets = replies(Packet.PULL, true);
                Packet up = filter.up(command, packets);
                ScopeFrame.writeUp(m, Packet.PULL, counts, level, up, name);
            }
            case Packet.FIN -> {
                try {
                    finish(command, childBudget);
                } finally {
                    stopHelpers();
                    filter = null;
                }
                ScopeFrame.writeUp(m, Packet.FINACK, counts, level, Packet.of(Packet.FINACK, command.round()), name);
            }
            default -> throw new CommException(at + ": unexpected " + ScopeFrame.controlName(control) + " going down");
        }
    }

    private void open() {
        for (ScopeChild c : children) {
            if (!c.resolved()) {
                c.resolve(host.entry(c.id, 0));
            }
        }
        filter = filterSpec.newInstance();
        if (!mode.sequential() && helpers == null) {
            helpers = new GatherHelpers(name, Math.min(mode.helpers(), children.length), children.length);
        }
    }

    /** Writes {@code packet} to every child's message and calls the children, as the gather mode says. */
    private void forward(int control, Packet packet, long childBudget, long deadline, long budget) {
        ScopeFrame.writeDown(children[0].message, control, childBudget, packet);
        for (int i = 1; i < children.length; i++) {
            children[i].message.copyFrom(children[0].message);
        }
        if (helpers != null) {
            helpers.exchange(children, deadline, budget);
            return;
        }
        for (ScopeChild c : children) {
            try {
                c.call();
            } catch (RuntimeException e) {
                throw childFailed(name, c, e);
            }
        }
    }

    /** FIN to every child, in this thread: a failing child does not keep FIN from the others. */
    private void finish(Packet command, long childBudget) {
        RuntimeException first = null;
        for (ScopeChild c : children) {
            if (c.busy()) {
                first = first != null ? first : new CommException("scope gather " + name + ": child " + c.name + " on host "
                        + c.hostName + " is still busy with an earlier round that timed out; not sent FIN");
                continue;
            }
            try {
                ScopeFrame.writeDown(c.message, Packet.FIN, childBudget, command);
                if (!c.resolved()) {
                    continue;
                }
                c.call();
                String at = "scope gather " + name + ", answer of child " + c.name;
                int control = ScopeFrame.control(c.message, at);
                if (control != Packet.FINACK) {
                    throw new CommException(at + ": expected FINACK, got " + ScopeFrame.controlName(control));
                }
                ScopeFrame.addCounts(c.message, counts);
            } catch (RuntimeException e) {
                first = first != null ? first : childFailed(name, c, e);
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Checks every child's answer, adds its counts, and, if {@code decode}, returns its packets in child order. */
    private List<Packet> replies(int expected, boolean decode) {
        List<Packet> packets = decode ? new ArrayList<>(children.length) : List.of();
        for (ScopeChild c : children) {
            String at = "scope gather " + name + ", answer of child " + c.name;
            int control = ScopeFrame.control(c.message, at);
            if (control != expected) {
                throw new CommException(at + ": expected " + ScopeFrame.controlName(expected) + ", got "
                        + ScopeFrame.controlName(control));
            }
            ScopeFrame.addCounts(c.message, counts);
            if (decode) {
                packets.add(ScopeFrame.packet(c.message, at));
            }
        }
        return packets;
    }

    private void stopHelpers() {
        if (helpers != null) {
            List<String> stuck = helpers.close();
            helpers = null;
            if (!stuck.isEmpty()) {
                System.err.println("es-scope " + name + " on host " + hostName + ": helpers still in a child call at FIN, "
                        + "left to end on their own: " + stuck);
            }
        }
    }

    static CommException childFailed(String gather, ScopeChild c, RuntimeException e) {
        String why = e.getMessage() == null ? e.toString() : e.getMessage();
        return new CommException("scope gather " + gather + ": child " + c.name + " on host " + c.hostName + " failed: " + why, e);
    }

    @Override
    public String toString() {
        return "ScopeGather{" + name + "@" + hostName + ", level=" + level + ", children=" + children.length + ", " + mode + '}';
    }
}
