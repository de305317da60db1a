package org.eventspace.monitor.model;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * What a run's analysis concludes, each part with how sure it is: the slowest rank ({@link SlowestRankRule}), the
 * heaviest path of the load-balance tree (the EventSpace paper §3: the weighted graph of last arrivals), and whether
 * the machine itself was oversubscribed, which makes lateness without the program's help.
 *
 * @param slowestRank    the slowest rank and its test.
 * @param heaviestPath   the heaviest path, or null without the load-balance monitor.
 * @param load           ranks and the tool's threads against the cores.
 * @param headline       one sentence for people: the culprit with its certainty, a fault, or "within chance".
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Verdict(SlowestRank slowestRank, HeaviestPath heaviestPath, Load load, String headline) {

    /** Every verdict says something: a report without a headline is refused when read, not drawn as "null". */
    public Verdict {
        java.util.Objects.requireNonNull(headline, "headline");
    }

    /**
     * The slowest rank as {@link SlowestRankRule} judged it.
     *
     * @param rank           the candidate (the rank most often last against chance), null with no instance to judge.
     * @param lastArrivals   its last arrivals.
     * @param instances      the instances it took part in.
     * @param lastShare      lastArrivals / instances.
     * @param chanceShare    the share it would have by chance.
     * @param z              the z of its last arrivals against chance.
     * @param criticalZ      the Bonferroni-corrected critical value.
     * @param alpha          the family-wise false-alarm rate.
     * @param ranksTested    R, the ranks compared.
     * @param latenessUs     its total lateness over the run, µs.
     * @param effectPct      that lateness as a share of the instances' time span, per cent.
     * @param where          where it was judged (a gred, a communicator).
     * @param minEffectPct   the smallest effect named.
     * @param significant    z above the critical value.
     * @param beyondChance   significant and at least {@code minEffectPct}: the rank is named.
     * @param culprit        the rank named, null when none is ("within chance").
     * @param words          the verdict in one sentence, with its numbers.
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record SlowestRank(@JsonInclude(JsonInclude.Include.ALWAYS) Integer rank, long lastArrivals, long instances,
                              Double lastShare, Double chanceShare, Double z, Double criticalZ, double alpha,
                              int ranksTested, Double latenessUs, Double effectPct, String where, double minEffectPct,
                              boolean significant, boolean beyondChance,
                              @JsonInclude(JsonInclude.Include.ALWAYS) Integer culprit, String words) {
    }

    /**
     * The heaviest path of the load-balance tree, root to leaf, and the rank at its end.
     *
     * @param path            the nodes from the root.
     * @param rank            the rank at its end, null if it ends at a wrapper.
     * @param weight          its weight: the share of calls in which each step was the last arriver, multiplied.
     * @param agrees          whether it ends at the slowest rank's candidate.
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record HeaviestPath(List<String> path, @JsonInclude(JsonInclude.Include.ALWAYS) Integer rank, double weight,
                               boolean agrees) {
        /** A path is its hops: one read without them is refused, not drawn. */
        public HeaviestPath {
            java.util.Objects.requireNonNull(path, "path");
        }
    }

    /**
     * The busy threads this run put on the machine against its cores: ranks that busy-wait (MPI's polling, our own
     * ranks' spinning) and the tool's analysis or agent threads. When they outnumber the cores, a rank waits for a core
     * and arrives late without the program's help.
     *
     * @param cores           the cores of the machine the ranks ran on.
     * @param ranks           ranks on that machine (the busiest host's when hosts are real).
     * @param toolThreads     the tool's own busy threads beside them.
     * @param oversubscribed  ranks + toolThreads > cores.
     * @param warning         what that means, or null.
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Load(int cores, int ranks, int toolThreads, boolean oversubscribed, String warning) {
        public static Load of(int cores, int ranks, int toolThreads) {
            boolean over = ranks + toolThreads > cores;
            return new Load(cores, ranks, toolThreads, over, over ? String.format(java.util.Locale.ROOT,
                    "%d ranks and %d of the tool's threads share %d cores: ranks wait for a core, which makes lateness by "
                            + "itself (a verdict below %.0f %% of the run is not named)", ranks, toolThreads, cores,
                    SlowestRankRule.MIN_EFFECT_PCT) : null);
        }
    }
}
