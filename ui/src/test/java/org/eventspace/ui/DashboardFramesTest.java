package org.eventspace.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.eventspace.base.json.Json;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.mpi.MpiPathmap;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What a frame carries of a source that measures less than our own jobs do (an MPI run's monitors block: no down or up
 * latency, and past 64 ranks no orders): a field the monitors do not have is left out, never sent as {@code null} for
 * the page to trip on; what the source cannot measure is listed with why ({@code not_measured}); the run's end, once
 * its command said how, rides on every frame ({@code outcome}).
 */
class DashboardFramesTest {
    private static final ObjectMapper JSON = Json.mapper();

    /** A flat gred over 3 ranks, with the monitors block {@code monitors} and what it says it cannot measure. */
    private static DashboardSource source(JsonNode monitors, Map<String, String> notMeasured) {
        MpiPathmap tree = MpiPathmap.of(3, 1);
        return new DashboardSource() {
            @Override
            public RunInfo info() {
                return new RunInfo("prog", "prog, 3 MPI ranks", 3, 1, "flat", 1, "", -1, Double.NaN);
            }

            @Override
            public Pathmap pathmap() {
                return tree.pathmap();
            }

            @Override
            public Optional<JsonNode> monitors() {
                return Optional.of(monitors);
            }

            @Override
            public Optional<JsonNode> scope() {
                return Optional.empty();
            }

            @Override
            public boolean running() {
                return false;
            }

            @Override
            public Map<String, String> notMeasured() {
                return notMeasured;
            }
        };
    }

    private static ObjectNode monitors(String gred, boolean orders) {
        ObjectNode m = JSON.createObjectNode();
        m.put("tuples_read", 30).put("tuples_missed", 0).put("gather_rate", 1.0).put("calls_joined", 10);
        m.putObject("analysis").put("cpu_ms", 12.5).put("threads", 1);
        var ports = m.putObject("stats").putObject("wrappers").putObject(gred).put("host", 0).put("tree", 0)
                .put("calls", 10).putArray("ports");
        for (int p = 0; p < 3; p++) {
            ObjectNode port = ports.addObject().put("port", p).put("contributor", "rank " + p);
            port.putObject("arrival_wait").put("count", 10).put("mean", 100.0 * p);
            port.putObject("departure_wait").put("count", 10).put("mean", 5.0 * p);
            if (orders) {
                port.putArray("arrival_order").add(p == 2 ? 0 : 5).add(5).add(p == 2 ? 10 : 0);
                port.putArray("departure_order").add(4).add(3).add(3);
            }
        }
        return m;
    }

    @Test
    void ordersAndDepartureWaitsComeThroughAndWhatIsNotMeasuredIsSaid() {
        String gred = MpiPathmap.of(3, 1).gred();
        DashboardFrames frames = new DashboardFrames(source(monitors(gred, true), Map.of("down_us", "not measured for MPI runs: x")), JSON);
        ObjectNode f = frames.next(0);

        JsonNode port2 = f.path("orders").path(gred).get(2);
        assertThat(port2.path("arrival_order").isArray()).isTrue();
        assertThat(port2.path("departure_order").toString()).isEqualTo("[4,3,3]");
        assertThat(port2.path("departure_wait_us").asDouble()).isEqualTo(10.0);
        assertThat(f.path("ranks").get(2).path("departure_wait_us").asDouble()).isEqualTo(10.0);
        assertThat(f.path("not_measured").path("down_us").asText()).isEqualTo("not measured for MPI runs: x");
        assertThat(f.path("cost").has("calls_dropped")).as("not in the monitors block: not made up").isFalse();
        assertThat(f.path("cost").path("calls_joined").asLong()).isEqualTo(10);
        assertThat(f.has("outcome")).isFalse();
    }

    @Test
    void ordersTheMonitorsDoNotCountAreLeftOutNotSentAsNull() {
        String gred = MpiPathmap.of(3, 1).gred();
        DashboardFrames frames = new DashboardFrames(source(monitors(gred, false), Map.of()), JSON);
        ObjectNode f = frames.next(0);

        for (JsonNode port : f.path("orders").path(gred)) {
            assertThat(port.has("arrival_order")).as(port.toString()).isFalse();
            assertThat(port.has("departure_order")).as(port.toString()).isFalse();
        }
        assertThat(f.path("not_measured").isObject()).isTrue();
        assertThat(f.path("not_measured").isEmpty()).isTrue();
    }

    @Test
    void theRunsEndRidesOnEveryFrameFromThenOn() {
        DashboardFrames frames = new DashboardFrames(source(monitors(MpiPathmap.of(3, 1).gred(), true), Map.of()), JSON);
        frames.ended(new DashboardFrames.Outcome(true, 0, List.of("slowest rank: 2"), 1234L));

        JsonNode outcome = frames.next(0).path("outcome");
        assertThat(outcome.toString()).isEqualTo("{\"ok\":true,\"exit_code\":0,\"summary\":[\"slowest rank: 2\"],\"ended_at_ms\":1234}");
        assertThat(frames.next(0).path("outcome")).isEqualTo(outcome);
    }
}
