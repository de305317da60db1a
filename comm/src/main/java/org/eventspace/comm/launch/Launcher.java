package org.eventspace.comm.launch;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.eventspace.comm.transport.tcp.JobSecret;
import org.eventspace.base.os.ProcStat;
import org.eventspace.base.os.SettingException;

/**
 * Runs a job of {@code n} host processes on this machine: starts a {@link Rendezvous} on 127.0.0.1, starts the
 * processes with {@code ES_HOST}, {@code ES_HOSTS}, {@code ES_RENDEZVOUS} and {@code ES_SECRET} set (see
 * {@link JobEnvironment}), waits for all of them and collects the result line each reported with
 * {@link TcpHost#finish(String)}.
 *
 * <p>Output: every line a process writes to stdout is copied to this process's stdout prefixed
 * {@code [host i] }, and likewise for stderr; the last {@value #TAIL_LINES} stderr lines of each process are
 * also kept in its {@link HostResult} for error reports.
 *
 * <p>If a process exits with a non-zero code or the timeout passes, the launcher aborts the job through the
 * rendezvous (the others' collectives then fail at once), gives them {@link #REPORT_GRACE} to report and exit, then
 * destroys them, and forcibly after another {@link #GRACE}. {@link Result#exitCode()} is 0 if every process
 * exited with 0, else the code of the first process that failed, or {@value #TIMEOUT_EXIT_CODE} on timeout.
 *
 * <p>If this process is asked to end (SIGTERM, SIGINT, {@code System.exit}) while a job runs, a shutdown hook stops
 * the job's processes and their descendants the same way, so a stopped launcher leaves no orphans behind.
 *
 * <p>Threading: {@link #launch} may be called from any thread and blocks until the job ended; it starts two
 * output threads per process and ends them before returning.
 */
public final class Launcher {
    public static final int TIMEOUT_EXIT_CODE = 124;
    /** The exit code when the job was aborted because a host went silent or was stopped while the others ran. */
    public static final int EXIT_ABORTED = 1;
    public static final Duration GRACE = Duration.ofSeconds(3);
    /**
     * How long the hosts that survive a failed job have to send what they recorded (their ranks' results, their
     * monitors, the scope's front-end's gathering) and exit before they are stopped: their collectives failed at once,
     * but the report's final pulls and waits are bounded by a few seconds of their own.
     */
    public static final Duration REPORT_GRACE = Duration.ofSeconds(8);
    public static final int TAIL_LINES = 20;
    /** How much longer the processes wait on the rendezvous than its watchdog, to hear its verdict first. */
    public static final Duration VERDICT_MARGIN = Duration.ofSeconds(3);
    private static final long POLL_MILLIS = 10;
    /** How long the launcher lets the processes' exits arrive before it adopts the rendezvous' verdict. */
    private static final Duration VERDICT_SETTLE = Duration.ofMillis(500);

    /** What one host process did: its exit code (-1 if it never started), its result line (or null), its last stderr lines. */
    public record HostResult(int host, int exitCode, String resultLine, List<String> stderrTail) {
    }

    /**
     * The job's outcome: {@code failure} is null when every host exited with 0; {@code phases}, how long its start,
     * run and end took ({@link LaunchPhases}).
     */
    public record Result(int exitCode, String failure, List<HostResult> hosts, LaunchPhases phases) {
        public boolean succeeded() {
            return exitCode == 0;
        }

        /** The result line of every host, by host id; null where a host reported none. */
        public List<String> resultLines() {
            List<String> lines = new ArrayList<>();
            for (HostResult h : hosts) {
                lines.add(h.resultLine());
            }
            return lines;
        }
    }

    private Launcher() {
    }

    /**
     * Launches {@code n} copies of {@code command}, each with the job variables plus {@code extraEnv}, and waits
     * at most {@code timeout} for all of them.
     */
    public static Result launch(int n, List<String> command, Map<String, String> extraEnv, Duration timeout) {
        return launch(n, command, extraEnv, timeout, null);
    }

    /**
     * As {@link #launch(int, List, Map, Duration)}, with the rendezvous bounding registration, each barrier and the
     * job's end by {@code rendezvousTimeout} (null: {@code timeout}). Its watchdog then names the hosts that did not
     * register, reach a barrier or finish, and aborts the job; the processes wait {@link #VERDICT_MARGIN} longer
     * ({@value JobEnvironment#ES_RENDEZVOUS_TIMEOUT_MS}), so they hear that verdict rather than time out on their own.
     */
    public static Result launch(int n, List<String> command, Map<String, String> extraEnv, Duration timeout,
                                Duration rendezvousTimeout) {
        return launch(n, command, extraEnv, timeout, rendezvousTimeout, CpuBinding.NONE);
    }

    /** As {@link #launch(int, List, Map, Duration, Duration)}, each host process started under {@code binding}. */
    public static Result launch(int n, List<String> command, Map<String, String> extraEnv, Duration timeout,
                                Duration rendezvousTimeout, CpuBinding binding) {
        if (rendezvousTimeout != null) {
            Map<String, String> env = new java.util.HashMap<>(extraEnv);
            env.put(JobEnvironment.ES_RENDEZVOUS_TIMEOUT_MS, Long.toString(rendezvousTimeout.plus(VERDICT_MARGIN).toMillis()));
            extraEnv = env;
        }
        if (n < 1) {
            throw new IllegalArgumentException("a job needs at least one host process, n=" + n);
        }
        if (command.isEmpty()) {
            throw new IllegalArgumentException("command is empty");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be > 0, timeout=" + timeout);
        }
        // A JVM of ours from a jar maps the jar's class-data archive, or, when there is none yet, host 0 writes one.
        ClassDataArchive archive = ClassDataArchive.forCommand(command);
        Path archiveDraft = null;
        List<String> hostZero = command;
        if (archive != null && archive.usable()) {
            command = archive.using(command);
            hostZero = command;
        } else if (archive != null && archive.creatable()) {
            archiveDraft = archive.draft();
            hostZero = archive.dumpingTo(command, archiveDraft);
        }
        // Made before anything starts, so that a binding this machine cannot make fails before any process does.
        List<List<String>> commands = new ArrayList<>(n);
        for (int h = 0; h < n; h++) {
            commands.add(binding.command(h == 0 ? hostZero : command, h));
        }
        JobSecret secret = JobSecret.random();
        Process[] processes = new Process[n];
        long origin = System.nanoTime();
        long[] spawnNanos = LaunchPhases.never(n);
        long[] exitNanos = LaunchPhases.never(n);
        List<Thread> pumps = new ArrayList<>();
        List<Deque<String>> tails = new ArrayList<>();
        int[] exitCodes = new int[n];
        Arrays.fill(exitCodes, -1);
        String failure = null;
        int exitCode = 0;
        Thread reaper = new Thread(() -> terminate(processes), "es-launch-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
        try (Rendezvous rendezvous = Rendezvous.start("127.0.0.1", 0, secret, n,
                rendezvousTimeout != null ? rendezvousTimeout : timeout)) {
            int starting = 0;
            try {
                for (int h = 0; h < n; h++, starting++) {
                    ProcessBuilder pb = new ProcessBuilder(commands.get(h));
                    pb.environment().putAll(extraEnv);
                    pb.environment().putAll(JobEnvironment.forHost(h, n, rendezvous.address(), secret));
                    Deque<String> tail = new ArrayDeque<>();
                    tails.add(tail);
                    Process p = pb.start();
                    spawnNanos[h] = System.nanoTime();
                    processes[h] = p;
                    p.getOutputStream().close();
                    pumps.add(pump(p.getInputStream(), System.out, "[host " + h + "] ", null, "es-launch-out-" + h));
                    pumps.add(pump(p.getErrorStream(), System.err, "[host " + h + "] ", tail, "es-launch-err-" + h));
                }
            } catch (IOException e) {
                failure = "could not start host " + starting + " (" + String.join(" ", command) + "): " + e.getMessage();
                exitCode = 127;
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            StoppedProcesses stopped = new StoppedProcesses();
            long rendezvousFailedAt = 0;
            while (failure == null) {
                int running = 0;
                for (int h = 0; h < n && failure == null; h++) {
                    Process p = processes[h];
                    if (p.isAlive()) {
                        running++;
                    } else if (exitCodes[h] < 0) {
                        exitCodes[h] = p.exitValue();
                        exitNanos[h] = System.nanoTime();
                        if (exitCodes[h] != 0) {
                            exitCode = exitCodes[h];
                            String exited = "host " + h + " exited with code " + exitCodes[h];
                            // A host whose ranks failed because another host went silent is not the culprit.
                            int other = rendezvous.blamed().orElse(h);
                            failure = other != h ? rendezvous.failure().orElse("") + "; then " + exited : exited;
                        }
                    }
                }
                if (failure == null && running > 0 && System.nanoTime() - deadline > 0) {
                    exitCode = TIMEOUT_EXIT_CODE;
                    failure = "timed out after " + timeout.toMillis() + " ms with hosts " + alive(processes) + " still running";
                }
                if (failure == null && running > 0 && rendezvous.failure().isPresent()) {
                    // The rendezvous knows whom to blame (a host that went silent, missed a barrier, disconnected). A
                    // moment first, so that the exit of a host that died (which the rendezvous saw as a disconnect)
                    // is reported as that, with its exit code.
                    if (rendezvousFailedAt == 0) {
                        rendezvousFailedAt = System.nanoTime();
                    } else if (System.nanoTime() - rendezvousFailedAt > VERDICT_SETTLE.toNanos()) {
                        exitCode = EXIT_ABORTED;
                        failure = rendezvous.failure().get();
                    }
                }
                if (failure == null && running > 0) {
                    failure = stopped.check(processes);
                    if (failure != null) {
                        exitCode = EXIT_ABORTED;
                    }
                }
                if (failure != null || running == 0) {
                    break;
                }
                if (!sleep(POLL_MILLIS)) {
                    exitCode = TIMEOUT_EXIT_CODE;
                    failure = "interrupted with hosts " + alive(processes) + " still running";
                }
            }
            if (failure != null) {
                rendezvous.abort("the launcher stopped the job: " + failure);
                List<Integer> ended = stop(processes, exitCodes);
                if (!ended.isEmpty()) {
                    failure += "; hosts " + ended + " were stopped";
                }
            }
            List<String> results = rendezvous.results();
            List<Integer> unregistered = rendezvous.unregistered();
            if (failure != null && !unregistered.isEmpty() && unregistered.size() < n) {
                failure += "; hosts " + unregistered + " never registered with the rendezvous (dead, frozen or stuck"
                        + " while starting)";
            } else if (failure != null) {
                List<Integer> silent = new ArrayList<>();
                for (int h = 0; h < n; h++) {
                    if (results.get(h) == null) {
                        silent.add(h);
                    }
                }
                if (!silent.isEmpty() && silent.size() < n) {
                    failure += "; hosts " + silent + " never reported a result (dead, frozen or stuck: the others"
                            + " reported theirs)";
                }
            }
            joinAll(pumps);
            if (archiveDraft != null && exitCodes[0] == 0) {
                archive.install(archiveDraft);
            } else if (archiveDraft != null) {
                ClassDataArchive.discard(archiveDraft);
            }
            List<HostResult> hostResults = new ArrayList<>();
            for (int h = 0; h < n; h++) {
                List<String> tail;
                if (h < tails.size()) {
                    synchronized (tails.get(h)) {
                        tail = List.copyOf(tails.get(h));
                    }
                } else {
                    tail = List.of();
                }
                hostResults.add(new HostResult(h, exitCodes[h], results.get(h), tail));
            }
            return new Result(exitCode, failure, hostResults,
                    LaunchPhases.of(origin, spawnNanos, rendezvous.milestones(), exitNanos));
        } finally {
            for (Process p : processes) {
                if (p != null && p.isAlive()) {
                    p.destroyForcibly();
                }
            }
            try {
                Runtime.getRuntime().removeShutdownHook(reaper);
            } catch (IllegalStateException e) {
                // The JVM is shutting down: the hook runs (or ran) and stops what is left.
            }
        }
    }

    /**
     * Asks every live process of the job and its descendants to end (SIGTERM), waits at most {@link #GRACE}, then kills
     * what is left (SIGKILL). The descendants are listed first, so a child left behind by a process that died is still
     * reached. Bounded: it is also the shutdown hook, which must not hang the JVM's exit.
     *
     * @return the hosts whose process was still alive.
     */
    private static List<Integer> terminate(Process[] processes) {
        List<Integer> stopped = new ArrayList<>();
        List<ProcessHandle> live = new ArrayList<>();
        for (int h = 0; h < processes.length; h++) {
            Process p = processes[h];
            if (p != null && p.isAlive()) {
                stopped.add(h);
                p.descendants().forEach(live::add);
                live.add(p.toHandle());
            }
        }
        live.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + GRACE.toNanos();
        for (ProcessHandle h : live) {
            long left = deadline - System.nanoTime();
            if (left > 0) {
                try {
                    h.onExit().get(left, TimeUnit.NANOSECONDS);
                } catch (Exception e) {
                    // Still alive, or interrupted: killed below.
                }
            }
        }
        live.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        return stopped;
    }

    /** The options of this JVM that bound a process's memory, which a host process gets too. */
    private static final List<String> MEMORY_OPTIONS = List.of("-Xmx", "-Xss", "-XX:MaxDirectMemorySize=",
            "-XX:MaxRAMPercentage=", "-XX:MaxRAM=", "-XX:ThreadStackSize=");

    /**
     * Notices a host process that the operating system holds stopped (SIGSTOP, a debugger): such a process cannot
     * say so, and before its hello the rendezvous cannot tell it from one that is slow to start. Linux only (it reads
     * the state letter in {@code /proc/<pid>/stat}); elsewhere it never reports. A process counts as stopped once it
     * was seen stopped at every check for {@link RendezvousProtocol#SILENCE_MILLIS}, while the launcher itself ran: a
     * Ctrl-Z stops the launcher too, and after {@code fg} everyone runs again.
     */
    static final class StoppedProcesses {
        private static final long CHECK_MILLIS = 250;
        private long nextCheck;
        private long lastCheck;
        private long[] stoppedSince;

        /** A failure naming the first host stopped for long enough, or null. */
        String check(Process[] processes) {
            long now = System.currentTimeMillis();
            if (now < nextCheck) {
                return null;
            }
            if (stoppedSince == null) {
                stoppedSince = new long[processes.length];
            }
            boolean launcherRan = lastCheck == 0 || now - lastCheck < 4 * CHECK_MILLIS;
            nextCheck = now + CHECK_MILLIS;
            lastCheck = now;
            for (int h = 0; h < processes.length; h++) {
                Process p = processes[h];
                if (p == null || !p.isAlive() || !launcherRan || !isStopped(p.pid())) {
                    stoppedSince[h] = 0;
                    continue;
                }
                if (stoppedSince[h] == 0) {
                    stoppedSince[h] = now;
                } else if (now - stoppedSince[h] >= RendezvousProtocol.SILENCE_MILLIS) {
                    return "host " + h + " (pid " + p.pid() + ") has been stopped for " + (now - stoppedSince[h])
                            + " ms (SIGSTOP or a debugger): it cannot take part in the job";
                }
            }
            return null;
        }

        /** True if {@code /proc/<pid>/stat} says the process is stopped ({@code T}) or traced ({@code t}). */
        static boolean isStopped(long pid) {
            try {
                String stat = java.nio.file.Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                char state = ProcStat.field(stat, 3).charAt(0);
                return state == 'T' || state == 't';
            } catch (IOException | RuntimeException e) {
                return false; // Not Linux, or the process is gone.
            }
        }
    }

    /** JVM options for every process the launcher starts (host processes, MPI node agents), blank-separated. */
    public static final String HOST_JAVA_OPTS = "ES_HOST_JAVA_OPTS";

    /**
     * The command that runs {@code mainClass} in a new JVM with this JVM's class path, its memory bounds ({@code -Xmx},
     * {@code -Xss}, {@code -XX:MaxDirectMemorySize}, …: a job checks before it launches that each host process fits
     * them, and {@code ES_JAVA_OPTS=-Xmx…} should reach the processes that run the ranks), the options of
     * {@value #HOST_JAVA_OPTS} (a GC log, a JIT setting: what only the host processes should get), the class-data
     * archive of this JVM's jar when there is one ({@link ClassDataArchive}; {@link #launch} makes it) and the module
     * openings Agrona needs on Java 17.
     *
     * @throws SettingException if {@value #HOST_JAVA_OPTS} holds a word that is not an option.
     */
    public static List<String> javaCommand(String mainClass, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ClassDataArchive.javaExecutable());
        for (String option : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (MEMORY_OPTIONS.stream().anyMatch(option::startsWith)) {
                cmd.add(option);
            }
        }
        cmd.addAll(hostJavaOptions(System.getenv(HOST_JAVA_OPTS)));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        ClassDataArchive archive = ClassDataArchive.forCommand(cmd);
        if (archive != null && archive.usable()) {
            cmd = archive.using(cmd);
        }
        cmd.add("--add-opens");
        cmd.add("java.base/jdk.internal.misc=ALL-UNNAMED");
        cmd.add("--add-opens");
        cmd.add("java.base/java.nio=ALL-UNNAMED");
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }

    /** The options of {@value #HOST_JAVA_OPTS}'s value {@code value} (null or blank: none), each checked to be one. */
    static List<String> hostJavaOptions(String value) {
        if (value == null || value.isBlank()) {
            return List.of();
        }
        List<String> options = List.of(value.trim().split("\\s+"));
        for (String option : options) {
            if (!option.startsWith("-")) {
                throw new SettingException(HOST_JAVA_OPTS + ": '" + option + "' is not a JVM option (expected words"
                        + " that start with '-', such as -Xlog:gc or -XX:TieredStopAtLevel=1)");
            }
        }
        return options;
    }

    public static List<String> javaCommand(Class<?> mainClass, String... args) {
        return javaCommand(mainClass.getName(), List.of(args));
    }

    /**
     * Waits {@link #REPORT_GRACE} for live processes to report and exit on their own, then destroys them; returns those
     * it had to stop.
     */
    private static List<Integer> stop(Process[] processes, int[] exitCodes) {
        // A process the OS holds stopped can end neither on its own nor on SIGTERM: waiting for it would only delay
        // the verdict.
        for (Process p : processes) {
            if (p != null && p.isAlive() && StoppedProcesses.isStopped(p.pid())) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
        }
        waitAll(processes, REPORT_GRACE);
        List<Integer> stopped = terminate(processes);
        waitAll(processes, GRACE);
        for (int h = 0; h < processes.length; h++) {
            Process p = processes[h];
            if (p != null && !p.isAlive() && exitCodes[h] < 0) {
                exitCodes[h] = p.exitValue();
            }
        }
        return stopped;
    }

    private static void waitAll(Process[] processes, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        for (Process p : processes) {
            if (p == null) {
                continue;
            }
            long left = deadline - System.nanoTime();
            try {
                if (left <= 0 || !p.waitFor(left, TimeUnit.NANOSECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static List<Integer> alive(Process[] processes) {
        List<Integer> list = new ArrayList<>();
        for (int h = 0; h < processes.length; h++) {
            if (processes[h] != null && processes[h].isAlive()) {
                list.add(h);
            }
        }
        return list;
    }

    private static Thread pump(InputStream in, PrintStream to, String prefix, Deque<String> tail, String name) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    to.println(prefix + line);
                    if (tail != null) {
                        synchronized (tail) {
                            tail.addLast(line);
                            if (tail.size() > TAIL_LINES) {
                                tail.removeFirst();
                            }
                        }
                    }
                }
            } catch (IOException ignored) {
                // The process is gone; what it wrote up to here was copied.
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void joinAll(List<Thread> threads) {
        long deadline = System.currentTimeMillis() + GRACE.toMillis();
        for (Thread t : threads) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                return;
            }
            try {
                t.join(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static boolean sleep(long millis) {
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
