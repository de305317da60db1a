package org.eventspace.base.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.junit.jupiter.api.Test;

/**
 * The shared configuration writes what each site's own default mapper wrote, byte for byte: the documents are a
 * versioned interface, and the sites were moved to it on that promise.
 */
class JsonTest {
    @JsonPropertyOrder({"schema", "count", "mean", "window_median", "names"})
    record Sample(String schema, long count, double mean,
                  @JsonProperty("window_median") @JsonInclude(JsonInclude.Include.NON_NULL) Double windowMedian,
                  List<String> names) {
    }

    private static final Sample SAMPLE = new Sample("eventspace.test/1", 3, Double.NaN, null, List.of("a", "é"));

    @Test
    void compactOutputIsADefaultMappersOutput() throws Exception {
        ObjectMapper own = new ObjectMapper();
        assertThat(Json.mapper().writeValueAsString(SAMPLE)).isEqualTo(own.writeValueAsString(SAMPLE))
                .isEqualTo("{\"schema\":\"eventspace.test/1\",\"count\":3,\"mean\":\"NaN\",\"names\":[\"a\",\"é\"]}");
        ObjectNode tree = own.createObjectNode().put("x", 1.5).put("y", 2L);
        tree.putArray("z").add(1);
        assertThat(Json.mapper().writeValueAsString(tree)).isEqualTo(tree.toString());
    }

    @Test
    void prettyOutputIsIndentOutputsOutput() throws Exception {
        ObjectMapper indented = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        Map<String, Object> doc = Map.of("sample", SAMPLE);
        assertThat(Json.pretty().writeValueAsString(doc)).isEqualTo(indented.writeValueAsString(doc))
                .isEqualTo(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(doc));
    }

    @Test
    void aRecordAndTheTreeBuiltByHandAreEqualTrees() {
        ObjectNode byHand = Json.mapper().createObjectNode().put("schema", "eventspace.test/1").put("count", 3L)
                .put("mean", Double.NaN);
        byHand.putArray("names").add("a").add("é");
        assertThat((Object) Json.mapper().valueToTree(SAMPLE)).isEqualTo(byHand);
    }
}
