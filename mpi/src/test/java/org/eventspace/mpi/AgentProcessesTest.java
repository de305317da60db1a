package org.eventspace.mpi;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Real {@code mpirun} runs with the node agents as processes of their own ({@code --agents processes}): one per
 * simulated host, pulled by the front-end over loopback TCP, as on a cluster where each node runs one. The answers
 * are compared with the in-JVM agents' analysis of the very files the ranks wrote (the single-JVM path), so the
 * comparison is exact rather than between two runs whose timings differ.
 */
@Timeout(180)
class AgentProcessesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long SKEW_NS = 20_000_000L;

    @TempDir
    Path dir;

    @BeforeAll
    static void mpi() {
        MpiPrograms.requireMpi();
    }

    @Test
    void agentProcessesOnTwoSkewedHostsGiveTheSingleJvmAnswer() throws Exception {
        MpiRunConfig config = MpiPrograms.config(MpiRunConfig.Agents.PROCESSES, null, List.of(), dir, 4, 2, SKEW_NS,
                MpiPrograms.program("es_allreduce"), "-i", "300", "-s", "2", "-d", "500");
        MpiRun mpiRun = new MpiRun(config);
        AtomicLong calls = new AtomicLong();
        mpiRun.listen((rank, tuple) -> calls.incrementAndGet());
        MpiPrograms.Run run = MpiPrograms.run(mpiRun, dir);

        assertThat(run.result().exitCode()).isZero();
        assertThat(run.result().errors()).isEmpty();
        assertThat(run.stdout()).isEqualTo("allreduce ok: 4 ranks, 300 iterations\n");
        assertThat(mpiRun.agentProcesses()).hasSize(2).allSatisfy(p -> assertThat(p.isAlive()).isFalse());
        // what travelled: the two hosts' folders, copied whole under mirror/
        assertThat(Files.exists(dir.resolve("mirror/host-0/rank-0.meta"))).isTrue();
        assertThat(Files.exists(dir.resolve("mirror/host-1/rank-3.trace"))).isTrue();
        assertThat(run.calls("MPI_Allreduce")).isEqualTo(1200);
        assertThat(run.report().at("/mpi/hosts").asInt()).isEqualTo(2);
        assertThat(run.report().at("/mpi/tuples_missed").asLong()).isZero();
        // what travelled: every tuple once (40 bytes each) plus headers and 4 KiB meta copies, in batches, not per call
        JsonNode agents = run.report().at("/mpi/agents");
        assertThat(agents.path("where").asText()).isEqualTo("processes");
        assertThat(agents.path("connected").asInt()).isEqualTo(2);
        long tuples = agents.path("tuples_received").asLong();
        assertThat(tuples).isEqualTo(run.report().at("/mpi/tuples_read").asLong());
        long overhead = agents.path("bytes_received").asLong() - 40 * tuples
                - 64 * agents.path("meta_blocks_received").asLong();
        // per round and agent at most a 24-byte header, per rank entry 48 bytes: far fewer rounds than tuples
        assertThat(overhead).isPositive()
                .isLessThanOrEqualTo(agents.path("rounds").asLong() * 2
                        * (24 + 2 * AgentFrameLayout.RANK_HEADER_LENGTH));
        assertThat(agents.path("rounds").asLong()).isLessThan(tuples);
        assertThat(run.result().summary()).anySatisfy(l -> assertThat(l).startsWith("node agents: 2 process(es) pulled in "));
        // the listener saw every tuple the analysis read
        assertThat(calls.get()).isEqualTo(run.report().at("/mpi/tuples_read").asLong());
        JsonNode lb = run.report().at("/monitors/loadbalance");
        assertThat(lb.path("slowest_rank").asInt()).as("report %s", lb).isEqualTo(2);
        // the ranks' offsets came with their meta files: host 1's 20 ms skew is removed within the stated accuracy
        JsonNode host1 = run.report().at("/mpi/clock/hosts").get(1);
        assertThat(Math.abs(host1.path("offset_ns").asLong() + SKEW_NS))
                .isLessThanOrEqualTo(host1.path("accuracy_ns").asLong());

        // the single-JVM path over the files the ranks wrote: the same calls, slow rank, waits and clocks
        JsonNode single = JSON.valueToTree(singleJvm(config, 2).toJson(JSON));
        assertThat(run.report().at("/mpi/calls")).isEqualTo(single.at("/mpi/calls"));
        assertThat(run.report().at("/mpi/tuples_written")).isEqualTo(single.at("/mpi/tuples_written"));
        assertThat(run.report().at("/mpi/tuples_read")).isEqualTo(single.at("/mpi/tuples_read"));
        assertThat(run.report().at("/mpi/collectives")).isEqualTo(single.at("/mpi/collectives"));
        assertThat(run.report().at("/mpi/clock/hosts")).isEqualTo(single.at("/mpi/clock/hosts"));
        assertThat(lb.path("slowest_rank")).isEqualTo(single.at("/monitors/loadbalance/slowest_rank"));
        assertThat(lb.path("last_arrivals")).isEqualTo(single.at("/monitors/loadbalance/last_arrivals"));
        assertThat(lb.path("wait_us")).isEqualTo(single.at("/monitors/loadbalance/wait_us"));
    }

    @Test
    void aKilledAgentIsReportedAndTheOtherHostsResultsAreKept() throws Exception {
        // rank 0 sleeps 1 ms per iteration: the run lasts at least 8 s, long enough to kill host 1's agent inside it
        // even where the agent's JVM takes seconds to start (a loaded 2-core CI machine took over 3 s)
        MpiRunConfig config = MpiPrograms.config(MpiRunConfig.Agents.PROCESSES, null, List.of(), dir, 4, 2, SKEW_NS,
                MpiPrograms.program("es_allreduce"), "-i", "8000", "-s", "0", "-d", "1000");
        MpiRun mpiRun = new MpiRun(config);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<MpiPrograms.Run> running = pool.submit(() -> MpiPrograms.run(mpiRun, dir));
            Path host1Copy = dir.resolve("mirror/host-1/rank-3.meta");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.exists(host1Copy) && !running.isDone() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(running.isDone()).as("the run ended before host 1's agent sent anything").isFalse();
            assertThat(Files.exists(host1Copy)).as("host 1's agent sent its ranks within 60 s").isTrue();
            Process agent1 = mpiRun.agentProcesses().get(1);
            agent1.destroyForcibly();
            assertThat(agent1.waitFor(10, TimeUnit.SECONDS)).isTrue();

            MpiPrograms.Run run = running.get(120, TimeUnit.SECONDS);
            assertThat(run.result().exitCode()).as("the program does not need its agents").isZero();
            assertThat(run.stdout()).isEqualTo("allreduce ok: 4 ranks, 8000 iterations\n");
            assertThat(run.result().errors()).anySatisfy(e -> assertThat(e)
                    .startsWith("node agent of host-1 (pid " + agent1.pid() + ") lost: ")
                    .contains("what it sent before is kept"));
            // host 0's ranks are whole: every call counted, both reached MPI_Finalize
            assertThat(run.calls("MPI_Finalize")).isEqualTo(2);
            assertThat(run.calls("MPI_Allreduce")).isGreaterThanOrEqualTo(2 * 8000).isLessThan(4 * 8000);
            // host 1's ranks are reported as their copies last stood: not finalized (its agent never sent MPI_Finalize)
            JsonNode unfinished = run.report().at("/mpi/unfinished_ranks");
            assertThat(unfinished).hasSize(2);
            assertThat(unfinished.get(0).path("rank").asInt()).isEqualTo(2);
            assertThat(unfinished.get(1).path("rank").asInt()).isEqualTo(3);
            assertThat(run.report().at("/mpi/ranks").asInt()).isEqualTo(4);
            // the slow rank lives on the surviving host, and the joined instances (those host 1's agent sent) name it
            assertThat(run.report().at("/monitors/loadbalance/slowest_rank").asInt()).isZero();
        } finally {
            pool.shutdownNow();
            for (Process p : mpiRun.agentProcesses()) {
                p.destroyForcibly();
            }
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void agentsStartedElsewhereJoinThroughTheAddressAndSecretAUserGivesThem() throws Exception {
        String secret = "0123456789abcdef".repeat(4);
        int port;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        // as srun --ntasks-per-node=1 would start them on two nodes: each with its own folder, the address, the secret
        List<Process> agents = new ArrayList<>();
        MpiRunConfig threadConfig = MpiPrograms.config(MpiRunConfig.Agents.THREAD, null, List.of(), dir, 4, 2, SKEW_NS,
                MpiPrograms.program("es_allreduce"), "-i", "200", "-s", "1", "-d", "400");
        MpiRunConfig config = new MpiRunConfig(threadConfig.np(), threadConfig.program(), threadConfig.args(), dir,
                threadConfig.capacity(), 2, SKEW_NS, "mpirun", "mpicc", threadConfig.mpirunArgs(), 60,
                threadConfig.monitors(), true, 0, null, MpiRunConfig.Agents.LISTEN,
                MpiRunConfig.AgentListen.of(2, "127.0.0.1:" + port, secret));
        assertThat(config.listen().toString()).doesNotContain(secret);
        try {
            for (int h = 0; h < 2; h++) {
                ProcessBuilder pb = new ProcessBuilder(org.eventspace.comm.launch.Launcher.javaCommand(
                        NodeAgentProcess.class.getName(), List.of())).redirectErrorStream(true)
                        .redirectOutput(dir.resolve("agent-" + h + ".log").toFile());
                pb.environment().put("ES_MPI_AGENT_FRONT_END", "127.0.0.1:" + port);
                pb.environment().put("ES_MPI_AGENT_SECRET", secret);
                pb.environment().put("ES_MPI_AGENT_DIR", dir.resolve("host-" + h).toString());
                agents.add(pb.start());
            }
            MpiPrograms.Run run = MpiPrograms.run(new MpiRun(config), dir);

            assertThat(run.result().errors()).isEmpty();
            assertThat(run.result().exitCode()).isZero();
            assertThat(run.report().at("/mpi/hosts").asInt()).isEqualTo(2);
            assertThat(run.calls("MPI_Allreduce")).isEqualTo(800);
            assertThat(run.report().at("/monitors/loadbalance/slowest_rank").asInt()).isEqualTo(1);
            for (Process p : agents) {
                assertThat(p.waitFor(20, TimeUnit.SECONDS)).as("an agent ends after FIN").isTrue();
                assertThat(p.exitValue()).isZero();
            }
        } finally {
            agents.forEach(Process::destroyForcibly);
        }
    }

    @Test
    void anAgentWithoutTheSecretIsRefusedAndNamed() throws Exception {
        try (RemoteAgents front = new RemoteAgents(dir.resolve("mirror"), java.net.InetAddress.getLoopbackAddress(), 0,
                2_000, "ab".repeat(32));
             java.net.Socket impostor = new java.net.Socket()) {
            String[] address = front.address().split(":");
            impostor.connect(new java.net.InetSocketAddress("127.0.0.1", Integer.parseInt(address[address.length - 1])));
            java.nio.ByteBuffer hello = java.nio.ByteBuffer.allocate(AgentFrameLayout.HELLO_NAME_OFFSET + 6)
                    .order(java.nio.ByteOrder.LITTLE_ENDIAN);
            hello.putInt(AgentFrameLayout.HELLO_MAGIC_OFFSET, AgentFrameLayout.HELLO_MAGIC)
                    .putShort(AgentFrameLayout.HELLO_VERSION_OFFSET, AgentFrameLayout.VERSION)
                    .putInt(AgentFrameLayout.HELLO_NAME_LENGTH_OFFSET, 6)
                    .put(AgentFrameLayout.HELLO_NAME_OFFSET, "host-0".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            impostor.getOutputStream().write(hello.array());

            assertThat(front.accept(1, 1_500)).isZero();
            assertThat(front.errors()).hasSize(2);
            assertThat(front.errors().get(0)).startsWith("refused a node agent connection from ").endsWith(": wrong job secret");
            assertThat(front.errors().get(1)).startsWith("only 0 of 1 node agents connected to ");
            // nothing of it reached the mirror, and a pull with no agent moves nothing
            assertThat(front.pull()).isZero();
            assertThat(Files.exists(dir.resolve("mirror/host-0"))).isFalse();
        }
    }

    /** The in-JVM agents of the single-JVM path, over the host folders the ranks wrote, after the run. */
    private static MpiRunResult singleJvm(MpiRunConfig config, int hosts) {
        MpiAnalysis analysis = new MpiAnalysis();
        List<NodeAgent> agents = new ArrayList<>();
        for (int h = 0; h < hosts; h++) {
            agents.add(new NodeAgent(config.traceDir().resolve("host-" + h), h, analysis));
        }
        NodeAgent.drain(agents);
        analysis.finish(agents);
        MpiAnalysis reported = analysis.reread(agents);
        long written = agents.stream().mapToLong(NodeAgent::written).sum();
        long missed = agents.stream().mapToLong(NodeAgent::missed).sum();
        MpiRunResult result = new MpiRunResult(config, List.of(), 0, 0, reported, written, missed, hosts, List.of());
        agents.forEach(NodeAgent::onClose);
        return result;
    }
}
