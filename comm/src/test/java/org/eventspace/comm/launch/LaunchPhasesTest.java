package org.eventspace.comm.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.eventspace.comm.launch.LaunchPhases.NEVER;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

class LaunchPhasesTest {
    private static final long S = 1_000_000_000L;
    /** A launch at an arbitrary point of the nanoTime clock, which may be negative: at(5) is 0, an ordinary time. */
    private static final long ORIGIN = -5 * S;

    private static long at(double seconds) {
        return ORIGIN + Math.round(seconds * S);
    }

    private static Map<String, long[]> barriers(long[] built, long[] connected) {
        Map<String, long[]> b = new LinkedHashMap<>();
        b.put("built", built);
        if (connected != null) {
            b.put("connected", connected);
        }
        return b;
    }

    @Test
    void eachPhaseEndsWhenItsLastHostArrivesAndRunEndsWithTheFirstResult() {
        long[] spawn = {at(0.1), at(0.2), at(0.3)};
        Rendezvous.Milestones seen = new Rendezvous.Milestones(new long[] {at(1.1), at(2.2), at(1.3)},
                barriers(new long[] {at(2.5), at(2.4), at(2.3)}, new long[] {at(2.6), at(2.6), at(2.9)}),
                new long[] {at(9.0), at(7.0), at(8.0)}, 3_000);
        LaunchPhases p = LaunchPhases.of(ORIGIN, spawn, seen, new long[] {at(9.5), at(9.2), at(9.1)});

        assertThat(p.phases()).extracting(LaunchPhases.Phase::name)
                .containsExactly("start", "built", "connected", "run", "results", "exit");
        assertThat(p.phases()).extracting(LaunchPhases.Phase::host).containsExactly(1, 0, 2, 1, 0, 0);
        double[] seconds = {2.2, 0.3, 0.4, 4.1, 2.0, 0.5};
        for (int i = 0; i < seconds.length; i++) {
            assertThat(p.phases().get(i).seconds()).as(p.phases().get(i).name()).isCloseTo(seconds[i], within(1e-9));
        }
        assertThat(p.phase("results").endS()).isCloseTo(9.0, within(1e-9));
        // From each process's creation to its hello: 1.0, 2.0 and 1.0 s.
        assertThat(p.helloMedianS()).isCloseTo(1.0, within(1e-9));
        assertThat(p.helloMaxS()).isCloseTo(2.0, within(1e-9));
        assertThat(p.resultBytes()).isEqualTo(3_000);

        LaunchPhases merged = p.then(LaunchPhases.MERGE, at(9.75));
        assertThat(merged.phase(LaunchPhases.MERGE).seconds()).isCloseTo(0.25, within(1e-9));
        assertThat(merged.phase(LaunchPhases.MERGE).host()).isEqualTo(-1);
        assertThat(p.phase(LaunchPhases.MERGE)).as("then makes a new value").isNull();
    }

    @Test
    void aJobThatStoppedListsOnlyThePhasesItCompleted() {
        long[] spawn = {at(0.1), at(0.2)};
        // Both registered and built; host 1 never connected, nobody reported.
        Rendezvous.Milestones seen = new Rendezvous.Milestones(new long[] {at(1), at(1.5)},
                barriers(new long[] {at(2), at(2)}, new long[] {at(3), NEVER}), LaunchPhases.never(2), 0);
        LaunchPhases p = LaunchPhases.of(ORIGIN, spawn, seen, new long[] {at(20), at(21)});
        assertThat(p.phases()).extracting(LaunchPhases.Phase::name).containsExactly("start", "built");

        // One host reported and the other died before: the run phase ended, the results phase did not.
        Rendezvous.Milestones half = new Rendezvous.Milestones(new long[] {at(1), at(1.5)},
                barriers(new long[] {at(2), at(2)}, new long[] {at(3), at(3)}), new long[] {at(5), NEVER}, 10);
        assertThat(LaunchPhases.of(ORIGIN, spawn, half, new long[] {at(6), at(4)}).phases())
                .extracting(LaunchPhases.Phase::name).containsExactly("start", "built", "connected", "run");

        // A host that never registered: no phase, and the hello times of those that did.
        Rendezvous.Milestones none = new Rendezvous.Milestones(new long[] {at(1.1), NEVER}, Map.of(), LaunchPhases.never(2), 0);
        LaunchPhases start = LaunchPhases.of(ORIGIN, spawn, none, LaunchPhases.never(2));
        assertThat(start.phases()).isEmpty();
        assertThat(start.helloMedianS()).isCloseTo(1.0, within(1e-9));
    }
}
