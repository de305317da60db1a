package org.eventspace.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;

import org.eventspace.comm.launch.CpuBinding;
import org.eventspace.base.os.ShortCommand;

/**
 * Places a one-JVM benchmark's threads as a cluster places its processes: the job's threads on some CPUs, the
 * front-end's (the dashboard's HTTP pool, sampler and streamer, the load clients, and the JVM's JIT compiler threads)
 * on the others, each thread bound with util-linux's {@code taskset -p} by its kernel id.
 *
 * <p>Why: in the EventSpace paper the front-end runs on a host of its own (§4.3), and a dashboard's browsers run on
 * people's desktops; on this one machine they share the compute cores with the ranks unless told otherwise. The
 * compiler threads go with the front-end because what they compile after the job's warm-up is the serving code (in a
 * front-end process of its own that JIT work would run on the front-end host); the job's own hot code is compiled
 * before the first timed block, and the garbage collector's threads, shared by both, are left where they are.
 *
 * <p>Not thread-safe: called by the benchmark's main thread.
 */
public final class FrontEndPlacement {
    /** Thread names (as the kernel keeps them: 15 characters) that belong to the front-end. */
    private static final List<String> FRONT_END_NAMES = List.of("es-dashboard", "es-load-client", "C1 CompilerThre",
            "C2 CompilerThre");
    private static final long TASKSET_BOUND_MILLIS = 5_000;

    private final String frontEndCpus;
    private final String jobCpus;
    /** The CPUs the calling thread might use before {@link #enterJob}, given back to every bound thread by {@link #restore}. */
    private String before;
    private final java.util.Set<Path> bound = new java.util.LinkedHashSet<>();
    private int frontEndThreads;
    private int compilerThreads;

    private FrontEndPlacement(String frontEndCpus, String jobCpus) {
        this.frontEndCpus = frontEndCpus;
        this.jobCpus = jobCpus;
    }

    /**
     * The placement for front-end CPUs {@code list} ({@code 1}, {@code 2-3}, {@code 1,3}) on a machine with {@code cpus}
     * CPUs; the job gets the rest.
     *
     * @throws IllegalArgumentException naming the option when the list is malformed, names a CPU this machine lacks, or
     *                                  leaves the job none
     */
    public static FrontEndPlacement parse(String list, int cpus) {
        BitSet front = new BitSet();
        for (String part : list.split(",", -1)) {
            String[] ends = part.trim().split("-", -1);
            int lo;
            int hi;
            try {
                lo = Integer.parseInt(ends[0].trim());
                hi = ends.length == 2 ? Integer.parseInt(ends[1].trim()) : lo;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--front-end-cpus takes CPU numbers and ranges such as 1 or 2-3,1, got '"
                        + list + "'");
            }
            if (ends.length > 2 || lo < 0 || hi < lo || hi >= cpus) {
                throw new IllegalArgumentException("--front-end-cpus: '" + part.trim() + "' is not a range of this machine's "
                        + "CPUs 0.." + (cpus - 1));
            }
            front.set(lo, hi + 1);
        }
        BitSet job = new BitSet();
        job.set(0, cpus);
        job.andNot(front);
        if (job.isEmpty()) {
            throw new IllegalArgumentException("--front-end-cpus " + list + " leaves the job no CPU of this machine's "
                    + cpus);
        }
        return new FrontEndPlacement(text(front), text(job));
    }

    /** Binds the calling thread to the job's CPUs: call it before the job starts, whose threads then inherit them. */
    void enterJob() {
        before = allowedCpus();
        bindAndKeep(Path.of("/proc/thread-self"), jobCpus);
    }

    /**
     * Gives the calling thread, and every front-end thread still alive that was bound, the CPUs the calling thread had
     * before {@link #enterJob}: a benchmark run inside a longer-lived JVM (a test) leaves no thread bound behind it.
     */
    void restore() {
        if (before == null) {
            return;
        }
        for (Path task : bound) {
            if (Files.exists(task)) {
                bind(task, before);
            }
        }
        bind(Path.of("/proc/thread-self"), before);
        bound.clear();
    }

    /** The calling thread's allowed CPUs as the kernel lists them ({@code 0-1}). */
    private static String allowedCpus() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("--front-end-cpus: cannot read /proc/thread-self/status: " + e.getMessage(), e);
        }
        throw new IllegalStateException("--front-end-cpus: /proc/thread-self/status has no Cpus_allowed_list (not Linux?)");
    }

    private void bindAndKeep(Path task, String cpus) {
        try {
            bound.add(task.toRealPath());
        } catch (IOException e) {
            return; // the thread ended meanwhile
        }
        bind(task, cpus);
    }

    /**
     * Binds every thread of this process whose name marks it as the front-end's to the front-end CPUs, and the calling
     * thread too (it only times blocks). Call it once the server and the clients have started; again is harmless.
     */
    void placeFrontEnd() {
        frontEndThreads = 0;
        compilerThreads = 0;
        bindAndKeep(Path.of("/proc/thread-self"), frontEndCpus);
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                String name;
                try {
                    name = Files.readString(task.resolve("comm")).trim();
                } catch (IOException e) {
                    continue; // the thread ended meanwhile
                }
                if (FRONT_END_NAMES.stream().anyMatch(name::startsWith)) {
                    bindAndKeep(task, frontEndCpus);
                    frontEndThreads++;
                    if (name.contains("CompilerThre")) {
                        compilerThreads++;
                    }
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("--front-end-cpus: cannot list this process's threads in /proc/self/task: "
                    + e.getMessage(), e);
        }
    }

    String frontEndCpus() {
        return frontEndCpus;
    }

    String jobCpus() {
        return jobCpus;
    }

    /** Threads bound to the front-end CPUs by the last {@link #placeFrontEnd}, compiler threads included. */
    int frontEndThreads() {
        return frontEndThreads;
    }

    int compilerThreads() {
        return compilerThreads;
    }

    private static void bind(Path task, String cpus) {
        String tid;
        try {
            tid = task.toRealPath().getFileName().toString();
        } catch (IOException e) {
            return; // the thread ended meanwhile
        }
        String problem = ShortCommand.run(List.of(CpuBinding.taskset(), "-p", "-c", cpus, tid), TASKSET_BOUND_MILLIS);
        if (problem != null && Files.exists(task)) { // a thread that ended meanwhile needs no CPUs
            throw new IllegalStateException("--front-end-cpus: " + problem);
        }
    }

    private static String text(BitSet cpus) {
        StringBuilder b = new StringBuilder();
        for (int c = cpus.nextSetBit(0); c >= 0; c = cpus.nextSetBit(c + 1)) {
            b.append(b.length() == 0 ? "" : ",").append(c);
        }
        return b.toString();
    }
}
