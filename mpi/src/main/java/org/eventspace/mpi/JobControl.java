package org.eventspace.mpi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.eventspace.base.json.Json;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * How {@code eventspace mpirun} owns its job, so that no MPI process outlives it unmonitored:
 * <ul>
 *   <li>mpirun runs in a session (and process group) of its own ({@code setsid}): a terminal's Ctrl-C reaches this JVM
 *   only, which stops the job itself and still writes what it read;</li>
 *   <li>SIGTERM, SIGINT and SIGHUP to this JVM are caught while the job runs ({@link #catchSignals}): the run stops
 *   the job — SIGTERM to mpirun's process group and to every process below mpirun (Open MPI puts each rank in a
 *   group of its own), SIGCONT to the stopped ones, SIGKILL to whatever is left after a grace — and ends normally,
 *   its report marked incomplete; a second signal ends the JVM at once (its shutdown hook still stops the job);</li>
 *   <li>a SIGKILL to this JVM cannot be caught: each rank's watchdog thread (native/es_mpi.c "watchdog") sees that
 *   the process named by {@code ES_MPI_AGENT_PID} is gone and ends its rank, and mpirun then ends;</li>
 *   <li>{@code DIR/job.json} says what ran, for {@code eventspace mpirun --recover DIR} ({@link MpiRun#recover}) to
 *   turn the rank files a dead front-end left into the report.</li>
 * </ul>
 * One instance per run; {@link #signal()} may be read from any thread.
 */
final class JobControl {
    /** How long the job's processes get after SIGTERM before SIGKILL. */
    static final long GRACE_MS = 3_000;
    /** How often the run looks at its signals, its stall watch and its deadline while mpirun runs. */
    static final long POLL_MS = 100;
    /** The file in the trace folder that names the job ({@link #writeJob}). */
    static final String JOB_FILE = "job.json";
    private static final List<String> CAUGHT = List.of("TERM", "INT", "HUP");
    private static final Path SETSID = Path.of("/usr/bin/setsid");

    private volatile int signal;
    private final Map<Signal, SignalHandler> previous = new LinkedHashMap<>();

    /** The first of SIGTERM, SIGINT, SIGHUP this JVM received while the job ran (Linux numbers), or 0. */
    int signal() {
        return signal;
    }

    /** From now until {@link #restoreSignals}: SIGTERM, SIGINT, SIGHUP ask the run to stop the job. */
    void catchSignals() {
        for (String name : CAUGHT) {
            try {
                Signal s = new Signal(name);
                previous.put(s, Signal.handle(s, this::received));
            } catch (IllegalArgumentException taken) {
                // the JVM keeps this signal (-Xrs, or a debugger's): its default stays, and the shutdown hook stops the job
            }
        }
    }

    private void received(Signal s) {
        if (signal == 0) {
            signal = s.getNumber();
            System.err.println("eventspace: SIG" + s.getName() + ": stopping the MPI job (again to end at once)");
        } else {
            // the shutdown hook still stops the job
            System.exit(128 + s.getNumber());
        }
    }

    void restoreSignals() {
        previous.forEach((s, h) -> {
            try {
                Signal.handle(s, h);
            } catch (IllegalArgumentException ignored) {
                // as it was
            }
        });
        previous.clear();
    }

    /** {@code command} run through {@code setsid} (when this machine has it), so mpirun leads a process group. */
    static List<String> ownSession(List<String> command) {
        if (!Files.isExecutable(SETSID)) {
            return command;
        }
        List<String> c = new ArrayList<>(command.size() + 1);
        c.add(SETSID.toString());
        c.addAll(command);
        return c;
    }

    /**
     * The mpirun arguments that start the ranks' watchdog: this JVM's pid, and the host it runs on (on other hosts a
     * rank cannot see it, and its watchdog only beats).
     */
    static List<String> watchdogArgs(MpiImplementation mpi) {
        List<String> args = new java.util.ArrayList<>(mpi.environment("ES_MPI_AGENT_PID",
                String.valueOf(ProcessHandle.current().pid())));
        args.addAll(mpi.environment("ES_MPI_AGENT_HOST", hostName()));
        return args;
    }

    /** The kernel's host name, as the library's gethostname() gives it. */
    private static String hostName() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
        } catch (IOException | RuntimeException e) {
            try {
                return java.net.InetAddress.getLocalHost().getHostName();
            } catch (IOException unknown) {
                return "";
            }
        }
    }

    /**
     * Stops mpirun and every process of its job: SIGTERM (then SIGCONT, so a stopped rank can act on it) to mpirun's
     * process group, to mpirun and to every process below it; after {@code graceMs}, SIGKILL to whatever is left.
     * Bounded: returns within about {@code graceMs} + 2 s.
     */
    static void stop(Process mpirun, long graceMs) {
        List<ProcessHandle> job = new ArrayList<>();
        job.add(mpirun.toHandle());
        mpirun.descendants().forEach(job::add);
        signal("TERM", mpirun, job);
        signal("CONT", mpirun, job);
        long deadline = System.nanoTime() + graceMs * 1_000_000L;
        while (System.nanoTime() - deadline < 0 && job.stream().anyMatch(ProcessHandle::isAlive)) {
            // processes that appeared since (mpirun starting ranks as it went down) are part of the job too
            mpirun.descendants().filter(p -> !job.contains(p)).forEach(job::add);
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        mpirun.descendants().filter(p -> !job.contains(p)).forEach(job::add);
        if (job.stream().anyMatch(ProcessHandle::isAlive)) {
            signal("KILL", mpirun, job);
            job.forEach(ProcessHandle::destroyForcibly);
        }
        try {
            mpirun.waitFor(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code kill -s SIG} to mpirun's group and to each process of {@code job} still alive; bounded at 2 s. */
    private static void signal(String sig, Process mpirun, List<ProcessHandle> job) {
        List<String> kill = new ArrayList<>(List.of("kill", "-s", sig, "--"));
        if (mpirun.isAlive()) {
            kill.add("-" + mpirun.pid()); // the group setsid made: mpirun's pid is its id
        }
        job.stream().filter(ProcessHandle::isAlive).forEach(p -> kill.add(String.valueOf(p.pid())));
        if (kill.size() == 4) {
            return;
        }
        try {
            Process k = new ProcessBuilder(kill).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!k.waitFor(2, TimeUnit.SECONDS)) {
                k.destroyForcibly();
            }
        } catch (IOException e) {
            // no kill(1): Java's own TERM and KILL reach the processes one by one
            if ("TERM".equals(sig)) {
                job.forEach(ProcessHandle::destroy);
            } else if ("KILL".equals(sig)) {
                job.forEach(ProcessHandle::destroyForcibly);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code DIR/job.json}: the program, its arguments and ranks, and the mpirun command, for {@code --recover}. */
    static void writeJob(Path dir, MpiRunConfig config, List<String> command) throws IOException {
        ObjectMapper json = Json.mapper();
        ObjectNode job = json.createObjectNode();
        job.put("program", config.program());
        config.args().forEach(job.putArray("program_args")::add);
        job.put("ranks", config.np());
        job.put("sim_hosts", config.simHosts());
        command.forEach(job.putArray("mpirun_command")::add);
        job.put("front_end_pid", ProcessHandle.current().pid());
        json.writerWithDefaultPrettyPrinter().writeValue(dir.resolve(JOB_FILE).toFile(), job);
    }
}
