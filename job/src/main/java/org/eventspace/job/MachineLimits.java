package org.eventspace.job;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.sun.management.HotSpotDiagnosticMXBean;

/**
 * What this JVM and this machine can give a job ({@link JobFootprint#shortfall}): the heap and direct memory this JVM
 * may use (a host process we launch gets the same, {@code Launcher.javaCommand} passes the memory options on), the
 * threads the kernel lets us start now, and the memory available now. Immutable; {@link #current()} reads them.
 *
 * @param heapBytes   live heap a job may fill: {@link Runtime#maxMemory()} ({@code -Xmx}, or a quarter of the machine's
 *                    memory) less G1's to-space reserve ({@code G1ReservePercent}, 10 %). Measured with {@code -Xmx256m}:
 *                    gsum ran with 8 100 ranks in one JVM and ran out of heap with 8 250, where the live heap the
 *                    estimate counts would just fill the whole 256 MiB.
 * @param directBytes {@code -XX:MaxDirectMemorySize}, by default the heap's maximum.
 * @param threads     threads a job may start: the least of {@code kernel.threads-max}, {@code kernel.pid_max},
 *                    {@code ulimit -u} and a cgroup's {@code pids.max}, less the threads other processes run now and
 *                    {@value #RESERVED_THREADS} left to them: a job that took the last ids would make every other
 *                    process's fork fail, the shell's that could stop it included.
 * @param mappings    memory mappings a process may add: {@code vm.max_map_count} less those this JVM has now. Every
 *                    thread takes two (its stack and its guard zone), so with the default 65 530 a JVM holds at most
 *                    about 32 600 threads whatever {@code pid_max} says.
 * @param memoryBytes {@code MemAvailable} of {@code /proc/meminfo} (else the JVM's view of free memory).
 */
public record MachineLimits(long heapBytes, long directBytes, long mappings, long threads, long memoryBytes) {
    /** No limit where a file cannot be read (not Linux, or hidden): the JVM's own error stays the last word there. */
    private static final long UNKNOWN = Long.MAX_VALUE;

    /** Threads (process ids) a job leaves to the rest of the machine. */
    public static final int RESERVED_THREADS = 1024;
    /** G1's default to-space reserve, where the flag cannot be read. */
    private static final int DEFAULT_RESERVE_PERCENT = 10;

    public static MachineLimits current() {
        long heap = Runtime.getRuntime().maxMemory();
        long reserve = vmOption("G1ReservePercent", DEFAULT_RESERVE_PERCENT);
        return new MachineLimits(heap - heap / 100 * Math.max(0, Math.min(50, reserve)), maxDirect(heap), freeMappings(),
                startableThreads(), memory());
    }

    private static long maxDirect(long heap) {
        long value = vmOption("MaxDirectMemorySize", 0);
        return value > 0 ? value : heap;
    }

    private static long vmOption(String name, long otherwise) {
        try {
            HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            return Long.parseLong(hotspot.getVMOption(name).getValue());
        } catch (RuntimeException e) {
            return otherwise;
        }
    }

    private static long startableThreads() {
        long limit = processLimit();
        for (String file : List.of("/proc/sys/kernel/threads-max", "/proc/sys/kernel/pid_max", "/sys/fs/cgroup/pids.max",
                "/sys/fs/cgroup/pids/pids.max")) {
            limit = Math.min(limit, number(Path.of(file)));
        }
        if (limit == UNKNOWN) {
            return UNKNOWN;
        }
        return Math.max(0, limit - Math.max(0, running() - ownThreads()) - RESERVED_THREADS);
    }

    private static long freeMappings() {
        long max = number(Path.of("/proc/sys/vm/max_map_count"));
        return max == UNKNOWN ? UNKNOWN : Math.max(0, max - lines(Path.of("/proc/self/maps")).size());
    }

    /** The soft {@code Max processes} of {@code /proc/self/limits} ({@code ulimit -u}), which counts threads. */
    private static long processLimit() {
        for (String line : lines(Path.of("/proc/self/limits"))) {
            if (line.startsWith("Max processes")) {
                String[] words = line.substring("Max processes".length()).trim().split("\\s+");
                return words[0].equals("unlimited") ? UNKNOWN : parse(words[0]);
            }
        }
        return UNKNOWN;
    }

    /** Threads on the machine now: the total of {@code /proc/loadavg}'s fourth field ("running/total"). */
    private static long running() {
        List<String> lines = lines(Path.of("/proc/loadavg"));
        if (lines.isEmpty()) {
            return 0;
        }
        String[] fields = lines.get(0).trim().split("\\s+");
        if (fields.length < 4 || fields[3].indexOf('/') < 0) {
            return 0;
        }
        long total = parse(fields[3].substring(fields[3].indexOf('/') + 1));
        return total == UNKNOWN ? 0 : total;
    }

    private static long ownThreads() {
        for (String line : lines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Threads:")) {
                long n = parse(line.substring("Threads:".length()).trim());
                return n == UNKNOWN ? 0 : n;
            }
        }
        return Thread.activeCount();
    }

    private static long memory() {
        for (String line : lines(Path.of("/proc/meminfo"))) {
            if (line.startsWith("MemAvailable:")) {
                long kb = parse(line.substring("MemAvailable:".length()).replace("kB", "").trim());
                if (kb != UNKNOWN) {
                    return kb * 1024;
                }
            }
        }
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getFreeMemorySize() : UNKNOWN;
    }

    private static long number(Path file) {
        List<String> lines = lines(file);
        return lines.isEmpty() ? UNKNOWN : parse(lines.get(0).trim());
    }

    private static long parse(String text) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            return UNKNOWN;
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }
}
