package org.eventspace.monitor;

import java.util.List;

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
    private final TraceTupleFlyweight tuple = new TraceTupleFlyweight();
    /** Publishes this host's results on its result board, or does nothing when no scope gathers them. */
    private final Runnable publish;
    private long lastPublish;
    private long readSincePublish;
    private volatile boolean stopping;
    private volatile boolean lowestPriorityWanted;
    private volatile boolean atLowestPriority;

    HostAnalysis(String hostName, List<LiveGred> greds, List<RankProfile> profiles, Runnable publish) {
        this.role = "es-analysis-" + hostName;
        this.greds = List.copyOf(greds);
        this.profiles = List.copyOf(profiles);
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
        int read = drainOnce();
        readSincePublish += read;
        if (readSincePublish > 0) {
            long now = System.nanoTime();
            if (now - lastPublish >= PUBLISH_PERIOD_NANOS) {
                publish.run();
                lastPublish = now;
                readSincePublish = 0;
            }
        }
        if (read == 0 && stopping) {
            throw new AgentTerminationException();
        }
        return read;
    }

    /** Publishes what this host has now (the final set, once the thread ended). */
    void publishNow() {
        publish.run();
    }

    /** One pass over every gred; the tuples read. */
    int drainOnce() {
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
