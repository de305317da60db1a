package org.eventspace.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the runner makes of a case: a verdict, or a failure naming format, seed and mutations; never a stuck run. */
class FuzzRunnerTest {
    private final List<String> log = new ArrayList<>();

    /** A fuzzer whose case {@code seed} does what {@code body} says. */
    private static Fuzzer fuzzer(Consumer<FuzzCase> body) {
        return new Fuzzer() {
            @Override
            public String format() {
                return "test";
            }

            @Override
            public void run(FuzzCase c) {
                c.note("case " + c.seed());
                body.accept(c);
            }

            @Override
            public Duration caseTimeout() {
                return Duration.ofMillis(300);
            }
        };
    }

    @Test
    void verdictsAreCountedAndEveryKindOfFailureNamesTheSeed() {
        FuzzRunner.FormatResult result = new FuzzRunner(log::add).run(fuzzer(c -> {
            switch ((int) (c.seed() % 7)) {
                case 0 -> c.accepted();
                case 1 -> c.refused();
                case 2 -> throw new FuzzCase.CheckFailed("a check failed");
                case 3 -> throw new IllegalStateException("an undocumented exception");
                case 4 -> throw new OutOfMemoryError("Java heap space");
                case 5 -> {
                    try {
                        Thread.sleep(60_000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                default -> { } // no verdict
            }
        }), 70, 7);

        assertThat(result.cases()).isEqualTo(7);
        assertThat(result.accepted()).isEqualTo(1);
        assertThat(result.refused()).isEqualTo(1);
        assertThat(result.failures()).isEqualTo(5);
        assertThat(log).anySatisfy(l -> assertThat(l).startsWith("FAIL test seed=72: a check failed").contains("after: case 72"))
                .anySatisfy(l -> assertThat(l).startsWith("FAIL test seed=73: threw java.lang.IllegalStateException: an undocumented")
                        .contains("FuzzRunnerTest"))
                .anySatisfy(l -> assertThat(l).startsWith("FAIL test seed=74: ran out of memory"))
                .anySatisfy(l -> assertThat(l).startsWith("FAIL test seed=75: did not end within 300 ms"))
                .anySatisfy(l -> assertThat(l).startsWith("FAIL test seed=76: the fuzzer ended the case without a verdict"));
        assertThat(result.reports()).hasSize(5);
    }

    @Test
    void aFailingCasesInputIsSavedBesideItsReplayCommand(@TempDir Path saved) throws Exception {
        new FuzzRunner(log::add, saved).run(fuzzer(c -> {
            c.input("damaged.topo", "eventspace-topology 1\nfattree 2 16\n".getBytes(StandardCharsets.UTF_8));
            if (c.seed() == 3) {
                throw new FuzzCase.CheckFailed("a check failed");
            }
            c.refused();
        }), 2, 3);

        Path input = saved.resolve("test-seed-3").resolve("damaged.topo");
        assertThat(input).hasContent("eventspace-topology 1\nfattree 2 16");
        assertThat(saved.resolve("test-seed-2")).doesNotExist();
        assertThat(log).singleElement().satisfies(l -> assertThat(l).startsWith("FAIL test seed=3: a check failed")
                .contains("input saved in " + saved.resolve("test-seed-3"))
                .contains("replay: eventspace bench fuzz --format test --seed 3 --cases 1"));
    }

    @Test
    void aCaseReplaysFromItsSeed() throws Exception {
        try (Fuzzer pathmap = new PathmapFuzzer()) {
            for (long seed = 1; seed < 40; seed++) {
                FuzzCase once = new FuzzCase(seed);
                FuzzCase again = new FuzzCase(seed);
                pathmap.run(once);
                pathmap.run(again);
                assertThat(again.mutations()).isEqualTo(once.mutations());
                assertThat(again.verdict()).isEqualTo(once.verdict());
            }
        }
    }

    @Test
    void casesAreSplitOverTheFormatsAndSummarisedWithUnits() throws Exception {
        List<FuzzRunner.FormatResult> results = FuzzSuite.run(List.of(FuzzFormat.PATHMAP, FuzzFormat.JOB_CONFIG,
                FuzzFormat.RUN_CONFIG), 20, 5, log::add);

        assertThat(results).extracting(FuzzRunner.FormatResult::cases).containsExactly(7L, 7L, 6L);
        String summary = FuzzSuite.summary(results, 5);
        assertThat(summary).contains("format", "cases", "accepted", "refused", "failures", "time s", "ms/case")
                .contains("pathmap", "job-config", "run-config", "all", "seed 5");
        assertThat(FuzzSuite.formats("all")).containsExactly(FuzzFormat.values());
        assertThat(FuzzSuite.formats("tcp")).containsExactly(FuzzFormat.TCP);
    }
}
