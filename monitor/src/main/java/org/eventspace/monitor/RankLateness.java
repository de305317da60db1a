package org.eventspace.monitor;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Which rank arrives late at its own gred, measured against the gred's other contributors: the rank to look at first.
 *
 * <p>A rank's score at the gred its path enters is how much more often than chance it arrived last there:
 * {@code (share − 1/P) / (1 − 1/P)} for a gred of P contributors, where share is the fraction of calls in which it came
 * last: 1 if it was always last, 0 at chance, −1 if never. It is measured among siblings, which share their path above the
 * gred, so the tree's structural lateness (a remote subtree whose proxy is late at every gred above it) does not enter
 * it; that is what the heaviest path of {@link LoadBalance} shows. A rank in several trees (gsum alternates two) gets
 * the mean of its scores over them, weighted by calls: an order that comes from how the threads are woken, not from the
 * rank, differs between identical trees and averages out (measured: 32 ranks on 2 cores, rank 31 last in 100 % of one
 * tree's calls and 0 % of the other's; the slow rank last in 90 % and 92 %). Counts, not mean waits, decide: on an
 * oversubscribed machine a preempted thread adds milliseconds to a mean. The lateness in µs, {@code mean_p(wait_p) −
 * wait_i} from the mean arrival waits, is reported beside it.
 *
 * <p><b>Beyond chance.</b> Some rank always scores highest. Whether it is consistently slowest rather than the top of
 * noise is decided by a one-sided binomial z-test on its last arrivals pooled over its greds: {@code z = (k − Σ n_g/P_g)
 * / sqrt(Σ n_g (1/P_g)(1 − 1/P_g))}, with n_g calls at a gred of P_g contributors, against the normal quantile for
 * α = 0.01 divided by the number of ranks tested (Bonferroni: the most extreme of R ranks is tested, not one chosen in
 * advance).
 *
 * @param rank         the latest rank; -1 if no gred with ranks among its contributors was monitored.
 * @param score        its score, −1..1.
 * @param lateness     its mean lateness against its siblings, µs.
 * @param gred         the gred where its score was highest.
 * @param z            the z statistic of its last arrivals against chance.
 * @param beyondChance whether z exceeds the Bonferroni-corrected critical value.
 */
record RankLateness(int rank, double score, double lateness, String gred, double z, boolean beyondChance) {
    static final double ALPHA = 0.01;

    static RankLateness slowest(JsonNode greds) {
        // rank → {Σ score × calls, Σ lateness × calls, Σ calls, best score, last arrivals, expected, variance}
        Map<Integer, double[]> sums = new HashMap<>();
        Map<Integer, String> where = new HashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = greds.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode g = e.getValue();
            long calls = g.path("calls").asLong();
            JsonNode waits = g.path("mean_arrival_wait_us");
            JsonNode last = g.path("last_arrivals");
            JsonNode contributors = g.path("contributors");
            int ports = contributors.size();
            if (calls == 0 || ports < 2 || waits.size() != ports || last.size() != ports) {
                continue;
            }
            double meanWait = 0;
            for (JsonNode w : waits) {
                meanWait += w.asDouble();
            }
            meanWait /= ports;
            double chance = 1.0 / ports;
            for (int p = 0; p < ports; p++) {
                String who = contributors.get(p).asText();
                if (!who.startsWith("rank ") || who.contains(",")) {
                    continue;
                }
                int rank = Integer.parseInt(who.substring("rank ".length()));
                double score = ((double) last.get(p).asLong() / calls - chance) / (1 - chance);
                double late = meanWait - waits.get(p).asDouble();
                double[] s = sums.computeIfAbsent(rank, r -> new double[] {0, 0, 0, Double.NEGATIVE_INFINITY, 0, 0, 0});
                s[0] += score * calls;
                s[1] += late * calls;
                s[2] += calls;
                s[4] += last.get(p).asLong();
                s[5] += calls * chance;
                s[6] += calls * chance * (1 - chance);
                if (score > s[3]) {
                    s[3] = score;
                    where.put(rank, e.getKey());
                }
            }
        }
        int best = -1;
        double bestScore = Double.NEGATIVE_INFINITY;
        double bestLate = 0;
        for (Map.Entry<Integer, double[]> e : sums.entrySet()) {
            double[] s = e.getValue();
            double score = s[0] / s[2];
            double late = s[1] / s[2];
            if (score > bestScore || score == bestScore && (late > bestLate || late == bestLate && e.getKey() < best)) {
                best = e.getKey();
                bestScore = score;
                bestLate = late;
            }
        }
        if (best < 0) {
            return new RankLateness(-1, 0, 0, null, 0, false);
        }
        double[] s = sums.get(best);
        double z = s[6] == 0 ? 0 : (s[4] - s[5]) / Math.sqrt(s[6]);
        double critical = upperNormalQuantile(ALPHA / sums.size());
        return new RankLateness(best, bestScore, bestLate, where.get(best), z, z > critical);
    }

    /**
     * The z with P(Z > z) = {@code p} for a standard normal Z (Acklam's rational approximation, relative error below
     * 1.2e-9), for 0 < p < 0.5.
     */
    static double upperNormalQuantile(double p) {
        double q = Math.min(Math.max(p, 1e-300), 0.5);
        // Lower-tail quantile of 1 - q is minus the lower-tail quantile of q.
        double[] c = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
                4.374664141464968e+00, 2.938163982698783e+00};
        double[] d = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00};
        if (q < 0.02425) {
            double r = Math.sqrt(-2 * Math.log(q));
            double x = (((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5])
                    / ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1);
            return -x;
        }
        double[] a = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
                -3.066479806614716e+01, 2.506628277459239e+00};
        double[] b = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
                -1.328068155288572e+01};
        double u = q - 0.5;
        double r = u * u;
        double x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * u
                / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
        return -x;
    }
}
