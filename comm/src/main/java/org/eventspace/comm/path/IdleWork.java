package org.eventspace.comm.path;

import java.util.Arrays;

/**
 * Work that wrappers of one host put off until a thread of that host waits anyway: a butterfly's exchange runs it
 * after it sent its partial result and before it reads the partner's (the message is on its way; whatever runs now
 * takes nothing from the collective's critical path). An event collector on a butterfly's path leaves its tuple here
 * instead of writing it on the way back up.
 *
 * <p>Tasks are added while the host builds, before any rank runs; {@link #run} is called by one thread at a time (the
 * exchange's caller, a tree's calls being in order) and by the host once its ranks returned. Running allocates nothing.
 */
public final class IdleWork {
    private volatile Runnable[] tasks = new Runnable[0];

    /** Adds {@code task}, which must be cheap when it has nothing to do. Call while the host builds. */
    public synchronized void add(Runnable task) {
        Runnable[] next = Arrays.copyOf(tasks, tasks.length + 1);
        next[tasks.length] = task;
        tasks = next;
    }

    /** Runs every task once. */
    public void run() {
        for (Runnable task : tasks) {
            task.run();
        }
    }

    /** Whether any task was added. */
    public boolean isEmpty() {
        return tasks.length == 0;
    }
}
