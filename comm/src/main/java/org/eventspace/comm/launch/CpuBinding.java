package org.eventspace.comm.launch;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the launcher lets each host process run: anywhere ({@link #NONE}), or on one CPU of its own ({@link #CORE}:
 * host {@code h} on CPU {@code h mod cpus}, as {@code mpirun --bind-to core} binds ranks).
 *
 * <p>Why a job binds: on a machine with fewer cores than the job's threads, an unbound host's threads wait for one
 * another in the OS scheduler's queues, so a collective's time depends on which thread the scheduler happens to run;
 * bound, each host process is one CPU, as each host of the EventSpace paper's clusters was one machine, and its
 * communication, application and analysis threads share that CPU the way the paper's coscheduling assumes (§4.3).
 * Binding uses util-linux's {@code taskset}, which every host process is started under. Immutable.
 */
public enum CpuBinding {
    NONE("none"),
    CORE("core");

    private static final List<String> TASKSET_PLACES = List.of("/usr/bin/taskset", "/bin/taskset");

    private final String label;

    CpuBinding(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** {@code none} or {@code core}; anything else is an error naming what was given. */
    public static CpuBinding parse(String text) {
        for (CpuBinding b : values()) {
            if (b.label.equals(text)) {
                return b;
            }
        }
        throw new IllegalArgumentException("CPU binding must be none or core, got '" + text + "'");
    }

    /** The CPU host {@code host} of a job is bound to on a machine with {@code cpus} CPUs. */
    public static int cpuOf(int host, int cpus) {
        if (host < 0 || cpus < 1) {
            throw new IllegalArgumentException("host must be >= 0 and cpus >= 1, host=" + host + ", cpus=" + cpus);
        }
        return host % cpus;
    }

    /**
     * {@code command} as host {@code host} is started under this binding: unchanged for {@link #NONE}, else prefixed
     * with {@code taskset --cpu-list K}.
     *
     * @throws IllegalStateException when {@code taskset} is not on this machine, naming its package.
     */
    public List<String> command(List<String> command, int host) {
        if (this == NONE) {
            return command;
        }
        List<String> bound = new ArrayList<>();
        bound.add(taskset());
        bound.add("--cpu-list");
        bound.add(Integer.toString(cpuOf(host, Runtime.getRuntime().availableProcessors())));
        bound.addAll(command);
        return bound;
    }

    /**
     * util-linux's {@code taskset}, found in its usual places or on the PATH.
     *
     * @throws IllegalStateException when it is not on this machine, naming its package.
     */
    public static String taskset() {
        for (String place : TASKSET_PLACES) {
            if (Files.isExecutable(Path.of(place))) {
                return place;
            }
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "taskset"))) {
                return Path.of(dir, "taskset").toString();
            }
        }
        throw new IllegalStateException("binding to CPUs (--bind-to core, --front-end-cpus) needs taskset (Debian package "
                + "util-linux), which is not on this machine");
    }
}
