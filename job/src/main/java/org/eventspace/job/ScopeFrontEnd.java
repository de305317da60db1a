package org.eventspace.job;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.IdleStrategy;
import org.eventspace.comm.transport.AgentThreads;
import org.eventspace.comm.runtime.HostRuntime;
import org.eventspace.scope.EventScope;
import org.eventspace.scope.ScopeRound;
import java.util.SortedMap;
import java.util.TreeMap;

import org.eventspace.base.stats.RunningStatistics;
import org.eventspace.base.stats.StatisticsSummary;
import org.eventspace.comm.path.SpinYieldPark;
import org.eventspace.scope.filter.FilterResult;
import org.eventspace.scope.filter.StatsResult;

/**
 * A job's event-scope front-end (EventSpace §4: the front-end pulls monitoring data through the scope, nothing moves
 * until somebody reads), as an agent: each duty cycle pulls one round when one is due, adds its counters to the run's
 * totals and keeps the newest result that describes a round with data. Pulling back to back (interval 0) is the
 * paper's continuous gathering, the hardest test of the gather rate (§6, Table 2); after a round that gathered nothing
 * the next is {@link #IDLE_PAUSE_NANOS} away, so an idle scope does not spin a core the ranks need.
 *
 * <p>The default cadence ({@link ScopeSettings#ADAPTIVE}) is back to back while rounds are full. A round that brought
 * fewer than {@link #TARGET_RECORDS_PER_LEAF} records per leaf is followed by a pause that lets about that many
 * accumulate at the rate the last round saw, because a reducing filter's packet has a fixed part (a class's rank list,
 * a histogram's bins): with back-to-back pulls in a fast job each round held a handful of tuples and the class filter
 * sent more bytes up than the tuples themselves (reduction 0.39). The pause never exceeds a quarter of the time the
 * busiest trace buffer takes to fill at that rate ({@link Headroom}), nor {@link #MAX_ADAPTIVE_PAUSE_NANOS}, so the
 * gather rate does not pay for it.
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
    /** Records per leaf a round should bring under the adaptive cadence. */
    static final int TARGET_RECORDS_PER_LEAF = 64;
    /** The longest adaptive pause: a live view that updates at least a hundred times a second. */
    static final long MAX_ADAPTIVE_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /**
     * What bounds an adaptive pause: the leaves a round reads, the collectors that write on every call of one tree
     * (each writes once per call), and the fewest tuples any of their trace buffers holds.
     */
    public record Headroom(int leaves, int collectorsPerTree, int bufferTuples) {
        /** For a scope whose records are not trace tuples (pushed records): the pause is bounded by its maximum only. */
        public static final Headroom UNBOUNDED = new Headroom(1, 1, Integer.MAX_VALUE);

        public Headroom {
            if (leaves < 1 || collectorsPerTree < 1 || bufferTuples < 1) {
                throw new IllegalArgumentException("headroom needs >= 1 leaf, collector and tuple, leaves=" + leaves
                        + ", collectorsPerTree=" + collectorsPerTree + ", bufferTuples=" + bufferTuples);
            }
        }
    }

    /** Rounds a filter's result may lag the round that produced its data (the pipeline's depth, with margin). */
    private static final int PIPELINE_DEPTH = 4;

    private final ScopeSettings settings;
    private final EventScope scope;
    private final long intervalNanos;
    private final Headroom headroom;
    private long lastPullStartNanos;
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
    /** With the stats filter: every round's per-event statistics merged, the whole run's. */
    private final SortedMap<String, RunningStatistics> runStatistics = new TreeMap<>();
    private long lastResultRound = -1;
    private String error;
    private boolean closed;
    /** Records gathered by each recent round: a pipelined filter's result describes an earlier round. */
    private final Map<Long, Long> gatheredByRound = new HashMap<>();

    ScopeFrontEnd(ScopeSettings settings, EventScope scope, Headroom headroom) {
        this.settings = settings;
        this.scope = scope;
        this.headroom = headroom;
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, settings.intervalMs()));
    }

    /** Opens the scope on {@code frontEnd}, its front-end host, and starts pulling in a thread of its own. */
    public static ScopeFrontEnd start(ScopeSettings settings, HostRuntime frontEnd, Headroom headroom) {
        return start(settings, frontEnd, headroom, false);
    }

    /**
     * Opens the scope on {@code frontEnd} and starts the agent's thread, pulling at once or, if {@code paused}, only
     * after {@link #resume()} (a benchmark that measures a floor without the scope first, ToM §5.2).
     */
    public static ScopeFrontEnd start(ScopeSettings settings, HostRuntime frontEnd, Headroom headroom, boolean paused) {
        ScopeFrontEnd agent = openForStepping(settings, EventScope.on(frontEnd), headroom);
        agent.paused = paused;
        // The pause between pulls is kept by doWork's schedule; the idle strategy only decides how a thread with
        // nothing due waits: a few spins and yields, then parks of 1 µs growing to 1 ms.
        IdleStrategy idle = SpinYieldPark.agentIdle(10, 10, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(1));
        agent.runner = AgentThreads.start(new AgentRunner(idle, agent::onError, null, agent));
        return agent;
    }

    /** Opens the scope (INIT) without a thread: the caller steps the agent with {@link #doWork}. */
    static ScopeFrontEnd openForStepping(ScopeSettings settings, EventScope scope, Headroom headroom) {
        ScopeFrontEnd agent = new ScopeFrontEnd(settings, scope, headroom);
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
        long sinceLastPull = lastPullStartNanos == 0 ? 0 : now - lastPullStartNanos;
        lastPullStartNanos = now;
        ScopeRound round = pullOnce();
        long pause;
        if (intervalNanos > 0) {
            pause = intervalNanos;
        } else if (round.recordsGathered() == 0) {
            pause = IDLE_PAUSE_NANOS;
        } else if (settings.adaptive()) {
            pause = adaptivePause(round.recordsGathered(), round.recordsProduced(), sinceLastPull, round.roundNanos(), headroom);
        } else {
            pause = 0;
        }
        nextPullNanos = System.nanoTime() + pause;
        return 1;
    }

    /**
     * The adaptive cadence's pause after a round that gathered {@code gathered} of the {@code produced} records written
     * in the {@code elapsedNanos} since the previous round started: long enough for {@link #TARGET_RECORDS_PER_LEAF}
     * per leaf at that rate, at most a quarter of the time the busiest buffer takes to fill (less the round's own time),
     * at most {@link #MAX_ADAPTIVE_PAUSE_NANOS}; 0 when the round was full or the rate is unknown.
     */
    static long adaptivePause(long gathered, long produced, long elapsedNanos, long roundNanos, Headroom headroom) {
        long target = (long) TARGET_RECORDS_PER_LEAF * headroom.leaves();
        if (gathered >= target || produced <= 0 || elapsedNanos <= 0) {
            return 0;
        }
        double perNano = (double) produced / elapsedNanos;
        double wait = (target - gathered) / perNano;
        // Each collector of a tree writes once per call of that tree: the busiest buffer fills at about this rate.
        double perBufferPerNano = perNano / headroom.collectorsPerTree();
        double fill = headroom.bufferTuples() / perBufferPerNano;
        double bound = Math.min(fill / 4 - roundNanos, MAX_ADAPTIVE_PAUSE_NANOS);
        return (long) Math.max(0, Math.min(wait, bound));
    }

    /** The agent's error handler: a failed round ends the front-end, its error saying how long earlier rounds took. */
    void onError(Throwable failure) {
        if (failure instanceof AgentTerminationException) {
            return;
        }
        synchronized (this) {
            if (error == null) {
                // How long the rounds before it took says whether the timeout was too short for this machine (rounds
                // close to it) or something broke (rounds far below it).
                error = "scope round failed: " + failure.getMessage() + (rounds == 0 ? " (no round had completed)"
                        : String.format(Locale.ROOT, " (the %d rounds before it took %.1f s on average; the scope's"
                        + " timeout is the job's --timeout unless the scope sets its own)", rounds,
                        roundNanos / 1e9 / rounds));
            }
        }
        // A failed round ends the front-end: the scope's state after a partial round is unknown.
        stopRequested = true;
    }

    /**
     * Has {@code listener} called with every round from the next on, on the pulling thread, after the round's counters
     * are added (the final pulls of {@link #stop} included): a front-end analysis consumes each round's records there
     * (the centralised analysis of the EventSpace paper §4.3). Register it before the ranks start, or the rounds before
     * it are not seen. An exception it throws fails the front-end as a failed round would.
     */
    public void onRound(java.util.function.Consumer<ScopeRound> listener) {
        roundListener = listener;
    }

    private volatile java.util.function.Consumer<ScopeRound> roundListener;

    /** One round: pull, add its counters to the totals, hand it to the listener. */
    private ScopeRound pullOnce() {
        ScopeRound r = scope.pull();
        try {
            return count(r);
        } finally {
            java.util.function.Consumer<ScopeRound> listener = roundListener;
            if (listener != null) {
                listener.accept(r);
            }
        }
    }

    private ScopeRound count(ScopeRound r) {
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
            if (r.result() instanceof StatsResult stats) {
                // Population sd: M2 = sd² × count, merged exactly (Chan, Golub, LeVeque 1979).
                stats.events().forEach((event, e) -> runStatistics.computeIfAbsent(event, k -> new RunningStatistics())
                        .merge(e.count(), e.mean(), e.sd() * e.sd() * e.count(), e.min(), e.max()));
            }
        }
        return r;
    }

    /** Starts pulling after a {@linkplain #start(ScopeSettings, HostRuntime, boolean) paused start}. Any thread. */
    public void resume() {
        paused = false;
    }

    /** What the front-end has seen so far. Any thread, any time. */
    public synchronized ScopeSnapshot snapshot() {
        return new ScopeSnapshot(settings, rounds, produced, gathered, dropped, rawBytes, bytesPerLevel, roundNanos,
                lastResultRound, lastResult, runSummaries(), error, closed);
    }

    private SortedMap<String, StatisticsSummary> runSummaries() {
        SortedMap<String, StatisticsSummary> out = new TreeMap<>();
        runStatistics.forEach((event, stats) -> out.put(event, stats.summary()));
        return out;
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
            ended = AgentThreads.awaitEnd(runner, Duration.ofMillis(timeoutMillis));
            if (!ended) {
                runner.thread().interrupt();
                recordError("the scope front-end did not finish its round within " + timeoutMillis + " ms");
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
