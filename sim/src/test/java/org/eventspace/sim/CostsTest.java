package org.eventspace.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringReader;
import java.io.StringWriter;
import java.util.Map;

import org.junit.jupiter.api.Test;

class CostsTest {
    private static String file(String extra) {
        return """
                {
                  "schema": "eventspace.costs/1",
                  "machine": "test box",
                  "date": "2026-11-29",
                  "cores": 4,
                  "spin_ns": 8, "yield_ns": 1200, "yield_alone_ns": 500, "unpark_ns": 4000, "switch_ns": 6000,
                  "join_ns": 60, "core_ns": 60, "hop_ns": 240, "send_ns": 9000, "receive_ns": 5000, "wire_ns": 1000,
                  "collector_ns": 25, "quantum_ns": 3000000, "gather_ns": 2000, "record_ns": 50, "record_bytes": 40,
                  "thread_ns": 6%s
                }
                """.formatted(extra);
    }

    @Test
    void aWrittenFileReadsBackEqual() throws Exception {
        Costs c = Costs.read(new StringReader(file("")), "c.json");
        assertThat(c.cores()).isEqualTo(4);
        assertThat(c.joinNs()).isEqualTo(60);
        assertThat(c.threadNs()).isEqualTo(6);
        StringWriter out = new StringWriter();
        c.write(out);
        assertThat(Costs.read(new StringReader(out.toString()), "again.json")).isEqualTo(c);
    }

    @Test
    void anUnknownFieldIsNamedWithItsLineAndColumn() {
        assertThatThrownBy(() -> Costs.read(new StringReader(file(", \"jion_ns\": 3")), "c.json"))
                .isInstanceOf(Costs.CostFileException.class)
                .hasMessageStartingWith("c.json:9:")
                .hasMessageContaining("jion_ns: expected one of")
                .hasMessageContaining("(unknown field)");
    }

    @Test
    void aMissingNegativeOrWrongVersionedFileIsRefusedNamingTheField() {
        String missing = file("").replace("\"wire_ns\": 1000,", "");
        assertThatThrownBy(() -> Costs.read(new StringReader(missing), "m.json"))
                .hasMessageContaining("m.json:").hasMessageContaining("wire_ns: expected present");
        String negative = file("").replace("\"join_ns\": 60", "\"join_ns\": -1");
        assertThatThrownBy(() -> Costs.read(new StringReader(negative), "n.json"))
                .hasMessageContaining("n.json:7:").hasMessageContaining("join_ns: expected a number >= 0").hasMessageContaining("-1");
        String version = file("").replace("eventspace.costs/1", "eventspace.costs/2");
        assertThatThrownBy(() -> Costs.read(new StringReader(version), "v.json"))
                .hasMessageContaining("v.json:2:").hasMessageContaining("schema").hasMessageContaining("eventspace.costs/2");
        assertThatThrownBy(() -> Costs.read(new StringReader(file("").replace("\"cores\": 4", "\"cores\": 0")), "z.json"))
                .hasMessageContaining("cores: expected an integer 1..1000000");
        assertThatThrownBy(() -> Costs.read(new StringReader("{\"schema\": \"eventspace.costs/1\",}"), "j.json"))
                .hasMessageStartingWith("j.json:1:").hasMessageContaining("invalid JSON");
    }

    @Test
    void theReferenceCostsShipWithTheModel() {
        Costs c = Costs.reference();
        assertThat(c.cores()).isEqualTo(2);
        assertThat(c.machine()).isNotBlank();
        assertThat(c.sendNs()).isPositive();
    }

    @Test
    void withSetsOneCostByItsFileName() {
        Costs c = Costs.of("x", 2, Map.of("join_ns", 10.0));
        assertThat(c.joinNs()).isEqualTo(10);
        assertThat(c.with("wire_ns", 5).wireNs()).isEqualTo(5);
        assertThat(c.with("wire_ns", 5).joinNs()).isEqualTo(10);
        assertThatThrownBy(() -> c.with("wires", 1)).hasMessageContaining("no cost named wires");
    }
}
