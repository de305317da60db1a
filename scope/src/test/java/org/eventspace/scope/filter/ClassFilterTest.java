package org.eventspace.scope.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.eventspace.scope.filter.HistFilterTest.rec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.eventspace.base.stats.StatisticsSummary;
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

    /**
     * 4 ranks per host under a fan-out-8 tree: round 0 with the records, then a flush round, whose result is
     * round 0's classes and histograms (the first result is empty while the pipeline fills).
     */
    private static ClassResult classify(String spec, List<ScopeRecord> records, int ranks) {
        ScopeTreeSimulator tree = ScopeTreeSimulator.kary(Math.max(1, ranks / 4), 8, FilterSpec.parse(spec));
        assertThat(tree.round(0, host -> records.subList(host * 2 * 4, host * 2 * 4 + 2 * 4)).isEmpty()).isTrue();
        FilterResult result = tree.round(1, host -> List.of());
        assertThat(result.round()).isEqualTo(0L);
        return (ClassResult) result;
    }

    @Test
    void ranksPlayingTwoRolesAreTwoClassesUnderAllAndOneUnderComm() {
        ClassResult all = classify("class:all", twoRoles(32, 0), 32);
        ClassResult comm = classify("class:comm", twoRoles(32, 0), 32);

        assertThat(all.classes()).isEqualTo(2);
        assertThat(all.classList()).extracting(ClassResult.FunctionalClass::members)
                .containsExactlyInAnyOrder(List.of("0-30/2"), List.of("1-31/2"));
        assertThat(comm.classes()).isEqualTo(1);
        ClassResult.FunctionalClass only = comm.classList().get(0);
        assertThat(only.members()).isEqualTo(List.of("0-31"));
        assertThat(only.rankCount()).isEqualTo(32);
        // The scheme groups; the statistics still cover every event of the class's ranks (ToM §4.3).
        assertThat(only.events().keySet())
                .containsExactly("MPI_Allreduce()", "compute_a", "compute_b");
        StatisticsSummary computeA = only.events().get("compute_a");
        assertThat(computeA.count()).isEqualTo(16L);
        assertThat(computeA.min()).isEqualTo(1000.0);
        assertThat(computeA.max()).isEqualTo(1030.0);
        // ...and so do its histograms, over the class's own range of each event (ToM §4.3). compute_a is
        // 1000, 1002, ..., 1030: one value a bin of 16. MPI_Allreduce() is 50 + r mod 5: 7, 7, 6, 6, 6 ranks at
        // 50..54, in bins 0, 4, 8, 12 and (the maximum) 15.
        assertThat(only.histograms().keySet())
                .containsExactly("MPI_Allreduce()", "compute_a", "compute_b");
        assertThat(only.histograms().get("compute_a")).isEqualTo(new ClassResult.Histogram(1000.0, 1030.0, 16,
                List.of(1L, 1L, 1L, 1L, 1L, 1L, 1L, 1L, 1L, 1L, 1L, 1L, 1L, 1L, 1L, 1L)));
        assertThat(only.histograms().get("MPI_Allreduce()")).isEqualTo(new ClassResult.Histogram(50.0, 54.0, 32,
                List.of(7L, 0L, 0L, 0L, 7L, 0L, 0L, 0L, 6L, 0L, 0L, 0L, 6L, 0L, 0L, 6L)));
        assertThat(all.bins()).isEqualTo(ClassFilter.DEFAULT_BINS);
    }

    @Test
    void reductionFactorExceedsOneAndGrowsWithTheRankCount() {
        double previous = 1.0;
        for (int ranks : new int[] {8, 32, 128}) {
            for (String spec : List.of("class:all", "class:comm")) {
                ClassResult result = classify(spec, twoRoles(ranks, 0), ranks);
                double factor = result.reductionFactor();

                assertThat(factor).as("%s with %d ranks", spec, ranks).isGreaterThan(1.0);
                assertThat(result.reducedBytes()).as("%s: size independent of ranks", spec)
                        .isEqualTo(classify(spec, twoRoles(8, 0), 8).reducedBytes());
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

        ClassResult byDefault = uintah("class:all", byRank);
        ClassResult level1Only = uintah("class:^Patch 1 -> ", byRank);
        ClassResult mpiOnly = uintah("class:comm", byRank);

        assertThat(byDefault.classes()).isEqualTo(64);
        assertThat(byDefault.reductionFactor()).isLessThan(1.0);
        assertThat(level1Only.classes()).isEqualTo(3);
        assertThat(level1Only.classList()).extracting(ClassFilterProperties::members)
                .containsExactlyInAnyOrder(Set.of(0), rangeSet(1, 8), rangeSet(9, 63));
        assertThat(mpiOnly.classes()).isEqualTo(3); // rank 0; other ranks ≡ 0 mod 4; the rest
        assertThat(level1Only.reductionFactor()).isGreaterThan(1.0).isGreaterThan(byDefault.reductionFactor());
        assertThat(mpiOnly.reductionFactor()).isGreaterThan(byDefault.reductionFactor());
        // "In all the schemes, complete profile information from all events is still preserved."
        for (ClassResult result : List.of(byDefault, level1Only, mpiOnly)) {
            long counted = result.classList().stream()
                    .flatMap(c -> c.events().values().stream())
                    .mapToLong(StatisticsSummary::count).sum();
            assertThat(counted).isEqualTo(records.size());
            long binned = result.classList().stream()
                    .flatMap(c -> c.histograms().values().stream())
                    .flatMap(h -> h.bins().stream()).mapToLong(b -> b).sum();
            assertThat(binned).isEqualTo(records.size());
        }
    }

    private static ClassResult uintah(String spec, ScopeRecord[] records) {
        ScopeTreeSimulator tree = ScopeTreeSimulator.kary(64, 8, FilterSpec.parse(spec));
        tree.round(0, host -> java.util.Arrays.stream(records).filter(x -> x.rank() == host).toList());
        return (ClassResult) tree.round(1, host -> List.of());
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

    /**
     * The pipeline by hand (ToM §4.2's 3 phases over (class, event) keys): round 0 fills it, round 1's command
     * carries round 0's bounds per class and event and its result is round 0's classes with their histograms, a
     * flush round completes round 1, and a round past the flush reports no classes.
     */
    @Test
    void eachRoundDeliversThePreviousRoundsClassesWithTheirHistograms() {
        ClassFilter left = new ClassFilter(ClassScheme.ALL, 2);
        ClassFilter right = new ClassFilter(ClassScheme.ALL, 2);
        ClassFilter root = new ClassFilter(ClassScheme.ALL, 2);
        ClassFilter frontEnd = new ClassFilter(ClassScheme.ALL, 2);
        long xy = ClassFilter.classId(List.of("x", "y"));
        long x = ClassFilter.classId(List.of("x"));

        // Round 0: rank 0 plays {x, y}, ranks 1 and 2 play {x}; Phase A only.
        Packet c0 = frontEnd.command(0, null);
        Packet r0 = root.up(c0, List.of(
                left.leaf(c0, List.of(rec(0, "x", 0, 1.0), rec(0, "y", 0, 5.0))),
                right.leaf(c0, List.of(rec(1, "x", 0, 3.0), rec(2, "x", 0, 2.0)))));
        assertThat(frontEnd.result(r0).isEmpty()).isTrue();

        // Round 1: the command carries round 0's bounds per (class, event).
        Packet c1 = frontEnd.command(1, r0);
        assertThat(c1.longs()).containsExactly(0);
        Map<String, List<Double>> bounds = new java.util.TreeMap<>();
        for (int i = 0; i < c1.records().size(); i++) {
            bounds.put(c1.records().get(i).event(), List.of(c1.doubles()[2 * i], c1.doubles()[2 * i + 1]));
        }
        assertThat(bounds).isEqualTo(Map.of(ClassFilter.histogramKey(xy, "x"), List.of(1.0, 1.0),
                ClassFilter.histogramKey(xy, "y"), List.of(5.0, 5.0),
                ClassFilter.histogramKey(x, "x"), List.of(2.0, 3.0)));
        Packet r1 = root.up(c1, List.of(
                left.leaf(c1, List.of(rec(0, "x", 1, 10.0), rec(-1, "host", 1, 7.0))),
                right.leaf(c1, List.of(rec(1, "x", 1, 20.0)))));
        ClassResult round0 = (ClassResult) frontEnd.result(r1);
        assertThat(round0.round()).isEqualTo(0L);
        assertThat(round0.bins()).isEqualTo(2);
        assertThat(round0.classes()).isEqualTo(2);
        assertThat(classEntry(round0, xy).members()).isEqualTo(List.of("0"));
        assertThat(classEntry(round0, xy).histograms())
                .isEqualTo(Map.of("x", histogram(1.0, 1.0, 1, 0), "y", histogram(5.0, 5.0, 1, 0)));
        assertThat(classEntry(round0, x).members()).isEqualTo(List.of("1-2"));
        assertThat(classEntry(round0, x).histograms()).isEqualTo(Map.of("x", histogram(2.0, 3.0, 1, 1)));
        assertThat(round0.rawBytes()).isEqualTo(8L * PacketCodec.encodedLength(Packet.ofRecords(
                ConcatFilter.RECORDS, 0, List.of(rec(0, "x", 0, 1.0), rec(0, "y", 0, 5.0), rec(1, "x", 0, 3.0),
                        rec(2, "x", 0, 2.0)))));

        // Flush: round 1's ranks 0 and 1 both play {x}; the host record is raw data but in no class.
        Packet c2 = frontEnd.command(2, r1);
        Packet r2 = root.up(c2, List.of(left.leaf(c2, List.of()), right.leaf(c2, List.of())));
        ClassResult round1 = (ClassResult) frontEnd.result(r2);
        assertThat(round1.round()).isEqualTo(1L);
        assertThat(round1.classes()).isEqualTo(1);
        assertThat(classEntry(round1, x).members()).isEqualTo(List.of("0-1"));
        assertThat(classEntry(round1, x).histograms()).isEqualTo(Map.of("x", histogram(10.0, 20.0, 1, 1)));
        assertThat(round1.rawBytes()).isEqualTo(8L * PacketCodec.encodedLength(Packet.ofRecords(
                ConcatFilter.RECORDS, 1, List.of(rec(0, "x", 1, 10.0), rec(-1, "host", 1, 7.0),
                        rec(1, "x", 1, 20.0)))));

        Packet c3 = frontEnd.command(3, r2);
        Packet r3 = root.up(c3, List.of(left.leaf(c3, List.of()), right.leaf(c3, List.of())));
        ClassResult round2 = (ClassResult) frontEnd.result(r3);
        assertThat(round2.round()).isEqualTo(2L);
        assertThat(round2.classes()).isZero();
        assertThat(round2.classList()).isEmpty();
    }

    @Test
    void aSkippedRoundDropsTheKeptClassesAndTheLeafKeepsOnlyOneRound() {
        ClassFilter leaf = new ClassFilter(ClassScheme.ALL, 1);
        ClassFilter frontEnd = new ClassFilter(ClassScheme.ALL, 1);
        Packet r0 = leaf.leaf(frontEnd.command(0, null), List.of(rec(0, "x", 0, 1.0)));
        leaf.leaf(frontEnd.command(1, r0), List.of(rec(0, "x", 1, 2.0)));

        // The front-end lost round 1's root and sends round 0's bounds again with round 2's command.
        ClassResult result = (ClassResult) frontEnd.result(leaf.leaf(frontEnd.command(2, r0), List.of()));

        assertThat(result.round()).isEqualTo(0L);
        assertThat(result.classes()).isZero();
        assertThat(result.rawBytes()).isEqualTo(8L * PacketLayout.HEADER_WORDS);
    }

    /**
     * In steady state a root packet also carries the next round's Phase A (its keys and bounds), so it is bigger
     * than a flush round's; it still does not grow with the ranks, so the factor grows with them.
     */
    @Test
    void steadyStateRootPacketsDoNotGrowWithTheRanks() {
        double previous = 0;
        Long size = null;
        for (int ranks : new int[] {8, 32, 128}) {
            ScopeTreeSimulator tree = ScopeTreeSimulator.kary(ranks / 4, 8, FilterSpec.parse("class:all"));
            ClassResult result = null;
            for (int round = 0; round < 4; round++) {
                List<ScopeRecord> records = twoRoles(ranks, round);
                FilterResult r = tree.round(round, host -> records.subList(host * 8, host * 8 + 8));
                result = r.isEmpty() ? null : (ClassResult) r;
            }
            assertThat(result).isNotNull();
            assertThat(result.round()).isEqualTo(2L);
            assertThat(result.classes()).isEqualTo(2);
            long reduced = result.reducedBytes();
            double factor = result.reductionFactor();
            if (size != null) {
                assertThat(reduced).as("%d ranks", ranks).isEqualTo(size);
                assertThat(factor).as("%d ranks", ranks).isGreaterThan(Math.max(previous, 1.0));
            }
            size = reduced;
            previous = factor;
        }
    }

    @Test
    void binsComeFromTheApiAndTheSpecMakesTheDefault() {
        assertThat(((ClassFilter) FilterSpec.parse("class:a:b").newInstance()).bins()).isEqualTo(ClassFilter.DEFAULT_BINS);
        assertThat(new ClassFilter(ClassScheme.COMMUNICATION, 5)).satisfies(f -> {
            assertThat(f.bins()).isEqualTo(5);
            assertThat(f.name()).isEqualTo("class:comm");
        });
        assertThatThrownBy(() -> new ClassFilter(ClassScheme.ALL, 0)).hasMessage("bins must be 1..65536, bins=0");
    }

    @Test
    void mixedUpPacketsFailNamingTheChild() {
        ClassFilter filter = new ClassFilter(ClassScheme.ALL);
        ClassFilter leaf = new ClassFilter(ClassScheme.ALL);
        Packet c1 = filter.command(1, leaf.leaf(filter.command(0, null), List.of(rec(0, "x", 0, 1))));
        // Round 0's class {x} of rank 0 with 16 bins, then round 1's Phase A class:
        // longs [0] 0  [1] raw  [2] 1  [3] 1  [4] id  [5] 1 run  [6] 1 event  [7..9] 0, 0, 1  [10] count 1
        //       [11] id  [12] 1 event  [13..14] 16 packed bins
        Packet good = leaf.leaf(c1, List.of(rec(0, "x", 1, 2)));
        assertThat(good.longs()).hasSize(15);
        Packet tooManyRuns = withLong(good, 5, 5);
        Packet zeroStride = withLong(good, 9, 0);
        Packet countTwo = withLong(good, 10, 2);
        Packet binsCut = new Packet(ClassFilter.CLASSES, 1, java.util.Arrays.copyOf(good.longs(), 14), good.doubles(),
                good.records());

        assertThat(filter.up(c1, List.of(good, good))).isNotNull();
        assertThatThrownBy(() -> filter.up(c1, List.of(good, tooManyRuns)))
                .hasMessageStartingWith("class:all: malformed packet from child 1: expected class 0 with runs and"
                        + " events within the packet");
        assertThatThrownBy(() -> filter.up(c1, List.of(zeroStride)))
                .hasMessage("class:all: malformed packet from child 0: expected a rank run first<=last, stride>=1,"
                        + " found first=0, last=0, stride=0");
        assertThatThrownBy(() -> filter.up(c1, List.of(countTwo)))
                .hasMessage("class:all: malformed packet from child 0: expected bins of binned event 0 summing to"
                        + " its count 2, found a sum of 1");
        assertThatThrownBy(() -> filter.up(c1, List.of(binsCut)))
                .hasMessage("class:all: malformed packet from child 0: expected 1 × 16 packed bin counts from long"
                        + " 13, found count 8 of 16 runs past the end of the 1 words");
        assertThatThrownBy(() -> filter.up(c1, List.of(Packet.of(ClassFilter.CLASSES, 0))))
                .hasMessage("class:all: child 0 sent tag 104 for round 0, expected tag 104 for round 1");
        assertThatThrownBy(() -> filter.up(filter.command(1, null), List.of(good)))
                .hasMessage("class:all: malformed packet from child 0: expected classes of round -1 (the command's"
                        + " bounds), found classes of round 0");
        assertThatThrownBy(() -> filter.command(1, good)).hasMessageContaining("of a round before 1");
        assertThatThrownBy(() -> filter.leaf(Packet.of(Packet.PULL, 3), List.of()))
                .hasMessage("class:all: malformed command for round 3: expected 1 long (the bounds' round, -1 for"
                        + " none), found []");
    }

    private static Packet withLong(Packet packet, int index, long value) {
        long[] longs = packet.longs().clone();
        longs[index] = value;
        return new Packet(packet.tag(), packet.round(), longs, packet.doubles(), packet.records());
    }

    private static ClassResult.FunctionalClass classEntry(ClassResult result, long id) {
        return result.classList().stream().filter(c -> c.id().equals(String.format("%016x", id)))
                .findFirst().orElseThrow(() -> new AssertionError("no class " + Long.toHexString(id) + " in " + result));
    }

    private static ClassResult.Histogram histogram(double min, double max, long... bins) {
        List<Long> counts = new ArrayList<>();
        long total = 0;
        for (long b : bins) {
            counts.add(b);
            total += b;
        }
        return new ClassResult.Histogram(min, max, total, counts);
    }
}
