package org.eventspace.comm.transport.jvm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.path.ValueType;
import org.eventspace.comm.path.WaitPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** One in-JVM hop with a fake target: each request served once, results and failures carried back, clean close. */
@Timeout(60)
class InJvmLinkTest {
    private static final WaitPolicy SHORT = new WaitPolicy(100, 10, Duration.ofMillis(200).toNanos());

    private static Message message(long value) {
        return new Message(1).op(ReduceOp.SUM).type(ValueType.LONG).length(1).word(0, value);
    }

    private static Thread serviceThread(String linkName) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("es-serve-" + linkName)).findFirst().orElse(null);
    }

    @Test
    void everyExchangeIsServedExactlyOnceAndClosingServesNothingMore() throws Exception {
        AtomicInteger served = new AtomicInteger();
        InJvmLink link = InJvmLink.open("a->b:once", m -> {
            served.incrementAndGet();
            m.word(0, m.word(0) * 2);
        }, SHORT);
        for (long v = 1; v <= 100; v++) {
            Message m = message(v);
            link.exchange(m);
            assertThat(m.word(0)).isEqualTo(2 * v);
        }
        Thread service = serviceThread("a->b:once");
        assertThat(service).isNotNull();
        link.close();
        service.join(5_000);
        assertThat(service.isAlive()).as("service thread ended on close").isFalse();
        // Before the fix, close() woke the service thread with a changed signal and it ran the last request again.
        assertThat(served.get()).isEqualTo(100);
        assertThatThrownBy(() -> link.exchange(message(1))).isInstanceOf(CommException.class).hasMessageContaining("closed");
    }

    @Test
    void aFailureOnTheServingSideComesBackNamingTheHopAndTheCause() {
        InJvmLink link = InJvmLink.open("h1->h0:t0.gred.h0.1[1]", m -> {
            throw new CommException("gred t0.gred.h0.1: port 1 contributed MAX of 2 LONG words but ...");
        }, SHORT);
        try {
            assertThatThrownBy(() -> link.exchange(message(1)))
                    .isInstanceOf(CommException.class)
                    .hasMessageContaining("hop h1->h0:t0.gred.h0.1[1] failed on the serving host")
                    .hasMessageContaining("port 1 contributed MAX");
        } finally {
            link.close();
        }
    }

    @Test
    void aHopWaitsForItsServingThreadBeyondTheTimeoutWhileThatThreadWorks() {
        // What is below a hop (greds) keeps its own timeouts; the hop must not replace their failure, or a late
        // result, with "no reply". Here the far side takes three timeouts and then answers.
        InJvmLink link = InJvmLink.open("a->b:slow", m -> {
            try {
                Thread.sleep(600);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            m.word(0, 42);
        }, SHORT);
        try {
            Message m = message(1);
            link.exchange(m);
            assertThat(m.word(0)).isEqualTo(42);
        } finally {
            link.close();
        }
    }

    @Test
    void aServingThreadThatDiedMakesTheCallerFailAfterTheTimeoutInsteadOfHanging() {
        InJvmLink link = InJvmLink.open("a->b:dies", m -> {
            throw new StackOverflowError("simulated death of the serving thread");
        }, SHORT);
        try {
            assertThatThrownBy(() -> link.exchange(message(1)))
                    .isInstanceOf(CommException.class)
                    .hasMessageContaining("hop a->b:dies")
                    .hasMessageContaining("no reply within 200 ms");
        } finally {
            link.close();
        }
    }

    @Test
    void theServiceAgentCanBeSteppedByHand() throws Exception {
        InJvmLink link = InJvmLink.unstarted("a->b:by-hand", m -> m.word(0, m.word(0) + 1), SHORT);
        Agent service = link.service();
        assertThat(service.roleName()).isEqualTo("es-serve-a->b:by-hand");
        assertThat(service.doWork()).as("no request: one bounded wait, no work").isZero();

        Message m = message(41);
        CompletableFuture<Void> caller = CompletableFuture.runAsync(() -> link.exchange(m));
        int work = 0;
        for (int cycle = 0; cycle < 50 && work == 0; cycle++) {
            work = service.doWork();
        }
        assertThat(work).as("one duty cycle served the request").isEqualTo(1);
        caller.get(10, TimeUnit.SECONDS);
        assertThat(m.word(0)).isEqualTo(42);

        link.close();
        assertThatThrownBy(service::doWork).as("a closed agent ends its runner").isInstanceOf(AgentTerminationException.class);
    }
}
