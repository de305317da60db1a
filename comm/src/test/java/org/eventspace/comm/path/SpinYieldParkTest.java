package org.eventspace.comm.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.agrona.concurrent.IdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The shared wait strategy: its phases have the policy's counts, and the deadline ends yielding and parking. */
@Timeout(60)
class SpinYieldParkTest {
    private static final long MINUTES = Duration.ofMinutes(2).toNanos();

    @Test
    void theSpinPhaseHasThePolicysCount() {
        SpinYieldPark wait = new SpinYieldPark(new WaitPolicy(3, 0, MINUTES));
        assertThat(wait.spin(0)).isTrue();
        assertThat(wait.spin(2)).isTrue();
        assertThat(wait.spin(3)).as("three spins: steps 0..2").isFalse();
    }

    @Test
    void theYieldPhaseHasThePolicysCountAndStopsAtTheDeadline() {
        SpinYieldPark wait = new SpinYieldPark(new WaitPolicy(0, 2, MINUTES));
        long far = wait.deadlineFromNow();
        assertThat(wait.yield(0, far)).isTrue();
        assertThat(wait.yield(1, far)).isTrue();
        assertThat(wait.yield(2, far)).as("two yields: steps 0..1").isFalse();
        assertThat(wait.yield(0, System.nanoTime() - 1)).as("a passed deadline ends the yield phase").isFalse();
        assertThat(wait.yield(0, SpinYieldPark.NO_DEADLINE)).as("no deadline: only the count ends it").isTrue();
    }

    @Test
    void parkReturnsFalseWithoutParkingOnceTheDeadlinePassed() {
        long start = System.nanoTime();
        assertThat(SpinYieldPark.park(this, start - 1, SpinYieldPark.UNTIL_DEADLINE)).isFalse();
        assertThat(SpinYieldPark.passed(start - 1)).isTrue();
        assertThat(SpinYieldPark.passed(SpinYieldPark.NO_DEADLINE)).isFalse();
    }

    @Test
    void aParkSliceBoundsOneParkAndTheDeadlineBoundsTheLast() {
        long start = System.nanoTime();
        long deadline = start + Duration.ofMillis(30).toNanos();
        int parks = 0;
        while (SpinYieldPark.park(this, deadline, Duration.ofMillis(5).toNanos())) {
            parks++;
        }
        long took = System.nanoTime() - start;
        assertThat(took).as("parked to the deadline").isGreaterThanOrEqualTo(Duration.ofMillis(30).toNanos());
        assertThat(parks).as("5 ms slices over 30 ms").isBetween(2, 7);
    }

    @Test
    void anUnparkEndsAParkUntilTheDeadline() throws Exception {
        Object blocker = new Object();
        CompletableFuture<Boolean> parked = new CompletableFuture<>();
        Thread t = new Thread(() -> parked.complete(SpinYieldPark.park(blocker, System.nanoTime() + MINUTES,
                SpinYieldPark.UNTIL_DEADLINE)), "park-waiter");
        t.setDaemon(true);
        t.start();
        WaitProofs.awaitParked(t, () -> LockSupport.getBlocker(t) == blocker, Duration.ofSeconds(20));
        LockSupport.unpark(t);
        assertThat(parked.get(10, TimeUnit.SECONDS)).as("parked, then woken long before its deadline").isTrue();
    }

    /**
     * An agent's idle strategy: after the policy's spins and yields it parks, each park twice the last up to the
     * longest (Agrona's back-off, through this class's phases), and a cycle with work starts over from the spins.
     */
    @Test
    void anAgentIdlesThroughSpinsYieldsAndDoublingParksAndStartsOverAfterWork() {
        IdleStrategy idle = SpinYieldPark.agentIdle(2, 2, Duration.ofMillis(40).toNanos(), Duration.ofMillis(80).toNanos());
        long start = System.nanoTime();
        for (int i = 0; i < 4; i++) {
            idle.idle(0);
        }
        assertThat(System.nanoTime() - start).as("two spins and two yields do not park").isLessThan(Duration.ofMillis(40).toNanos());
        start = System.nanoTime();
        idle.idle(0);
        idle.idle(0);
        idle.idle(0);
        assertThat(System.nanoTime() - start).as("parks of 40, 80 and 80 ms").isGreaterThanOrEqualTo(Duration.ofMillis(200).toNanos());
        idle.idle(1);
        start = System.nanoTime();
        for (int i = 0; i < 4; i++) {
            idle.idle(0);
        }
        assertThat(System.nanoTime() - start).as("work reset the phases to the spins").isLessThan(Duration.ofMillis(40).toNanos());
        assertThat(idle.alias()).isEqualTo("spin-yield-park");
    }

    @Test
    void anAgentsParkLengthsAreChecked() {
        assertThatThrownBy(() -> SpinYieldPark.agentIdle(1, 1, 0, 10)).hasMessageContaining("minParkNanos=0");
        assertThatThrownBy(() -> SpinYieldPark.agentIdle(1, 1, 10, 5)).hasMessageContaining("maxParkNanos=5");
    }
}
