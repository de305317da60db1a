package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code describe} takes the layout flags only: a flag that would change nothing it prints is refused (picocli's own
 * message, exit 2) or, for a layout flag it does not use, named in a warning; {@code run} and {@code bench overhead}
 * keep every flag.
 */
class DescribeCommandTest {
    /** How a run goes: no wrapper changes with them. */
    private static final List<String> RUN_ONLY = List.of("--iterations", "--warmup", "--warmup-s", "--bytes", "--timeout",
            "--poll", "--socket-buffer", "--json", "--trace-dump", "--sort-length");
    private static final List<String> LAYOUT = List.of("--ranks", "--hosts", "--clusters", "--transport", "--tree",
            "--config", "--collectors", "--collect-kinds", "--collect-trees", "--collector-capacity", "--scope", "--gather",
            "--filter", "--scope-interval-ms", "--scope-hosts");

    @TempDir
    Path dir;

    @Test
    void aRunOnlyFlagIsAnUnknownOptionAndWritesNothing() {
        Path json = dir.resolve("describe.json");
        CliHarness cli = new CliHarness();

        assertThat(cli.execute("describe", "--ranks", "4", "--json", json.toString())).isEqualTo(2);
        assertThat(cli.err()).contains("Unknown option").contains("'--json'");
        assertThat(cli.out()).isEmpty();
        assertThat(json).doesNotExist();
        for (String flag : RUN_ONLY) {
            CliHarness one = new CliHarness();
            assertThat(one.execute("describe", flag, "1")).as(flag).isEqualTo(2);
            assertThat(one.err()).as(flag).contains("Unknown option").contains("'" + flag + "'");
        }
    }

    @Test
    void helpListsTheLayoutFlagsOfDescribeAndEveryFlagOfRun() {
        CliHarness describe = new CliHarness();
        assertThat(describe.execute("describe", "--help")).isZero();
        List<String> describeFlags = flags(describe.out());
        assertThat(describeFlags).containsAll(LAYOUT).contains("--format", "--save", "--as-run").doesNotContainAnyElementsOf(RUN_ONLY);

        for (List<String> command : List.of(List.of("run", "--help"), List.of("bench", "overhead", "--help"))) {
            CliHarness run = new CliHarness();
            assertThat(run.execute(command.toArray(String[]::new))).isZero();
            assertThat(flags(run.out())).as(command.toString()).containsAll(LAYOUT).containsAll(RUN_ONLY);
        }
    }

    @Test
    void aLayoutFlagThatChangesNothingPrintedIsNamedInAWarning() {
        CliHarness plain = new CliHarness();
        assertThat(plain.execute("describe", "--ranks", "4", "--hosts", "2", "--scope", "flat", "--filter", "stats",
                "--transport", "tcp")).as(plain.err()).isZero();
        assertThat(plain.err()).contains("--scope only changes what describe prints with --as-run")
                .contains("--filter only changes what describe prints with --as-run")
                .contains("--transport tcp does not change the pathmap");
        assertThat(plain.out()).contains("4 ranks").doesNotContain("scope.");

        CliHarness asRun = new CliHarness();
        assertThat(asRun.execute("describe", "--ranks", "4", "--hosts", "2", "--scope", "flat", "--filter", "stats",
                "--as-run")).as(asRun.err()).isZero();
        assertThat(asRun.err()).isEmpty();
        assertThat(asRun.out()).contains("scope.");

        // --scope-hosts adds hosts to the layout itself and needs --scope: neither is idle without --as-run.
        CliHarness idleHosts = new CliHarness();
        assertThat(idleHosts.execute("describe", "--ranks", "4", "--hosts", "2", "--scope", "flat", "--scope-hosts", "1"))
                .as(idleHosts.err()).isZero();
        assertThat(idleHosts.err()).isEmpty();
        assertThat(idleHosts.out()).contains("3 hosts");
    }

    @Test
    void theMultiClusterLayoutDrawsEveryClustersTreeAndThePrefetchPathsBetweenTheRoots() {
        CliHarness cli = new CliHarness();
        assertThat(cli.execute("describe", "--ranks", "4", "--hosts", "2", "--clusters", "2", "--allreduce", "conditional"))
                .as(cli.err()).isZero();
        String out = cli.out();
        assertThat(out).contains("roots      h0, h1: a core and result element per cluster in every tree")
                .contains("drawn from the 4 roots (one per cluster, and the paths between cluster roots)")
                .contains("t0.clusterroot.h0.mc0  clusterroot @h0, cluster 0").contains("t0.clusterroot.h1.mc0  clusterroot @h1, cluster 1")
                .contains("t0.prefetch.h0.mc0  prefetch @h0, cluster 0, from 1");
        for (int rank = 0; rank < 4; rank++) {
            assertThat(out).as("rank %d drawn in tree 0", rank).containsPattern("(?s)Tree 0:.*rank " + rank + " @h.*Tree 1:");
        }
        CliHarness one = new CliHarness();
        assertThat(one.execute("describe", "--ranks", "4", "--hosts", "2", "--allreduce", "magpie")).isEqualTo(2);
        assertThat(one.err()).contains("--allreduce magpie joins clusters and needs --clusters C >= 2");
    }

    @Test
    void theLayoutChecksOfRunHoldForDescribe() {
        CliHarness cli = new CliHarness();
        assertThat(cli.execute("describe", "--gather", "par:2")).isEqualTo(2);
        assertThat(cli.err()).contains("--gather par:2 configures an event scope and needs --scope");
        assertThat(cli.execute("describe", "--collectors", "maybe")).isEqualTo(2);
        assertThat(cli.err()).contains("--collectors must be on or off, got maybe");
        assertThat(cli.execute("describe", "--ranks", "1", "--hosts", "2")).isEqualTo(2);
        assertThat(cli.err()).contains("--ranks/--hosts/--clusters").contains("2 hosts need >= 2 ranks");
    }

    /** The long flags a usage text lists in its option column. */
    private static List<String> flags(String usage) {
        return usage.lines().map(String::strip).filter(l -> l.startsWith("--") || l.startsWith("-h, ") || l.startsWith("-V, "))
                .map(l -> l.replaceFirst("^-[hV], ", "")).map(l -> l.split("[=\\s]", 2)[0]).toList();
    }
}
