package org.eventspace.base.os;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

class LowestPriorityTest {
    /** The thread that asks is the one the kernel lowers, and only it. */
    @Test
    void lowersTheCallingThreadOnly() throws InterruptedException {
        int before = LowestPriority.niceOfCallingThread();
        AtomicReference<String> problem = new AtomicReference<>("not run");
        AtomicInteger nice = new AtomicInteger(Integer.MIN_VALUE);
        Thread t = new Thread(() -> {
            problem.set(LowestPriority.enter());
            nice.set(LowestPriority.niceOfCallingThread());
        }, "lowest-priority-test");
        t.start();
        t.join(10_000);
        assertThat(t.isAlive()).isFalse();
        assertThat(problem.get()).isNull();
        assertThat(nice.get()).isEqualTo(LowestPriority.NICE);
        assertThat(LowestPriority.niceOfCallingThread()).as("the asking thread's sibling keeps its nice").isEqualTo(before);
    }
}
