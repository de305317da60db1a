package org.eventspace.wan;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.NanoClock;
import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.SpinYieldPark;

/**
 * The one scheduler thread of a gateway host (dissertation §8.1 §III, Figure 2): messages crossing the gateway's
 * outgoing links wait here, and this agent wakes each at its due time. The Longcut paper started with one spinning
 * thread per connection and found that many spinning threads lost accuracy; it moved to one spinner that wakes the
 * others. Here the callers park and one agent (role {@code es-longcut-<host>}) keeps the schedule.
 *
 * <p>How a message waits: its thread stamps its arrival, puts its {@link Waiter} (one per connection, made when the
 * path is built) on a preallocated many-to-one queue (Agrona) and parks; the agent drains the queue, computes each
 * message's due time with the link's {@link LinkSchedule} (it is the only thread that touches link state, so no lock),
 * appends it to the link's FIFO (due times on a link never decrease, so the head is always the next due), and on every
 * duty cycle releases the heads that are due. Nothing is allocated per message.
 *
 * <p>How the agent waits (a deliberate difference from the paper, whose spinner spun all the time): with nothing
 * queued it parks until a caller unparks it; with messages queued it parks until {@code spinWindow} before the
 * earliest due time and spins (onSpinWait) through that window, so a gateway costs a core only in the last stretch
 * before a release, and machines with few cores keep room for the ranks. Its parks are {@link SpinYieldPark}'s; the
 * spin through the window is the one wait that does not follow a policy's phases (SpinYieldPark says why): it ends
 * when the clock reaches a due time, which no step count or condition expresses, and a park's wake-up (tens of µs
 * late) would add its lateness to every emulated latency. A held message's thread parks through
 * {@link SpinYieldPark#park} without spinning or yielding first: the agent unparks it at its due time, which is
 * milliseconds away as a rule, and a spinning caller would take the core the agent needs to be on time.
 *
 * <p>Thread-safety: {@link #register} during a host's build (one thread); {@link Waiter#delay} from any thread, each
 * waiter by one thread at a time; {@link #doWork} by the agent's thread only (or a test stepping it).
 */
public final class GatewayScheduler implements Agent {
    /** Most connections (Longcut wrappers) one gateway serves: sizes its queue and FIFOs once. */
    public static final int MAX_WAITERS = 4096;
    /** Default stretch before a due time in which the agent spins instead of parking. */
    public static final long DEFAULT_SPIN_WINDOW_NS = 200_000;
    /** Longest the agent parks at a time with nothing queued: how soon it notices {@link #close()} at worst. */
    private static final long IDLE_PARK_NS = 5_000_000;

    private final String host;
    private final NanoClock clock;
    private final long spinWindowNs;
    private final long timeoutNs;
    private final List<LinkSchedule> links = new ArrayList<>();
    private final Map<String, Integer> linkIndex = new HashMap<>();
    private final ManyToOneConcurrentArrayQueue<Waiter> submitted = new ManyToOneConcurrentArrayQueue<>(MAX_WAITERS);
    private Fifo[] fifos = new Fifo[0];
    private final List<Waiter> waiters = new ArrayList<>();
    private volatile Thread thread;
    private volatile boolean closed;
    private long nextDueNs = Long.MAX_VALUE;
    private long released;
    private long releaseLateNs;
    private long releaseLateMaxNs;

    /**
     * @param host         the gateway's host name (thread and message names).
     * @param links        the links leaving the gateway's site, all sharing one epoch.
     * @param clock        the clock due times are read on.
     * @param spinWindowNs how long before a due time the agent stops parking and spins.
     * @param timeoutNs    how long a message may wait before its caller gives up (the job's collective timeout).
     */
    public GatewayScheduler(String host, List<LinkSchedule> links, NanoClock clock, long spinWindowNs, long timeoutNs) {
        this.host = host;
        this.clock = clock;
        this.spinWindowNs = spinWindowNs;
        this.timeoutNs = timeoutNs;
        for (LinkSchedule link : links) {
            if (linkIndex.putIfAbsent(link.link().name(), this.links.size()) != null) {
                throw new IllegalArgumentException("gateway " + host + " got link " + link.link().name() + " twice");
            }
            this.links.add(link);
        }
        fifos = new Fifo[this.links.size()];
        for (int i = 0; i < fifos.length; i++) {
            fifos[i] = new Fifo();
        }
    }

    @Override
    public String roleName() {
        return "es-longcut-" + host;
    }

    /** The index of the outgoing link {@code from>to}, for {@link Waiter#delay}. */
    public int link(String name) {
        Integer i = linkIndex.get(name);
        if (i == null) {
            throw new IllegalArgumentException("gateway " + host + " has no outgoing link " + name + "; it has "
                    + linkIndex.keySet());
        }
        return i;
    }

    /** A waiter for one connection through this gateway; call during the host's build, or as a point-to-point path is built. */
    public synchronized Waiter register() {
        if (waiters.size() >= MAX_WAITERS) {
            throw new IllegalStateException("gateway " + host + " serves at most " + MAX_WAITERS + " connections");
        }
        Waiter w = new Waiter();
        waiters.add(w);
        return w;
    }

    /** The thread the agent runs on, so callers can wake it; set by the runner's first duty cycle. */
    @Override
    public void onStart() {
        thread = Thread.currentThread();
    }

    @Override
    public int doWork() {
        if (closed) {
            throw new AgentTerminationException();
        }
        int work = 0;
        Waiter w;
        while ((w = submitted.poll()) != null) {
            w.dueNs = links.get(w.link).schedule(w.arrivalNs, w.bytes);
            fifos[w.link].add(w);
            work++;
        }
        long now = clock.nanoTime();
        long next = Long.MAX_VALUE;
        for (Fifo fifo : fifos) {
            Waiter head;
            while ((head = fifo.peek()) != null && head.dueNs - now <= 0) {
                fifo.poll();
                long late = now - head.dueNs;
                releaseLateNs += late;
                releaseLateMaxNs = Math.max(releaseLateMaxNs, late);
                released++;
                head.release();
                work++;
            }
            if (head != null && head.dueNs < next) {
                next = head.dueNs;
            }
        }
        nextDueNs = next;
        if (work == 0 && thread == Thread.currentThread()) {
            idle(now);
        }
        return work;
    }

    /** Parks until {@code spinWindow} before the next due time (or until a caller wakes it), else spins once. */
    private void idle(long now) {
        if (nextDueNs == Long.MAX_VALUE) {
            SpinYieldPark.park(this, SpinYieldPark.NO_DEADLINE, IDLE_PARK_NS);
        } else if (nextDueNs - now > spinWindowNs) {
            SpinYieldPark.park(this, SpinYieldPark.NO_DEADLINE, Math.min(IDLE_PARK_NS, nextDueNs - now - spinWindowNs));
        } else {
            // The documented exception to SpinYieldPark's phases: spin until the clock reaches the due time.
            Thread.onSpinWait();
        }
    }

    /** Ends the agent at its next duty cycle and fails every message still waiting. */
    public void close() {
        closed = true;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
        for (Waiter w : snapshotWaiters()) {
            LockSupport.unpark(w.thread);
        }
    }

    private synchronized List<Waiter> snapshotWaiters() {
        return new ArrayList<>(waiters);
    }

    /** What this gateway did so far; read after the messages stopped for exact figures. */
    public synchronized Stats stats() {
        long lateSum = 0;
        long lateMax = 0;
        long woken = 0;
        for (Waiter w : waiters) {
            lateSum += w.wakeLateNs;
            lateMax = Math.max(lateMax, w.wakeLateMaxNs);
            woken += w.woken;
        }
        List<LinkStats> perLink = new ArrayList<>();
        for (LinkSchedule l : links) {
            perLink.add(new LinkStats(l.link().name(), l.messages(), l.bytes(), l.queuedNs()));
        }
        return new Stats(host, released, released == 0 ? 0 : releaseLateNs / released, releaseLateMaxNs,
                woken == 0 ? 0 : lateSum / woken, lateMax, perLink);
    }

    /**
     * A gateway's figures: messages released, how late the agent released them after their due time (mean, max) and
     * how late their threads ran after it (mean, max, ns), and per link the messages, bytes and queueing.
     */
    public record Stats(String host, long released, long releaseLateMeanNs, long releaseLateMaxNs, long wakeLateMeanNs,
                        long wakeLateMaxNs, List<LinkStats> links) {
    }

    /** One outgoing link's messages, bytes and time spent waiting for the wire (ns, summed). */
    public record LinkStats(String link, long messages, long bytes, long queuedNs) {
    }

    /**
     * One connection's place in the schedule: the thread of that connection parks in {@link #delay} until the agent
     * releases it at the message's due time. One thread at a time; preallocated, reused for every message.
     */
    public final class Waiter {
        private Thread thread;
        private long arrivalNs;
        private long bytes;
        private int link;
        private long dueNs;
        private long turn;
        private volatile long releasedTurn;
        /** Set once a message of this connection timed out or found the gateway closed: the connection is broken. */
        private boolean broken;
        private long woken;
        private long wakeLateNs;
        private long wakeLateMaxNs;

        private Waiter() {
        }

        void release() {
            releasedTurn = turn;
            LockSupport.unpark(thread);
        }

        /**
         * Delays the calling thread as message of {@code size} bytes crossing outgoing link {@code link} would be:
         * returns at its due time (or as soon after as the scheduler and the OS let it run).
         *
         * @return the due time the link's schedule gave the message.
         * @throws CommException if the gateway closed, or the message was not released within the timeout.
         */
        public long delay(int link, long size) {
            if (broken) {
                // A message that gave up may still sit in the agent's queue or FIFO, and would be taken for the next.
                throw new CommException("gateway " + host + ": an earlier message of this connection was not released; "
                        + "the connection is broken");
            }
            thread = Thread.currentThread();
            arrivalNs = clock.nanoTime();
            bytes = size;
            this.link = link;
            long myTurn = ++turn;
            if (!submitted.offer(this)) {
                throw new CommException("gateway " + host + ": more than " + MAX_WAITERS + " messages waiting");
            }
            Thread agent = GatewayScheduler.this.thread;
            if (agent != null) {
                LockSupport.unpark(agent);
            }
            long deadline = arrivalNs + timeoutNs;
            while (releasedTurn != myTurn) {
                if (closed) {
                    broken = true;
                    throw new CommException("gateway " + host + " closed while a message waited on link "
                            + links.get(link).link().name());
                }
                long now = clock.nanoTime();
                if (now - deadline >= 0) {
                    broken = true;
                    throw new CommException("gateway " + host + ": a message on link " + links.get(link).link().name()
                            + " was not released within " + timeoutNs / 1_000_000 + " ms");
                }
                // The deadline is on the scheduler's clock (a test may step it), so the waiter checks it itself.
                SpinYieldPark.park(this, SpinYieldPark.NO_DEADLINE, Math.min(deadline - now, IDLE_PARK_NS));
            }
            long late = clock.nanoTime() - dueNs;
            woken++;
            wakeLateNs += late;
            wakeLateMaxNs = Math.max(wakeLateMaxNs, late);
            return dueNs;
        }
    }

    /** A link's waiting messages in arrival order (= due order); the agent's alone. */
    private static final class Fifo {
        private final Waiter[] ring = new Waiter[MAX_WAITERS];
        private int head;
        private int size;

        void add(Waiter w) {
            ring[(head + size) % ring.length] = w;
            size++;
        }

        Waiter peek() {
            return size == 0 ? null : ring[head];
        }

        void poll() {
            ring[head] = null;
            head = (head + 1) % ring.length;
            size--;
        }
    }
}
