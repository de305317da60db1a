package org.eventspace.sim;

import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;

/**
 * The discrete-event core: simulated time, the event queue, and one CPU scheduler per machine that shares cores the
 * way Linux does since 6.6 (EEVDF, "earliest eligible virtual deadline first").
 *
 * <p>What it models is what decides a collective's latency once threads outnumber cores. A thread holds a core while
 * it computes or spins. Each ready thread has used some CPU (its virtual runtime) and has a virtual deadline one time
 * slice beyond it; a freed core goes to the thread with the earliest deadline among the eligible ones, those that have
 * used no more than the average of the threads competing. A yielding waiter pushes its own deadline a slice further,
 * so the others go first; a parked waiter is off the queue until another thread unparks it, which costs the waker
 * {@link Costs#unparkNs()} and the woken {@link Costs#switchNs()}, and it comes back with the lag it left with (what
 * it was owed, or owed others). A spinning thread keeps its core for a time slice ({@link Costs#quantumNs()}) while
 * others wait. Each context switch costs more as the threads ready to run grow ({@link Costs#switchAmong}).
 *
 * <p>All threads have the same weight (nice 0). Not modelled: wake-up preemption of a thread that computes (our
 * threads compute for microseconds, far below a slice), several run queues (one queue per machine, as if the
 * kernel's load balancing were perfect).
 *
 * <p>A thread's behaviour is a chain of continuations: each step ends by calling exactly one of {@link #cpu},
 * {@link #await} or {@link #finish} for that thread. Not thread-safe: one simulation runs in one Java thread.
 */
final class Scheduler {
    /** How a waiting thread waits: the product's spin, yield, park phases. */
    record Waiting(int spins, int yields) {
    }

    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private long now;
    private long sequence;
    private long processed;
    private long threadIds;
    /** Context switches (a core taking another thread than it ran last) and parks, as the kernel counts them. */
    long switches;
    long parks;

    long now() {
        return now;
    }

    long eventsProcessed() {
        return processed;
    }

    void at(long time, Runnable action) {
        events.add(new Event(Math.max(time, now), sequence++, action));
    }

    /** Runs events until none is left or {@code stop} says so; returns false if {@code maxEvents} ran out first. */
    boolean run(long maxEvents, BooleanSupplier stop) {
        while (!events.isEmpty() && !stop.getAsBoolean()) {
            if (processed++ >= maxEvents) {
                return false;
            }
            Event e = events.poll();
            now = e.time;
            e.action.run();
        }
        return true;
    }

    private record Event(long time, long seq, Runnable action) implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            int c = Long.compare(time, o.time);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    enum State { NEW, RUN, SPIN, YIELD_ALONE, READY, PARKED, DONE }

    /** What a ready thread does when it gets a core. */
    enum Pending { RESUME, YIELD_TURN, SPIN_ON, START }

    /** A simulated thread. */
    final class SimThread {
        final String name;
        final Machine machine;
        /** How it waits in its current (or last) wait. */
        Waiting waiting;
        final long id = threadIds++;
        State state = State.NEW;
        Pending pending;
        Runnable next;
        boolean signalled;
        int yieldsLeft;
        long spinLeft;
        long onCoreSince;
        int core = -1;
        int version;
        /** CPU used (ns): the scheduler's measure of what a thread has had. */
        long vruntime;
        /** Its virtual deadline: vruntime at its last slice's start plus a slice. */
        long deadline;
        /** What it was owed (positive) when it left the queue to park: given back when it returns. */
        long lag;
        /** Whether it counts in its machine's average (ready or on a core). */
        boolean competing;
        /** Model data the owner hangs on it (the path state of a rank or a service thread). */
        Object owner;

        SimThread(String name, Machine machine, Waiting waiting) {
            this.name = name;
            this.machine = machine;
            this.waiting = waiting;
        }

        @Override
        public String toString() {
            return name + "[" + state + "]";
        }
    }

    private static final Comparator<SimThread> BY_DEADLINE = Comparator.<SimThread>comparingLong(t -> t.deadline)
            .thenComparingLong(t -> t.id);

    /** A machine: its cores and their ready threads. */
    final class Machine {
        final int id;
        final Costs costs;
        final SimThread[] running;
        /** The thread each core ran last: a thread picked again after its yield costs no switch. */
        final SimThread[] last;
        final TreeSet<SimThread> ready = new TreeSet<>(BY_DEADLINE);
        /** The time slice (ns): a deadline's distance from the slice's start. */
        final long sliceNs;
        /** Sum and count of the competing threads' vruntimes: their average decides who is eligible. */
        private double sumVruntime;
        private int competing;
        /** CPU spent in {@link #cpu} bursts: work, switches and yields that handed the core on (not spinning). */
        long busyNs;

        Machine(int id, Costs costs, int cores) {
            this.id = id;
            this.costs = costs;
            this.running = new SimThread[cores];
            this.last = new SimThread[cores];
            this.sliceNs = Math.max(1, Math.round(costs.quantumNs()));
        }

        long average() {
            return competing == 0 ? 0 : Math.round(sumVruntime / competing);
        }

        void join(SimThread t) {
            if (!t.competing) {
                t.competing = true;
                sumVruntime += t.vruntime;
                competing++;
            }
        }

        void leave(SimThread t) {
            if (t.competing) {
                t.competing = false;
                sumVruntime -= t.vruntime;
                competing--;
            }
        }

        void charge(SimThread t, long ns) {
            t.vruntime += ns;
            if (t.competing) {
                sumVruntime += ns;
            }
            if (t.vruntime >= t.deadline) {
                t.deadline = t.vruntime + sliceNs;
            }
        }
    }

    SimThread thread(String name, Machine m, Waiting waiting) {
        return new SimThread(name, m, waiting);
    }

    /** Starts {@code t} with {@code first} as soon as it gets a core. */
    void start(SimThread t, Runnable first) {
        Machine m = t.machine;
        t.next = first;
        t.pending = Pending.START;
        t.vruntime = m.average();
        // A new thread gets half a slice to its first deadline (EEVDF's PLACE_DEADLINE_INITIAL).
        t.deadline = t.vruntime + m.sliceNs / 2;
        enqueue(t);
    }

    /** {@code t}, on its core, computes for {@code ns}, then runs {@code then}. */
    void cpu(SimThread t, double ns, Runnable then) {
        long d = Math.round(ns);
        if (d <= 0) {
            then.run();
            return;
        }
        t.machine.busyNs += d;
        t.machine.charge(t, d);
        t.state = State.RUN;
        int v = ++t.version;
        at(now + d, () -> {
            if (t.version == v) {
                then.run();
            }
        });
    }

    /** {@code t} ends: its core goes to the next ready thread. */
    void finish(SimThread t) {
        t.state = State.DONE;
        t.machine.leave(t);
        release(t);
    }

    /** As {@link #await(SimThread, Waiting, Runnable)} the way {@code t} waited last (or was made with). */
    void await(SimThread t, Runnable then) {
        await(t, t.waiting, then);
    }

    /**
     * {@code t} waits, the way {@code how} says, until {@link #signal} is called for it (at once if that already
     * happened), then runs {@code then} on a core.
     */
    void await(SimThread t, Waiting how, Runnable then) {
        t.waiting = how;
        if (t.signalled) {
            t.signalled = false;
            then.run();
            return;
        }
        t.next = then;
        startSpin(t, t.waiting.spins() * t.machine.costs.spinNs());
    }

    private void startSpin(SimThread t, double spinNs) {
        t.spinLeft = Math.round(spinNs);
        if (t.spinLeft <= 0) {
            startYields(t);
            return;
        }
        t.state = State.SPIN;
        long slice = t.machine.ready.isEmpty() ? t.spinLeft : Math.min(t.spinLeft, t.machine.sliceNs);
        t.onCoreSince = now;
        int v = ++t.version;
        at(now + slice, () -> {
            if (t.version == v) {
                t.spinLeft -= slice;
                t.machine.charge(t, slice);
                if (t.spinLeft > 0) {
                    // The time slice ended while others wait: back to the queue, still spinning.
                    t.pending = Pending.SPIN_ON;
                    requeue(t);
                } else {
                    startYields(t);
                }
            }
        });
    }

    private void startYields(SimThread t) {
        t.yieldsLeft = t.waiting.yields();
        continueYields(t);
    }

    private void continueYields(SimThread t) {
        if (t.yieldsLeft <= 0) {
            park(t);
            return;
        }
        Machine m = t.machine;
        if (m.ready.isEmpty()) {
            // Nobody else wants a core: each yield returns at once, a system call; the thread polls on its core.
            t.state = State.YIELD_ALONE;
            t.onCoreSince = now;
            long span = Math.round(t.yieldsLeft * m.costs.yieldAloneNs());
            int v = ++t.version;
            at(now + span, () -> {
                if (t.version == v) {
                    m.charge(t, span);
                    t.yieldsLeft = 0;
                    park(t);
                }
            });
        } else {
            // A yield pushes the yielder's deadline a slice on: the others go first.
            t.pending = Pending.YIELD_TURN;
            t.deadline += m.sliceNs;
            requeue(t);
        }
    }

    private void park(SimThread t) {
        parks++;
        Machine m = t.machine;
        t.state = State.PARKED;
        t.version++;
        t.lag = Math.max(-m.sliceNs, Math.min(m.sliceNs, m.average() - t.vruntime));
        m.leave(t);
        release(t);
    }

    /**
     * Makes {@code t}'s wait end (or its next wait return at once). Returns the CPU the signalling thread spends on
     * it: an unpark if {@code t} was parked, nothing otherwise; the caller charges it with {@link #cpu}.
     */
    double signal(SimThread t) {
        switch (t.state) {
            case SPIN -> {
                resumeOnCore(t, 0);
                return 0;
            }
            case YIELD_ALONE -> {
                // It sees the flag at its next yield's return.
                resumeOnCore(t, Math.round(t.machine.costs.yieldAloneNs() / 2));
                return 0;
            }
            case PARKED -> {
                Machine m = t.machine;
                // Back with the lag it left with (EEVDF's place_entity), a fresh slice to its deadline.
                t.vruntime = m.average() - t.lag;
                t.deadline = t.vruntime + m.sliceNs;
                t.pending = Pending.RESUME;
                enqueue(t);
                return m.costs.unparkNs();
            }
            default -> {
                // Running (not yet waiting), or in the queue for a yield or a slice: it sees the flag when it looks.
                t.signalled = true;
                return 0;
            }
        }
    }

    /** {@code t}, polling on its core, sees its signal {@code afterNs} from now and goes on with its wait's sequel. */
    private void resumeOnCore(SimThread t, long afterNs) {
        t.machine.charge(t, now - t.onCoreSince);
        t.state = State.RUN;
        int v = ++t.version;
        Runnable then = t.next;
        at(now + afterNs, () -> {
            if (t.version == v) {
                then.run();
            }
        });
    }

    /** Puts a thread that leaves its core back among the ready ones, and gives the core to the next. */
    private void requeue(SimThread t) {
        Machine m = t.machine;
        int core = t.core;
        t.state = State.READY;
        t.core = -1;
        m.ready.add(t);
        m.running[core] = null;
        dispatch(m, core, false);
    }

    private void release(SimThread t) {
        Machine m = t.machine;
        int core = t.core;
        t.core = -1;
        if (core >= 0) {
            m.running[core] = null;
            dispatch(m, core, false);
        }
    }

    /**
     * A thread becomes ready: a free core takes it; else a core whose thread only polls by yielding; else it waits
     * among the ready, and a spinner keeps its core to the end of its slice only.
     */
    private void enqueue(SimThread t) {
        Machine m = t.machine;
        t.state = State.READY;
        m.join(t);
        m.ready.add(t);
        for (int c = 0; c < m.running.length; c++) {
            if (m.running[c] == null) {
                dispatch(m, c, true);
                return;
            }
        }
        for (int c = 0; c < m.running.length; c++) {
            SimThread r = m.running[c];
            if (r.state == State.YIELD_ALONE) {
                // It polled alone until now: those yields are spent; the rest it yields among the others, or it parks.
                long used = (long) ((now - r.onCoreSince) / Math.max(1e-9, m.costs.yieldAloneNs()));
                m.charge(r, now - r.onCoreSince);
                r.yieldsLeft -= (int) Math.min(r.yieldsLeft, used);
                r.version++;
                continueYields(r);
                return;
            }
        }
        for (int c = 0; c < m.running.length; c++) {
            SimThread r = m.running[c];
            if (r.state == State.SPIN) {
                long end = Math.max(now, r.onCoreSince + m.sliceNs);
                long spun = end - r.onCoreSince;
                if (spun < r.spinLeft) {
                    int v = ++r.version;
                    at(end, () -> {
                        if (r.version == v) {
                            r.spinLeft -= spun;
                            m.charge(r, spun);
                            r.pending = Pending.SPIN_ON;
                            requeue(r);
                        }
                    });
                }
            }
        }
    }

    /** The eligible ready thread (vruntime at most the average) with the earliest deadline; else the earliest. */
    private SimThread pick(Machine m) {
        if (m.ready.isEmpty()) {
            return null;
        }
        long average = m.average();
        for (SimThread t : m.ready) {
            if (t.vruntime <= average) {
                m.ready.remove(t);
                return t;
            }
        }
        return m.ready.pollFirst();
    }

    /**
     * Gives {@code core} to the next thread. {@code idle}: the core had nothing to run, so a thread resumed from a park
     * pays for waking a halted CPU ({@link Costs#switchNs()}, what the calibration's park/unpark ping-pong between two
     * otherwise idle threads measures); on a core another thread just left, a resume is a switch between ready threads,
     * a yield's worth.
     */
    private void dispatch(Machine m, int core, boolean idle) {
        SimThread t = pick(m);
        if (t == null) {
            return;
        }
        m.running[core] = t;
        t.core = core;
        boolean again = m.last[core] == t;
        m.last[core] = t;
        if (!again) {
            switches++;
        }
        // A switch among more ready threads costs more: their stacks and scheduler state crowd the caches.
        int runnable = m.ready.size() + m.running.length;
        // At least a nanosecond: a dispatch is an event, never a call within the caller's (costs of 0 would recurse).
        double yieldNs = Math.max(1, again ? m.costs.yieldAloneNs() : m.costs.switchAmong(m.costs.yieldNs(), runnable));
        double switchNs = Math.max(1, m.costs.switchAmong(m.costs.switchNs(), runnable));
        switch (t.pending) {
            case START -> cpu(t, switchNs, t.next);
            case RESUME -> cpu(t, idle ? switchNs : Math.max(1, m.costs.switchAmong(m.costs.yieldNs(), runnable)),
                    takeNext(t));
            case SPIN_ON -> {
                if (t.signalled) {
                    t.signalled = false;
                    cpu(t, yieldNs, takeNext(t));
                } else {
                    // Back from the queue: the switch is a yield's worth.
                    long left = t.spinLeft;
                    cpu(t, yieldNs, () -> startSpin(t, left));
                }
            }
            case YIELD_TURN -> cpu(t, yieldNs, () -> {
                if (t.signalled) {
                    t.signalled = false;
                    takeNext(t).run();
                } else {
                    t.yieldsLeft--;
                    continueYields(t);
                }
            });
        }
    }

    private Runnable takeNext(SimThread t) {
        Runnable then = t.next;
        t.signalled = false;
        return then;
    }
}
