package org.eventspace.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The launcher's request for a dashboard travels through the environment and back unchanged; bad ones are named. */
class DashboardRequestTest {
    @Test
    void aRequestSurvivesItsEncoding() {
        DashboardRequest r = new DashboardRequest(0, "127.0.0.1", "gsum", "gsum, 4 ranks", 3);
        assertThat(DashboardRequest.decode(r.encode())).isEqualTo(r);
        assertThat(r.encode()).contains("\"schema\":\"eventspace.dashboard-request/1\"");
    }

    @Test
    void aMalformedRequestNamesTheVariableTheFieldAndWhatWasExpected() {
        assertThatThrownBy(() -> DashboardRequest.decode("{\"port\": 1}"))
                .hasMessageContaining("ES_DASHBOARD: /schema: expected \"eventspace.dashboard-request/1\"");
        assertThatThrownBy(() -> DashboardRequest.decode("{\"schema\": \"eventspace.dashboard-request/1\", \"port\": \"x\"}"))
                .hasMessageContaining("ES_DASHBOARD: /port: expected an integer, got \"x\"");
        assertThatThrownBy(() -> DashboardRequest.decode("{\"schema\": \"eventspace.dashboard-request/1\", \"port\": 70000}"))
                .hasMessageContaining("port must be 0..65535");
        assertThatThrownBy(() -> DashboardRequest.decode("{\"schema\": \"eventspace.dashboard-request/1\", \"prot\": 1}"))
                .hasMessageContaining("/prot: not a field of eventspace.dashboard-request/1");
        assertThatThrownBy(() -> DashboardRequest.decode("not json"))
                .hasMessageStartingWith("ES_DASHBOARD: expected one JSON object");
    }
}
