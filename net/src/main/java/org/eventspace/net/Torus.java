package org.eventspace.net;

/**
 * A 2-D or 3-D torus with dimension-order routing (the Blue Gene/P network BoxFish draws, ibprof paper §5.1): one router
 * per node, named {@code r<x>.<y>[.<z>]}, and its node {@code n<i>} (i = x + X·(y + Y·z)) on router port 1. Router port
 * {@code 2 + 2i} goes to the next router in dimension i (+1, wrapping), port {@code 3 + 2i} to the previous one (−1); a
 * ring of two has both, a ring of one neither. Dimension-order routing: correct the first dimension whose coordinate
 * differs, the shorter way round (+ on a tie), then the next.
 */
public final class Torus {
    private Torus() {
    }

    public static Fabric build(int[] dims) {
        if (dims.length < 2 || dims.length > 3) {
            throw new IllegalArgumentException("a torus has 2 or 3 dimensions, got " + dims.length);
        }
        long count = 1;
        for (int d : dims) {
            if (d < 1 || d > 1024) {
                throw new IllegalArgumentException("a torus dimension is 1..1024 routers, got " + d);
            }
            count *= d;
        }
        if (count > 65_536) {
            throw new IllegalArgumentException("a torus of " + count + " routers; at most 65536 are drawn and routed");
        }
        if (count * count > Fabric.MAX_FORWARDING_ENTRIES) {
            throw new IllegalArgumentException("a torus of " + count + " routers would hold " + count * count
                    + " forwarding entries (one per router and node), more than the " + Fabric.MAX_FORWARDING_ENTRIES
                    + " built; at most 4096 routers");
        }
        int n = (int) count;
        int ports = 1 + 2 * dims.length;
        StringBuilder shape = new StringBuilder();
        for (int d : dims) {
            shape.append(shape.length() == 0 ? "" : "x").append(d);
        }
        Fabric.Builder b = new Fabric.Builder(shape + " torus, dimension-order routing");
        int[] routers = new int[n];
        int[] endpoints = new int[n];
        for (int i = 0; i < n; i++) {
            int[] c = coords(i, dims);
            StringBuilder name = new StringBuilder("r");
            for (int k = 0; k < c.length; k++) {
                name.append(k == 0 ? "" : ".").append(c[k]);
            }
            int y = c[1] + (dims.length > 2 ? c[2] * dims[1] : 0);
            endpoints[i] = b.device("n" + i, Fabric.Kind.ENDPOINT, 1, 0, 0, c[0], y);
            routers[i] = b.device(name.toString(), Fabric.Kind.SWITCH, ports, 1, 0, c[0], y);
            b.link(endpoints[i], 1, routers[i], 1);
        }
        for (int i = 0; i < n; i++) {
            int[] c = coords(i, dims);
            for (int k = 0; k < dims.length; k++) {
                if (dims[k] < 2) {
                    continue;
                }
                int[] next = c.clone();
                next[k] = (c[k] + 1) % dims[k];
                // Each link once: from this router's + port to the next one's - port.
                b.link(routers[i], 2 + 2 * k, routers[index(next, dims)], 3 + 2 * k);
            }
        }
        for (int i = 0; i < n; i++) {
            int[] c = coords(i, dims);
            for (int d = 0; d < n; d++) {
                int[] t = coords(d, dims);
                int port = 1;
                for (int k = 0; k < dims.length; k++) {
                    if (c[k] != t[k]) {
                        int forward = Math.floorMod(t[k] - c[k], dims[k]);
                        port = forward <= dims[k] - forward ? 2 + 2 * k : 3 + 2 * k;
                        break;
                    }
                }
                b.forward(routers[i], endpoints[d], port);
            }
        }
        for (int i = 0; i < n; i++) {
            b.node("n" + i, new int[] {endpoints[i]});
        }
        return b.build();
    }

    static int[] coords(int i, int[] dims) {
        int[] c = new int[dims.length];
        for (int k = 0; k < dims.length; k++) {
            c[k] = i % dims[k];
            i /= dims[k];
        }
        return c;
    }

    static int index(int[] c, int[] dims) {
        int i = 0;
        for (int k = dims.length - 1; k >= 0; k--) {
            i = i * dims[k] + c[k];
        }
        return i;
    }
}
