package org.eventspace.comm.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

class IdleSchedulingClassTest {
    /** The thread that asks is the one the kernel moves, and only it. */
    @Test
    void movesTheCallingThreadOnly() throws InterruptedException {
        AtomicReference<String> problem = new AtomicReference<>("not run");
        AtomicInteger policy = new AtomicInteger(-2);
        Thread t = new Thread(() -> {
            problem.set(IdleSchedulingClass.enter());
            policy.set(IdleSchedulingClass.policyOfCallingThread());
        }, "idle-class-test");
        t.start();
        t.join(10_000);
        assertThat(t.isAlive()).isFalse();
        assertThat(problem.get()).isNull();
        assertThat(policy.get()).isEqualTo(IdleSchedulingClass.SCHED_IDLE);
        assertThat(IdleSchedulingClass.policyOfCallingThread()).isZero(); // SCHED_OTHER, untouched
    }
}
