package org.eventspace.job;

import static org.assertj.core.api.Assertions.assertThat;

import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.scope.GatherMode;
import org.junit.jupiter.api.Test;

/** How a scope gathers when the user did not say: sequentially over few hosts, in parallel over many. */
class ScopeSettingsTest {
    private static GatherMode byDefault(String scope, int ranks, int hosts, int idlePerCluster) {
        return ScopeSettings.defaultGather(TreeShape.parse(scope),
                JobConfig.shortcut(ranks, hosts, 1, TreeShape.parse("hier:8"), idlePerCluster));
    }

    @Test
    void upToEightHostsWithRanksAScopeGathersSequentially() {
        assertThat(byDefault("flat", 8, 1, 0)).isEqualTo(GatherMode.SEQUENTIAL);
        assertThat(byDefault("flat", 64, 8, 0)).isEqualTo(GatherMode.SEQUENTIAL);
        assertThat(byDefault("hier:8", 64, 8, 0)).isEqualTo(GatherMode.SEQUENTIAL);
        // Hosts that run no ranks carry the scope's inner gathers; they are not leaves a round visits.
        assertThat(byDefault("kary:2", 64, 8, 4)).isEqualTo(GatherMode.SEQUENTIAL);
    }

    @Test
    void beyondThatEachGatherHasAHelperPerChildUpToEight() {
        assertThat(byDefault("flat", 9, 9, 0)).isEqualTo(GatherMode.parallel(8));
        assertThat(byDefault("flat", 1024, 64, 0)).isEqualTo(GatherMode.parallel(8));
        assertThat(byDefault("hier:8", 1024, 64, 0)).isEqualTo(GatherMode.parallel(8));
        assertThat(byDefault("hier:4", 256, 16, 0)).isEqualTo(GatherMode.parallel(4));
        assertThat(byDefault("kary:2", 256, 16, 0)).isEqualTo(GatherMode.parallel(2));
    }
}
