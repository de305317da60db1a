package org.eventspace.job;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.eventspace.comm.runtime.HostRuntime;
import org.eventspace.scope.EventScope;
import org.eventspace.scope.ScopeRound;
import org.eventspace.scope.filter.FilterResult;

/**
 * A job's event-scope front-end (EventSpace §4: the front-end pulls monitoring data through the scope, nothing moves
 * until somebody reads), as an agent: each duty cycle pulls one round when one is due, adds its counters to the run's
 * totals and keeps the newest result that describes a round with data. Pulling back to back (interval 0) is the
 * paper's continuous gathering, the hardest test of the gather rate (§6, Table 2); after a round that gathered nothing
 * the next is {@link #IDLE_PAUSE_NANOS} away, so an idle scope does not spin a core the ranks need.
 *
 * <p>{@link #start} opens the scope (INIT reaches every node) and runs the agent on a daemon thread of its own;
 * {@link #stop} ends it within a bounded time, drains with {@link #FINAL_PULLS} more rounds and closes the stream
 * (FIN/FINACK). {@link #snapshot} may be called from any thread at any time; {@link #doWork} only from the agent's
 * thread (or, in a test, by hand instead of {@link #start}). {@code start} and {@code stop} are called from one thread.
 */
public final class ScopeFrontEnd implements Agent {
    /**
     * Pulls after the ranks ended: one reads what they wrote last, one more completes a pipelined filter's last
     * round (ToM's histogram carries round r's bounds in round r+1).
     */
    public static final int FINAL_PULLS = 2;
    /** Pause after a pull that gathered nothing, when pulling back to back. */
    static final long IDLE_PAUSE_NANOS = 20_000;
    /** Rounds a filter's result may lag the round that produced its data (the pipeline's depth, with margin). */
    private static final int PIPELINE_DEPTH = 4;

    private final ScopeSettings settings;
    private final EventScope scope;
    private final long intervalNanos;
    private volatile boolean stopRequested;
    private volatile boolean paused;
    private AgentRunner runner;
    private long nextPullNanos;

    // Totals: written by the pulling thread under this object's lock, read by snapshot() under it.
    private long rounds;
    private long produced;
    private long gathered;
    private long dropped;
    private long rawBytes;
    private long roundNanos;
    private long[] bytesPerLevel = new long[0];
    private FilterResult lastResult = FilterResult.none();
    private long lastResultRound = -1;
    private String error;
    private boolean closed;
    /** Records gathered by each recent round: a pipelined filter's result describes an earlier round. */
    private final Map<Long, Long> gatheredByRound = new HashMap<>();

    ScopeFrontEnd(ScopeSettings settings, EventScope scope) {
        this.settings = settings;
        this.scope = scope;
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(settings.intervalMs());
    }

    /** Opens the scope on {@code frontEnd}, its front-end host, and starts pulling in a thread of its own. */
    public static ScopeFrontEnd start(ScopeSettings settings, HostRuntime frontEnd) {
        return start(settings, frontEnd, false);
    }

    /**
     * Opens the scope on {@code frontEnd} and starts the agent's thread, pulling at once or, if {@code paused}, only
     * after {@link #resume()} (a benchmark that measures a floor without the scope first, ToM §5.2).
     */
    public static ScopeFrontEnd start(ScopeSettings settings, HostRuntime frontEnd, boolean paused) {
        ScopeFrontEnd agent = new ScopeFrontEnd(settings, EventScope.on(frontEnd));
        agent.paused = paused;
        agent.scope.open();
        // The pause between pulls is kept by doWork's schedule; the idle strategy only decides how a thread with
        // nothing due waits: a few spins and yields, then parks of 1 µs growing to 1 ms.
        IdleStrategy idle = new BackoffIdleStrategy(10, 10, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(1));
        agent.runner = new AgentRunner(idle, agent::onError, null, agent);
        AgentRunner.startOnThread(agent.runner, r -> {
            Thread t = new Thread(r, agent.roleName());
            t.setDaemon(true);
            return t;
        });
        return agent;
    }

    /** Opens the scope (INIT) without a thread: the caller steps the agent with {@link #doWork}. */
    static ScopeFrontEnd openForStepping(ScopeSettings settings, EventScope scope) {
        ScopeFrontEnd agent = new ScopeFrontEnd(settings, scope);
        scope.open();
        return agent;
    }

    @Override
    public String roleName() {
        return "es-scope-front-end";
    }

    /** Pulls one round if one is due. @return 1 if it pulled, 0 if nothing was due. */
    @Override
    public int doWork() {
        if (stopRequested) {
            throw new AgentTerminationException();
        }
        long now = System.nanoTime();
        if (paused || now - nextPullNanos < 0) {
            return 0;
        }
        long gatheredNow = pullOnce();
        long pause = intervalNanos > 0 ? intervalNanos : gatheredNow == 0 ? IDLE_PAUSE_NANOS : 0;
        nextPullNanos = System.nanoTime() + pause;
        return 1;
    }

    private void onError(Throwable failure) {
        if (failure instanceof AgentTerminationException) {
            return;
        }
        synchronized (this) {
            if (error == null) {
                error = "scope round failed: " + failure.getMessage();
            }
        }
        // A failed round ends the front-end: the scope's state after a partial round is unknown.
        stopRequested = true;
    }

    /** One round: pull, add its counters to the totals. @return records it gathered. */
    private long pullOnce() {
        ScopeRound r = scope.pull();
        synchronized (this) {
            rounds++;
            produced += r.recordsProduced();
            gathered += r.recordsGathered();
            dropped += r.recordsDropped();
            rawBytes += r.rawBytes();
            roundNanos += r.roundNanos();
            long[] levels = r.bytesPerLevel();
            if (levels.length > bytesPerLevel.length) {
                bytesPerLevel = Arrays.copyOf(bytesPerLevel, levels.length);
            }
            for (int i = 0; i < levels.length; i++) {
                bytesPerLevel[i] += levels[i];
            }
            // Keep the last result that describes a round with data. Every filter names the round its result is of: a
            // pipelined filter's (ToM's histogram, the classes with their histograms) is an earlier round's.
            gatheredByRound.put(r.round(), r.recordsGathered());
            gatheredByRound.remove(r.round() - PIPELINE_DEPTH);
            long round = r.result().round();
            if (!r.result().isEmpty() && gatheredByRound.getOrDefault(round, 0L) > 0) {
                lastResult = r.result();
                lastResultRound = round;
            }
        }
        return r.recordsGathered();
    }

    /** Starts pulling after a {@linkplain #start(ScopeSettings, HostRuntime, boolean) paused start}. Any thread. */
    public void resume() {
        paused = false;
    }

    /** What the front-end has seen so far. Any thread, any time. */
    public synchronized ScopeSnapshot snapshot() {
        return new ScopeSnapshot(settings, rounds, produced, gathered, dropped, rawBytes, bytesPerLevel, roundNanos,
                lastResultRound, lastResult, error, closed);
    }

    /**
     * Stops pulling, drains with {@link #FINAL_PULLS} more rounds and closes the stream (FIN/FINACK). Call once every
     * rank of the job returned and before any host closes (over TCP: before this host finishes, while the others still
     * serve its hops).
     *
     * @param timeoutMillis how long to wait for a round in progress to end.
     * @return the final snapshot; its {@code error} says what went wrong, if anything.
     */
    public ScopeSnapshot stop(long timeoutMillis) {
        stopRequested = true;
        boolean ended = true;
        if (runner != null) {
            Thread thread = runner.thread();
            if (thread != null && thread != AgentRunner.TOMBSTONE) {
                try {
                    thread.join(timeoutMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                ended = !thread.isAlive();
                if (!ended) {
                    thread.interrupt();
                    recordError("the scope front-end did not finish its round within " + timeoutMillis + " ms");
                }
            }
            if (ended) {
                runner.close();
            }
        }
        boolean failed;
        synchronized (this) {
            failed = error != null;
        }
        if (ended && !failed) {
            try {
                for (int i = 0; i < FINAL_PULLS; i++) {
                    pullOnce();
                }
            } catch (RuntimeException e) {
                recordError("final scope round failed: " + e.getMessage());
            }
        }
        try {
            scope.close();
        } catch (RuntimeException e) {
            recordError("closing the scope failed: " + e.getMessage());
        }
        synchronized (this) {
            closed = true;
        }
        return snapshot();
    }

    private synchronized void recordError(String message) {
        if (error == null) {
            error = message;
        }
    }
}
