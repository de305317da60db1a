package org.eventspace.comm.runtime;

import java.util.Arrays;

import org.agrona.collections.Int2ObjectHashMap;
import org.eventspace.comm.Comm;
import org.eventspace.comm.element.Element;
import org.eventspace.comm.element.ElementCursor;
import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Condition;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.path.ValueType;
import org.eventspace.comm.path.Wrapper;
import org.eventspace.comm.pathmap.Entry;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.traffic.TrafficScope;
import org.eventspace.comm.traffic.TrafficTag;
import org.eventspace.comm.transport.Hop;

/**
 * {@link Comm} for one rank: its entry wrapper into each tree, one reusable message per tree, and lazily
 * opened point-to-point paths. Not thread-safe; the collective hot path allocates nothing. After a collective
 * failed, every later collective of this rank fails at once with that failure.
 */
public final class PathComm implements Comm {
    private final int rank;
    private final int size;
    private final HostRuntime host;
    private final Wrapper[] trees;
    private final Message[] messages;
    /**
     * The peers this rank sent to or received from, opened on first use. A map, not arrays of {@code size}: every
     * rank of a job in one JVM held four such arrays, 16 bytes × ranks², 160 GB at 100 000 ranks.
     */
    private final Int2ObjectHashMap<Peer> peers = new Int2ObjectHashMap<>();
    private final Message p2p = new Message(1);
    /**
     * Collective calls made so far, alone in a padded array: ranks' PathComms are made one after another by one
     * thread, and a counter every rank bumps on every call must not share a cache line with another rank's.
     */
    private final long[] calls = new long[2 * PAD + 1];
    private CommException failure;
    private static final int PAD = 16;
    /**
     * Per tree, the traffic tag of each kind of message in the current phase ({@link TrafficScope#tag}; without its
     * counted bit on a tree the scope leaves out); all 0 when nothing counts. Point-to-point messages use tree 0's.
     */
    private final byte[][] tags;
    /** Per tree, the condition its cluster roots decide early (a conditional multi-cluster tree), or null. */
    private final Condition[] untilCondition;
    private final double[] untilConstant;

    public PathComm(int rank, HostRuntime host) {
        Pathmap pathmap = host.pathmap();
        this.rank = rank;
        this.size = pathmap.spec().ranks();
        this.host = host;
        int treeCount = pathmap.spec().trees();
        this.trees = new Wrapper[treeCount];
        this.messages = new Message[treeCount];
        this.tags = new byte[treeCount][TrafficTag.KIND_MASK + 1];
        this.untilCondition = new Condition[treeCount];
        this.untilConstant = new double[treeCount];
        for (int t = 0; t < treeCount; t++) {
            Entry entry = pathmap.entry(t, rank);
            trees[t] = host.entry(entry.node(), entry.port());
            messages[t] = new Message(1);
            for (org.eventspace.comm.pathmap.Node n : pathmap.path(t, rank)) {
                String condition = n.properties().get(Condition.PROPERTY);
                if (condition != null) {
                    untilCondition[t] = Condition.valueOf(condition);
                    untilConstant[t] = Double.parseDouble(n.property(Condition.CONSTANT_PROPERTY));
                }
            }
        }
        if (host.options().traffic() != null) {
            retag(host.options().traffic(), 0);
        }
    }

    /** A peer's point-to-point ends, each opened on first use. */
    private static final class Peer {
        Wrapper sendPath;
        String sendMailbox;
        Element recvElement;
        ElementCursor recvCursor;
    }

    private Peer peer(int other) {
        Peer peer = peers.get(other);
        if (peer == null) {
            peer = new Peer();
            peers.put(other, peer);
        }
        return peer;
    }

    /** Name of the element holding messages from {@code source} to {@code dest}, on {@code dest}'s host. */
    public static String mailbox(int source, int dest) {
        return "p2p." + source + "." + dest;
    }

    /** The source and destination rank of a {@link #mailbox} name, or null if {@code name} is not one. */
    public static int[] mailboxRanks(String name) {
        return Hop.mailboxRanks(name);
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    private Message next(int kind, ReduceOp op, ValueType type, int length) {
        int tree = (int) (calls[PAD] % messages.length);
        Message m = messages[tree];
        m.op(op).type(type).length(length).tag(tags[tree][kind]).until((byte) 0);
        return m;
    }

    /**
     * Marks the start of application phase {@code name} for this rank: its later messages are counted under it (ibprof
     * paper §3.2). Every rank must mark the same phases in the same order.
     */
    @Override
    public void phase(String name) {
        TrafficScope scope = host.options().traffic();
        if (scope == null) {
            TrafficScope.checkPhaseName(name);
            return;
        }
        retag(scope, scope.phase(name));
    }

    private void retag(TrafficScope scope, int phase) {
        for (int tree = 0; tree < tags.length; tree++) {
            for (int kind = 0; kind < tags[tree].length; kind++) {
                byte tag = scope.tag(phase, kind);
                tags[tree][kind] = kind == TrafficTag.SEND || scope.countsTree(tree) ? tag : (byte) (tag & ~TrafficTag.COUNTED);
            }
        }
    }

    private void run(Message m) {
        if (failure != null) {
            throw new CommException("rank " + rank + ": an earlier collective failed, so the job's collectives cannot go on: "
                    + failure.getMessage(), failure);
        }
        try {
            trees[(int) (calls[PAD]++ % trees.length)].call(m);
        } catch (CommException e) {
            // A collective that lost a member cannot be resumed, and the other trees would each make this rank
            // wait out their own timeout before saying so: fail every later collective at once.
            failure = e;
            throw e;
        }
    }

    @Override
    public long allreduce(long value, ReduceOp op) {
        Message m = next(TrafficTag.ALLREDUCE, op, ValueType.LONG, 1).word(0, value);
        run(m);
        return m.word(0);
    }

    @Override
    public double allreduce(double value, ReduceOp op) {
        Message m = next(TrafficTag.ALLREDUCE, op, ValueType.DOUBLE, 1).word(0, Double.doubleToRawLongBits(value));
        run(m);
        return Double.longBitsToDouble(m.word(0));
    }

    /**
     * On a conditional tree the message carries the condition's code down; the cluster root answers 1 (holds) or 0 in
     * word 0. On any other tree, the plain allreduce and the test.
     */
    @Override
    public boolean allreduceUntil(double value, ReduceOp op, Condition condition, double constant) {
        condition.checkOp(op);
        condition.checkContribution(op, value);
        int tree = (int) (calls[PAD] % messages.length);
        Condition configured = untilCondition[tree];
        if (configured == null) {
            return condition.holds(allreduce(value, op), constant);
        }
        if (configured != condition || Double.doubleToLongBits(untilConstant[tree]) != Double.doubleToLongBits(constant)) {
            throw new IllegalArgumentException("rank " + rank + ": tree " + tree + " decides 'result " + configured + " "
                    + untilConstant[tree] + "' early, but the call asks 'result " + condition + " " + constant
                    + "' (a conditional tree's condition and constant are set with the layout)");
        }
        Message m = next(TrafficTag.ALLREDUCE, op, ValueType.DOUBLE, 1).word(0, Double.doubleToRawLongBits(value))
                .until(condition.code());
        run(m);
        return m.word(0) == 1L;
    }

    @Override
    public void allreduce(long[] values, int count, ReduceOp op) {
        Message m = next(TrafficTag.ALLREDUCE, op, ValueType.LONG, count);
        System.arraycopy(values, 0, m.words(), 0, count);
        run(m);
        System.arraycopy(m.words(), 0, values, 0, count);
    }

    @Override
    public void allreduce(double[] values, int count, ReduceOp op) {
        Message m = next(TrafficTag.ALLREDUCE, op, ValueType.DOUBLE, count);
        long[] w = m.words();
        for (int i = 0; i < count; i++) {
            w[i] = Double.doubleToRawLongBits(values[i]);
        }
        run(m);
        for (int i = 0; i < count; i++) {
            values[i] = Double.longBitsToDouble(w[i]);
        }
    }

    @Override
    public void barrier() {
        run(next(TrafficTag.BARRIER, ReduceOp.SUM, ValueType.LONG, 0));
    }

    @Override
    public void broadcast(long[] data, int count, int root) {
        checkRoot(root);
        Message m = slots(TrafficTag.BROADCAST, count);
        if (rank == root) {
            System.arraycopy(data, 0, m.words(), 0, count);
        }
        run(m);
        System.arraycopy(m.words(), 0, data, 0, count);
    }

    @Override
    public void gather(long[] send, int count, long[] recv, int root) {
        checkRoot(root);
        Message m = gatherSlots(TrafficTag.GATHER, send, count);
        if (rank == root) {
            System.arraycopy(m.words(), 0, recv, 0, size * count);
        }
    }

    @Override
    public void allgather(long[] send, int count, long[] recv) {
        Message m = gatherSlots(TrafficTag.ALLGATHER, send, count);
        System.arraycopy(m.words(), 0, recv, 0, size * count);
    }

    private Message gatherSlots(int kind, long[] send, int count) {
        Message m = slots(kind, size * count);
        System.arraycopy(send, 0, m.words(), rank * count, count);
        run(m);
        return m;
    }

    @Override
    public void scatter(long[] send, int count, long[] recv, int root) {
        checkRoot(root);
        Message m = slots(TrafficTag.SCATTER, size * count);
        if (rank == root) {
            System.arraycopy(send, 0, m.words(), 0, size * count);
        }
        run(m);
        System.arraycopy(m.words(), rank * count, recv, 0, count);
    }

    @Override
    public void alltoall(long[] send, int count, long[] recv) {
        int row = size * count;
        Message m = slots(TrafficTag.ALLTOALL, size * row);
        System.arraycopy(send, 0, m.words(), rank * row, row);
        run(m);
        for (int source = 0; source < size; source++) {
            System.arraycopy(m.words(), source * row + rank * count, recv, source * count, count);
        }
    }

    private Message slots(int kind, int length) {
        Message m = next(kind, ReduceOp.SLOT, ValueType.LONG, length);
        Arrays.fill(m.words(), 0, length, 0L);
        return m;
    }

    private void checkRoot(int root) {
        checkRank("root", root);
    }

    private void checkRank(String role, int rank) {
        if (rank < 0 || rank >= size) {
            throw new IllegalArgumentException(role + " must be a rank 0.." + (size - 1) + ", " + role + "=" + rank);
        }
    }

    @Override
    public void send(int dest, long[] data, int count) {
        checkRank("dest", dest);
        Peer peer = peer(dest);
        if (peer.sendPath == null) {
            peer.sendMailbox = mailbox(rank, dest);
            peer.sendPath = host.pointToPoint(host.pathmap().spec().hostOf(dest), peer.sendMailbox);
        }
        // The element name marks the message as a send for the wrappers it passes (a collector's op type).
        p2p.op(ReduceOp.SLOT).type(ValueType.LONG).element(peer.sendMailbox).length(count)
                .tag(tags[0][TrafficTag.SEND]);
        System.arraycopy(data, 0, p2p.words(), 0, count);
        peer.sendPath.call(p2p);
    }

    @Override
    public int recv(int source, long[] into) {
        checkRank("source", source);
        Peer peer = peer(source);
        if (peer.recvElement == null) {
            peer.recvElement = host.pointToPointElement(mailbox(source, rank));
            peer.recvCursor = peer.recvElement.cursorAt(0);
        }
        Element element = peer.recvElement;
        ElementCursor cursor = peer.recvCursor;
        element.readNext(cursor, p2p, host.waiting());
        if (cursor.missed() > 0) {
            throw new CommException("rank " + rank + " lost " + cursor.missed() + " messages from rank " + source
                    + ": more than " + element.capacity() + " were sent before it received");
        }
        int count = p2p.length();
        if (into.length < count) {
            throw new CommException("rank " + rank + ": message from rank " + source + " has " + count
                    + " words, receive buffer holds " + into.length);
        }
        System.arraycopy(p2p.words(), 0, into, 0, count);
        return count;
    }
}
