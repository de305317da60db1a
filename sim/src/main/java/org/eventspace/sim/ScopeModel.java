package org.eventspace.sim;

import java.util.OptionalInt;
import java.util.function.DoubleUnaryOperator;

import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.sim.ScopePrediction.Bound;

/**
 * An analytic model of an event scope's gather (EventSpace paper §4.1–4.2, §6.2 and Table 2; ToM §2–3): how long one
 * pull takes, how much of what the collectors write it gathers, and what it costs the front-end and the hosts. Closed
 * form per tree level, so a prediction for 10⁶ hosts costs no more than one for 10 ({@link #saturation} searches over
 * H with it). Stateless.
 *
 * <p><b>The tree</b> is the one {@code ScopeBuilder} lays: one leaf per host; {@code flat}: the root gathers every
 * leaf; {@code kary:K} and, with one cluster, {@code hier:K}: leaves joined K at a time in host order, level by level,
 * a group of one passed up as it is, until at most K are left for the root. A {@code hier} scope's intra-host step is
 * the leaf itself, which reads all of its host's trace buffers, so over the hosts it is K-ary (several clusters and
 * extra scope hosts are not modelled). A gather runs on its first input's host, so its first child is a call in the
 * same process and every other child is a hop: a request down and a reply up, each {@link Costs#sendNs()} +
 * {@link Costs#wireNs()} + {@link Costs#receiveNs()}. The root runs on the front-end host and hands its answer to the
 * front-end in process.
 *
 * <p><b>A round</b>, from the leaves up, with r records per leaf:
 * <ul>
 *   <li>a leaf: {@link Costs#gatherNs()} + r × ({@link Costs#recordNs()} + the filter's own CPU per record);</li>
 *   <li>a sequential gather ({@code seq}): the sum over its children of (request + the child's round + reply), then
 *       every child's answer read and carried in its thread ({@code recordNs} per record, or per summary entry);</li>
 *   <li>a parallel gather ({@code par:N}): min(N, children) helpers; the children are dealt to them round-robin in
 *       gather order (the hand-off queue hands them out in order, and equal children take equal time), the node waits
 *       for the busiest helper's sum; waking the helpers costs {@link Costs#unparkNs()} each plus one
 *       {@link Costs#switchNs()}, and the last helper wakes the gather the same way; the answers are then read in the
 *       gather's thread as above (the scope's {@code replies}, after the exchange);</li>
 *   <li>on a machine shared with the application's ranks ({@link ScopeConfig#machineRanks}), every hand-off to another
 *       thread (a hop's request, its reply, a helper's wake-up) first waits one turn of the ranks on its core
 *       ({@link Tree#handOffNs}): a sequential round over a shared machine is mostly that wait;</li>
 *   <li>no node finishes sooner than its host's scope CPU allows: the CPU of the gathers on its host below it, over
 *       min(cores, their threads); on a shared machine ({@link ScopeConfig#sharedMachine}) no round finishes sooner
 *       than all hosts' scope CPU over the machine's cores; the front-end reads the root's answer last.</li>
 * </ul>
 * A reducing filter sends a summary of fixed size up from every node (ToM §4.1–4.2; {@link ScopeFilterModel});
 * {@code concat} sends the subtree's records, so its upper gathers carry more every level.
 *
 * <p><b>Gather rate.</b> Every collector writes {@code recordsPerSecond} evenly; every leaf is read once a cycle
 * (round + pause). A buffer of C tuples that took more than C since the last read has lost the excess, so a leaf
 * gets min(p × cycle, C) per collector and the gather rate is min(1, C / (p × cycle)) — the first-order answer. Real
 * records arrive unevenly (a burst per collective call, rounds of different lengths), so close to the boundary the
 * real rate is somewhat lower than this. The round time depends on the records it carries and the records on the
 * round time: the model takes the steady state, the least round time T with T = round(r(T)) (the round is convex and
 * non-decreasing in r, so it is found by bisection); if none exists below the time the buffers take to fill, every
 * round reads full buffers and loses the rest.
 *
 * <p>What is not modelled: the adaptive cadence (pass the pause it would choose), the 20 µs pause after an empty
 * pull, several clusters and extra scope hosts, and the application's own CPU on the hosts (the caller adds the
 * scope's CPU, {@link ScopePrediction#leafHostCores()} and the others, to the application's load).
 */
public final class ScopeModel {
    /** The gather rate below which a scope no longer keeps up (Table 2's parallel gathers reached 99–100 %). */
    public static final double KEEPS_UP_RATE = 0.99;
    /** A CPU share this close to 1 is a saturated front-end (the share is a ratio of sums, not exactly 1). */
    private static final double FULL_SHARE = 1 - 1e-9;
    private static final int ITERATIONS = 200;

    private ScopeModel() {
    }

    /**
     * The steady state of {@code config}'s scope pulled back to back (or {@code pauseNs} apart). {@link ScopeConfig}
     * has checked the values, so every config has a prediction.
     */
    public static ScopePrediction predict(ScopeConfig config) {
        Tree tree = new Tree(config);
        double p = config.recordsPerSecond();
        double capacity = config.bufferTuples();
        double pause = config.pauseNs();
        double steady = p == 0 ? tree.round(0).roundNs : steadyRound(tree, p, capacity, pause);
        // Per collector: what it wrote in a cycle, and what its buffer still held when the leaf came back.
        double written = p * (steady + pause) / 1e9;
        double perLeaf = config.collectorsPerHost() * Math.min(written, capacity);
        // The round those records make: equal to the steady state up to the search's precision, and the one whose
        // CPU the shares below divide, so that a front-end that bounds the round shows a share of exactly 1.
        Round round = tree.round(perLeaf);
        double cycle = round.roundNs + pause;
        double hosts = config.hosts();
        double produced = hosts * config.collectorsPerHost() * written;
        double gathered = hosts * perLeaf;
        double rate = p == 0 ? 1.0 : Math.min(1.0, capacity / written);
        double perSecond = 1e9 / cycle;
        double bytes = config.filter().reducing() ? config.filter().summaryBytes()
                : gathered * config.costs().recordBytes();
        return new ScopePrediction(config.hosts(), round.root.level + 1, round.roundNs, cycle, produced, gathered, rate,
                gathered * perSecond, bytes, bytes * perSecond, round.frontEndCpu / (cycle * round.frontEndCores),
                round.frontEndCpu / cycle, round.busiestOtherHost / cycle, round.leafHostCpu / cycle,
                round.totalCpu / hosts / cycle, round.totalCpu / cycle, round.bound);
    }

    /**
     * One pull of {@code config}'s scope when each leaf has {@code recordsPerLeaf} records to read (every collector of
     * its host together): what a calibration sets beside a measured round of the same size.
     */
    public static double roundNs(ScopeConfig config, double recordsPerLeaf) {
        if (!(recordsPerLeaf >= 0) || Double.isInfinite(recordsPerLeaf)) {
            throw new IllegalArgumentException("recordsPerLeaf must be a finite number >= 0, recordsPerLeaf="
                    + recordsPerLeaf);
        }
        return new Tree(config).round(recordsPerLeaf).roundNs;
    }

    /**
     * Whether {@code p} no longer keeps up: its gather rate is below {@value #KEEPS_UP_RATE}, or the front-end's CPU
     * is what bounds the round and it is busy all the cycle (share 1). A sequential front-end pulling back to back
     * from hosts without latency between them (one host) is busy all the time too, but there its CPU is the path,
     * not a limit beyond it, so it counts only through the gather rate.
     */
    public static boolean saturated(ScopePrediction p) {
        return p.gatherRate() < KEEPS_UP_RATE
                || (p.bound() == Bound.FRONT_END_CPU && p.frontEndCpuShare() >= FULL_SHARE);
    }

    /**
     * The smallest H at which {@code template}'s scope (its shape, gathering, filter and per-host rates; its own H is
     * ignored) stops keeping up ({@link #saturated}), searched by doubling from 1 and then bisection, at most
     * {@code maxHosts}. Assumes saturation is monotone in H: adding a host adds work to some path and the front-end and
     * takes none away, in every shape here.
     *
     * @throws IllegalArgumentException if {@code maxHosts < 1}.
     */
    public static ScopeSaturation saturation(ScopeConfig template, int maxHosts) {
        if (maxHosts < 1) {
            throw new IllegalArgumentException("maxHosts must be >= 1, maxHosts=" + maxHosts);
        }
        ScopePrediction first = predict(template.withHosts(1));
        if (saturated(first)) {
            return new ScopeSaturation(OptionalInt.of(1), maxHosts, cause(first), first);
        }
        int fine = 1;
        int bad = -1;
        ScopePrediction badPrediction = null;
        while (fine < maxHosts) {
            int next = (int) Math.min(maxHosts, 2L * fine);
            ScopePrediction p = predict(template.withHosts(next));
            if (saturated(p)) {
                bad = next;
                badPrediction = p;
                break;
            }
            fine = next;
        }
        if (bad < 0) {
            return new ScopeSaturation(OptionalInt.empty(), maxHosts, "keeps up on every H up to " + maxHosts,
                    predict(template.withHosts(maxHosts)));
        }
        while (bad - fine > 1) {
            int mid = fine + (bad - fine) / 2;
            ScopePrediction p = predict(template.withHosts(mid));
            if (saturated(p)) {
                bad = mid;
                badPrediction = p;
            } else {
                fine = mid;
            }
        }
        return new ScopeSaturation(OptionalInt.of(bad), maxHosts, cause(badPrediction), badPrediction);
    }

    private static String cause(ScopePrediction p) {
        return p.gatherRate() < KEEPS_UP_RATE ? "gather rate" : "front-end cpu";
    }

    /**
     * The least T with T = round(records of a cycle of T), or, if there is none before the buffers fill, the round
     * with full buffers. round(T) is convex and non-decreasing in T up to the fill time (a maximum of sums with
     * non-negative coefficients of r, and r linear in T there), so h(T) = round(T) − T has at most one sign change
     * from + to − on [0, x] for any x with h(x) ≤ 0.
     */
    private static double steadyRound(Tree tree, double p, double capacity, double pause) {
        double perCollectorPerNs = p / 1e9;
        double collectors = tree.config.collectorsPerHost();
        double full = tree.round(collectors * capacity).roundNs;
        double fillNs = capacity / perCollectorPerNs - pause;
        if (fillNs <= 0) {
            return full;
        }
        // h(T) for T in [0, fillNs]: the round that the records of a cycle T + pause make, less T.
        DoubleUnaryOperator h =
                t -> tree.round(collectors * perCollectorPerNs * (t + pause)).roundNs - t;
        double hi;
        if (h.applyAsDouble(0) <= 0) {
            return tree.round(collectors * perCollectorPerNs * pause).roundNs;
        }
        if (h.applyAsDouble(fillNs) <= 0) {
            hi = fillNs;
        } else {
            // Both ends positive: a convex h may still dip below 0 between them; its minimum says.
            double a = 0;
            double b = fillNs;
            double ratio = (Math.sqrt(5) - 1) / 2;
            double x1 = b - ratio * (b - a);
            double x2 = a + ratio * (b - a);
            double h1 = h.applyAsDouble(x1);
            double h2 = h.applyAsDouble(x2);
            for (int i = 0; i < ITERATIONS && b - a > 1e-9 * Math.max(1, b); i++) {
                if (h1 <= h2) {
                    b = x2;
                    x2 = x1;
                    h2 = h1;
                    x1 = b - ratio * (b - a);
                    h1 = h.applyAsDouble(x1);
                } else {
                    a = x1;
                    x1 = x2;
                    h1 = h2;
                    x2 = a + ratio * (b - a);
                    h2 = h.applyAsDouble(x2);
                }
                if (Math.min(h1, h2) <= 0) {
                    break;
                }
            }
            if (h1 <= 0 || h2 <= 0) {
                hi = h1 <= 0 ? x1 : x2;
            } else {
                // No steady state below the fill time: every pull finds full buffers.
                return full;
            }
        }
        double lo = 0;
        for (int i = 0; i < ITERATIONS && hi - lo > 1e-13 * Math.max(1, hi); i++) {
            double mid = (lo + hi) / 2;
            if (h.applyAsDouble(mid) <= 0) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        // hi is a point where the round fits its cycle, so its records fit their buffers: no loss.
        return hi;
    }

    /**
     * One kind of subtree of the scope: all the subtrees of a level but the last one are alike, so a level is at most
     * two kinds, and the whole tree is O(levels) of them.
     *
     * @param timeNs          from the call of its top wrapper, on its own host, to its answer.
     * @param pathNs          the same without its top host's CPU bound: the path alone (the root's bound is the
     *                        front-end's, which adds the front-end's own work).
     * @param upRecords       records (or summary entries) in its answer.
     * @param cpuNs           scope CPU in the whole subtree, all hosts, per round.
     * @param hostCpuNs       scope CPU on its top's host: its top gather and the gathers and leaf below it on that
     *                        host.
     * @param threads         threads that do {@code hostCpuNs}: the caller's and each of those gathers' helpers.
     * @param level           the top's level: 0 for a leaf.
     * @param busiestRemoteNs the largest scope CPU of any host below its top's host (0 if none).
     */
    private record Subtree(double timeNs, double pathNs, double upRecords, double cpuNs, double hostCpuNs, int threads,
                           int level, double busiestRemoteNs) {
    }

    /** One round of a tree: the root and what the front-end adds. */
    private record Round(Subtree root, double roundNs, double frontEndCpu, int frontEndCores, double totalCpu,
                         double busiestOtherHost, double leafHostCpu, Bound bound) {
    }

    /** The tree of one config: builds its levels for a given number of records per leaf. */
    private static final class Tree {
        final ScopeConfig config;
        final Costs costs;
        final double oneWay;
        final double messageCpu;
        final int cores;
        final int fanout;
        /** What a hand-off to another thread waits for a core ({@link #handOffNs}). */
        final double handOff;

        Tree(ScopeConfig config) {
            this.config = config;
            this.costs = config.costs();
            this.handOff = handOffNs(config);
            this.oneWay = costs.sendNs() + costs.wireNs() + costs.receiveNs() + handOff;
            this.messageCpu = costs.sendNs() + costs.receiveNs();
            this.cores = costs.cores();
            TreeShape shape = config.shape();
            // flat, hier:flat and any fan-out of at least H all make the root gather every leaf.
            this.fanout = shape.kind() == TreeShape.Kind.FLAT ? Integer.MAX_VALUE : shape.fanout();
        }

        Round round(double recordsPerLeaf) {
            Subtree leaf = leaf(recordsPerLeaf);
            // The level being joined: `a` subtrees of kind A, then at most one of kind B (the last, partial one).
            Subtree a = leaf;
            long countA = config.hosts();
            Subtree b = null;
            while (countA + (b == null ? 0 : 1) > fanout) {
                long full = countA / fanout;
                long rest = countA % fanout;
                Subtree last;
                if (b == null) {
                    last = rest == 0 ? null : rest == 1 ? a : gather(a, rest, null);
                } else {
                    last = rest == 0 ? b : gather(a, rest, b);
                }
                a = gather(a, fanout, null);
                countA = full;
                b = last;
            }
            Subtree root = gather(a, countA, b);
            // The front-end turns the root's answer into its result in the thread that called the root.
            double frontEnd = root.upRecords * costs.recordNs();
            double frontEndCpu = root.hostCpuNs + frontEnd;
            int frontEndCores = Math.min(cores, root.threads);
            double total = root.cpuNs + frontEnd;
            double roundNs = root.pathNs + frontEnd;
            Bound bound = Bound.PATH;
            if (frontEndCpu / frontEndCores > roundNs) {
                roundNs = frontEndCpu / frontEndCores;
                bound = Bound.FRONT_END_CPU;
            }
            if (config.sharedMachine() && total / cores > roundNs) {
                roundNs = total / cores;
                bound = Bound.MACHINE_CPU;
            }
            double leafHost = leaf.cpuNs + (config.hosts() > 1 ? messageCpu : 0);
            return new Round(root, roundNs, frontEndCpu, frontEndCores, total, root.busiestRemoteNs, leafHost, bound);
        }

        private Subtree leaf(double records) {
            double ns = costs.gatherNs() + records * (costs.recordNs() + config.filter().nsPerRecord());
            double up = config.filter().reducing() ? config.filter().summaryEntries() : records;
            return new Subtree(ns, ns, up, ns, ns, 1, 0, 0);
        }

        /**
         * A gather of {@code countA} children of kind {@code a} followed by {@code b} (or none), the first child on
         * the gather's own host.
         */
        private Subtree gather(Subtree a, long countA, Subtree b) {
            long children = countA + (b == null ? 0 : 1);
            Subtree first = countA > 0 ? a : b;
            long remoteA = Math.max(0, countA - 1);
            boolean remoteB = b != null && countA > 0;
            long remote = remoteA + (remoteB ? 1 : 0);
            double jobFirst = first.timeNs;
            double jobA = 2 * oneWay + a.timeNs;
            double jobB = b == null ? 0 : 2 * oneWay + b.timeNs;
            int helpers = (int) Math.min(config.helpers(), children);
            double work;
            double helperCpu = 0;
            if (helpers == 0) {
                work = jobFirst + remoteA * jobA + (remoteB ? jobB : 0);
            } else {
                // Round-robin in gather order: position 0 is the first child, 1..remoteA the other A's, B the last.
                // The busiest helper is the first's, the one with the most A's (position 1), or B's.
                long positionB = countA;
                work = 0;
                for (long j : new long[] {0, 1 % helpers, positionB % helpers}) {
                    double sum = (j == 0 ? jobFirst : 0) + positionsOf(j, remoteA, helpers) * jobA
                            + (remoteB && positionB % helpers == j ? jobB : 0);
                    work = Math.max(work, sum);
                }
                // The gather unparks each helper; the last helper done unparks the gather.
                helperCpu = helpers * (costs.unparkNs() + costs.switchNs()) + costs.unparkNs() + costs.switchNs();
                work += helpers * costs.unparkNs() + costs.switchNs() + costs.unparkNs() + costs.switchNs() + 2 * handOff;
            }
            double records = countA * a.upRecords + (b == null ? 0 : b.upRecords);
            double carry = records * costs.recordNs();
            double parentMessages = remote * messageCpu;
            double hostCpu = first.hostCpuNs + parentMessages + carry + helperCpu;
            int threads = first.threads + helpers;
            double time = Math.max(work + carry, hostCpu / Math.min(cores, threads));
            // Every remote child's host receives the request and sends the reply.
            double cpu = countA * a.cpuNs + (b == null ? 0 : b.cpuNs) + 2 * parentMessages + carry + helperCpu;
            double busiest = first.busiestRemoteNs;
            if (remoteA > 0) {
                busiest = Math.max(busiest, Math.max(a.busiestRemoteNs, a.hostCpuNs + messageCpu));
            }
            if (remoteB) {
                busiest = Math.max(busiest, Math.max(b.busiestRemoteNs, b.hostCpuNs + messageCpu));
            }
            double up = config.filter().reducing() ? config.filter().summaryEntries() : records;
            int level = Math.max(countA > 0 ? a.level : 0, b == null ? 0 : b.level) + 1;
            return new Subtree(time, work + carry, up, cpu, hostCpu, threads, level, busiest);
        }

        /**
         * On a machine whose cores the scope shares with {@code machineRanks} ranks ({@link ScopeConfig#sharedMachine}):
         * what a hand-off to another thread (a request to a child's host, its reply, a helper's wake-up) waits before
         * that thread runs, one turn of every rank on its core, each a yield's context switch among them:
         * (ranks / cores) × {@link Costs#switchAmong}(yield, ranks). Otherwise 0: on a cluster the scope's threads find
         * a core free. A hop's request and reply are two hand-offs.
         */
        static double handOffNs(ScopeConfig config) {
            if (!config.sharedMachine() || config.machineRanks() == 0) {
                return 0;
            }
            Costs c = config.costs();
            return (double) config.machineRanks() / c.cores() * c.switchAmong(c.yieldNs(), config.machineRanks());
        }

        /** Positions p in [1, last] with p mod n == j: the remote A's a helper j gets. */
        private static long positionsOf(long j, long last, int n) {
            long smallest = j == 0 ? n : j;
            return last >= smallest ? (last - smallest) / n + 1 : 0;
        }
    }
}
