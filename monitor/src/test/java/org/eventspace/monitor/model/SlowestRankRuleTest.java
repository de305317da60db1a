package org.eventspace.monitor.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

class SlowestRankRuleTest {
    /** Four ranks at n instances of 4 members, rank i last k[i] times, lateness L[i] µs over a span of S µs. */
    private static List<SlowestRankRule.Evidence> fourRanks(long n, long[] k, double[] lateness, double span) {
        List<SlowestRankRule.Evidence> e = new ArrayList<>();
        for (int r = 0; r < k.length; r++) {
            e.add(new SlowestRankRule.Evidence(r, k[r], n, n / 4.0, n * 0.25 * 0.75, lateness[r], span, "world"));
        }
        return e;
    }

    @Test
    void aSlowRankLastBeyondChanceAndLateForAQuarterOfTheRunIsNamed() {
        // Measured: 4 ranks, rank 2 computes 3x longer; last at 972 of 2000, 422 ms late over 2.26 s.
        Verdict.SlowestRank v = SlowestRankRule.judge(fourRanks(2000, new long[] {300, 380, 972, 348},
                new double[] {-332_000, -7_600, 421_800, -81_600}, 2_263_000));
        assertThat(v.culprit()).isEqualTo(2);
        assertThat(v.beyondChance()).isTrue();
        assertThat(v.effectPct()).isCloseTo(18.6, within(0.1));
        assertThat(v.words()).startsWith("rank 2 is the slowest rank, beyond chance");
    }

    @Test
    void orderThatTheMachineMakesIsSignificantButTooSmallToName() {
        // Measured: a balanced program, 4 ranks on 2 cores; rank 0 last at 984 of 2000 (z 25) but only 0.2 ms late.
        Verdict.SlowestRank v = SlowestRankRule.judge(fourRanks(2000, new long[] {984, 300, 416, 300},
                new double[] {-200, -70_800, 101_200, -30_400}, 2_544_000));
        assertThat(v.rank()).isZero();
        assertThat(v.significant()).isTrue();
        assertThat(v.beyondChance()).isFalse();
        assertThat(v.culprit()).isNull();
        assertThat(v.words()).startsWith("within chance: no rank is late enough to name; rank 0 came last more often than "
                + "chance").contains("below the 5 %");
    }

    @Test
    void ofTheRanksLastBeyondChanceTheOneLateEnoughIsNamedNotTheOneMostOftenLast() {
        // Measured shape on a loaded machine: rank 3 last more often than chance but early on average; rank 2 last
        // beyond chance too and late by a fifth of the run.
        Verdict.SlowestRank v = SlowestRankRule.judge(fourRanks(400, new long[] {60, 50, 125, 165},
                new double[] {-50_000, -60_000, 400_000, -290_000}, 2_000_000));
        assertThat(v.culprit()).isEqualTo(2);
        assertThat(v.effectPct()).isCloseTo(20.0, within(0.01));
    }

    @Test
    void theCriticalValueIsBonferroniCorrectedForTheRanksTested() {
        Verdict.SlowestRank v = SlowestRankRule.judge(fourRanks(2000, new long[] {520, 500, 490, 490},
                new double[] {10, 0, -5, -5}, 1_000_000));
        assertThat(v.rank()).isZero();
        assertThat(v.ranksTested()).isEqualTo(4);
        assertThat(v.criticalZ()).isCloseTo(SlowestRankRule.upperNormalQuantile(0.01 / 4), within(0.01));
        assertThat(v.significant()).isFalse();
        assertThat(v.words()).contains("within chance");
    }

    @Test
    void withNothingToJudgeThereIsNoCandidate() {
        Verdict.SlowestRank v = SlowestRankRule.judge(List.of(new SlowestRankRule.Evidence(0, 0, 0, 0, 0, 0, 0, null)));
        assertThat(v.rank()).isNull();
        assertThat(v.beyondChance()).isFalse();
        assertThat(v.words()).startsWith("no verdict");
    }

    @Test
    void underTheNullTheFalseAlarmRateIsAtMostAlpha() {
        // Balanced ranks drawn at random: each instance's last arriver is uniform among 4 ranks. The significance test
        // alone (before the effect threshold) may reject in at most ~α of runs.
        Random random = new Random(42);
        int runs = 2000;
        int alarms = 0;
        for (int run = 0; run < runs; run++) {
            long[] k = new long[4];
            for (int i = 0; i < 500; i++) {
                k[random.nextInt(4)]++;
            }
            if (SlowestRankRule.judge(fourRanks(500, k, new double[] {1e6, 1e6, 1e6, 1e6}, 1e6)).significant()) {
                alarms++;
            }
        }
        assertThat((double) alarms / runs).isLessThanOrEqualTo(2 * SlowestRankRule.ALPHA);
    }

    @Test
    void theQuantileMatchesTheNormalTable() {
        assertThat(SlowestRankRule.upperNormalQuantile(0.5)).isCloseTo(0, within(1e-9));
        assertThat(SlowestRankRule.upperNormalQuantile(0.05)).isCloseTo(1.644854, within(1e-5));
        assertThat(SlowestRankRule.upperNormalQuantile(0.01)).isCloseTo(2.326348, within(1e-5));
        assertThat(SlowestRankRule.upperNormalQuantile(0.01 / 32)).isCloseTo(3.4205, within(1e-3));
    }
}
