package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.junit.jupiter.api.Test;

/** The tests' parser of the exposition formats is strict: what it accepts, and what it refuses with the line. */
class ExpositionTextTest {
    private static final String GOOD = """
            # HELP x_total Calls, a \\\\ and a \\n in help.
            # TYPE x_total counter
            x_total{rank="0",name="a \\"q\\" \\\\ b\\nc"} 1.5
            x_total{rank="1"} 2e3
            # TYPE g gauge
            g -Inf
            """;

    @Test
    void readsSamplesLabelsAndEscapes() {
        ExpositionText t = ExpositionText.prometheus(GOOD);
        assertThat(t.types()).isEqualTo(Map.of("x_total", "counter", "g", "gauge"));
        assertThat(t.helps().get("x_total")).isEqualTo("Calls, a \\ and a \n in help.");
        assertThat(t.value("x_total", "rank", "0")).isEqualTo(1.5);
        assertThat(t.series("x_total").get(0).labels().get("name")).isEqualTo("a \"q\" \\ b\nc");
        assertThat(t.value("x_total", "rank", "1")).isEqualTo(2000);
        assertThat(t.value("g")).isEqualTo(Double.NEGATIVE_INFINITY);
    }

    @Test
    void openMetricsCountersOwnTheirTotalAndTheTextEndsWithEof() {
        ExpositionText t = ExpositionText.openMetrics("# TYPE x_seconds counter\n# UNIT x_seconds seconds\n"
                + "x_seconds_total 1\n# EOF\n");
        assertThat(t.units()).isEqualTo(Map.of("x_seconds", "seconds"));
        assertThat(t.value("x_seconds_total")).isEqualTo(1);
        assertThatThrownBy(() -> ExpositionText.openMetrics("# TYPE x counter\nx_total 1\n"))
                .hasMessageContaining("# EOF");
    }

    @Test
    void refusesWhatIsNotTheFormat() {
        for (String bad : new String[] {
                "# TYPE x gauge\nx 1",                              // no final newline
                "# TYPE x gauge\nx{a=\"1} 1\n",                      // unterminated label value
                "# TYPE x gauge\nx{a=1} 1\n",                        // unquoted label value
                "# TYPE x gauge\nx{a=\"\\t\"} 1\n",                  // unknown escape
                "# TYPE x gauge\nx one\n",                           // not a number
                "# TYPE x gauge\nx  1\n",                            // two spaces
                "# TYPE x gauge\nx 1\nx 2\n",                        // the same series twice
                "y 1\n",                                             // a sample without its # TYPE
                "# TYPE x gauge\n# TYPE y gauge\nx 1\n",             // a sample after another family's # TYPE
                "# TYPE x nonsense\nx 1\n",                          // unknown type
                "# TYPE 1x gauge\n",                                 // bad name
                "# COMMENT x\n",                                     // neither HELP nor TYPE
                "# TYPE x gauge\nx{1a=\"v\"} 1\n"}) {                // bad label name
            assertThatThrownBy(() -> ExpositionText.prometheus(bad)).as(bad).isInstanceOf(AssertionError.class)
                    .hasMessageContaining("line");
        }
    }
}
