package org.eventspace.monitor;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import org.eventspace.scope.ScopeRound;
import org.eventspace.scope.filter.TuplesResult;

/**
 * The centralised analysis (EventSpace paper §4.3, §6 Table 1): the event scope brings every host's raw trace tuples
 * to the front-end ({@code TuplesFilter}) and this, on the front-end's pulling thread, hands each round's tuples to
 * the same joins the hosts' analysis threads run in the distributed variant ({@link LiveGred}, {@link RankProfile}),
 * so both variants report the same metrics and differ only in where the work is done and what travels.
 */
final class CentralAnalysis implements Consumer<ScopeRound> {
    /** A gred's collector, or a rank's entry collector. */
    private record Target(LiveGred gred, int index, RankProfile profile) {
    }

    /** By collector name; a round's packet names each collector once, so a lookup per name and round. */
    private final Map<String, List<Target>> byCollector = new HashMap<>();
    private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    private volatile long cpuNanos;
    private volatile long rounds;

    /** Feeds collector {@code collector}'s tuples to port (or, at {@code index} = arity, below) {@code index} of {@code gred}. */
    void feed(String collector, LiveGred gred, int index) {
        byCollector.computeIfAbsent(collector, c -> new ArrayList<>()).add(new Target(gred, index, null));
    }

    /** Feeds collector {@code collector}'s tuples, a rank's entry, to {@code profile}. */
    void feed(String collector, RankProfile profile) {
        byCollector.computeIfAbsent(collector, c -> new ArrayList<>()).add(new Target(null, -1, profile));
    }

    @Override
    public void accept(ScopeRound round) {
        if (!(round.result() instanceof TuplesResult tuples)) {
            return;
        }
        boolean measure = mx.isCurrentThreadCpuTimeSupported();
        long cpu0 = measure ? mx.getCurrentThreadCpuTime() : 0;
        List<String> names = tuples.names();
        List<List<Target>> targetsOf = new ArrayList<>(names.size());
        for (String name : names) {
            targetsOf.add(byCollector.get(name));
        }
        Set<LiveGred> touched = new LinkedHashSet<>();
        for (int i = 0, n = tuples.size(); i < n; i++) {
            int c = tuples.collector(i);
            if (c >= targetsOf.size()) {
                throw new IllegalArgumentException("central analysis: round " + round.round() + ", tuple " + i
                        + " names collector " + c + " of " + targetsOf.size());
            }
            List<Target> targets = targetsOf.get(c);
            if (targets == null) {
                continue;
            }
            boolean failed = tuples.failed(i);
            long t0 = tuples.downNs(i);
            long t1 = tuples.upNs(i);
            for (Target t : targets) {
                if (t.gred() != null) {
                    t.gred().offer(t.index(), tuples.sequence(i), t0, t1, failed);
                    touched.add(t.gred());
                } else {
                    t.profile().offer(tuples.op(i), t0, t1, failed);
                }
            }
        }
        for (LiveGred g : touched) {
            g.pump();
        }
        rounds++;
        if (measure) {
            cpuNanos += mx.getCurrentThreadCpuTime() - cpu0;
        }
    }

    /** CPU time the front-end's thread spent in this analysis. */
    long cpuNanos() {
        return cpuNanos;
    }

    long rounds() {
        return rounds;
    }
}
