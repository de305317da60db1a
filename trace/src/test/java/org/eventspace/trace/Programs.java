package org.eventspace.trace;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Random nested-loop programs of communication calls, run against a {@link RankTrace}; for the property tests. */
final class Programs {
    sealed interface Stmt permits CallStmt, LoopStmt {
    }

    /**
     * A call; its peer offset and count may depend on the rank ({@code rankDependent}), and its count on how far the
     * program has got ({@code varies}: a message size that changes from one iteration to another, as a
     * molecular-dynamics code's ghost exchanges do).
     */
    record CallStmt(Op op, int site, int reduce, long peer, long count, boolean rankDependent, boolean varies)
            implements Stmt {
        CallStmt(Op op, int site, int reduce, long peer, long count, boolean rankDependent) {
            this(op, site, reduce, peer, count, rankDependent, false);
        }
    }

    record LoopStmt(int iters, List<Stmt> body) implements Stmt {
    }

    private static final Op[] OPS = {Op.ALLREDUCE_LONG, Op.BARRIER, Op.SEND, Op.RECV, Op.BROADCAST, Op.ALLREDUCE_LONGS};

    private Programs() {
    }

    static List<Stmt> random(Random r, int depth) {
        int n = 1 + r.nextInt(4);
        List<Stmt> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (depth > 0 && r.nextInt(3) == 0) {
                out.add(new LoopStmt(1 + r.nextInt(6), random(r, depth - 1)));
            } else {
                Op op = OPS[r.nextInt(OPS.length)];
                out.add(new CallStmt(op, 1 + r.nextInt(3), op.reduces() ? r.nextInt(2) : -1,
                        op.pointToPoint() ? (r.nextBoolean() ? 1 : -1) : EventNode.NONE,
                        op == Op.BARRIER ? EventNode.NONE : 1 + r.nextInt(3), r.nextInt(4) == 0,
                        op != Op.BARRIER && r.nextInt(4) == 0));
            }
        }
        return out;
    }

    /** Runs {@code program} as rank {@code rank}, recording into {@code trace} and returning the calls made. */
    static List<Trace.Call> run(List<Stmt> program, int rank, RankTrace trace, Random times) {
        List<Trace.Call> calls = new ArrayList<>();
        run(program, rank, trace, times, calls);
        return calls;
    }

    private static void run(List<Stmt> program, int rank, RankTrace trace, Random times, List<Trace.Call> calls) {
        for (Stmt s : program) {
            if (s instanceof CallStmt c) {
                long peer = c.peer == EventNode.NONE ? EventNode.NONE : c.rankDependent ? c.peer * (1 + rank % 2) : c.peer;
                long count = c.count == EventNode.NONE ? EventNode.NONE : c.rankDependent ? c.count + rank % 3 : c.count;
                if (c.varies && count != EventNode.NONE) {
                    count += (calls.size() / 5) % 3; // changes every five calls, whatever the loops
                }
                long root = c.op.rooted() ? 0 : EventNode.NONE;
                trace.record(c.op, c.site, c.reduce, peer, count, root, 100 + times.nextInt(1000), 50 + times.nextInt(100));
                calls.add(new Trace.Call(c.op, c.site, c.reduce, peer, count, root));
            } else {
                LoopStmt l = (LoopStmt) s;
                for (int i = 0; i < l.iters; i++) {
                    run(l.body, rank, trace, times, calls);
                }
            }
        }
    }
}
