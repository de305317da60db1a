package org.eventspace.comm.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Puts the calling thread in Linux's {@code SCHED_IDLE} scheduling class: the kernel then runs it only when no thread of
 * the normal class wants that CPU, and a normal thread that wakes takes the CPU from it at once.
 *
 * <p>Why: the EventSpace paper's coscheduling (§4.3) lets analysis threads run while the host waits inside a
 * collective and asks for the release order "communication threads, then application threads, then analysis". The
 * communication system decides <em>when</em> an analysis thread is released; once released, a thread of the normal
 * class still competes for the CPU as an equal, and on a host with one CPU a released analysis pass delays the
 * application thread that the same broadcast woke. In the idle class it cannot: it runs in the time the host's other
 * threads leave.
 *
 * <p>Java has no call for a thread's scheduling class, so this asks util-linux's {@code chrt} for the calling thread's
 * kernel id (read from {@code /proc/thread-self}); it starts one short process, once per thread, never on a hot path.
 * Stateless; may be called from any thread, and changes only the calling one.
 */
public final class IdleSchedulingClass {
    private static final List<String> CHRT_PLACES = List.of("/usr/bin/chrt", "/bin/chrt");
    private static final long CHRT_BOUND_MILLIS = 5_000;

    private IdleSchedulingClass() {
    }

    /**
     * Moves the calling thread into {@code SCHED_IDLE}; returns null if it is there now, else why not (not Linux, no
     * {@code chrt}, or what {@code chrt} said), for the caller to report.
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
        String chrt = CHRT_PLACES.stream().filter(p -> Files.isExecutable(Path.of(p))).findFirst().orElse(null);
        if (chrt == null) {
            return "chrt (Debian package util-linux) is not on this machine";
        }
        try {
            Process p = new ProcessBuilder(chrt, "--idle", "--pid", "0", tid).redirectErrorStream(true).start();
            p.getOutputStream().close();
            if (!p.waitFor(CHRT_BOUND_MILLIS, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                return "chrt did not answer within " + CHRT_BOUND_MILLIS + " ms";
            }
            String said = new String(p.getInputStream().readAllBytes()).trim();
            return p.exitValue() == 0 ? null : "chrt --idle --pid 0 " + tid + " exited " + p.exitValue() + ": " + said;
        } catch (IOException e) {
            return "could not run " + chrt + ": " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while chrt ran";
        }
    }

    /** The calling thread's scheduling policy as the kernel reports it (field 41 of its stat), or -1 if unknown. */
    public static int policyOfCallingThread() {
        try {
            String stat = Files.readString(Path.of("/proc/thread-self/stat"));
            // the comm field (2) may hold spaces: count fields after its closing parenthesis
            String[] rest = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
            return Integer.parseInt(rest[41 - 3]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Linux's number for {@code SCHED_IDLE}, as {@link #policyOfCallingThread()} reports it. */
    public static final int SCHED_IDLE = 5;
}
