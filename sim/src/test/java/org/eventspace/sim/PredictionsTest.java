package org.eventspace.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.eventspace.comm.pathmap.TreeShape;
import org.junit.jupiter.api.Test;

class PredictionsTest {
    @Test
    void everyTreeAndScopeGetsARowAndTheAdviceNamesTheFastestTree() {
        Predictions.Result r = Predictions.predict(Costs.reference(),
                List.of(new Predictions.Job(256, 8, 8, 8), new Predictions.Job(65_536, 32, 32, 4)),
                List.of(TreeShape.hier(8), TreeShape.butterfly(8)), List.of(TreeShape.FLAT, TreeShape.kary(8)), List.of(0, 4),
                List.of(Predictions.Load.TUPLES, Predictions.Load.RESULTS));
        assertThat(r.trees()).hasSize(4);
        assertThat(r.scopes()).hasSize(16);
        assertThat(r.advice()).hasSize(2);
        for (Predictions.TreeRow t : r.trees()) {
            assertThat(t.offNs()).isPositive();
            assertThat(t.onNs()).isPositive();
            assertThat(t.collectorsPerHost()).isPositive();
        }
        Predictions.TreeRow fastest = r.trees().subList(0, 2).stream()
                .min((a, b) -> Double.compare(a.onNs(), b.onNs())).orElseThrow();
        assertThat(r.advice().get(0)).startsWith("256 ranks: tree " + fastest.tree());
        // More hosts never gather a larger share of what the collectors write; results are never harder than tuples.
        for (int i = 0; i < 8; i++) {
            assertThat(r.scopes().get(8 + i).prediction().gatherRate())
                    .isLessThanOrEqualTo(r.scopes().get(i).prediction().gatherRate() + 1e-9);
        }
        for (int i = 0; i < 4; i++) {
            Predictions.ScopeRow tuples = r.scopes().get(i);
            Predictions.ScopeRow results = r.scopes().get(4 + i);
            assertThat(tuples.load()).isEqualTo(Predictions.Load.TUPLES);
            assertThat(results.load()).isEqualTo(Predictions.Load.RESULTS);
            assertThat(results.prediction().gatherRate()).isGreaterThanOrEqualTo(tuples.prediction().gatherRate());
        }
    }
}
