package org.eventspace.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Some 9 000 fuzz cases in every build, about a minute on the 2-core development machine (more, and every format at once:
 * {@code eventspace bench fuzz --cases N}, docs/RELIABILITY.md). Each format must fail no case, and must both accept and
 * refuse inputs: a fuzzer whose every input is refused only tests the parser's first check.
 */
class FuzzSuiteTest {
    /** The builds' seed: case i of a format has seed SEED + i, so a failure here replays with --seed. */
    static final long SEED = 20_261_126;

    @TempDir
    Path dir;

    private final List<String> log = new ArrayList<>();

    private FuzzRunner.FormatResult run(FuzzFormat format, long cases) throws Exception {
        try (Fuzzer fuzzer = format.open(dir)) {
            return new FuzzRunner(log::add).run(fuzzer, SEED, cases);
        }
    }

    @ParameterizedTest
    @CsvSource({"PATHMAP, 2000", "JOB_CONFIG, 2000", "RUN_CONFIG, 2000", "TRACE_DUMP, 400", "TCP, 250", "WAN, 1000"})
    void damagedInputsAreRefusedAsDocumentedAndNeverCrashOrHang(FuzzFormat format, long cases) throws Exception {
        FuzzRunner.FormatResult result = run(format, cases);

        assertThat(result.reports()).as("failures").isEmpty();
        assertThat(result.failures()).isZero();
        assertThat(result.accepted() + result.refused()).isEqualTo(cases);
        assertThat(result.accepted()).as("inputs accepted").isPositive();
        assertThat(result.refused()).as("inputs refused").isPositive();
    }

    /**
     * The formats fuzzed since the first round: trace files (JSON and CBOR) and run reports from runs made in this JVM,
     * topology files, and raw requests to a live dashboard server. A few seconds each; each must fail nothing and both
     * accept and refuse inputs, so its mutations reach past the reader's first check.
     */
    @ParameterizedTest
    @CsvSource({"TRACE_FILE, 300", "RUN_REPORT, 500", "TOPOLOGY, 200", "HTTP, 200"})
    void traceFilesReportsTopologiesAndTheHttpApiFailNone(FuzzFormat format, long cases) throws Exception {
        FuzzRunner.FormatResult result = run(format, cases);

        assertThat(result.reports()).as("failures").isEmpty();
        assertThat(result.failures()).isZero();
        assertThat(result.accepted() + result.refused()).isEqualTo(cases);
        assertThat(result.accepted()).as("inputs accepted").isPositive();
        assertThat(result.refused()).as("inputs refused").isPositive();
    }

    /** The rendezvous on one selector thread, with heartbeats: no failure either. */
    @Test
    void theRendezvousFailsNone() throws Exception {
        FuzzRunner.FormatResult result = run(FuzzFormat.RENDEZVOUS, 300);

        assertThat(log.stream().filter(l -> l.startsWith("FAIL"))).isEmpty();
        assertThat(result.failures()).isZero();
        assertThat(result.accepted()).as("hellos registered").isPositive();
        assertThat(result.refused()).as("hellos and messages refused").isPositive();
    }
}
