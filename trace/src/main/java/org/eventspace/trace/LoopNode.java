package org.eventspace.trace;

import java.util.ArrayList;
import java.util.List;

/**
 * A loop of a compressed trace: {@code iters} repetitions of its body, ScalaTrace's RSD
 * {@code <iters, e1, e2, ...>}, or a power-RSD when the body holds loops (Ratn et al. §2). The body is fixed once
 * the loop exists; only the iteration count of a loop at the top of a rank's trace still grows. Not thread-safe.
 */
public final class LoopNode extends Node {
    long iters;
    final List<Node> body;
    private int hash;
    /** The body's part of {@link #hash}: the body never changes shape once the loop exists, so it is hashed once. */
    private final int bodyHash;
    /** The body's part of {@link #relaxedHash}: the calls' counts left out. */
    private final int bodyRelaxedHash;

    LoopNode(RankList ranks, long iters, List<Node> body) {
        super(ranks);
        this.iters = iters;
        this.body = new ArrayList<>(body);
        int h = 1;
        int r = 1;
        for (int i = 0; i < this.body.size(); i++) {
            h = 31 * h + this.body.get(i).shapeHash();
            r = 31 * r + this.body.get(i).relaxedHash();
        }
        this.bodyHash = h;
        this.bodyRelaxedHash = r;
        rehash();
    }

    /** After {@link #iters} changed: one multiply, whatever the body (the recorder calls it every iteration). */
    void rehash() {
        hash = 31 * bodyHash + Long.hashCode(iters);
    }

    @Override
    int shapeHash() {
        return hash;
    }

    @Override
    boolean sameShape(Node other) {
        return sameAs(other, false);
    }

    @Override
    int relaxedHash() {
        return 31 * bodyRelaxedHash + Long.hashCode(iters);
    }

    @Override
    boolean sameShapeRelaxed(Node other) {
        return sameAs(other, true);
    }

    /** The same iterations and, element by element, the same body: exactly, or but for the calls' counts if relaxed. */
    private boolean sameAs(Node other, boolean relaxed) {
        if (!(other instanceof LoopNode l) || l.iters != iters || l.body.size() != body.size()
                || (relaxed ? l.relaxedHash() != relaxedHash() : l.hash != hash)) {
            return false;
        }
        for (int i = 0; i < body.size(); i++) {
            Node a = body.get(i);
            Node b = l.body.get(i);
            if (relaxed ? !a.sameShapeRelaxed(b) : !a.sameShape(b)) {
                return false;
            }
        }
        return true;
    }

    @Override
    int absorb(Node other, TraceConfig config) {
        LoopNode l = (LoopNode) other;
        int runs = 0;
        for (int i = 0; i < body.size(); i++) {
            runs += body.get(i).absorb(l.body.get(i), config);
        }
        return runs;
    }

    @Override
    int nodeCount() {
        int n = 1;
        for (Node b : body) {
            n += b.nodeCount();
        }
        return n;
    }

    @Override
    void seal(TraceConfig config) {
        for (Node b : body) {
            b.seal(config);
        }
    }

    public long iterations() {
        return iters;
    }

    public List<Node> body() {
        return java.util.Collections.unmodifiableList(body);
    }
}
