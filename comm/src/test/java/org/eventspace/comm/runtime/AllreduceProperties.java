package org.eventspace.comm.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.eventspace.comm.Comm;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.path.ValueType;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.testing.RankThreads;
import org.eventspace.comm.testing.TestClusters;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.statistics.Statistics;

/**
 * Every rank's allreduce result equals the sequential reduction of all contributions, for any tree shape
 * (with per-branch overrides), host count, cluster count, rank count, rank-to-host mapping, number of trees,
 * operation, value type and array length. Ranks run as threads on an {@link InJvmCluster}.
 *
 * <p>Doubles come in two kinds: small integers, whose sums are exact in any order, and arbitrary fractions,
 * whose sum may differ from the sequential one by rounding (a gred reduces in port order, not rank order) but
 * must be bit-identical on every rank.
 */
class AllreduceProperties {
    private static final int ROUNDS = 5;
    private static final Duration BOUND = Duration.ofSeconds(60);

    enum Values { LONGS, SMALL_INTEGER_DOUBLES, FRACTION_DOUBLES }

    enum Mapping { BLOCK, CYCLIC, RANDOM }

    /** One generated job. {@code rankHosts} is derived from {@code mapping} and {@code seed}. */
    record Job(int clusters, int hostsPerCluster, int ranks, Mapping mapping, int[] rankHosts, int trees, TreeShape shape,
               Map<String, TreeShape> overrides, ReduceOp op, Values values, int length, long seed) {
        int hosts() {
            return clusters * hostsPerCluster;
        }

        PathmapSpec spec() {
            return TestClusters.spec(clusters, hostsPerCluster, ranks, trees, shape, rankHosts, overrides);
        }

        @Override
        public String toString() {
            return "Job{" + clusters + "x" + hostsPerCluster + " hosts, " + ranks + " ranks " + mapping + Arrays.toString(rankHosts)
                    + ", trees=" + trees + ", shape=" + shape + ", overrides=" + overrides + ", " + op + " of " + length + " "
                    + values + ", seed=" + seed + '}';
        }
    }

    @Property(tries = 50, shrinking = ShrinkingMode.BOUNDED)
    void everyRanksResultEqualsTheSequentialReduction(@ForAll("jobs") Job job) {
        Statistics.label("shape").collect(job.shape().kind() + (job.overrides().isEmpty() ? "" : "+overrides"));
        Statistics.label("hosts").collect(job.hosts() + " on " + job.clusters() + " cluster(s)");
        Statistics.label("ranks").collect(job.ranks() <= 4 ? "1-4" : job.ranks() <= 12 ? "5-12" : "13-24");
        Statistics.label("values").collect(job.values() + " " + job.op());
        Statistics.label("mapping").collect(job.mapping());
        long[][][] contributions = contributions(job);
        try (InJvmCluster cluster = TestClusters.start(job.spec())) {
            List<long[][]> results = RankThreads.values(cluster, BOUND, comm -> allreduceRounds(comm, job, contributions));
            for (int round = 0; round < ROUNDS; round++) {
                long[] expected = sequentialReduction(job, contributions[round]);
                long[] first = results.get(0)[round];
                for (int rank = 0; rank < job.ranks(); rank++) {
                    long[] got = results.get(rank)[round];
                    assertThat(got).as("rank %d round %d: bit-identical on every rank", rank, round).containsExactly(first);
                    if (job.values() == Values.FRACTION_DOUBLES && job.op() == ReduceOp.SUM) {
                        assertClose(job, contributions[round], expected, got, rank, round);
                    } else {
                        assertThat(got).as("rank %d round %d: the sequential reduction", rank, round).containsExactly(expected);
                    }
                }
            }
        }
    }

    /** What each rank does: {@link #ROUNDS} allreduces of its own contributions, through the Comm API of the type. */
    private static long[][] allreduceRounds(Comm comm, Job job, long[][][] contributions) {
        long[][] results = new long[ROUNDS][];
        for (int round = 0; round < ROUNDS; round++) {
            long[] mine = contributions[round][comm.rank()];
            long[] result = new long[job.length()];
            boolean scalar = job.length() == 1 && round % 2 == 1;     // odd rounds use the scalar entry points
            if (job.values() == Values.LONGS) {
                if (scalar) {
                    result[0] = comm.allreduce(mine[0], job.op());
                } else {
                    long[] buf = mine.clone();
                    comm.allreduce(buf, job.length(), job.op());
                    result = buf;
                }
            } else {
                if (scalar) {
                    result[0] = Double.doubleToRawLongBits(comm.allreduce(Double.longBitsToDouble(mine[0]), job.op()));
                } else {
                    double[] buf = new double[job.length()];
                    for (int i = 0; i < buf.length; i++) {
                        buf[i] = Double.longBitsToDouble(mine[i]);
                    }
                    comm.allreduce(buf, job.length(), job.op());
                    for (int i = 0; i < buf.length; i++) {
                        result[i] = Double.doubleToRawLongBits(buf[i]);
                    }
                }
            }
            results[round] = result;
        }
        return results;
    }

    /** contributions[round][rank][i], as raw 64-bit words (doubles as their bits). */
    private static long[][][] contributions(Job job) {
        SplittableRandom random = new SplittableRandom(job.seed());
        long[][][] c = new long[ROUNDS][job.ranks()][job.length()];
        for (long[][] round : c) {
            for (long[] rank : round) {
                for (int i = 0; i < rank.length; i++) {
                    rank[i] = switch (job.values()) {
                        case LONGS -> switch (random.nextInt(8)) {
                            case 0 -> Long.MIN_VALUE + random.nextInt(3);
                            case 1 -> Long.MAX_VALUE - random.nextInt(3);
                            case 2 -> random.nextInt(-5, 6);
                            default -> random.nextLong();       // sums wrap, identically in any order
                        };
                        case SMALL_INTEGER_DOUBLES -> Double.doubleToRawLongBits(random.nextInt(-1_000, 1_001));
                        case FRACTION_DOUBLES -> Double.doubleToRawLongBits(
                                (random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(-3, 7)));
                    };
                }
            }
        }
        return c;
    }

    /** The reduction in rank order, one contribution after another. */
    private static long[] sequentialReduction(Job job, long[][] byRank) {
        ValueType type = job.values() == Values.LONGS ? ValueType.LONG : ValueType.DOUBLE;
        long[] acc = byRank[0].clone();
        for (int r = 1; r < byRank.length; r++) {
            for (int i = 0; i < acc.length; i++) {
                acc[i] = fold(job.op(), type, acc[i], byRank[r][i]);
            }
        }
        return acc;
    }

    private static long fold(ReduceOp op, ValueType type, long a, long b) {
        if (type == ValueType.LONG) {
            return switch (op) {
                case SUM -> a + b;
                case MIN -> Math.min(a, b);
                case MAX -> Math.max(a, b);
                default -> throw new IllegalArgumentException(op.toString());
            };
        }
        double x = Double.longBitsToDouble(a);
        double y = Double.longBitsToDouble(b);
        return Double.doubleToRawLongBits(switch (op) {
            case SUM -> x + y;
            case MIN -> Math.min(x, y);
            case MAX -> Math.max(x, y);
            default -> throw new IllegalArgumentException(op.toString());
        });
    }

    /** A sum in another order is within n ulps of the magnitudes summed (a loose bound on reordered rounding). */
    private static void assertClose(Job job, long[][] byRank, long[] expected, long[] got, int rank, int round) {
        for (int i = 0; i < expected.length; i++) {
            double magnitude = 0;
            for (long[] c : byRank) {
                magnitude += Math.abs(Double.longBitsToDouble(c[i]));
            }
            double tolerance = job.ranks() * Math.ulp(magnitude) * 2;
            assertThat(Double.longBitsToDouble(got[i])).as("rank %d round %d word %d", rank, round, i)
                    .isCloseTo(Double.longBitsToDouble(expected[i]), offset(tolerance));
        }
    }

    // ---- generators ----

    @Provide
    Arbitrary<Job> jobs() {
        return Arbitraries.integers().between(1, 2).flatMap(clusters ->
                Arbitraries.integers().between(1, 6 / clusters).flatMap(hostsPerCluster ->
                        Arbitraries.integers().between(1, 24).flatMap(ranks ->
                                job(clusters, hostsPerCluster, ranks))))
                // Uniform draws: edge-case injection skews nested generators towards their first values
                // (one rank, SUM of longs); the small cases still come up at their natural rate.
                .withoutEdgeCases();
    }

    private Arbitrary<Job> job(int clusters, int hostsPerCluster, int ranks) {
        int hosts = clusters * hostsPerCluster;
        Arbitrary<Mapping> mapping = Arbitraries.of(Mapping.class);
        Arbitrary<Long> seed = Arbitraries.longs();
        return Combinators.combine(mapping, Arbitraries.integers().between(1, 3), shapes(), overrides(clusters, hosts),
                        Arbitraries.of(ReduceOp.SUM, ReduceOp.MIN, ReduceOp.MAX), Arbitraries.of(Values.class),
                        Arbitraries.integers().between(1, 16), seed)
                .as((m, trees, shape, overrides, op, values, length, s) -> new Job(clusters, hostsPerCluster, ranks, m,
                        mapping(m, ranks, hosts, s), trees, shape, overrides, op, values, length, s));
    }

    private static int[] mapping(Mapping mapping, int ranks, int hosts, long seed) {
        return switch (mapping) {
            case BLOCK -> PathmapSpec.blockMapping(ranks, hosts);
            case CYCLIC -> TestClusters.cyclicMapping(ranks, hosts);
            case RANDOM -> {
                SplittableRandom random = new SplittableRandom(seed ^ 0x5DEECE66DL);
                int[] map = new int[ranks];
                for (int r = 0; r < ranks; r++) {
                    map[r] = random.nextInt(hosts);
                }
                yield map;
            }
        };
    }

    /** flat, binary, kary:K and hier:K for K in 2..8, and hier:flat. */
    private static Arbitrary<TreeShape> shapes() {
        Arbitrary<Integer> k = Arbitraries.integers().between(2, 8);
        return Arbitraries.oneOf(
                Arbitraries.just(TreeShape.FLAT),
                Arbitraries.just(TreeShape.parse("binary")),
                k.map(TreeShape::kary),
                k.map(TreeShape::hier),
                Arbitraries.just(TreeShape.parse("hier:flat")));
    }

    /** A random subset of host and cluster names, each with its own shape. */
    private static Arbitrary<Map<String, TreeShape>> overrides(int clusters, int hosts) {
        List<String> branches = new ArrayList<>();
        for (int h = 0; h < hosts; h++) {
            branches.add("h" + h);
        }
        for (int c = 0; c < clusters; c++) {
            branches.add("c" + c);
        }
        Arbitrary<Map<String, TreeShape>> some = Arbitraries.subsetOf(branches).flatMap(chosen -> {
            List<String> names = new ArrayList<>(chosen);
            names.sort(null);
            return shapes().list().ofSize(names.size()).map(shapes -> {
                Map<String, TreeShape> map = new LinkedHashMap<>();
                for (int i = 0; i < names.size(); i++) {
                    map.put(names.get(i), shapes.get(i));
                }
                return map;
            });
        });
        return Arbitraries.oneOf(Arbitraries.just(Map.of()), some);
    }
}
