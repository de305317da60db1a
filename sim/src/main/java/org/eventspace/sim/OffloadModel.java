package org.eventspace.sim;

import java.util.Locale;
import java.util.Objects;

/**
 * An analytic model of ToM's offload benchmark (ToM §5.2, Figures 8–9; ours is {@code bench offload}): N back-ends
 * each loop {@code work(period)}, {@code DUMP} (a profile of E events pushed into the tree), {@code MPI_Barrier}, and
 * avg.time is the mean over R rounds of the worst back-end's offload time in the round. The point of the figures is
 * the knee: "the knee observed in the curves is due to the offload rate increasing above the service rate", and
 * reduction (histogramming) moves it because a node forwards a fixed-size summary instead of its subtree's records, at
 * the price of more work and more traversals per round. Stateless.
 *
 * <p><b>The tree</b>: the N back-ends joined F at a time, level by level, until at most F are left for the root (the
 * front-end), as the scope's {@code kary:F} lays it. At each level the busiest node is a full one: F children and the
 * most back-ends below it; the root has what is left.
 *
 * <p><b>A node's service time per round</b> (CPU; latencies overlap between rounds, so they do not limit the rate):
 * <ul>
 *   <li>{@code none}: c × {@link Costs#receiveNs()} for its children's packets, every record of its subtree read and
 *       carried ({@link Costs#recordNs()} each: the concatenation grows up the tree, the root reads N × E), and one
 *       {@link Costs#sendNs()} up (not at the root);</li>
 *   <li>{@code hist} (ToM §4.2's three phases, each a traversal): Phase A, min/max up: c receives, c × E entries merged
 *       (a level-1 node reads its back-ends' raw records and keeps them), a send up; Phase B, bounds down: a receive
 *       from above (not at the root), c sends down (not at level 1, whose children are back-ends and need no bounds);
 *       Phase C, histograms up: level 1 bins the c × E records it kept, higher nodes receive c histograms of E events
 *       and merge them (a histogram of B 8-byte bins costs {@code recordNs × max(1, 8B / recordBytes)} per event),
 *       a send up. ToM's downstream filter doubles a node's threads, so each round also pays two thread hand-offs
 *       ({@link Costs#unparkNs()} + {@link Costs#switchNs()} each).</li>
 * </ul>
 * The busiest node's service time S is the tree's service time per round.
 *
 * <p><b>Back-ends</b>: a DUMP costs a back-end {@code sendNs + E × recordNs}; the barrier is a dissemination barrier,
 * ⌈log₂ N⌉ × ({@code sendNs + wireNs + receiveNs}). Back-ends do not block on the tree (ToM's sends go to socket
 * buffers until those are exhausted), so round i's offload reaches the busiest node at {@code i × cycle}, cycle =
 * period + DUMP + barrier, and is served there after the earlier rounds: completion_i = max(arrival_i,
 * completion_{i−1}) + S. A round's offload time is DUMP + its wait behind earlier rounds + barrier: the wait is what
 * a back-end pays sooner or later in a blocked send once the queue exhausts the buffers (ToM §5.2), counted here in the
 * round that caused it. Below the knee, period &lt; S − DUMP − barrier, the wait grows by S − cycle every round, so
 * avg.time grows with R; above it avg.time is DUMP + barrier, the same for both reductions ("at relatively low offload
 * rates both curves are overlaid").
 */
public final class OffloadModel {
    /** ToM's profile size in the offload benchmark (§5.2: "a modest number of events (20)"). */
    public static final int DEFAULT_EVENTS = 20;
    /** {@code bench offload}'s default histogram bins. */
    public static final int DEFAULT_BINS = 16;
    /** {@code bench offload}'s default rounds. */
    public static final int DEFAULT_ROUNDS = 200;
    private static final int MAX_ROUNDS = 10_000_000;

    private OffloadModel() {
    }

    /** What the tree does to the profiles: ToM's curve ({@code none}) or ToM Reduce ({@code hist}). */
    public enum Reduction {
        NONE, HIST;

        /** {@code none} or {@code hist}, as {@code bench offload --reduce} writes them. */
        public static Reduction parse(String text) {
            return switch (text.trim()) {
                case "none" -> NONE;
                case "hist" -> HIST;
                default -> throw new IllegalArgumentException("reduce must be none or hist, reduce=" + text);
            };
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One point of Figure 9.
     *
     * @param backEnds  N, application ranks offloading.
     * @param fanout    F, the tree's fan-out.
     * @param periodUs  work between two offloads (the x axis, "Profile Period"), µs.
     * @param events    E, events per profile.
     * @param reduction none or hist.
     * @param bins      histogram bins with {@code hist}.
     * @param rounds    R, the benchmark's iterations.
     * @param costs     the machine's costs.
     */
    public record Config(int backEnds, int fanout, double periodUs, int events, Reduction reduction, int bins,
                         int rounds, Costs costs) {
        public Config {
            if (backEnds < 1) {
                throw new IllegalArgumentException("backEnds must be >= 1, backEnds=" + backEnds);
            }
            if (fanout < 2) {
                throw new IllegalArgumentException("fanout must be >= 2, fanout=" + fanout);
            }
            if (!(periodUs >= 0) || Double.isInfinite(periodUs)) {
                throw new IllegalArgumentException("periodUs must be a finite number >= 0, periodUs=" + periodUs);
            }
            if (events < 1) {
                throw new IllegalArgumentException("events must be >= 1, events=" + events);
            }
            Objects.requireNonNull(reduction, "reduction");
            if (bins < 1) {
                throw new IllegalArgumentException("bins must be >= 1, bins=" + bins);
            }
            if (rounds < 1 || rounds > MAX_ROUNDS) {
                throw new IllegalArgumentException("rounds must be in [1, " + MAX_ROUNDS + "], rounds=" + rounds);
            }
            Objects.requireNonNull(costs, "costs");
        }

        /** The benchmark's defaults: 20 events, 16 bins, 200 rounds. */
        public static Config of(int backEnds, int fanout, double periodUs, Reduction reduction, Costs costs) {
            return new Config(backEnds, fanout, periodUs, DEFAULT_EVENTS, reduction, DEFAULT_BINS, DEFAULT_ROUNDS,
                    costs);
        }

        public Config withPeriodUs(double us) {
            return new Config(backEnds, fanout, us, events, reduction, bins, rounds, costs);
        }

        public Config withReduction(Reduction r) {
            return new Config(backEnds, fanout, periodUs, events, r, bins, rounds, costs);
        }

        public Config withRounds(int r) {
            return new Config(backEnds, fanout, periodUs, events, reduction, bins, r, costs);
        }
    }

    /**
     * What the model predicts for one configuration.
     *
     * @param avgTimeUs     ToM's avg.time: the mean over the rounds of the worst back-end's offload (DUMP, wait
     *                      behind earlier rounds, barrier), µs.
     * @param kneePeriodUs  the period below which the busiest node cannot keep up (S − DUMP − barrier, at least 0), µs.
     * @param serviceUs     S, the busiest node's service time per round, µs.
     * @param busiestLevel  that node's level (1: parent of back-ends; {@code levels}: the root).
     * @param levels        levels of nodes above the back-ends.
     * @param dumpUs        a back-end's DUMP, µs.
     * @param barrierUs     the barrier, µs.
     * @param cycleUs       a back-end's round without waiting: period + DUMP + barrier, µs.
     */
    public record Prediction(double avgTimeUs, double kneePeriodUs, double serviceUs, int busiestLevel, int levels,
                             double dumpUs, double barrierUs, double cycleUs) {
        /** Whether the tree keeps up at this period: no round waits for an earlier one. */
        public boolean keepsUp() {
            return cycleUs >= serviceUs;
        }
    }

    public static Prediction predict(Config config) {
        Costs costs = config.costs();
        Service service = service(config);
        double dump = dumpNs(config);
        double barrier = barrierNs(config.backEnds(), costs);
        double cycle = config.periodUs() * 1_000 + dump + barrier;
        double s = service.ns;
        // The deterministic queue at the busiest node: arrivals every cycle, one service of S each, in order.
        double completion = Double.NEGATIVE_INFINITY;
        double waits = 0;
        for (int i = 0; i < config.rounds(); i++) {
            double arrival = i * cycle;
            double start = Math.max(arrival, completion);
            waits += start - arrival;
            completion = start + s;
        }
        double avg = dump + waits / config.rounds() + barrier;
        return new Prediction(avg / 1_000, Math.max(0, s - dump - barrier) / 1_000, s / 1_000, service.level,
                service.levels, dump / 1_000, barrier / 1_000, cycle / 1_000);
    }

    /** The knee of {@code config}'s curve (its period is ignored), µs. */
    public static double kneePeriodUs(Config config) {
        return predict(config).kneePeriodUs();
    }

    static double dumpNs(Config config) {
        return config.costs().sendNs() + config.events() * config.costs().recordNs();
    }

    /** A dissemination barrier: ⌈log₂ N⌉ rounds of one message each way per rank, done in parallel. */
    static double barrierNs(int backEnds, Costs costs) {
        int rounds = 32 - Integer.numberOfLeadingZeros(backEnds - 1);
        return rounds * (costs.sendNs() + costs.wireNs() + costs.receiveNs());
    }

    private record Service(double ns, int level, int levels) {
    }

    /** The busiest node's service time per round, over the levels of the tree. */
    private static Service service(Config config) {
        long f = config.fanout();
        long inputs = config.backEnds();
        long below = 1;
        int level = 0;
        double busiest = -1;
        int busiestLevel = 0;
        while (inputs > f) {
            level++;
            // A full node of this level: F children, F × (back-ends under each child) back-ends below it.
            double ns = nodeNs(config, level, f, Math.min(below * f, config.backEnds()), false);
            if (ns > busiest) {
                busiest = ns;
                busiestLevel = level;
            }
            inputs = (inputs + f - 1) / f;
            below *= f;
        }
        level++;
        double root = nodeNs(config, level, inputs, config.backEnds(), true);
        if (root > busiest) {
            busiest = root;
            busiestLevel = level;
        }
        return new Service(busiest, busiestLevel, level);
    }

    /** One node's CPU per round: {@code children} children, {@code backEnds} back-ends below it, at {@code level}. */
    private static double nodeNs(Config config, int level, long children, long backEnds, boolean root) {
        Costs c = config.costs();
        double e = config.events();
        double up = root ? 0 : c.sendNs();
        if (config.reduction() == Reduction.NONE) {
            return children * c.receiveNs() + backEnds * e * c.recordNs() + up;
        }
        double phaseA = children * c.receiveNs() + children * e * c.recordNs() + up;
        double phaseB = (root ? 0 : c.receiveNs()) + (level == 1 ? 0 : children * c.sendNs());
        double histogram = c.recordNs() * Math.max(1, 8.0 * config.bins() / Math.max(1, c.recordBytes()));
        double phaseC = level == 1
                ? children * e * c.recordNs() + up
                : children * c.receiveNs() + children * e * histogram + up;
        double handOffs = 2 * (c.unparkNs() + c.switchNs());
        return phaseA + phaseB + phaseC + handOffs;
    }
}
