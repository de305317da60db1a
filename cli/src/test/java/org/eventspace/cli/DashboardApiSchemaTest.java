package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.eventspace.ui.DashboardServer;
import org.eventspace.ui.DemoJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The dashboard's API answers, over real HTTP on loopback for the demo's job (as {@code eventspace demo} serves it),
 * against their schemas in docs/schema.
 */
@Timeout(90)
class DashboardApiSchemaTest {
    private HttpClient http;
    private int port;

    @Test
    void everyJsonEndpointAndEveryErrorConforms() throws Exception {
        http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        try (DemoJob demo = DemoJob.start(DemoJob.Settings.DEFAULT);
             DashboardServer server = DashboardServer.start(demo.source(), DashboardServer.LOOPBACK, 0, 200)) {
            port = server.port();
            // Until the monitors joined calls and the scope pulled rounds, some endpoints answer 404 (no statistics yet).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() - deadline < 0 && (get("/api/v1/timemap").statusCode() != 200
                    || ReportSchemas.parse(get("/api/v1/histograms").body()).path("events").isEmpty())) {
                Thread.sleep(200);
            }
            endpoints();
            errors();
        }
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode conforms(String schema, String path) throws Exception {
        HttpResponse<String> r = get(path);
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
        return ReportSchemas.assertConforms(schema, r.body());
    }

    private void endpoints() throws Exception {
        assertThat(conforms("dashboard-health.schema.json", "/api/v1/health").path("running").asBoolean()).isTrue();
        conforms("dashboard-run.schema.json", "/api/v1/run");
        conforms("dashboard-frame.schema.json", "/api/v1/frame");
        conforms("dashboard-tree.schema.json", "/api/v1/tree");
        conforms("dashboard-tree.schema.json", "/api/v1/tree?tree=1");
        JsonNode lb = conforms("dashboard-loadbalance.schema.json", "/api/v1/loadbalance");
        conforms("dashboard-stats.schema.json", "/api/v1/stats");
        conforms("dashboard-histograms.schema.json", "/api/v1/histograms?last=1");
        conforms("dashboard-timemap.schema.json", "/api/v1/timemap?tree=1");
        conforms("dashboard-cost.schema.json", "/api/v1/cost");
        conforms("dashboard-traffic.schema.json", "/api/v1/traffic");
        assertThat(lb.path("greds")).isNotEmpty();
    }

    private void errors() throws Exception {
        for (String path : new String[] {"/api/v1/tree?tree=abc", "/api/v1/stats?gred=nosuch", "/api/v1/nosuch"}) {
            HttpResponse<String> r = get(path);
            assertThat(r.statusCode()).as(path).isBetween(400, 499);
            JsonNode error = ReportSchemas.assertConforms("dashboard-error.schema.json", r.body());
            assertThat(error.path("status").asInt()).as(path).isEqualTo(r.statusCode());
        }
    }
}
