package org.eventspace.net;

/**
 * A k-ary n-tree fat tree (Petrini and Vanneschi, 1997) with up/down routing and deterministic D-mod-k up-port
 * selection, one copy per subnet (rail) as on TSUBAME (ibprof paper §4.2: every compute node has a link to each of two
 * subnets).
 *
 * <p>Layout: {@code k^n} nodes {@code n0 … n(k^n−1)}; {@code n} levels of {@code k^(n−1)} switches, named {@code L<l>-<w>}
 * (with a subnet suffix {@code /<s>} when there are several). Write node p in base k as digits {@code p_0 … p_(n−1)} and a
 * switch index w as {@code w_0 … w_(n−2)}. Node p hangs from switch {@code (1, p div k)} at down-port {@code p_0 + 1}. Up-port
 * {@code j + 1} (ports {@code k+1 … 2k}) of switch {@code (l, w)}, {@code l < n}, goes to switch {@code (l+1, w')}, where
 * {@code w'} is w with digit {@code l−1} replaced by j, arriving at its down-port {@code w_(l−1) + 1}. A level-l switch so
 * reaches exactly the nodes whose digits {@code p_l … p_(n−1)} equal its {@code w_(l−1) … w_(n−2)}.
 *
 * <p>Routing, as forwarding tables: a switch at level l sends traffic for a node it reaches down, by port
 * {@code d_(l−1) + 1}; any other traffic goes up, by the D-mod-k port {@code (d div k^(l−1)) mod k}, i.e. up-port
 * {@code d_(l−1)}: the choice depends on the destination only, so every route to one destination converges on the same
 * top switch and the routes to different destinations spread over all of them.
 */
public final class FatTree {
    private FatTree() {
    }

    public static Fabric build(int k, int n, int subnets) {
        if (k < 2 || n < 1 || subnets < 1 || subnets > 4) {
            throw new IllegalArgumentException("a k-ary n-tree needs k >= 2, n >= 1 and 1..4 subnets, got k=" + k + ", n=" + n
                    + ", subnets=" + subnets);
        }
        long nodes = pow(k, n);
        if (nodes > 65_536) {
            throw new IllegalArgumentException("a " + k + "-ary " + n + "-tree has " + (nodes == Long.MAX_VALUE
                    ? "more than 2147483647" : Long.toString(nodes)) + " nodes; at most 65536 are drawn and routed");
        }
        int perLevel = (int) pow(k, n - 1);
        long entries = (long) n * perLevel * nodes * subnets;
        if (entries > Fabric.MAX_FORWARDING_ENTRIES) {
            throw new IllegalArgumentException("a " + k + "-ary " + n + "-tree's " + (long) n * perLevel * subnets
                    + " switches would hold " + entries + " forwarding entries (one per switch and node), more than the "
                    + Fabric.MAX_FORWARDING_ENTRIES + " built; use fewer nodes or levels");
        }
        Fabric.Builder b = new Fabric.Builder(k + "-ary " + n + "-tree fat tree" + (subnets > 1 ? ", " + subnets + " subnets" : ""));
        b.subnets(subnets);
        int[][] endpoints = new int[(int) nodes][subnets];
        for (int s = 0; s < subnets; s++) {
            String suffix = subnets > 1 ? "/" + s : "";
            for (int p = 0; p < nodes; p++) {
                endpoints[p][s] = b.device("n" + p + suffix, Fabric.Kind.ENDPOINT, 1, 0, s, p, -1);
            }
            int[][] sw = new int[n + 1][perLevel];
            for (int l = 1; l <= n; l++) {
                for (int w = 0; w < perLevel; w++) {
                    sw[l][w] = b.device("L" + l + "-" + w + suffix, Fabric.Kind.SWITCH, l < n ? 2 * k : k, l, s, w, -1);
                }
            }
            for (int p = 0; p < nodes; p++) {
                b.link(endpoints[p][s], 1, sw[1][p / k], p % k + 1);
            }
            for (int l = 1; l < n; l++) {
                long unit = pow(k, l - 1);
                for (int w = 0; w < perLevel; w++) {
                    int digit = (int) (w / unit % k);
                    for (int j = 0; j < k; j++) {
                        int up = (int) (w - digit * unit + j * unit);
                        b.link(sw[l][w], k + j + 1, sw[l + 1][up], digit + 1);
                    }
                }
            }
            for (int l = 1; l <= n; l++) {
                long below = pow(k, l);
                long unit = pow(k, l - 1);
                for (int w = 0; w < perLevel; w++) {
                    // The nodes this switch reaches: digits l.. of p equal digits l-1.. of w.
                    long high = w / unit;
                    for (int d = 0; d < nodes; d++) {
                        int digit = (int) (d / unit % k);
                        boolean reaches = d / below == high;
                        int port = reaches ? digit + 1 : k + digit + 1;
                        b.forward(sw[l][w], endpoints[d][s], port);
                    }
                }
            }
        }
        for (int p = 0; p < nodes; p++) {
            b.node("n" + p, endpoints[p]);
        }
        return b.build();
    }

    /** {@code base^exp}, or {@link Long#MAX_VALUE} once it passes 2^31 (a file's N of 2^31 - 1 overflowed to 0). */
    static long pow(int base, int exp) {
        long r = 1;
        for (int i = 0; i < exp; i++) {
            r *= base;
            if (r > Integer.MAX_VALUE) {
                return Long.MAX_VALUE;
            }
        }
        return r;
    }
}
