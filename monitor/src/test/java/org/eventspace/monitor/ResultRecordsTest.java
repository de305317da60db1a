package org.eventspace.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.eventspace.scope.filter.ScopeRecord;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** A host's results as records and back: what the analysis threads send through the scope is what they had. */
class ResultRecordsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aPartSurvivesTheTripThroughRecords() throws Exception {
        JsonNode part = JSON.readTree("""
                {"kinds": ["loadbalance", "stats"],
                 "greds": {"t0.gred.h1.0": {"host": 1, "calls": 12, "contributors": ["rank 2", "t0.proxy/odd=name~"],
                                            "last_arrivals": [3, 9], "down": {"count": 12, "mean": 0.25, "median": null},
                                            "ports": [{"port": 0, "arrival_order": [5, 7]}, {"port": 1, "arrival_order": [7, 5]}]}},
                 "ranks": {"0": {"allreduce-sum": {"calls": 12, "time_us": 31.5}}, "12": {}},
                 "final": true, "skipped": []}
                """);
        List<ScopeRecord> records = ResultRecords.flatten(part, 7);
        assertThat(records).allSatisfy(r -> assertThat(r.round()).isEqualTo(7));
        assertThat(ResultRecords.isFinal(records)).as("a part marked final").isTrue();
        assertThat(ResultRecords.isFinal(ResultRecords.flatten(JSON.readTree("{\"final\": false, \"greds\": {}}"), 1)))
                .isFalse();
        assertThat(ResultRecords.isFinal(ResultRecords.flatten(JSON.readTree("{\"calls\": 3}"), 1))).isFalse();
        JsonNode back = ResultRecords.unflatten(records, JSON);
        // Empty containers do not travel; everything else comes back as it was (numbers by value).
        ((ObjectNode) part).remove("skipped");
        ((ObjectNode) part.path("ranks")).remove("12");
        assertThat(back.equals((a, b) -> a.isNumber() && b.isNumber() ? Double.compare(a.doubleValue(), b.doubleValue())
                : a.equals(b) ? 0 : 1, part)).as(back.toString()).isTrue();
        assertThat(back.path("greds").path("t0.gred.h1.0").path("contributors").get(1).asText()).isEqualTo("t0.proxy/odd=name~");
        assertThat(back.path("greds").path("t0.gred.h1.0").path("down").path("median").isNull()).isTrue();
    }

    @Test
    void aHostsLastSetHasTheEventsOfTheOneBeforeItSoItTravelsAsValuesOnly() throws Exception {
        String text = "{\"greds\": {\"t0.gred.h1.0\": {\"calls\": 12}}, \"ranks\": {\"0\": {\"n\": 3}}}";
        List<ScopeRecord> before = ResultRecords.flatten((ObjectNode) JSON.readTree(text), 4, false);
        List<ScopeRecord> last = ResultRecords.flatten((ObjectNode) JSON.readTree(text), 5, true);
        assertThat(ResultRecords.isFinal(before)).isFalse();
        assertThat(ResultRecords.isFinal(last)).isTrue();
        assertThat(last).extracting(ScopeRecord::event).containsExactlyElementsOf(
                before.stream().map(ScopeRecord::event).toList());
    }

    @Test
    void aMalformedPlaceIsRefusedNamingTheRecord() {
        assertThatThrownBy(() -> ResultRecords.unflatten(List.of(new ScopeRecord(-1, "/a", 0, 1),
                new ScopeRecord(-1, "no-slash", 0, 1)), JSON)).hasMessageContaining("record 1");
        assertThatThrownBy(() -> ResultRecords.unflatten(List.of(new ScopeRecord(-1, "/a/[1]", 0, 1),
                new ScopeRecord(-1, "/a/b", 0, 1)), JSON)).hasMessageContaining("record 1").hasMessageContaining("into an array");
    }
}
