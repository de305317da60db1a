package org.eventspace.base.os;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one short system command that changes a thread as the kernel sees it (util-linux's {@code renice} for a nice
 * value, {@code taskset -p} for the CPUs it may run on): Java has no per-thread priority or affinity on Linux, so the
 * callers ask those tools for a kernel thread id. The command's output is kept for the message, its wait is bounded,
 * and what went wrong comes back as text for the caller to report or throw. Once per thread, never on a hot path.
 * Stateless; any thread.
 */
public final class ShortCommand {
    private ShortCommand() {
    }

    /**
     * Runs {@code command} and waits at most {@code boundMillis} for it; returns null if it exited 0, else what went
     * wrong: it could not start, it did not answer in time (it is then killed), it exited otherwise (with what it said),
     * or the wait was interrupted (the interrupt is kept).
     */
    public static String run(List<String> command, long boundMillis) {
        String tool = command.get(0).substring(command.get(0).lastIndexOf('/') + 1);
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getOutputStream().close();
            if (!p.waitFor(boundMillis, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                return tool + " did not answer within " + boundMillis + " ms";
            }
            String said = new String(p.getInputStream().readAllBytes()).trim();
            return p.exitValue() == 0 ? null : String.join(" ", command) + " exited " + p.exitValue() + ": " + said;
        } catch (IOException e) {
            return "could not run " + command.get(0) + ": " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while " + tool + " ran";
        }
    }
}
