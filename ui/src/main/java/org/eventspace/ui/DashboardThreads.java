package org.eventspace.ui;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eventspace.base.os.LowestPriority;

/**
 * The dashboard's own threads — the HTTP pool (Jetty's acceptor, selector and the threads that answer), the sampler and
 * the streamer — at the lowest priority of Linux's normal class ({@link LowestPriority}, nice 19), and a count of which
 * got there.
 *
 * <p>Why: the job's ranks meet in an allreduce every iteration, so a dashboard thread that wakes and takes a core from
 * one rank at equal weight holds up every rank (docs/BENCHMARKS.md, "50 clients polling"). The EventSpace paper's
 * coscheduling (§4.3) puts the front-end's work after the application's; at nice 19 a request is served in the time the
 * ranks leave, as the coscheduled analysis threads are. Each thread lowers itself once, when it starts, never per request.
 *
 * <p>Thread-safe: {@link #enter()} is called by each thread as it starts; the counts may be read from any thread.
 */
final class DashboardThreads {
    /**
     * HTTP threads, fixed: Jetty's acceptor and selector lease one each, six answer requests (they only copy bytes). Six,
     * not two: a client that stops reading holds its thread in a blocking write until Jetty's idle timeout, and a few
     * such browsers must not stall everyone's answers; an idle thread costs nothing.
     */
    static final int HTTP_THREADS = 8;
    /** Name prefix of the HTTP pool's threads ({@code -<id>} follows). */
    static final String HTTP_NAME = "es-dashboard-http";

    private final AtomicInteger started = new AtomicInteger();
    private final AtomicInteger lowered = new AtomicInteger();
    private volatile String problem;

    /** Lowers the calling thread to nice 19 and counts it; what went wrong is kept for {@link #problem()}. */
    void enter() {
        started.incrementAndGet();
        String why = LowestPriority.enter();
        if (why == null) {
            lowered.incrementAndGet();
        } else {
            problem = why;
        }
    }

    /** Dashboard threads started so far (a thread that ended still counts). */
    int threads() {
        return started.get();
    }

    /** Of {@link #threads()}, how many run at nice 19. */
    int lowestPriorityThreads() {
        return lowered.get();
    }

    /** Why the last thread that failed to lower itself did not, or null if none failed. */
    String problem() {
        return problem;
    }

    /** Wraps {@code body} so that it first lowers its thread. */
    Runnable lowered(Runnable body) {
        return () -> {
            enter();
            body.run();
        };
    }

    /**
     * Jetty's pool for the dashboard: {@link #HTTP_THREADS} threads made at start and kept (no growth, no idle
     * shrinking, no reserved-thread handoff), each lowered to nice 19 before its first task. Jetty's default (8 to 200
     * threads, threads made and ended as load varies) is for a server with a machine of its own.
     */
    QueuedThreadPool httpPool() {
        // A factory of our own replaces the pool's, which is what names its threads and makes them daemons.
        ThreadFactory factory = r -> {
            Thread t = new Thread(lowered(r));
            t.setName(HTTP_NAME + "-" + t.getId());
            t.setDaemon(true);
            return t;
        };
        // max = min: all made at start, none ended for idling; 0 reserved threads: a request runs on the thread the
        // selector hands it to, without a second wake-up.
        QueuedThreadPool pool = new QueuedThreadPool(HTTP_THREADS, HTTP_THREADS, 60_000, 0, null, null, factory);
        pool.setName(HTTP_NAME);
        pool.setDaemon(true);
        return pool;
    }
}
