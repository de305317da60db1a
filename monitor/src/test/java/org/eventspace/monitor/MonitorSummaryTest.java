package org.eventspace.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/** The monitors' lines of a run's summary. */
class MonitorSummaryTest {
    private static String withWeight(double weight) {
        ObjectNode monitors = new ObjectMapper().createObjectNode();
        ObjectNode lb = monitors.putObject("loadbalance");
        lb.putArray("heaviest_path").add("t0.core.h0").add("t0.gred.h0.0");
        lb.put("heaviest_path_weight", weight);
        lb.put("heaviest_path_rank", 7);
        return MonitorSummary.of(monitors);
    }

    @Test
    void aHeaviestPathsSmallWeightKeepsItsDigits() {
        assertThat(withWeight(0.5)).contains("heaviest path (where calls wait, weight 0.50): t0.core.h0 → t0.gred.h0.0 → rank 7");
        // A product of shares down a deep tree (1 024 ranks): two decimals would print 0.00.
        assertThat(withWeight(0.0041)).contains("weight 0.0041)");
        assertThat(withWeight(0)).contains("weight 0.00)");
    }
}
