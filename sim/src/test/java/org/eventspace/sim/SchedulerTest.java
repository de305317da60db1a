package org.eventspace.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.eventspace.sim.Scheduler.Machine;
import org.eventspace.sim.Scheduler.SimThread;
import org.eventspace.sim.Scheduler.Waiting;
import org.junit.jupiter.api.Test;

class SchedulerTest {
    private static final Costs C = Costs.of("t", 1, Map.of("switch_ns", 100.0, "unpark_ns", 300.0, "yield_ns", 50.0,
            "yield_alone_ns", 10.0, "spin_ns", 1.0));

    @Test
    void twoThreadsOnOneCoreTakeTurns() {
        Scheduler s = new Scheduler();
        Machine m = s.new Machine(0, C, 1);
        List<Long> ends = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            SimThread t = s.thread("t" + i, m, new Waiting(0, 0));
            s.start(t, () -> s.cpu(t, 1_000, () -> {
                ends.add(s.now());
                s.finish(t);
            }));
        }
        s.run(1_000, () -> false);
        // Each starts with a switch onto the core, then computes; the second waits for the first.
        assertThat(ends).containsExactly(1_100L, 2_200L);
    }

    @Test
    void anUnparkCostsTheWakerAndTheWokenResumesAfterASwitch() {
        Scheduler s = new Scheduler();
        Machine m = s.new Machine(0, C, 2);
        long[] woke = new long[1];
        SimThread sleeper = s.thread("sleeper", m, new Waiting(0, 0));
        s.start(sleeper, () -> s.await(sleeper, () -> {
            woke[0] = s.now();
            s.finish(sleeper);
        }));
        SimThread waker = s.thread("waker", m, new Waiting(0, 0));
        s.start(waker, () -> s.cpu(waker, 5_000, () -> s.cpu(waker, s.signal(sleeper), () -> s.finish(waker))));
        s.run(1_000, () -> false);
        // The sleeper parked at 100 (no spins, no yields); the waker signals at 5 100 and the sleeper runs after its
        // switch back in.
        assertThat(woke[0]).isEqualTo(5_100 + 100);
        assertThat(m.busyNs).isEqualTo(100 + 100 + 5_000 + 300 + 100);
    }

    @Test
    void aSpinnerWithACoreOfItsOwnSeesTheSignalAtOnce() {
        Scheduler s = new Scheduler();
        Machine m = s.new Machine(0, C, 2);
        long[] woke = new long[1];
        SimThread spinner = s.thread("spinner", m, new Waiting(1_000_000, 0));
        s.start(spinner, () -> s.await(spinner, () -> {
            woke[0] = s.now();
            s.finish(spinner);
        }));
        SimThread other = s.thread("other", m, new Waiting(0, 0));
        s.start(other, () -> s.cpu(other, 2_000, () -> s.cpu(other, s.signal(spinner),
                () -> s.finish(other))));
        s.run(1_000, () -> false);
        assertThat(woke[0]).isEqualTo(2_100);
    }

    /**
     * A worker parked on a one-core machine with {@code pollers} threads that yield while they wait for a signal that
     * never comes, woken at 1 ms by a thread of another machine; when the worker's 1 µs of work ended.
     */
    private static long workerDoneAmong(int pollers) {
        Scheduler s = new Scheduler();
        Machine m = s.new Machine(0, C, 1);
        Machine other = s.new Machine(1, C, 1);
        long[] workerDone = new long[1];
        SimThread worker = s.thread("worker", m, new Waiting(0, 0));
        s.start(worker, () -> s.await(worker, () -> s.cpu(worker, 1_000, () -> {
            workerDone[0] = s.now();
            s.finish(worker);
        })));
        for (int i = 0; i < pollers; i++) {
            SimThread p = s.thread("poller" + i, m, new Waiting(0, 1_000_000));
            s.start(p, () -> s.await(p, () -> s.finish(p)));
        }
        SimThread waker = s.thread("waker", other, new Waiting(0, 0));
        s.start(waker, () -> s.cpu(waker, 1_000_000, () -> s.cpu(waker, s.signal(worker), () -> s.finish(waker))));
        s.run(10_000_000, () -> workerDone[0] > 0);
        return workerDone[0];
    }

    @Test
    void aThreadResumedOnAnIdleCorePaysForWakingIt() {
        // Nothing else to run: woken at 1.0001 ms, it pays the 100 ns of waking an idle core (what the calibration's
        // park/unpark ping-pong measures), then its 1 µs of work.
        assertThat(workerDoneAmong(0)).isEqualTo(1_000_100L + 1_100);
    }

    @Test
    void aYielderPushesItsDeadlineSoAReadyWorkerRunsNext() {
        // Each yield moves a poller's deadline a slice on (EEVDF), so the worker's, a slice from its wake-up, is soon the
        // earliest: it runs after a few of the pollers' 50 ns yields, not after their 2 x 1 000 000. The core is busy, so
        // its resume is a switch between ready threads, a yield's 50 ns, not the 100 ns of waking an idle core.
        assertThat(workerDoneAmong(2)).isBetween(1_000_100L + 1_050, 1_000_100L + 1_050 + 10 * 50L);
    }
}
