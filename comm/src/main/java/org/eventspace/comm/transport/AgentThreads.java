package org.eventspace.comm.transport;

import java.time.Duration;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.IdleStrategy;

/**
 * The service threads of comm (a hop's service thread in one JVM or over TCP, a TCP server's accept loop, the
 * rendezvous) are Agrona {@link Agent}s: a role name, and a duty cycle ({@code doWork()}) that returns the work it
 * did, run by an {@link AgentRunner} on a daemon thread named after the role, or stepped by hand in tests.
 *
 * <p>How they end: an agent of comm throws {@link AgentTerminationException} from {@code doWork()} once it is
 * closed or its connection ended, which ends its runner's loop. Closing one therefore sets the agent's own
 * closed flag, wakes the duty cycle (advance the signal it waits on, or close the socket it blocks on), and then
 * {@link #awaitEnd waits, bounded,} for the thread: unlike {@link AgentRunner#close()}, which retries forever,
 * closing never hangs the closer, and a thread that did not end in time is named on stderr.
 *
 * <p>Stateless; may be called from any thread.
 */
public final class AgentThreads {
    private AgentThreads() {
    }

    /** Starts {@code agent} on a daemon thread named {@link Agent#roleName()}; errors go to stderr with the role. */
    public static AgentRunner start(Agent agent, IdleStrategy idle) {
        return start(runner(agent, idle));
    }

    /** A runner for {@code agent}, not started: for an agent that must know its runner before its first duty cycle. */
    public static AgentRunner runner(Agent agent, IdleStrategy idle) {
        return new AgentRunner(idle, error -> report(agent, error), null, agent);
    }

    /** Starts {@code runner} on a daemon thread named after its agent's role. */
    public static AgentRunner start(AgentRunner runner) {
        AgentRunner.startOnThread(runner, r -> {
            Thread t = new Thread(r, runner.agent().roleName());
            t.setDaemon(true);
            return t;
        });
        return runner;
    }

    /**
     * Waits at most {@code bound} for the runner's thread to end (its agent must already be closed and woken),
     * then closes the runner.
     *
     * @return true if the thread ended (or never started) within the bound.
     */
    public static boolean awaitEnd(AgentRunner runner, Duration bound) {
        Thread thread = runner.thread();
        if (thread != null && thread != AgentRunner.TOMBSTONE && thread != Thread.currentThread()) {
            try {
                thread.join(Math.max(1, bound.toMillis()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            if (thread.isAlive()) {
                System.err.println("es-agent " + runner.agent().roleName() + ": did not end within " + bound.toMillis() + " ms of close");
                return false;
            }
        }
        if (thread != Thread.currentThread()) {
            runner.close();
        }
        return true;
    }

    private static void report(Agent agent, Throwable error) {
        if (!(error instanceof AgentTerminationException)) {
            System.err.println("es-agent " + agent.roleName() + ": " + error);
        }
    }
}
