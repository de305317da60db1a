package org.eventspace.run;

import org.eventspace.comm.Comm;
import org.eventspace.comm.path.ReduceOp;

/**
 * A rank's {@code Comm} whose calls alternate between two views of the same communicator: call i (counted from the
 * first) goes to {@code even} if i is even, to {@code odd} otherwise. gsum-interleaved alternates trees the same way
 * (call i on tree i mod 2), so with a recorder as one view and the bare {@code Comm} as the other, one tree's calls are
 * recorded and the other's are not: {@code bench overhead --interleave B --record E} measures the recorder as the
 * collectors are measured, paired call by call. Not thread-safe: one per rank.
 */
public final class AlternatingComm implements Comm {
    private final Comm even;
    private final Comm odd;
    private long calls;

    public AlternatingComm(Comm even, Comm odd) {
        if (even.rank() != odd.rank() || even.size() != odd.size()) {
            throw new IllegalArgumentException("two views of one rank's communicator expected, got rank " + even.rank() + "/"
                    + even.size() + " and " + odd.rank() + "/" + odd.size());
        }
        this.even = even;
        this.odd = odd;
    }

    private Comm next() {
        return (calls++ & 1) == 0 ? even : odd;
    }

    @Override
    public int rank() {
        return even.rank();
    }

    @Override
    public int size() {
        return even.size();
    }

    @Override
    public long allreduce(long value, ReduceOp op) {
        return next().allreduce(value, op);
    }

    @Override
    public double allreduce(double value, ReduceOp op) {
        return next().allreduce(value, op);
    }

    @Override
    public void allreduce(long[] values, int count, ReduceOp op) {
        next().allreduce(values, count, op);
    }

    @Override
    public void allreduce(double[] values, int count, ReduceOp op) {
        next().allreduce(values, count, op);
    }

    @Override
    public void barrier() {
        next().barrier();
    }

    @Override
    public void broadcast(long[] data, int count, int root) {
        next().broadcast(data, count, root);
    }

    @Override
    public void gather(long[] send, int count, long[] recv, int root) {
        next().gather(send, count, recv, root);
    }

    @Override
    public void allgather(long[] send, int count, long[] recv) {
        next().allgather(send, count, recv);
    }

    @Override
    public void scatter(long[] send, int count, long[] recv, int root) {
        next().scatter(send, count, recv, root);
    }

    @Override
    public void alltoall(long[] send, int count, long[] recv) {
        next().alltoall(send, count, recv);
    }

    @Override
    public void send(int dest, long[] data, int count) {
        next().send(dest, data, count);
    }

    @Override
    public int recv(int source, long[] into) {
        return next().recv(source, into);
    }
}
