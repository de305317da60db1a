package org.eventspace.monitor.model;

import java.util.List;
import java.util.Locale;

/**
 * The one rule that names the slowest rank of a run, for our own workloads (a rank's last arrivals at the gred its
 * path enters, counted by the load-balance monitor; the EventSpace paper §3) and for MPI programs (its last arrivals at
 * collective instances, Scalasca's wait at N×N) alike. A culprit is named only when two things hold:
 *
 * <ol>
 *   <li><b>Beyond chance.</b> Some rank always comes last most often. Whether it is consistently last rather than the
 *   top of noise is a one-sided binomial z-test on its last arrivals, {@code z = (k − Σ 1/P_i) / sqrt(Σ (1/P_i)(1 −
 *   1/P_i))} over its n instances of P_i members, against the normal quantile for α = {@value #ALPHA} divided by the
 *   number of ranks tested (Bonferroni: the most extreme of R ranks is tested, not one chosen in advance).</li>
 *   <li><b>Large enough to matter.</b> The test alone flags any systematic order, and a machine makes some by itself:
 *   measured on 2 cores with 4 balanced MPI ranks and the tool's agent, some rank came last at 41–49 % of 2 000
 *   instances against 25 % by chance (z 16–25) in every run. What such order costs is small: the rank's total
 *   lateness (per instance, the members' mean wait minus its own, summed) was at most 1.7 % of the time span of the
 *   instances, against 19–28 % for a rank that computes 3× longer. So the effect must be at least
 *   {@value #MIN_EFFECT_PCT} % of that span.</li>
 * </ol>
 *
 * The false-alarm rate on balanced runs is measured by {@code eventspace bench verdict} and stated in
 * docs/MONITORS.md. Pure function; any thread.
 */
public final class SlowestRankRule {
    /** The family-wise false-alarm rate of the significance test. */
    public static final double ALPHA = 0.01;
    /** The smallest effect named: the rank's total lateness as a share of the span of the instances, per cent. */
    public static final double MIN_EFFECT_PCT = 5.0;

    private SlowestRankRule() {
    }

    /**
     * What the rule knows of one rank.
     *
     * @param rank          the rank.
     * @param lastArrivals  k: the instances at which it arrived last.
     * @param instances     n: the instances it took part in (with at least one other member).
     * @param expectedLast  Σ 1/P over its instances: its last arrivals by chance.
     * @param varianceLast  Σ (1/P)(1 − 1/P): their variance by chance.
     * @param latenessUs    its total lateness: per instance, the members' mean wait minus its own wait, summed (µs);
     *                      negative when it arrived early.
     * @param spanUs        the time its lateness is a share of (µs; 0 if unknown): the span from the first to the last
     *                     of its instances — or, with the median lateness, the median time between its consecutive
     *                     instances times the instances, which stalls of the whole machine cannot stretch.
     * @param where         where it was judged (a gred's name, a communicator); may be null.
     */
    public record Evidence(int rank, long lastArrivals, long instances, double expectedLast, double varianceLast,
                           double latenessUs, double spanUs, String where) {
        double z() {
            return varianceLast <= 0 ? 0 : (lastArrivals - expectedLast) / Math.sqrt(varianceLast);
        }
    }

    /**
     * The verdict over {@code ranks} (ranks with no instance are ignored). Every rank is tested against the same
     * Bonferroni-corrected critical value; of those both significant and late by at least {@link #MIN_EFFECT_PCT}, the
     * latest is named. When none is, the candidate reported is the rank whose last arrivals exceed chance the most (a
     * rank last more often than chance yet early on average is such a candidate, and is not named).
     */
    public static Verdict.SlowestRank judge(List<Evidence> ranks) {
        int tested = 0;
        for (Evidence e : ranks) {
            if (e.instances() > 0 && e.varianceLast() > 0) {
                tested++;
            }
        }
        double critical = tested == 0 ? Double.POSITIVE_INFINITY : upperNormalQuantile(ALPHA / tested);
        Evidence best = null;
        Evidence named = null;
        for (Evidence e : ranks) {
            if (e.instances() == 0 || e.varianceLast() <= 0) {
                continue;
            }
            if (best == null || e.z() > best.z()
                    || e.z() == best.z() && (e.latenessUs() > best.latenessUs()
                    || e.latenessUs() == best.latenessUs() && e.rank() < best.rank())) {
                best = e;
            }
            Double effect = effectPct(e);
            if (e.z() > critical && effect != null && effect >= MIN_EFFECT_PCT
                    && (named == null || effect > effectPct(named))) {
                named = e;
            }
        }
        if (named != null) {
            best = named;
        }
        if (best == null) {
            return none("no verdict: no collective instance had more than one member");
        }
        double z = best.z();
        boolean significant = z > critical;
        double share = (double) best.lastArrivals() / best.instances();
        double chance = best.expectedLast() / best.instances();
        Double effectPct = effectPct(best);
        boolean large = effectPct != null && effectPct >= MIN_EFFECT_PCT;
        boolean beyond = significant && large;
        String words;
        String counts = String.format(Locale.ROOT, "last at %d of %d instances (%.0f %% by chance), z %.1f %s %.1f",
                best.lastArrivals(), best.instances(), 100 * chance, z, significant ? ">" : "≤", critical);
        String effect = effectPct == null ? "its lateness unmeasured"
                : String.format(Locale.ROOT, "late by %.1f %% of the run (%s µs in total, %s µs an instance)",
                effectPct, micros(best.latenessUs()), micros(best.latenessUs() / best.instances()));
        if (beyond) {
            words = String.format(Locale.ROOT, "rank %d is the slowest rank, beyond chance: %s; %s", best.rank(), counts,
                    effect);
        } else if (significant) {
            // Beyond chance in order but not in effect: "no rank is slower beyond chance" would contradict the counts
            // that follow, so the sentence says what is missing, the size.
            words = String.format(Locale.ROOT, "within chance: no rank is late enough to name; rank %d came last more often "
                    + "than chance (%s) but is %s, below the %.0f %% that is named", best.rank(), counts, effect,
                    MIN_EFFECT_PCT);
        } else {
            words = String.format(Locale.ROOT, "within chance: no rank is slower beyond chance; the most often last, rank "
                    + "%d, is within chance (%s; α %.2f over %d ranks)", best.rank(), counts, ALPHA, tested);
        }
        return new Verdict.SlowestRank(best.rank(), best.lastArrivals(), best.instances(), round(share, 4),
                round(chance, 4), round(z, 2), round(critical, 2), ALPHA, tested, round(best.latenessUs(), 1),
                effectPct == null ? null : round(effectPct, 2), best.where(), MIN_EFFECT_PCT, significant, beyond,
                beyond ? best.rank() : null, words);
    }

    /** No candidate at all, and {@code words} saying why. */
    public static Verdict.SlowestRank none(String words) {
        return new Verdict.SlowestRank(null, 0, 0, null, null, null, null, ALPHA, 0, null, null, null, MIN_EFFECT_PCT,
                false, false, null, words);
    }

    private static Double effectPct(Evidence e) {
        return e.spanUs() > 0 ? 100.0 * e.latenessUs() / e.spanUs() : null;
    }

    private static String micros(double us) {
        return String.format(Locale.ROOT, Math.abs(us) >= 100 ? "%.0f" : "%.1f", us);
    }

    private static double round(double x, int digits) {
        double f = Math.pow(10, digits);
        return Math.round(x * f) / f;
    }

    /**
     * The z with P(Z > z) = {@code p} for a standard normal Z (Acklam's rational approximation, relative error below
     * 1.2e-9), for 0 < p < 0.5.
     */
    public static double upperNormalQuantile(double p) {
        double q = Math.min(Math.max(p, 1e-300), 0.5);
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
