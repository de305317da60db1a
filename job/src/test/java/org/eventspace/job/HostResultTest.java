package org.eventspace.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

/** A host process's report line: versioned, and refused with a reason when it is not ours. */
class HostResultTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void roundTripsEveryPart() {
        HostResult result = new HostResult(List.of(new HostTrace(1, 2, 3, 4, 5)), JSON.createObjectNode().put("rounds", 7),
                JSON.createObjectNode().put("ok", true));
        String line = result.encode(JSON);
        assertThat(line).contains("\"schema\":\"" + HostResult.SCHEMA + "\"");
        HostResult back = HostResult.decode(JSON, line);
        assertThat(back.traces()).isEqualTo(result.traces());
        assertThat(back.scope()).isEqualTo(result.scope());
        assertThat(back.program()).isEqualTo(result.program());
    }

    @Test
    void aResultThatFitsIsSentAsItIs() {
        HostResult result = new HostResult(List.of(new HostTrace(1, 2, 3, 4, 5)), null, JSON.createObjectNode().put("ok", true));
        assertThat(result.fitting(JSON, 10_000)).isSameAs(result);
    }

    @Test
    void aResultTooLongLosesItsLargestPartsAndNamesThemButKeepsTheRest() {
        com.fasterxml.jackson.databind.node.ObjectNode program = JSON.createObjectNode();
        program.putArray("ranks").add(JSON.createObjectNode().put("rank", 0).put("value", 42));
        program.put("monitors", "m".repeat(5_000));
        program.put("traffic", "t".repeat(3_000));
        HostResult result = new HostResult(List.of(new HostTrace(1, 2, 3, 4, 5)),
                JSON.createObjectNode().put("blob", "s".repeat(2_000)), program);

        HostResult fitted = result.fitting(JSON, 1_000);

        assertThat(fitted.encode(JSON).getBytes(java.nio.charset.StandardCharsets.UTF_8).length).isLessThanOrEqualTo(1_000);
        assertThat(fitted.scope()).isNull();
        assertThat(fitted.program().has("ranks")).isTrue();
        assertThat(fitted.program().path("ranks").get(0).path("value").asInt()).isEqualTo(42);
        assertThat(fitted.traces()).isEqualTo(result.traces());
        assertThat(fitted.leftOut()).containsExactly("scope (2011 bytes)", "program.monitors (5002 bytes)",
                "program.traffic (3002 bytes)");
        assertThat(result.program().has("monitors")).as("the original is untouched").isTrue();
        HostResult back = HostResult.decode(JSON, fitted.encode(JSON));
        assertThat(back.leftOut()).isEqualTo(fitted.leftOut());
        assertThat(back.program()).isEqualTo(fitted.program());
    }

    @Test
    void aProgramThatIsNotAnObjectGoesWholeWhenItCannotFit() {
        HostResult result = new HostResult(List.of(), null, JSON.getNodeFactory().textNode("x".repeat(2_000)));
        HostResult fitted = result.fitting(JSON, 500);
        assertThat(fitted.program()).isNull();
        assertThat(fitted.leftOut()).containsExactly("program (2002 bytes)");
    }

    @Test
    void refusesWhatIsNotAHostResult() {
        assertThatThrownBy(() -> HostResult.decode(JSON, "{\"ranks\": []}")).hasMessageContaining(HostResult.SCHEMA);
        assertThatThrownBy(() -> HostResult.decode(JSON, "{oops")).hasMessageContaining("not JSON");
        assertThatThrownBy(() -> HostResult.decode(JSON, "[1]")).hasMessageContaining("JSON object");
        assertThatThrownBy(() -> HostResult.decode(JSON, "{\"schema\":\"" + HostResult.SCHEMA + "\",\"traces\":[{}]}"))
                .hasMessageContaining("malformed host trace");
        assertThatThrownBy(() -> HostResult.decode(JSON, "{\"schema\":\"" + HostResult.SCHEMA + "\",\"left_out\":7}"))
                .hasMessageContaining("left_out: expected an array of strings");
    }
}
