package org.eventspace.run;

import java.util.List;
import java.util.function.Supplier;

import org.eventspace.job.MonitoredJob;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What a run's ranks do in one process that runs some of them: the one part that differs between a built-in workload
 * ({@link WorkloadRanks}), the multi-cluster workloads ({@link MultiClusterRun}) and a trace's replay
 * ({@link TraceReplay}). Everything around it — starting the job on its transport, the monitors and their coscheduler,
 * the traffic counters, the host processes' reports and their merge — is {@link RunEngine}'s, the same for every work.
 *
 * <p>Called once per process, on the thread that runs the job; the ranks it starts are the job's.
 *
 * @param <T> what the work's ranks produced, as a value, in the process that ran them.
 */
public interface HostWork<T> {
    /**
     * What one process's ranks did: the value itself (in one JVM the caller reads it directly), how to encode it as this
     * host's part of the run's report (only a TCP host process does, to send it to the launcher, which decodes it
     * again: an in-JVM run of many ranks never pays for it), and whether every local rank got the right results (the
     * host process's exit code).
     */
    record Part<T>(T value, Supplier<ObjectNode> program, boolean ok) {
    }

    /** Runs {@code job}'s local ranks (every rank in one JVM) and returns what they did; the job is still open. */
    Part<T> run(MonitoredJob job);

    /**
     * The host processes' arguments after the run's configuration, this work's kind first ({@link RunEngine#main}
     * rebuilds the work from them); only called for a run over TCP.
     *
     * @throws UnsupportedOperationException for a work that runs in one JVM only.
     */
    List<String> arguments();
}
