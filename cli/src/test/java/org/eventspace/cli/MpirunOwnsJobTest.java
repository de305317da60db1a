package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.eventspace.comm.launch.Launcher;
import org.eventspace.mpi.MpiRankMetaLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code eventspace mpirun} owns its MPI job, started as a real process: a SIGTERM to it stops mpirun and every rank
 * and still writes the report (incomplete); a SIGKILL to it leaves the ranks' watchdog to end them, and
 * {@code --recover} turns their files into the report; a rank stopped by SIGSTOP is named stalled, and
 * {@code --on-stall kill} ends the job. The MPI processes are found by the program's unique file name in /proc.
 */
@Timeout(240)
class MpirunOwnsJobTest {
    /** Iterations enough to run for minutes: every test ends the job itself. */
    private static final String FOREVER = "1000000000";
    private static final int RANKS = 3;

    @TempDir
    Path dir;

    private Process front;
    private Path program;

    @AfterEach
    void endEverything() throws Exception {
        if (front != null && front.isAlive()) {
            front.destroyForcibly();
            front.waitFor(10, TimeUnit.SECONDS);
        }
        if (program != null) {
            for (long pid : jobProcesses(program, -1)) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                new ProcessBuilder("kill", "-s", "CONT", String.valueOf(pid)).start().waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void sigtermStopsEveryMpiProcessAndWritesTheIncompleteReport() throws Exception {
        Path trace = dir.resolve("trace");
        Path json = dir.resolve("run.json");
        Path out = dir.resolve("out.txt");
        start(out, "--trace-dir", trace.toString(), "--json", json.toString());
        awaitCalls(trace);

        front.destroy(); // SIGTERM
        long t0 = System.nanoTime();
        double goneS = awaitNoJobProcess(t0, 5);
        System.out.printf("SIGTERM to eventspace mpirun -> last MPI process gone: %.2f s%n", goneS);

        assertThat(front.waitFor(60, TimeUnit.SECONDS)).as("the front-end ends after writing its report").isTrue();
        assertThat(front.exitValue()).as(Files.readString(out)).isEqualTo(128 + 15);
        JsonNode report = new ObjectMapper().readTree(json.toFile());
        assertThat(report.path("complete").asBoolean(true)).isFalse();
        assertThat(report.path("stopped_by_signal").asText()).isEqualTo("SIGTERM");
        assertThat(report.path("result_ok").asBoolean()).isFalse();
        assertThat(report.path("per_rank")).hasSize(RANKS);
        assertThat(report.path("per_rank").get(0).path("calls").asLong()).isPositive();
    }

    @Test
    void sigkillLeavesTheWatchdogToEndTheJobAndRecoverWritesTheReport() throws Exception {
        Path trace = dir.resolve("trace");
        Path out = dir.resolve("out.txt");
        start(out, "--trace-dir", trace.toString());
        awaitCalls(trace);

        front.destroyForcibly(); // SIGKILL: no hook runs, mpirun is in a session of its own
        long t0 = System.nanoTime();
        double goneS = awaitNoJobProcess(t0, 5 + 1);
        System.out.printf("SIGKILL to eventspace mpirun -> last MPI process gone: %.2f s%n", goneS);
        assertThat(Files.readString(out)).contains("the monitoring front-end (pid " + front.pid() + ") is gone");

        Path json = dir.resolve("recovered.json");
        CliHarness cli = new CliHarness();
        assertThat(cli.execute("mpirun", "--recover", trace.toString(), "--json", json.toString())).as(cli.err())
                .isEqualTo(1);
        assertThat(cli.err()).contains("recovered from the rank files in " + trace);
        JsonNode report = new ObjectMapper().readTree(json.toFile());
        assertThat(report.path("complete").asBoolean(true)).isFalse();
        assertThat(report.path("program").asText()).isEqualTo(program.toString());
        assertThat(report.path("per_rank")).hasSize(RANKS);
        for (JsonNode r : report.path("per_rank")) {
            assertThat(r.path("calls").asLong()).isPositive();
            assertThat(r.path("exit").path("state").asText()).isEqualTo("killed_by_signal");
        }

        CliHarness dump = new CliHarness();
        assertThat(dump.execute("trace", "dump", trace.toString())).isEqualTo(2);
        assertThat(dump.err()).contains("eventspace mpirun --recover " + trace);
        CliHarness empty = new CliHarness();
        assertThat(empty.execute("mpirun", "--recover", dir.resolve("nothing").toString())).isEqualTo(1);
        assertThat(empty.err()).contains("is not a folder (expected a trace folder with host-*/rank-*.meta)");
    }

    @Test
    void aStoppedRankIsNamedStalledAndOnStallKillEndsTheJob() throws Exception {
        Path trace = dir.resolve("trace");
        Path json = dir.resolve("run.json");
        Path out = dir.resolve("out.txt");
        int stallTimeoutS = 5;
        start(out, "--trace-dir", trace.toString(), "--json", json.toString(), "--progress", "1",
                "--stall-timeout", String.valueOf(stallTimeoutS), "--on-stall", "kill");
        awaitCalls(trace);
        long rank1 = rankPid(trace, 1);

        assertThat(new ProcessBuilder("kill", "-s", "STOP", String.valueOf(rank1)).start().waitFor()).isZero();
        long t0 = System.nanoTime();
        assertThat(front.waitFor(stallTimeoutS + 5 + 60, TimeUnit.SECONDS)).as("--on-stall kill ends the job").isTrue();
        String said = Files.readString(out);
        assertThat(front.exitValue()).as(said).isEqualTo(1);
        System.out.printf("SIGSTOP of rank 1 -> front-end ended with the stall named: %.2f s%n", (System.nanoTime() - t0) / 1e9);
        assertThat(said).contains("--on-stall kill stopped the job: rank 1 stalled for");
        assertThat(said).contains("(its process stopped: no heartbeat)");

        JsonNode report = new ObjectMapper().readTree(json.toFile());
        assertThat(report.path("complete").asBoolean(true)).isFalse();
        JsonNode stall = report.path("stalls").get(0);
        assertThat(stall.path("rank").asInt()).isEqualTo(1);
        assertThat(stall.path("process_stopped").asBoolean()).isTrue();
        assertThat(stall.path("certainty").asText()).isEqualTo("observed");
        assertThat(stall.path("stalled_s").asDouble()).isBetween((double) stallTimeoutS, stallTimeoutS + 5.0);
        assertThat(stall.path("waiting_ranks").toString()).isEqualTo("[0,2]");
        assertThat(report.path("verdict").path("slowest_rank").path("culprit").asInt()).isEqualTo(1);
        assertThat(report.path("verdict").path("headline").asText()).startsWith("rank 1 stalled for");
        awaitNoJobProcess(System.nanoTime(), 5);
    }

    /** Starts {@code eventspace mpirun -np 3 FLAGS -- PROGRAM -i FOREVER} as a process of its own. */
    private void start(Path out, String... flags) throws Exception {
        // a name no other process has: the job's processes are found by it
        Path compiled = NativePrograms.compile("es_allreduce", dir);
        program = dir.resolve("es_owns_" + ProcessHandle.current().pid() + "_" + System.nanoTime());
        Files.move(compiled, program);
        List<String> args = new ArrayList<>(List.of("mpirun", "-np", String.valueOf(RANKS), "--timeout", "600"));
        args.addAll(List.of(flags));
        args.addAll(List.of("--", program.toString(), "-i", FOREVER));
        front = new ProcessBuilder(Launcher.javaCommand(EventSpaceCommand.class.getName(), args))
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
    }

    /** Waits (60 s at most) until every rank's meta file counts calls. */
    private void awaitCalls(Path trace) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            List<Path> metas = metas(trace);
            if (metas.size() == RANKS && metas.stream().allMatch(m -> heartbeat(m) > 0)) {
                return;
            }
            assertThat(front.isAlive()).as("eventspace mpirun is still running").isTrue();
            Thread.sleep(100);
        }
        throw new AssertionError("the ranks did not start beating within 60 s in " + trace);
    }

    private static List<Path> metas(Path trace) throws IOException {
        List<Path> found = new ArrayList<>();
        if (!Files.isDirectory(trace)) {
            return found;
        }
        try (DirectoryStream<Path> hosts = Files.newDirectoryStream(trace, "host-*")) {
            for (Path h : hosts) {
                try (DirectoryStream<Path> m = Files.newDirectoryStream(h, "rank-*.meta")) {
                    m.forEach(found::add);
                }
            }
        }
        return found;
    }

    private static ByteBuffer meta(Path m) throws IOException {
        byte[] bytes = Files.readAllBytes(m);
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static long heartbeat(Path m) {
        try {
            ByteBuffer b = meta(m);
            return b.capacity() < MpiRankMetaLayout.LENGTH ? 0 : b.getLong(MpiRankMetaLayout.HEARTBEAT_OFFSET);
        } catch (IOException e) {
            return 0;
        }
    }

    private static long rankPid(Path trace, int rank) throws IOException {
        for (Path m : metas(trace)) {
            if (m.getFileName().toString().equals("rank-" + rank + ".meta")) {
                return meta(m).getInt(MpiRankMetaLayout.PID_OFFSET);
            }
        }
        throw new AssertionError("no meta file of rank " + rank + " in " + trace);
    }

    /** Waits until no live process but the front-end names the program; fails after {@code limitS}; returns the wait. */
    private double awaitNoJobProcess(long t0, double limitS) throws Exception {
        long deadline = t0 + (long) (limitS * 1e9);
        List<Long> left = jobProcesses(program, front.pid());
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
            left = jobProcesses(program, front.pid());
        }
        double s = (System.nanoTime() - t0) / 1e9;
        assertThat(left).as("MPI processes of the job still alive %.1f s after", s).isEmpty();
        return s;
    }

    /** Pids of live (not zombie) processes whose command line names {@code program}, but {@code except}. */
    private static List<Long> jobProcesses(Path program, long except) throws IOException {
        List<Long> found = new ArrayList<>();
        String name = program.getFileName().toString();
        try (DirectoryStream<Path> proc = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path p : proc) {
                long pid = Long.parseLong(p.getFileName().toString());
                if (pid == except || pid == ProcessHandle.current().pid()) {
                    continue;
                }
                try {
                    String cmdline = new String(Files.readAllBytes(p.resolve("cmdline"))).replace('\0', ' ');
                    String stat = Files.readString(p.resolve("stat"));
                    char state = stat.charAt(stat.lastIndexOf(')') + 2);
                    if (cmdline.contains(name) && state != 'Z' && !cmdline.contains(EventSpaceCommand.class.getName())) {
                        found.add(pid);
                    }
                } catch (IOException gone) {
                    // ended while we looked
                }
            }
        }
        return found;
    }
}
