package org.eventspace.monitor;

import java.util.concurrent.atomic.AtomicBoolean;

import java.util.Arrays;
import java.util.List;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.eventspace.base.os.LowestPriority;
import org.eventspace.events.TraceTupleFlyweight;

/**
 * The analysis thread of one host (EventSpace paper §4.3, distributed analysis): an agent whose duty cycle reads what
 * the host's collectors wrote since the last cycle and joins it into each gred's metrics ({@link LiveGred}). Only the
 * host's own trace buffers are read; nothing crosses hosts until a front-end asks for the results. Role
 * {@code es-analysis-<host>}; run it on its own thread with an idle strategy that sleeps when there is nothing to read,
 * or step {@link #doWork()} by hand.
 */
final class HostAnalysis implements Agent {
    /** How often a host publishes its results for an event scope, at most: a live view updated ten times a second. */
    static final int PUBLISH_PERIOD_MS = 100;
    private static final long PUBLISH_PERIOD_NANOS = PUBLISH_PERIOD_MS * 1_000_000L;

    private final String role;
    private final List<LiveGred> greds;
    private final List<RankProfile> profiles;
    /** The same, as arrays: a pass runs on a waiting rank's critical path and iterates without an iterator. */
    private final LiveGred[] gredArray;
    private final RankProfile[] profileArray;
    /** The greds and profiles of trees whose calls run no pass ({@link #idleStepOf}): the analysis thread's alone. */
    private volatile LiveGred[] uncoveredGreds;
    private volatile RankProfile[] uncoveredProfiles;
    private final TraceTupleFlyweight tuple = new TraceTupleFlyweight();
    /** Publishes this host's results on its result board, or does nothing when no scope gathers them. */
    private final Runnable publish;
    private long lastPublish;
    /** The time between two publications now: {@link #PUBLISH_PERIOD_MS}, or more when publishing costs more. */
    private long publishPeriodNanos = PUBLISH_PERIOD_NANOS;
    /** A publication may take at most one part in this many of the time between two (1 %). */
    static final long PUBLISH_COST_DIVISOR = 100;
    /** The longest time between two publications, however costly: a live view still moves. */
    static final long LONGEST_PUBLISH_PERIOD_NANOS = 5_000_000_000L;
    private long readSincePublish;
    private volatile boolean stopping;
    /**
     * Passes the waiting ranks ran ({@link #idleStep}): a count, not a clock read, since a pass is on their critical
     * path. The analysis thread looks at it every {@link #IDLE_STEPS_FRESH_NANOS}: if it moved, the ranks run the passes
     * and the analysis thread leaves them alone (and publishes).
     */
    private volatile long idleSteps;
    private long idleStepsSeen;
    private long idleStepsCheckedAt = System.nanoTime();
    private boolean ranksDrain;
    private static final long IDLE_STEPS_FRESH_NANOS = 50_000_000L;
    /** Every how many passes of the waiting ranks one is timed (a power of two). */
    static final int TIMED_EVERY = 256;
    /** The timed passes' times, ns: recorded by the rank holding {@link #draining} (no allocation), copied by snapshots. */
    private final ConcurrentHistogram timedPasses = new ConcurrentHistogram(LONGEST_TIMED_PASS_NANOS, 2);
    private static final long LONGEST_TIMED_PASS_NANOS = 60_000_000_000L;
    /** Held by whichever thread runs a pass: the analysis thread, or a waiting rank's {@link #idleStep}. */
    private final AtomicBoolean draining = new AtomicBoolean();
    private static final java.lang.invoke.VarHandle IDLE_STEPS;

    static {
        try {
            IDLE_STEPS = java.lang.invoke.MethodHandles.lookup().findVarHandle(HostAnalysis.class, "idleSteps", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile boolean lowestPriorityWanted;
    private volatile boolean atLowestPriority;

    HostAnalysis(String hostName, List<LiveGred> greds, List<RankProfile> profiles, Runnable publish) {
        this.role = "es-analysis-" + hostName;
        this.greds = List.copyOf(greds);
        this.profiles = List.copyOf(profiles);
        this.gredArray = this.greds.toArray(new LiveGred[0]);
        // Profiles a gred's reader counts need no poll of their own.
        this.profileArray = this.profiles.stream().filter(RankProfile::reads).toArray(RankProfile[]::new);
        this.uncoveredGreds = gredArray;
        this.uncoveredProfiles = profileArray;
        this.publish = publish;
        this.lastPublish = System.nanoTime();
    }

    /** Before the thread starts: whether it gives itself the lowest scheduling priority when it starts. */
    void runAtLowestPriority(boolean wanted) {
        lowestPriorityWanted = wanted;
    }

    /** Whether this analysis thread runs at the lowest priority now. */
    boolean atLowestPriority() {
        return atLowestPriority;
    }

    @Override
    public void onStart() {
        if (lowestPriorityWanted) {
            String problem = LowestPriority.enter();
            atLowestPriority = problem == null;
            if (problem != null) {
                System.err.println(role + ": keeps its normal priority: " + problem);
            }
        }
    }

    List<RankProfile> profiles() {
        return profiles;
    }

    List<LiveGred> greds() {
        return greds;
    }

    @Override
    public String roleName() {
        return role;
    }

    @Override
    public int doWork() {
        // While the waiting ranks run the passes (idleStep), this thread, at the lowest priority, would only hold the
        // pass while it is preempted and make their idle steps skip: it publishes, and reads only once they stopped.
        long now = System.nanoTime();
        if (now - idleStepsCheckedAt >= IDLE_STEPS_FRESH_NANOS) {
            long steps = idleSteps;
            ranksDrain = steps != idleStepsSeen;
            idleStepsSeen = steps;
            idleStepsCheckedAt = now;
        }
        if (!draining.compareAndSet(false, true)) {
            return 0;
        }
        int read = 0;
        try {
            if (!ranksDrain || stopping) {
                read = drainOnce();
            } else {
                read = drain(uncoveredGreds, uncoveredProfiles);
            }
            readSincePublish += read;
            if (readSincePublish > 0) {
                if (now - lastPublish >= publishPeriodNanos) {
                    long started = System.nanoTime();
                    publish.run();
                    long took = System.nanoTime() - started;
                    // A snapshot of every gred (medians sorted, records encoded, then gathered by the scope) grows with
                    // the host's greds: at 16 ranks a host it took several ms, and ten a second made the analysis
                    // threads a third of a 2-core machine. Publishing takes at most 1 % of the time between two; the
                    // time is wall time on purpose: a thread of the lowest priority that was preempted while it
                    // published says the machine is busy with the ranks, and backs off further. The live view then
                    // refreshes less often (at most every LONGEST_PUBLISH_PERIOD).
                    publishPeriodNanos = publishPeriodAfter(took);
                    lastPublish = now;
                    readSincePublish = 0;
                }
            }
        } finally {
            draining.set(false);
        }
        if (read == 0 && stopping) {
            throw new AgentTerminationException();
        }
        return read;
    }

    /** The time to wait before the next publication, given that the last took {@code tookNanos}. */
    static long publishPeriodAfter(long tookNanos) {
        return Math.min(LONGEST_PUBLISH_PERIOD_NANOS, Math.max(PUBLISH_PERIOD_NANOS, tookNanos * PUBLISH_COST_DIVISOR));
    }

    /**
     * The step a waiting thread of the host runs in calls of {@code tree} ({@link #idleStep(LiveGred[], RankProfile[])}):
     * a pass over that tree's greds and profiles.
     */
    Runnable idleStepOf(int tree) {
        LiveGred[] g = Arrays.stream(gredArray).filter(l -> l.gred().tree() == tree).toArray(LiveGred[]::new);
        RankProfile[] p = Arrays.stream(profileArray).filter(r -> r.tree() == tree).toArray(RankProfile[]::new);
        // What no waiting thread reads stays the analysis thread's, also while the ranks run their passes.
        uncoveredGreds = Arrays.stream(uncoveredGreds).filter(l -> l.gred().tree() != tree).toArray(LiveGred[]::new);
        uncoveredProfiles = Arrays.stream(uncoveredProfiles).filter(r -> r.tree() != tree).toArray(RankProfile[]::new);
        return () -> idleStep(g, p);
    }

    /**
     * One pass run by a thread of the host that waits anyway (a butterfly's exchange, after it sent: the host's
     * {@code IdleWork}), so the analysis runs while the host waits inside the collective, in the waiting thread, and
     * needs no CPU of its own (EventSpace paper §4.3, coscheduling). While the analysis thread is in a pass (it
     * publishes), this yields to it instead. Allocates nothing.
     */
    private void idleStep(LiveGred[] greds, RankProfile[] profiles) {
        if (!draining.compareAndSet(false, true)) {
            // The analysis thread is in a pass (publishing): at the lowest priority, on a CPU this rank polls, it would
            // hold the pass until the scheduler's next tick; give it the CPU while the partner's message is on its way.
            Thread.yield();
            return;
        }
        try {
            long steps = idleSteps + 1;
            if ((steps & (TIMED_EVERY - 1)) == 0) {
                // One pass in TIMED_EVERY is timed: two clock reads per 256 passes say what the passes cost the ranks,
                // whose CPU time the analysis thread's cpu_ms does not include.
                long t0 = System.nanoTime();
                readSincePublish += drain(greds, profiles);
                timedPasses.recordValue(Math.min(System.nanoTime() - t0, LONGEST_TIMED_PASS_NANOS));
            } else {
                readSincePublish += drain(greds, profiles);
            }
            IDLE_STEPS.setRelease(this, steps);
        } finally {
            draining.set(false);
        }
    }

    /** Passes the waiting ranks ran ({@link #idleStep}). */
    long rankPasses() {
        return idleSteps;
    }

    /** The times of the passes timed, one in {@link #TIMED_EVERY} of those the ranks ran, ns: a copy. */
    Histogram timedRankPasses() {
        return timedPasses.copy();
    }

    /** Publishes what this host has now (the final set, once the thread ended). */
    void publishNow() {
        publish.run();
    }

    /** One pass over every gred; the tuples read. */
    int drainOnce() {
        return drain(gredArray, profileArray);
    }

    private int drain(LiveGred[] greds, RankProfile[] profiles) {
        int read = 0;
        for (LiveGred g : greds) {
            read += g.poll(tuple);
        }
        for (RankProfile p : profiles) {
            read += p.poll(tuple, 256);
        }
        return read;
    }

    /** Asks the agent to end once it found nothing more to read: the last tuples are still joined. */
    void stopWhenDrained() {
        stopping = true;
    }
}
