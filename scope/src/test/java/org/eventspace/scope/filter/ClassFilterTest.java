package org.eventspace.scope.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.eventspace.scope.filter.HistFilterTest.rec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

class ClassFilterTest {
    /** Even ranks compute_a, odd ranks compute_b, all of them MPI_Allreduce(): two roles, one communication. */
    private static List<ScopeRecord> twoRoles(int ranks, long round) {
        List<ScopeRecord> records = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            records.add(rec(r, r % 2 == 0 ? "compute_a" : "compute_b", round, 1000 + r));
            records.add(rec(r, "MPI_Allreduce()", round, 50 + r % 5));
        }
        return records;
    }

    /** 4 ranks per host under a fan-out-8 tree. */
    private static Map<String, Object> classify(String spec, List<ScopeRecord> records, int ranks) {
        ScopeTreeSimulator tree = ScopeTreeSimulator.kary(Math.max(1, ranks / 4), 8, FilterSpec.parse(spec));
        return tree.round(0, host -> records.subList(host * 2 * 4, host * 2 * 4 + 2 * 4));
    }

    @Test
    void ranksPlayingTwoRolesAreTwoClassesUnderAllAndOneUnderComm() {
        Map<String, Object> all = classify("class:all", twoRoles(32, 0), 32);
        Map<String, Object> comm = classify("class:comm", twoRoles(32, 0), 32);

        assertThat(all.get("classes")).isEqualTo(2);
        assertThat(ClassFilterProperties.classList(all)).extracting(c -> c.get("members"))
                .containsExactlyInAnyOrder(List.of("0-30/2"), List.of("1-31/2"));
        assertThat(comm.get("classes")).isEqualTo(1);
        Map<String, Object> only = ClassFilterProperties.classList(comm).get(0);
        assertThat(only.get("members")).isEqualTo(List.of("0-31"));
        assertThat(only.get("rank_count")).isEqualTo(32);
        // The scheme groups; the statistics still cover every event of the class's ranks (ToM §4.3).
        assertThat(ClassFilterProperties.events(only).keySet())
                .containsExactly("MPI_Allreduce()", "compute_a", "compute_b");
        assertThat(ClassFilterProperties.events(only).get("compute_a")).containsEntry("count", 16L)
                .containsEntry("min", 1000.0).containsEntry("max", 1030.0);
    }

    @Test
    void reductionFactorExceedsOneAndGrowsWithTheRankCount() {
        double previous = 1.0;
        for (int ranks : new int[] {8, 32, 128}) {
            for (String spec : List.of("class:all", "class:comm")) {
                Map<String, Object> result = classify(spec, twoRoles(ranks, 0), ranks);
                double factor = (double) result.get("reduction_factor");

                assertThat(factor).as("%s with %d ranks", spec, ranks).isGreaterThan(1.0);
                assertThat((long) result.get("reduced_bytes")).as("%s: size independent of ranks", spec)
                        .isEqualTo((long) classify(spec, twoRoles(8, 0), 8).get("reduced_bytes"));
                if (spec.equals("class:all")) {
                    assertThat(factor).as("%d ranks", ranks).isGreaterThan(previous);
                    previous = factor;
                }
            }
        }
    }

    /**
     * ToM §4.3, Figure 7: Uintah on 64 ranks, fan-out 8, events named after AMR patches ("Patch 1 -> 1" is the 2nd
     * patch on level 1). Default scheme: every rank its own class, and the reduction factor falls below 1 ("as many
     * classes as ranks and there is some overhead"). AMR L1 Patch Only: 3 classes — "class0: rank 0, class1: ranks
     * that work on the first 8 large level 1 patches and class2: all other ranks" — and the best factor. MPI Only:
     * classes by communication pattern, in between. Here rank r owns level-0 patch r; rank 0 touches all 16
     * level-1 patches, ranks 1–8 the first 8; MPI events by role and by halo direction.
     */
    @Test
    void tomFigure7UintahClassificationSchemes() {
        List<ScopeRecord> records = new ArrayList<>();
        for (int r = 0; r < 64; r++) {
            records.add(rec(r, "Patch 0 -> " + r, 0, 100 + r));
            int level1 = r == 0 ? 16 : r <= 8 ? 8 : 0;
            for (int p = 0; p < level1; p++) {
                records.add(rec(r, "Patch 1 -> " + p, 0, 10 + p + r));
            }
            records.add(rec(r, "MPI_Allreduce()", 0, 5 + r % 3));
            records.add(rec(r, r % 4 == 0 ? "MPI_Isend()" : "MPI_Irecv()", 0, 1));
            if (r == 0) {
                records.add(rec(r, "MPI_Reduce()", 0, 2));
            }
        }
        ScopeRecord[] byRank = records.toArray(ScopeRecord[]::new);

        Map<String, Object> byDefault = uintah("class:all", byRank);
        Map<String, Object> level1Only = uintah("class:^Patch 1 -> ", byRank);
        Map<String, Object> mpiOnly = uintah("class:comm", byRank);

        assertThat(byDefault.get("classes")).isEqualTo(64);
        assertThat((double) byDefault.get("reduction_factor")).isLessThan(1.0);
        assertThat(level1Only.get("classes")).isEqualTo(3);
        assertThat(ClassFilterProperties.classList(level1Only)).extracting(ClassFilterProperties::members)
                .containsExactlyInAnyOrder(Set.of(0), rangeSet(1, 8), rangeSet(9, 63));
        assertThat(mpiOnly.get("classes")).isEqualTo(3); // rank 0; other ranks ≡ 0 mod 4; the rest
        assertThat((double) level1Only.get("reduction_factor")).isGreaterThan(1.0)
                .isGreaterThan((double) byDefault.get("reduction_factor"));
        assertThat((double) mpiOnly.get("reduction_factor")).isGreaterThan((double) byDefault.get("reduction_factor"));
        // "In all the schemes, complete profile information from all events is still preserved."
        for (Map<String, Object> result : List.of(byDefault, level1Only, mpiOnly)) {
            long counted = ClassFilterProperties.classList(result).stream()
                    .flatMap(c -> ClassFilterProperties.events(c).values().stream())
                    .mapToLong(s -> (long) s.get("count")).sum();
            assertThat(counted).isEqualTo(records.size());
        }
    }

    private static Map<String, Object> uintah(String spec, ScopeRecord[] records) {
        ScopeTreeSimulator tree = ScopeTreeSimulator.kary(64, 8, FilterSpec.parse(spec));
        return tree.round(0, host -> java.util.Arrays.stream(records).filter(x -> x.rank() == host).toList());
    }

    private static Set<Integer> rangeSet(int first, int last) {
        Set<Integer> out = new java.util.TreeSet<>();
        for (int r = first; r <= last; r++) {
            out.add(r);
        }
        return out;
    }

    @Test
    void communicationRuleTakesMpiNamesAndCollectiveWordsCaseInsensitively() {
        assertThat(List.of("MPI_Allreduce()", "mpi_wait", "t0.gred allreduce", "MyBroadcast", "Barrier",
                "gatherv", "Scatter", "MPI_Alltoall", "Isend", "sendrecv", "RECV from 3"))
                .allMatch(ClassScheme::isCommunicationEvent);
        assertThat(List.of("compute", "Patch 1 -> 1", "io_write", "MPI Init", "t0.gred.h0.0 down"))
                .noneMatch(ClassScheme::isCommunicationEvent);
        assertThat(ClassScheme.parse("^Patch 1").selects("Patch 1 -> 3")).isTrue();
        assertThat(ClassScheme.parse("^Patch 1").selects("xPatch 1")).isFalse();
        assertThat(ClassScheme.parse("Patch").selects("my Patch 0")).as("found, not matched whole").isTrue();
        assertThat(ClassScheme.parse("all")).isSameAs(ClassScheme.ALL);
        assertThat(ClassScheme.parse("^all$").selects("all")).isTrue();
    }

    @Test
    void classIdIsFnv1aOverTheSortedNamesWithASeparator() {
        assertThat(ClassFilter.classId(List.of())).isEqualTo(0xcbf29ce484222325L);
        assertThat(ClassFilter.classId(List.of("b", "a"))).isEqualTo(ClassFilter.classId(List.of("a", "b")));
        assertThat(ClassFilter.classId(List.of("a", "bc"))).isNotEqualTo(ClassFilter.classId(List.of("ab", "c")));
        // FNV-1a of "a" then 0xFF, by hand.
        long h = 0xcbf29ce484222325L;
        h = (h ^ 'a') * 0x100000001b3L;
        h = (h ^ 0xFF) * 0x100000001b3L;
        assertThat(ClassFilter.classId(List.of("a"))).isEqualTo(h);
    }

    @Test
    void mixedUpPacketsFailNamingTheChild() {
        ClassFilter filter = new ClassFilter(ClassScheme.ALL);
        Packet c2 = filter.command(2, null);
        Packet good = filter.leaf(c2, List.of(rec(0, "x", 2, 1)));
        long[] longs = good.longs().clone();
        longs[3] = 5; // five runs claimed, one present
        Packet tooManyRuns = new Packet(ClassFilter.CLASSES, 2, longs, good.doubles(), good.records());
        long[] badRun = good.longs().clone();
        badRun[7] = 0; // stride 0
        Packet zeroStride = new Packet(ClassFilter.CLASSES, 2, badRun, good.doubles(), good.records());

        assertThatThrownBy(() -> filter.up(c2, List.of(good, tooManyRuns)))
                .hasMessageStartingWith("class:all: malformed packet from child 1: expected class 0 with runs and"
                        + " events within the packet");
        assertThatThrownBy(() -> filter.up(c2, List.of(zeroStride)))
                .hasMessage("class:all: malformed packet from child 0: expected a rank run first<=last, stride>=1,"
                        + " found first=0, last=0, stride=0");
        assertThatThrownBy(() -> filter.up(c2, List.of(Packet.of(ClassFilter.CLASSES, 1))))
                .hasMessage("class:all: child 0 sent tag 104 for round 1, expected tag 104 for round 2");
    }
}
