package org.eventspace.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.job.JobConfig;
import org.eventspace.job.JobTransport;
import org.eventspace.wan.WanEmulation;
import org.eventspace.wan.cluster.AllreduceInput;
import org.eventspace.wan.cluster.ClusterAllreduce;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Both workloads of the conditional allreduce on three emulated sites (examples/wan/three-sites-1ms.wan), every mode:
 * the application's results are the same bits whichever allreduce decides the convergence tests (noise-allreduce: every
 * answer equals the exact sum's; sor: the same iterations and the same grid), the conditional one decides some calls
 * on cluster-local values, and only the WAN layouts send messages through the gateways.
 */
@Timeout(180)
class MultiClusterRunTest {
    @TempDir
    Path dir;

    static Path examples() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("examples/wan"))) {
                return p.resolve("examples/wan");
            }
        }
        throw new IllegalStateException("no examples/wan above " + Path.of("").toAbsolutePath());
    }

    private static JobConfig job() {
        WanEmulation wan = WanEmulation.read(examples().resolve("three-sites-1ms.wan"));
        return JobConfig.of(JobConfig.shortcut(6, 3, 3, TreeShape.hier(4)), JobTransport.JVM).withCollectors(false)
                .withExtension(wan);
    }

    private AllreduceInput input() throws Exception {
        StringBuilder text = new StringBuilder(AllreduceInput.HEADER + "\n# test input\nepsilon 400\n");
        double v = 20_000;
        for (int i = 0; i < 80; i++) {
            text.append((long) v).append('\n');
            v *= 0.94;
        }
        Path file = dir.resolve("test.input");
        Files.writeString(file, text);
        return AllreduceInput.read(file);
    }

    @Test
    void noiseAllreduceAnswersEqualTheExactSumsInEveryMode() throws Exception {
        AllreduceInput input = input();
        Map<ClusterAllreduce, MultiClusterRun.Result> results = new EnumMap<>(ClusterAllreduce.class);
        for (ClusterAllreduce mode : ClusterAllreduce.values()) {
            MultiClusterRun.Result r = MultiClusterRun.run(job(), MultiClusterRun.Workload.NOISE_ALLREDUCE,
                    mode, input, 0, 200, 0, Duration.ofSeconds(60));
            assertThat(r.wrongAnswers()).as(mode + ": answers unlike the exact sum's").isZero();
            assertThat(r.iterations()).isEqualTo(80);
            assertThat(r.wanMessages()).as(mode + ": messages through the gateways").isPositive();
            results.put(mode, r);
        }
        assertThat(results.values()).extracting(MultiClusterRun.Result::checksum).containsOnly(
                results.get(ClusterAllreduce.SEQUENTIAL).checksum());
        MultiClusterRun.Result conditional = results.get(ClusterAllreduce.CONDITIONAL);
        assertThat(conditional.decided()[0]).as("calls decided on cluster-local values").isPositive();
        assertThat(conditional.decided()[3]).as("calls decided by the full exchange (the last, below epsilon)").isPositive();
        assertThat(results.get(ClusterAllreduce.MAGPIE).decided()).containsOnly(0L);
    }

    /**
     * When the ranks are done, the hops serving a remote root's fetch are still waiting for a next value that will not
     * come; the job wakes them before closing its hosts (PathExtension.Started.quiesce), so every service thread ends
     * at once. Before, each waited out its fetch (up to 2 s) and the close named them on stderr ("es-agent es-serve-…:
     * did not end within 1000 ms of close"), a dozen lines at the end of every magpie and conditional run.
     */
    @Test
    void theJobClosesWithoutAServiceThreadLeftWaitingForAFetch() throws Exception {
        AllreduceInput input = input();
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            for (ClusterAllreduce mode : new ClusterAllreduce[] {ClusterAllreduce.MAGPIE, ClusterAllreduce.CONDITIONAL}) {
                MultiClusterRun.Result r = MultiClusterRun.run(job(), MultiClusterRun.Workload.NOISE_ALLREDUCE,
                        mode, input, 0, 200, 0, Duration.ofSeconds(60));
                assertThat(r.wrongAnswers()).isZero();
            }
        } finally {
            System.setErr(err);
        }
        String stderr = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
        err.print(stderr);
        assertThat(stderr).doesNotContain("did not end within");
    }

    @Test
    void sorConvergesAfterTheSameIterationsToTheSameGridInEveryMode() {
        Map<ClusterAllreduce, MultiClusterRun.Result> results = new EnumMap<>(ClusterAllreduce.class);
        for (ClusterAllreduce mode : ClusterAllreduce.values()) {
            results.put(mode, MultiClusterRun.run(job(), MultiClusterRun.Workload.SOR, mode, null, 0.05, 0,
                    2_000, Duration.ofSeconds(60)));
        }
        MultiClusterRun.Result sequential = results.get(ClusterAllreduce.SEQUENTIAL);
        assertThat(sequential.iterations()).isBetween(2, 1_999);
        for (MultiClusterRun.Result r : results.values()) {
            assertThat(r.wrongAnswers()).as(r.mode() + ": ranks that disagree").isZero();
            assertThat(r.iterations()).as(r.mode() + ": iterations").isEqualTo(sequential.iterations());
            assertThat(r.checksum()).as(r.mode() + ": grid bits").isEqualTo(sequential.checksum());
        }
    }

    /**
     * Over TCP, one process per host with its gateway and its cluster root: the conditional allreduce gives the same bits
     * as the sequential tree in one JVM, the hosts' reports add up (every conditional call decided once per cluster),
     * and the prefetches cross the emulated links.
     */
    @Test
    void overTcpTheConditionalAllreduceGivesTheSameResultsAsTheSequentialTreeInOneJvm() throws Exception {
        AllreduceInput input = input();
        JobConfig tcp = job().withTransport(JobTransport.TCP);
        MultiClusterRun.Result plain = MultiClusterRun.run(job(), MultiClusterRun.Workload.NOISE_ALLREDUCE,
                ClusterAllreduce.SEQUENTIAL, input, 0, 200, 0, Duration.ofSeconds(60));
        MultiClusterRun.Result noise = MultiClusterRun.run(tcp, MultiClusterRun.Workload.NOISE_ALLREDUCE,
                ClusterAllreduce.CONDITIONAL, input, 0, 200, 0, Duration.ofSeconds(120));
        assertThat(noise.wrongAnswers()).as("answers unlike the exact sum's").isZero();
        assertThat(noise.iterations()).isEqualTo(80);
        assertThat(noise.checksum()).isEqualTo(plain.checksum());
        assertThat(java.util.Arrays.stream(noise.decided()).sum()).as("conditional calls decided, over the 3 clusters")
                .isEqualTo(3L * 80);
        assertThat(noise.decided()[0]).as("calls decided on cluster-local values").isPositive();
        assertThat(noise.wanMessages()).as("messages through the hosts' gateways").isPositive();

        MultiClusterRun.Result sorPlain = MultiClusterRun.run(job(), MultiClusterRun.Workload.SOR,
                ClusterAllreduce.SEQUENTIAL, null, 0.05, 0, 2_000, Duration.ofSeconds(60));
        MultiClusterRun.Result sor = MultiClusterRun.run(tcp, MultiClusterRun.Workload.SOR,
                ClusterAllreduce.CONDITIONAL, null, 0.05, 0, 2_000, Duration.ofSeconds(120));
        assertThat(sor.wrongAnswers()).as("ranks that disagree").isZero();
        assertThat(sor.iterations()).isEqualTo(sorPlain.iterations());
        assertThat(sor.checksum()).as("grid bits").isEqualTo(sorPlain.checksum());
    }

    @Test
    void aHostProcessGivenMalformedArgumentsExitsWithTheUsageCodeBeforeJoiningAnyJob() {
        assertThat(RunEngine.host(new String[] {"not a job configuration"})).isEqualTo(2);
        assertThat(RunEngine.host(new String[0])).isEqualTo(2);
    }

    @Test
    void anInputFileWithoutEpsilonIsRefusedNamingTheFile() throws Exception {
        Path file = dir.resolve("bad.input");
        Files.writeString(file, AllreduceInput.HEADER + "\n12\nx\n");
        assertThatThrownBy(() -> AllreduceInput.read(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bad.input:3: expected an integer value");
    }
}
