package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code bench fuzz}: a few cases of every format, the summary table, and flags checked before anything runs. */
class FuzzCommandTest {
    private final CliHarness cli = new CliHarness();

    @Test
    void aFewCasesOfEveryFormatEndInASummaryTable() {
        int code = cli.execute("bench", "fuzz", "--cases", "22", "--seed", "1");

        assertThat(code).as(cli.err()).isZero();
        assertThat(cli.err()).contains("bench fuzz: 22 cases over all from seed 1");
        assertThat(cli.out()).contains("format", "cases", "accepted", "refused", "failures", "time s")
                .contains("pathmap", "job-config", "run-config", "trace-dump", "tcp", "rendezvous", "wan", "trace-file",
                        "run-report", "topology", "http")
                .containsPattern("all +22 ")
                .contains("no failure");
    }

    @Test
    void oneFormatRunsAllTheCases() {
        int code = cli.execute("bench", "fuzz", "--format", "job-config", "--cases", "40", "--seed", "7");

        assertThat(code).as(cli.err()).isZero();
        assertThat(cli.out()).containsPattern("job-config +40 ").doesNotContain("pathmap").contains("seed 7");
    }

    @Test
    void badValuesAreRefusedNamingTheFlag() {
        assertThat(cli.execute("bench", "fuzz", "--cases", "0")).isEqualTo(2);
        assertThat(cli.err()).contains("--cases must be 1..1000000000, got 0");
        assertThat(cli.execute("bench", "fuzz", "--cases", "-3")).isEqualTo(2);
        assertThat(cli.execute("bench", "fuzz", "--cases", "lots")).isEqualTo(2);
        assertThat(cli.err()).contains("--cases");
        assertThat(cli.execute("bench", "fuzz", "--seed", "-1")).isEqualTo(2);
        assertThat(cli.err()).contains("--seed must be 0..");
        assertThat(cli.execute("bench", "fuzz", "--format", "xml")).isEqualTo(2);
        assertThat(cli.err()).contains("--format: unknown format 'xml'; expected all, pathmap, job-config, run-config, "
                + "trace-dump, tcp, rendezvous, wan");
        assertThat(cli.out()).doesNotContain("failures");
    }
}
