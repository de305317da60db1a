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
    void refusesWhatIsNotAHostResult() {
        assertThatThrownBy(() -> HostResult.decode(JSON, "{\"ranks\": []}")).hasMessageContaining(HostResult.SCHEMA);
        assertThatThrownBy(() -> HostResult.decode(JSON, "{oops")).hasMessageContaining("not JSON");
        assertThatThrownBy(() -> HostResult.decode(JSON, "[1]")).hasMessageContaining("JSON object");
        assertThatThrownBy(() -> HostResult.decode(JSON, "{\"schema\":\"" + HostResult.SCHEMA + "\",\"traces\":[{}]}"))
                .hasMessageContaining("malformed host trace");
    }
}
