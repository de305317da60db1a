package org.eventspace.comm.launch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.eventspace.base.stats.Median;

/**
 * How long each phase of a launched job took, on the launcher's clock: where the time of a job of many host processes
 * goes before its ranks run and after they are done. The phases follow each other; each ends at a milestone the
 * rendezvous or the launcher saw, reached when its last host got there:
 * <ul>
 *   <li>{@code start}: from the launch until every host process registered with the rendezvous (process creation,
 *       JVM start, the host's own server);</li>
 *   <li>one phase per rendezvous barrier, in the order they were released ({@link TcpHost}: {@code built}, the
 *       runtimes built; {@code connected}, every hop opened);</li>
 *   <li>{@code run}: until the first host reported its result (the work itself);</li>
 *   <li>{@code results}: until every host's result was received (the hosts' final analysis and their result lines);</li>
 *   <li>{@code exit}: until every host process exited;</li>
 *   <li>and what the caller adds with {@link #then} (a run adds {@code merge}: the results decoded and merged).</li>
 * </ul>
 * A phase the job did not reach is absent, so a failed job lists those it completed.
 *
 * @param hosts          host processes launched.
 * @param phases         the phases reached, in order.
 * @param resultBytes    bytes of result lines the rendezvous received, summed over hosts.
 * @param helloMedianS   per host, from its process's creation to its hello at the rendezvous (JVM start and the
 *                       host's server): the median over the hosts that registered; NaN if none did.
 * @param helloMaxS      the same, the most any host took.
 * @param originNanos    the launch on the {@link System#nanoTime} clock, which {@link #then} measures from.
 */
public record LaunchPhases(int hosts, List<Phase> phases, long resultBytes, double helloMedianS, double helloMaxS,
                           long originNanos) {
    public static final String START = "start";
    public static final String RUN = "run";
    public static final String RESULTS = "results";
    public static final String EXIT = "exit";
    /** A time on the {@link System#nanoTime} clock that means "did not get there". */
    public static final long NEVER = Long.MIN_VALUE;
    /** The phase a run adds after {@link #EXIT}: its hosts' results decoded and merged. */
    public static final String MERGE = "merge";

    /**
     * One phase.
     *
     * @param name    its name.
     * @param seconds how long it took: from the end of the phase before it to its own end.
     * @param endS    when it ended, in seconds since the launch.
     * @param host    the host whose arrival ended it (the last to register, to reach the barrier, to report, to exit;
     *                for {@code run} the first to report), -1 when it is not a host's.
     */
    public record Phase(String name, double seconds, double endS, int host) {
    }

    public LaunchPhases {
        phases = List.copyOf(phases);
    }

    /** {@code n} times, each {@link #NEVER}. */
    static long[] never(int n) {
        long[] times = new long[n];
        Arrays.fill(times, NEVER);
        return times;
    }

    /** The phase named {@code name}, or null if the job did not reach it. */
    public Phase phase(String name) {
        return phases.stream().filter(p -> p.name().equals(name)).findFirst().orElse(null);
    }

    /** These phases and one more, {@code name}, that ended now. */
    public LaunchPhases then(String name) {
        return then(name, System.nanoTime());
    }

    LaunchPhases then(String name, long endNanos) {
        List<Phase> more = new ArrayList<>(phases);
        append(more, name, (endNanos - originNanos) / 1e9, -1);
        return new LaunchPhases(hosts, more, resultBytes, helloMedianS, helloMaxS, originNanos);
    }

    /** Appends phase {@code name}, ended {@code endS} after the launch, as lasting from the end of the one before it. */
    private static void append(List<Phase> phases, String name, double endS, int host) {
        double previous = phases.isEmpty() ? 0 : phases.get(phases.size() - 1).endS();
        phases.add(new Phase(name, Math.max(0, endS - previous), Math.max(endS, previous), host));
    }

    /**
     * The phases of a launch at {@code originNanos} whose host processes were created at {@code spawnNanos} and
     * exited at {@code exitNanos} ({@link #NEVER} where not), with what the rendezvous saw in between.
     */
    static LaunchPhases of(long originNanos, long[] spawnNanos, Rendezvous.Milestones seen, long[] exitNanos) {
        int hosts = spawnNanos.length;
        double[] hello = new double[hosts];
        int registered = 0;
        for (int h = 0; h < hosts; h++) {
            if (seen.hello()[h] != NEVER && spawnNanos[h] != NEVER) {
                hello[registered++] = (seen.hello()[h] - spawnNanos[h]) / 1e9;
            }
        }
        double[] registeredHello = Arrays.copyOf(hello, registered);
        double median = registered == 0 ? Double.NaN : Median.of(registeredHello);
        double max = registered == 0 ? Double.NaN : Arrays.stream(registeredHello).max().getAsDouble();
        return new LaunchPhases(hosts, reached(originNanos, seen, exitNanos), seen.resultBytes(), median, max, originNanos);
    }

    private static List<Phase> reached(long originNanos, Rendezvous.Milestones seen, long[] exitNanos) {
        List<Phase> phases = new ArrayList<>();
        if (!add(phases, originNanos, START, seen.hello(), true)) {
            return phases;
        }
        for (Map.Entry<String, long[]> barrier : seen.barriers().entrySet()) {
            if (!add(phases, originNanos, barrier.getKey(), barrier.getValue(), true)) {
                return phases;
            }
        }
        if (add(phases, originNanos, RUN, seen.done(), false) && add(phases, originNanos, RESULTS, seen.done(), true)) {
            add(phases, originNanos, EXIT, exitNanos, true);
        }
        return phases;
    }

    /**
     * Adds the phase {@code name} that ends when the last host arrived ({@code last}) or the first one did; false, and
     * nothing added, when the phase was not reached (a host never arrived, or with {@code !last} none did).
     */
    private static boolean add(List<Phase> phases, long originNanos, String name, long[] arrivals, boolean last) {
        int host = -1;
        for (int h = 0; h < arrivals.length; h++) {
            if (arrivals[h] == NEVER) {
                if (last) {
                    return false;
                }
            } else if (host < 0 || (last ? arrivals[h] - arrivals[host] > 0 : arrivals[h] - arrivals[host] < 0)) {
                host = h;
            }
        }
        if (host < 0) {
            return false;
        }
        append(phases, name, (arrivals[host] - originNanos) / 1e9, host);
        return true;
    }
}
