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
import org.eventspace.scope.filter.ScopeRecord;
import org.eventspace.scope.filter.TuplesFilter;
import org.eventspace.scope.filter.TuplesResult;

/**
 * The centralised analysis (EventSpace paper §4.3, §6 Table 1): the event scope brings every host's raw trace tuples
 * to the front-end ({@link TuplesFilter}) and this, on the front-end's pulling thread, hands each round's tuples to
 * the same joins the hosts' analysis threads run in the distributed variant ({@link LiveGred}, {@link RankProfile}),
 * so both variants report the same metrics and differ only in where the work is done and what travels.
 */
final class CentralAnalysis implements Consumer<ScopeRound> {
    /** A gred's collector, or a rank's entry collector. */
    private record Target(LiveGred gred, int index, RankProfile profile) {
    }

    /** By the event of a tuple's first record, {@code <collector>>}: looked up as it arrives, without a substring. */
    private final Map<String, List<Target>> byCollector = new HashMap<>();
    private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    private volatile long cpuNanos;
    private volatile long rounds;

    /** Feeds collector {@code collector}'s tuples to port (or, at {@code index} = arity, below) {@code index} of {@code gred}. */
    void feed(String collector, LiveGred gred, int index) {
        byCollector.computeIfAbsent(collector + TuplesFilter.DOWN, c -> new ArrayList<>()).add(new Target(gred, index, null));
    }

    /** Feeds collector {@code collector}'s tuples, a rank's entry, to {@code profile}. */
    void feed(String collector, RankProfile profile) {
        byCollector.computeIfAbsent(collector + TuplesFilter.DOWN, c -> new ArrayList<>()).add(new Target(null, -1, profile));
    }

    @Override
    public void accept(ScopeRound round) {
        if (!(round.result() instanceof TuplesResult tuples)) {
            return;
        }
        boolean measure = mx.isCurrentThreadCpuTimeSupported();
        long cpu0 = measure ? mx.getCurrentThreadCpuTime() : 0;
        List<ScopeRecord> records = tuples.records();
        Set<LiveGred> touched = new LinkedHashSet<>();
        for (int i = 0; i + 1 < records.size(); i += 2) {
            ScopeRecord down = records.get(i);
            ScopeRecord up = records.get(i + 1);
            String event = down.event();
            if (event.isEmpty() || event.charAt(event.length() - 1) != TuplesFilter.DOWN) {
                throw new IllegalArgumentException("central analysis: round " + round.round() + ", record " + i + " is '"
                        + event + "', expected a tuple's first record '<collector>" + TuplesFilter.DOWN + "'");
            }
            List<Target> targets = byCollector.get(event);
            if (targets == null) {
                continue;
            }
            boolean failed = (down.rank() & TuplesFilter.FAILED) != 0;
            int op = down.rank() & (TuplesFilter.FAILED - 1);
            long t0 = (long) down.value();
            long t1 = (long) up.value();
            for (Target t : targets) {
                if (t.gred() != null) {
                    t.gred().offer(t.index(), down.round(), t0, t1, failed);
                    touched.add(t.gred());
                } else {
                    t.profile().offer(op, t0, t1, failed);
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
