package org.eventspace.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;

import org.eventspace.sim.OffloadModel.Config;
import org.eventspace.sim.OffloadModel.Prediction;
import org.eventspace.sim.OffloadModel.Reduction;
import org.junit.jupiter.api.Test;

/** ToM §5.2, Figures 8–9, as the model sees them. */
class OffloadModelTest {
    /**
     * A cluster like ToM's Atlas: 3 µs of CPU to send or receive a message, 5 µs on the wire, 8 cores. A profile
     * event through MRNet's packets is no 40-byte tuple: 200 bytes and 150 ns to read and carry (its name, counters
     * and times), so a 64-rank concatenation (1280 events, ~190 µs at the front-end) costs more than the barrier
     * and the knee is visible at all.
     */
    static final Costs ATLAS = ScopeModelTest.costs(8, Map.of("sendNs", 3_000.0, "receiveNs", 3_000.0,
            "wireNs", 5_000.0, "recordNs", 150.0, "recordBytes", 200.0, "unparkNs", 2_000.0, "switchNs", 5_000.0));

    private static Prediction predict(int n, int fanout, double periodUs, Reduction r) {
        return OffloadModel.predict(Config.of(n, fanout, periodUs, r, ATLAS));
    }

    @Test
    void at64RanksTheHistogramsKneeComesAtAShorterOrEqualPeriod() {
        // Figure 9(A): "At Fanout=2, the knee in ToM Reduce occurs later than that in ToM"; at 4 no earlier.
        for (int fanout : new int[] {2, 4}) {
            double none = predict(64, fanout, 100, Reduction.NONE).kneePeriodUs();
            double hist = predict(64, fanout, 100, Reduction.HIST).kneePeriodUs();
            assertThat(none).as("fan-out %d: ToM's knee", fanout).isPositive();
            assertThat(hist).as("fan-out %d: ToM Reduce's knee", fanout).isLessThanOrEqualTo(none);
        }
        assertThat(predict(64, 2, 100, Reduction.HIST).kneePeriodUs()).isLessThan(predict(64, 2, 100, Reduction.NONE)
                .kneePeriodUs());
    }

    @Test
    void at512RanksTheHistogramIsFiveTimesBetterAtShortPeriods() {
        // Figure 9(B): "even with double the Fanout (16), ToM Reduce performs an order of magnitude better".
        for (double period : new double[] {0, 10, 50}) {
            double none = predict(512, 16, period, Reduction.NONE).avgTimeUs();
            double hist = predict(512, 16, period, Reduction.HIST).avgTimeUs();
            assertThat(none).as("period %s µs", period).isGreaterThanOrEqualTo(5 * hist);
        }
    }

    @Test
    void atLongPeriodsBothCurvesAreTheBarrierAndTheDump() {
        // "at relatively low offload rates both curves are overlaid".
        Prediction none = predict(64, 4, 10_000, Reduction.NONE);
        Prediction hist = predict(64, 4, 10_000, Reduction.HIST);
        assertThat(none.keepsUp()).isTrue();
        assertThat(hist.avgTimeUs()).isEqualTo(none.avgTimeUs());
        assertThat(none.avgTimeUs()).isCloseTo(none.dumpUs() + none.barrierUs(), within(1e-9));
        // 6 dissemination rounds of (3 + 5 + 3) µs; a dump of one send and 20 events.
        assertThat(none.barrierUs()).isCloseTo(66, within(1e-9));
        assertThat(none.dumpUs()).isCloseTo(3 + 20 * 0.15, within(1e-9));
    }

    @Test
    void belowTheKneeTheQueueGrowsWithTheRounds() {
        Config c = Config.of(64, 2, 100, Reduction.NONE, ATLAS);
        double knee = OffloadModel.kneePeriodUs(c);
        Prediction above = OffloadModel.predict(c.withPeriodUs(knee + 1));
        Prediction below = OffloadModel.predict(c.withPeriodUs(knee - 20));
        assertThat(above.keepsUp()).isTrue();
        assertThat(above.avgTimeUs()).isCloseTo(above.dumpUs() + above.barrierUs(), within(1e-9));
        assertThat(below.keepsUp()).isFalse();
        assertThat(below.avgTimeUs()).isGreaterThan(above.avgTimeUs());
        // The wait grows by S − cycle a round: twice the rounds, about twice the mean wait.
        double wait200 = below.avgTimeUs() - below.dumpUs() - below.barrierUs();
        Prediction longer = OffloadModel.predict(c.withPeriodUs(knee - 20).withRounds(400));
        double wait400 = longer.avgTimeUs() - longer.dumpUs() - longer.barrierUs();
        assertThat(wait200).isCloseTo(199 / 2.0 * (below.serviceUs() - below.cycleUs()), within(1e-6));
        assertThat(wait400 / wait200).isCloseTo(399 / 199.0, within(1e-9));
        assertThat(OffloadModel.predict(c.withPeriodUs(knee + 1).withRounds(400)).avgTimeUs())
                .isEqualTo(above.avgTimeUs());
    }

    @Test
    void withoutReductionTheRootReadsEveryEvent() {
        // The root of a concatenating tree reads N × E events; a histogram's root reads a few summaries.
        Prediction none = predict(512, 16, 10, Reduction.NONE);
        Prediction hist = predict(512, 16, 10, Reduction.HIST);
        assertThat(none.busiestLevel()).isEqualTo(none.levels());
        assertThat(none.serviceUs()).isGreaterThan(512 * 20 * 0.15);
        assertThat(hist.busiestLevel()).isLessThan(hist.levels());
        assertThat(hist.levels()).isEqualTo(3);
    }

    @Test
    void badInputsAreRefusedByName() {
        assertThatThrownBy(() -> Config.of(0, 2, 10, Reduction.NONE, ATLAS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("backEnds=0");
        assertThatThrownBy(() -> Config.of(64, 1, 10, Reduction.NONE, ATLAS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fanout=1");
        assertThatThrownBy(() -> Config.of(64, 2, -1, Reduction.NONE, ATLAS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("periodUs=-1.0");
        assertThatThrownBy(() -> Config.of(64, 2, 10, Reduction.NONE, ATLAS).withRounds(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rounds=0");
        assertThatThrownBy(() -> Reduction.parse("sum"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reduce=sum");
        assertThat(Reduction.parse("hist")).isEqualTo(Reduction.HIST);
    }
}
