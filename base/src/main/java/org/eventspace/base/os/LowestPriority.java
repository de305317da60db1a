package org.eventspace.base.os;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Gives the calling thread the lowest priority of Linux's normal scheduling class ({@link #NICE}, nice 19): a thread
 * of normal priority that wakes takes the CPU from it at once, and where both want the CPU it gets about 1/70 of it.
 *
 * <p>Why: the EventSpace paper's coscheduling (§4.3) lets analysis threads run while the host waits inside a
 * collective and asks for the release order "communication threads, then application threads, then analysis". The
 * communication system decides <em>when</em> an analysis thread is released; once released, a thread of normal
 * priority still competes for the CPU as an equal, and on a host with one CPU a released analysis pass delays the
 * application thread that the same broadcast woke. At the lowest priority it runs in the time the host's other
 * threads leave, yet is never starved outright: Linux's idle class ({@code SCHED_IDLE}) would stop it for as long as a
 * rank computes or spins, and its trace buffers would wrap (we tried it; a monitored test lost a tenth of its tuples on
 * a loaded machine).
 *
 * <p>Java sets no per-thread priority on Linux, so this asks util-linux's {@code renice} for the calling thread's
 * kernel id (read from {@code /proc/thread-self}); it starts one short process, once per thread, never on a hot path.
 * Stateless; may be called from any thread, and changes only the calling one.
 */
public final class LowestPriority {
    /** The nice value the thread gets. */
    public static final int NICE = 19;
    private static final List<String> RENICE_PLACES = List.of("/usr/bin/renice", "/bin/renice");
    private static final long RENICE_BOUND_MILLIS = 5_000;

    private LowestPriority() {
    }

    /**
     * Gives the calling thread nice {@link #NICE}; returns null if it has it now, else why not (not Linux, no
     * {@code renice}, or what {@code renice} said), for the caller to report.
     */
    public static String enter() {
        Path self;
        try {
            self = Files.readSymbolicLink(Path.of("/proc/thread-self"));
        } catch (IOException | UnsupportedOperationException e) {
            return "no /proc/thread-self (not Linux?): " + e.getMessage();
        }
        // "<pid>/task/<tid>"
        String tid = self.getFileName().toString();
        String renice = RENICE_PLACES.stream().filter(p -> Files.isExecutable(Path.of(p))).findFirst().orElse(null);
        if (renice == null) {
            return "renice (Debian package util-linux or bsdutils) is not on this machine";
        }
        return ShortCommand.run(List.of(renice, "-n", Integer.toString(NICE), "-p", tid), RENICE_BOUND_MILLIS);
    }

    /** The calling thread's nice value as the kernel reports it (field 19 of its stat), or {@link Integer#MIN_VALUE}. */
    public static int niceOfCallingThread() {
        try {
            return Integer.parseInt(ProcStat.field(Files.readString(Path.of("/proc/thread-self/stat")), 19));
        } catch (IOException | RuntimeException e) {
            return Integer.MIN_VALUE;
        }
    }
}
