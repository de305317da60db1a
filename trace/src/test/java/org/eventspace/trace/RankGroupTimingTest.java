package org.eventspace.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntToLongFunction;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Per-rank-group timing ({@link DeltaTiming#byRanks}): ranks whose compute before a call differs beyond chance keep a
 * timing of their own through the merge, ranks whose deltas differ only by noise share one, at most
 * {@link TraceConfig#timingGroups} per event; the file keeps and checks them; the export, the replay and
 * {@code trace stats} use each rank's own.
 */
class RankGroupTimingTest {
    @TempDir
    Path dir;

    /**
     * {@code ranks} ranks, each {@code iterations} times: compute {@code base(rank)} ± 5 % (uniform), then an allreduce;
     * the {@code es_slow_rank} pattern when rank 2's base is 3× the others'.
     */
    static Trace job(int ranks, int iterations, TraceConfig config, IntToLongFunction base, long seed) {
        List<RankTrace> traces = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            Random random = new Random(seed * 7919 + r);
            RankTrace t = new RankTrace(r, config);
            long b = base.applyAsLong(r);
            for (int i = 0; i < iterations; i++) {
                long compute = b + Math.round((random.nextDouble() - 0.5) * 0.1 * b);
                t.record(Op.ALLREDUCE_LONG, 3, 0, EventNode.NONE, 1, EventNode.NONE, compute, 20_000);
            }
            traces.add(t);
        }
        return Trace.mergeAll(traces);
    }

    static Trace slowRank2(TimeEncoding encoding) {
        return job(4, 150, TraceConfig.of(encoding), r -> r == 2 ? 1_200_000 : 400_000, 1);
    }

    static EventNode allreduce(Trace trace) {
        return event(trace.nodes());
    }

    private static EventNode event(List<Node> nodes) {
        for (Node n : nodes) {
            EventNode e = n instanceof LoopNode l ? event(l.body) : (EventNode) n;
            if (e != null && e.op() == Op.ALLREDUCE_LONG) {
                return e;
            }
        }
        return null;
    }

    @Test
    void aRankThatComputesThreeTimesLongerKeepsItsOwnTimingInEveryEncoding() {
        for (TimeEncoding encoding : TimeEncoding.values()) {
            DeltaTiming compute = allreduce(slowRank2(encoding)).computeDelta();
            List<DeltaTiming> groups = compute.byRanks();
            assertThat(groups).as("%s groups", encoding).hasSize(2);
            assertThat(groups.get(0).ranks()).isEqualTo(RankList.ofSorted(new int[] {0, 1, 3}));
            assertThat(groups.get(1).ranks()).isEqualTo(RankList.of(2));
            assertThat(groups.get(0).stats().mean()).isBetween(395_000.0, 405_000.0);
            assertThat(groups.get(1).stats().mean()).isBetween(1_190_000.0, 1_210_000.0);
            assertThat(groups.get(0).stats().count() + groups.get(1).stats().count()).isEqualTo(4 * 150);
            assertThat(groups.get(1).stats().minRank()).isEqualTo(2);
            // The timing of all ranks together is kept beside them, as before.
            assertThat(compute.stats().count()).isEqualTo(4 * 150);
            assertThat(compute.stats().maxRank()).isEqualTo(2);
            assertThat(compute.forRank(2)).isSameAs(groups.get(1));
            assertThat(compute.forRank(3)).isSameAs(groups.get(0));
            if (encoding == TimeEncoding.HIST) {
                assertThat(groups.get(1).histogram().total()).isEqualTo(150);
            }
            // The communicate deltas were equal: one timing.
            assertThat(allreduce(slowRank2(encoding)).communicateDelta().byRanks()).isEmpty();
        }
    }

    /**
     * A balanced program: every rank draws from the same distribution (±5 % uniform, and one delay of 20× in 50,
     * scheduling's tail). 256 ranks make 255 merges and as many tests; none may split, and the file stays the size of
     * 8 ranks'.
     */
    @Test
    void balancedRanksShareOneTimingWhateverTheirNumber() throws Exception {
        for (int ranks : new int[] {8, 256}) {
            List<RankTrace> traces = new ArrayList<>();
            for (int r = 0; r < ranks; r++) {
                Random random = new Random(r);
                RankTrace t = new RankTrace(r, TraceConfig.of(TimeEncoding.HIST));
                for (int i = 0; i < 1000; i++) {
                    long compute = 5_000 + random.nextInt(500) + (random.nextInt(50) == 0 ? 100_000 : 0);
                    t.record(Op.ALLREDUCE_LONG, 3, 0, EventNode.NONE, 1, EventNode.NONE, compute, 2_000 + random.nextInt(300));
                }
                traces.add(t);
            }
            EventNode e = allreduce(Trace.mergeAll(traces));
            assertThat(e.computeDelta().byRanks()).as("%d ranks' compute", ranks).isEmpty();
            assertThat(e.communicateDelta().byRanks()).as("%d ranks' communicate", ranks).isEmpty();
        }
    }

    @Test
    void pastTheBoundTheClosestGroupsMergeAndTheFileSaysSo() throws Exception {
        // Twelve ranks, each its own compute (each 1.5× the previous rank's): twelve timings that differ, four allowed.
        Trace trace = job(12, 40, TraceConfig.of(TimeEncoding.STATS).withTimingGroups(4),
                r -> Math.round(100_000 * Math.pow(1.5, r)), 3);
        DeltaTiming compute = allreduce(trace).computeDelta();
        List<DeltaTiming> groups = compute.byRanks();
        assertThat(groups).hasSize(4);
        assertThat(groups.stream().mapToInt(DeltaTiming::mergedEntries).sum()).isEqualTo(12);
        assertThat(groups.stream().mapToLong(g -> g.stats().count()).sum()).isEqualTo(12 * 40);
        RankList all = groups.get(0).ranks();
        for (DeltaTiming g : groups) {
            all = all.union(g.ranks());
            // Merged by closeness: each group holds neighbours in compute, so its ranks are consecutive.
            int[] r = g.ranks().ranks();
            assertThat(r[r.length - 1] - r[0]).as("%s", g).isEqualTo(r.length - 1);
        }
        assertThat(all).isEqualTo(RankList.all(12));
        // The extremes' ranks survive the merges.
        assertThat(compute.forRank(11).stats().maxRank()).isEqualTo(11);
        assertThat(compute.forRank(0).stats().minRank()).isEqualTo(0);

        Path file = dir.resolve("bound.trace.json");
        TraceFile.write(trace, file);
        // the timing is its groups: [ranks, merged_entries, n, mean, ...] each
        JsonNode byRanks = new ObjectMapper().readTree(file.toFile()).at("/groups/0/trace/0/body/0/compute");
        assertThat(byRanks.size()).as("%s", byRanks).isEqualTo(4);
        assertThat(byRanks.get(0).get(1).asInt()).isEqualTo(groups.get(0).mergedEntries()).isGreaterThanOrEqualTo(2);
        assertThat(byRanks.get(0).get(2).asLong()).isEqualTo(groups.get(0).stats().count());
        DeltaTiming back = allreduce(TraceFile.read(file)).computeDelta();
        assertThat(back.byRanks()).hasSize(4);
        for (int i = 0; i < 4; i++) {
            assertThat(back.byRanks().get(i).ranks()).isEqualTo(groups.get(i).ranks());
            assertThat(back.byRanks().get(i).mergedEntries()).isEqualTo(groups.get(i).mergedEntries());
        }
    }

    @Test
    void theFileKeepsEachGroupsTimingAndAnUnsplitTimingHasNone() throws Exception {
        for (TimeEncoding encoding : TimeEncoding.values()) {
            for (String name : new String[] {"slow.trace.json", "slow.trace.cbor"}) {
                Trace trace = slowRank2(encoding);
                Path file = dir.resolve(encoding.fileName() + name);
                TraceFile.write(trace, file);
                Trace back = TraceFile.read(file);
                DeltaTiming was = allreduce(trace).computeDelta();
                DeltaTiming is = allreduce(back).computeDelta();
                assertThat(is.byRanks()).hasSize(2);
                for (int i = 0; i < 2; i++) {
                    TimeStats a = was.byRanks().get(i).stats();
                    TimeStats b = is.byRanks().get(i).stats();
                    assertThat(is.byRanks().get(i).ranks()).isEqualTo(was.byRanks().get(i).ranks());
                    assertThat(b.count()).isEqualTo(a.count());
                    // a scaled estimate: within 2^-11 of the mean (ScaledEstimate), the extremes exact
                    assertThat(b.mean()).isCloseTo(a.mean(), org.assertj.core.data.Offset.offset(a.mean() / 2048 + 0.5));
                    assertThat(b.max()).isEqualTo(a.max());
                    assertThat(b.maxRank()).isEqualTo(a.maxRank());
                    assertThat(is.byRanks().get(i).paths().keySet()).isEqualTo(was.byRanks().get(i).paths().keySet());
                }
                assertThat(is.ranks()).isEqualTo(RankList.all(4));
                // Written again, the same document.
                assertThat(TraceFile.toJson(back)).isEqualTo(TraceFile.toJson(trace));
            }
        }
        assertThat(TraceFile.toJson(job(4, 50, TraceConfig.of(TimeEncoding.HIST), r -> 400_000, 2)).toString())
                .doesNotContain("by_ranks");
    }

    /** The object form a timing with path histograms keeps: {@code by_ranks}, groups of named fields. */
    @Test
    void aBadGroupIsRefusedNamingThePlace() throws Exception {
        String at = "/groups/0/trace/0/body/0/compute/by_ranks";
        TimeEncoding path = TimeEncoding.PATH;
        String byRanks = "by_ranks";
        assertRefused(path, byRanks, g -> ((ArrayNode) g.get(1).path("ranks")).set(0, 5), at + "/1/ranks", "ranks below 4");
        assertRefused(path, byRanks, g -> ((ArrayNode) g.get(1).path("ranks")).set(0, 0), at + "/1/ranks",
                "each rank in one group only");
        assertRefused(path, byRanks, g -> ((ObjectNode) g.get(1)).put("n", 7), "/groups/0/trace/0/body/0/compute/by_ranks",
                "add up to the timing's n 600, not 457");
        assertRefused(path, byRanks, g -> ((ObjectNode) g.get(1)).put("n", 0), at + "/1/n", "an integer >= 1");
        assertRefused(path, byRanks, g -> g.remove(1), at, "at least 2 rank groups");
        assertRefused(path, byRanks, g -> ((ObjectNode) g.get(1)).put("max_rank", 3), at + "/1",
                "min_rank and max_rank among");
        assertRefused(path, byRanks, g -> ((ObjectNode) g.get(0)).put("merged_entries", 1), at + "/0/merged_entries",
                "an integer >= 2");
        assertRefused(path, byRanks, g -> ((ObjectNode) g.get(0)).remove("ranks"), at + "/0/ranks", "field 'ranks'");
        assertRefused(path, byRanks, g -> ((ObjectNode) g.get(0)).put("merged_entries", 4), at + "/0/merged_entries",
                "at most the group's 3 ranks");

        // A rank of the job but not of the event: the trace's group (and so the event) made of ranks 0, 1 and 3 only.
        ObjectNode doc = TraceFile.toJson(slowRank2(TimeEncoding.PATH));
        ((ObjectNode) doc.at("/groups/0")).set("ranks", new ObjectMapper().readTree("[0,1,2,3,1,1]"));
        Path file = dir.resolve("outside.trace.json");
        Files.writeString(file, doc.toString());
        assertThatThrownBy(() -> TraceFile.read(file)).isInstanceOf(TraceFormatException.class)
                .hasMessageContaining(file + ": at " + at + "/1/ranks: expected ranks of the event's 0..1,3 (rank 2 is not)");
    }

    /** The array form of every other timing: the array of its groups' {@code [ranks, merged_entries, n, mean, ...]}. */
    @Test
    void aBadGroupInTheArrayFormIsRefusedNamingThePlace() throws Exception {
        String at = "/groups/0/trace/0/body/0/compute";
        for (TimeEncoding e : new TimeEncoding[] {TimeEncoding.STATS, TimeEncoding.HIST}) {
            assertRefused(e, "", g -> ((ArrayNode) g.get(1).get(0)).set(0, 5), at + "/1/0", "ranks below 4");
            assertRefused(e, "", g -> ((ArrayNode) g.get(1).get(0)).set(0, 0), at + "/1/0", "each rank in one group only");
            assertRefused(e, "", g -> ((ArrayNode) g.get(1)).set(2, 0), at + "/1/2", "an integer >= 1");
            assertRefused(e, "", g -> g.remove(1), at, "at least 2 rank groups");
            assertRefused(e, "", g -> ((ArrayNode) g.get(1)).set(8, 3), at + "/1", "min_rank and max_rank among");
            assertRefused(e, "", g -> ((ArrayNode) g.get(0)).set(1, 0), at + "/0/1", "merged_entries, an integer >= 1");
            assertRefused(e, "", g -> ((ArrayNode) g.get(0)).set(1, 4), at + "/0/1", "at most the group's 3 ranks");
        }
        assertRefused(TimeEncoding.STATS, "", g -> ((ArrayNode) g.get(0)).remove(8), at + "/0",
                "a rank group's timing [ranks, merged_entries, n");
        // in a histogram encoding the bins then stand where max_rank belongs
        assertRefused(TimeEncoding.HIST, "", g -> ((ArrayNode) g.get(0)).remove(8), at + "/0/8", "an integer >= 0");
    }

    /**
     * Damages the groups of slow rank 2's compute timing in a file of {@code encoding}: {@code field} the object's
     * field holding them, or "" where the timing is the array of its groups.
     */
    private void assertRefused(TimeEncoding encoding, String field, java.util.function.Consumer<ArrayNode> damage,
            String pointer, String expected) throws Exception {
        ObjectNode doc = TraceFile.toJson(slowRank2(encoding));
        ArrayNode groups = (ArrayNode) doc.at("/groups/0/trace/0/body/0/compute" + (field.isEmpty() ? "" : "/" + field));
        assertThat(groups.size()).as("%s", doc).isEqualTo(2);
        damage.accept(groups);
        Path file = dir.resolve("bad.trace.json");
        Files.writeString(file, doc.toString());
        assertThatThrownBy(() -> TraceFile.read(file)).isInstanceOf(TraceFormatException.class)
                .hasMessageContaining(file + ": at " + pointer + ": expected")
                .hasMessageContaining(expected);
    }

    /** The timeline: rank 2's gaps before the allreduce are 3× the others', as recorded, in every encoding. */
    @Test
    void theExportShowsTheSlowRankComputingThreeTimesLonger() throws Exception {
        for (TimeEncoding encoding : TimeEncoding.values()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            new PerfettoExport(slowRank2(encoding), 1_000_000).write(out);
            Map<Integer, List<Double>> gaps = new HashMap<>();
            Map<Integer, Double> end = new HashMap<>();
            for (JsonNode e : new ObjectMapper().readTree(out.toByteArray()).path("traceEvents")) {
                if (!e.path("ph").asText().equals("X")) {
                    continue;
                }
                int tid = e.path("tid").asInt();
                double ts = e.path("ts").asDouble();
                gaps.computeIfAbsent(tid, k -> new ArrayList<>()).add(ts - end.getOrDefault(tid, 0.0));
                end.put(tid, ts + e.path("dur").asDouble());
            }
            for (int r : new int[] {0, 1, 3}) {
                double ratio = median(gaps.get(2)) / median(gaps.get(r));
                assertThat(ratio).as("%s: rank 2's median gap over rank %d's", encoding, r).isBetween(2.8, 3.2);
                assertThat(median(gaps.get(r))).as("%s: rank %d's median gap (µs)", encoding, r).isBetween(380.0, 420.0);
            }
        }
    }

    private static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        s.sort(null);
        return s.get(s.size() / 2);
    }

    /** The replay draws each rank's compute from its own group: rank 2 waits 3× what each other rank waits. */
    @Test
    void theReplayReenactsEachRanksOwnCompute() {
        for (TimeEncoding encoding : TimeEncoding.values()) {
            Trace trace = job(4, 30, TraceConfig.of(encoding), r -> r == 2 ? 30_000 : 10_000, 5);
            long[] drawn = new long[4];
            for (int r = 0; r < 4; r++) {
                Replay replay = new Replay(trace, new ReplayTest.CountingComm(r, 4), Replay.Compute.SPIN);
                replay.run();
                drawn[r] = replay.computeNanos();
            }
            for (int r : new int[] {0, 1, 3}) {
                assertThat((double) drawn[2] / drawn[r]).as("%s: %s", encoding, java.util.Arrays.toString(drawn))
                        .isBetween(2.8, 3.2);
            }
        }
    }

    /** {@code trace search}'s timing tree lays out each rank's own means: rank 2's run is its 1.2 ms computes long. */
    @Test
    void theTimingTreeOfARankUsesItsOwnGroupsMeans() {
        Trace trace = slowRank2(TimeEncoding.STATS);
        DeltaTiming compute = allreduce(trace).computeDelta();
        double comm = allreduce(trace).communicateDelta().stats().mean();
        for (int r = 0; r < 4; r++) {
            assertThat(TimingTree.of(trace, r).total()).as("rank %d", r).isCloseTo(
                    150 * (compute.forRank(r).stats().mean() + comm), org.assertj.core.data.Percentage.withPercentage(0.01));
        }
        assertThat(TimingTree.of(trace, 2).total() / TimingTree.of(trace, 0).total()).isBetween(2.8, 3.0);
    }

    /** {@code trace show} prints each rank group's statistics under the all-ranks line, and nothing where ranks agree. */
    @Test
    void showPrintsEachGroupsOwnStatistics() {
        java.io.StringWriter text = new java.io.StringWriter();
        TracePrinter.print(slowRank2(TimeEncoding.HIST), new java.io.PrintWriter(text), true);
        String shown = text.toString();
        assertThat(shown).containsPattern("\\n {6}compute: n=600 mean=.*\\n {8}ranks 0\\.\\.1,3: n=450 mean=(39|40)\\d\\.\\d{3} µs"
                + ".*\\n {8}ranks 2: n=150 mean=1[12]\\d\\d\\.\\d{3} µs .*\\(rank 2\\) max=.*\\(rank 2\\)\\n");
        java.io.StringWriter agreeing = new java.io.StringWriter();
        TracePrinter.print(job(4, 50, TraceConfig.of(TimeEncoding.HIST), r -> 400_000, 2), new java.io.PrintWriter(agreeing), true);
        assertThat(agreeing.toString()).doesNotContain("  ranks 0..1");
    }

    @Test
    void statsNamesTheSlowRankGroupByHowMuchAndHowSurely() {
        List<Imbalance.Finding> found = Imbalance.find(slowRank2(TimeEncoding.HIST), 1.0);
        assertThat(found).hasSize(1);
        Imbalance.Longer longer = found.get(0).longer();
        assertThat(longer.ranks()).isEqualTo(RankList.of(2));
        assertThat(longer.others()).isEqualTo(RankList.ofSorted(new int[] {0, 1, 3}));
        assertThat(longer.ratio()).isBetween(2.9, 3.1);
        assertThat(longer.separationSe()).isGreaterThan(4);
        assertThat(longer.everyCallLonger()).isTrue();
        assertThat(longer.calls()).isEqualTo(150);
        assertThat(found.get(0).verdict()).startsWith("ranks 2 computed longer: mean 1")
                .contains("vs ", "on ranks " + longer.others(), "each of its 150 calls took longer than the others' usual call (",
                        "2^-150", "standard errors apart");

        // Balanced but for one long delay on rank 1: a spread, yet no rank group stands apart.
        List<RankTrace> traces = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            RankTrace t = new RankTrace(r, TraceConfig.of(TimeEncoding.STATS));
            for (int i = 0; i < 100; i++) {
                t.record(Op.BARRIER, 1, -1, EventNode.NONE, EventNode.NONE, EventNode.NONE,
                        r == 1 && i == 50 ? 90_000 : 10_000 + (i % 10) * 100, 500);
            }
            traces.add(t);
        }
        List<Imbalance.Finding> balanced = Imbalance.find(Trace.mergeAll(traces), 1.0);
        assertThat(balanced).hasSize(1);
        assertThat(balanced.get(0).longer()).isNull();
        assertThat(balanced.get(0).compute().maxRank()).isEqualTo(1);
        assertThat(balanced.get(0).verdict()).startsWith("no rank group computed longer beyond chance");
    }

    /** Two slow ranks among eight: the same two groups whatever order the ranks' timings merge in. */
    @Test
    void clearlyDifferentRanksComeOutApartInAnyMergeOrder() {
        TraceConfig config = TraceConfig.of(TimeEncoding.HIST);
        Random order = new Random(11);
        for (int trial = 0; trial < 20; trial++) {
            List<DeltaTiming> ranks = new ArrayList<>();
            for (int r = 0; r < 8; r++) {
                Random random = new Random(r);
                DeltaTiming t = new DeltaTiming(config);
                long base = r == 2 || r == 5 ? 900_000 : 300_000;
                for (int i = 0; i < 50; i++) {
                    t.add(base + random.nextInt(30_000) + (random.nextInt(25) == 0 ? 5_000_000 : 0), r, 0);
                }
                ranks.add(t);
            }
            java.util.Collections.shuffle(ranks, order);
            // A random binary tree: merge two random neighbours until one is left.
            while (ranks.size() > 1) {
                int i = order.nextInt(ranks.size() - 1);
                ranks.get(i).merge(ranks.remove(i + 1));
            }
            DeltaTiming all = ranks.get(0);
            assertThat(all.byRanks()).as("trial %d", trial).hasSize(2);
            assertThat(all.byRanks().get(0).ranks()).isEqualTo(RankList.ofSorted(new int[] {0, 1, 3, 4, 6, 7}));
            assertThat(all.byRanks().get(1).ranks()).isEqualTo(RankList.ofSorted(new int[] {2, 5}));
            assertThat(all.stats().count()).isEqualTo(400);
        }
    }

    /**
     * Four ranks, 150 calls each of {@code base(rank)} ± 5 % compute and 2 ms of allreduce, each rank's span the sum of
     * its deltas (as a recorder measures it): the trace's wall time is then what the groups' differences are set against.
     */
    private static Trace timedJob(IntToLongFunction base) {
        TraceConfig config = TraceConfig.of(TimeEncoding.HIST);
        List<RankTrace> traces = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            Random random = new Random(31 + r);
            RankTrace t = new RankTrace(r, config);
            long b = base.applyAsLong(r);
            long span = 0;
            for (int i = 0; i < 150; i++) {
                long compute = b + Math.round((random.nextDouble() - 0.5) * 0.1 * b);
                t.record(Op.ALLREDUCE_LONG, 3, 0, EventNode.NONE, 1, EventNode.NONE, compute, 2_000_000);
                span += compute + 2_000_000;
            }
            t.spanNanos = span;
            traces.add(t);
        }
        return Trace.mergeAll(traces);
    }

    /**
     * A group apart costs its statistics and histogram in the file; it is kept where its difference adds at least 1 % of
     * the run to each of its ranks' runs, and merged with its neighbour where it adds less: a rank 2 that computes 8 µs
     * where the others compute 4 µs passes the sign test by far, but adds 0.6 ms to a run of 0.3 s (0.2 %); a rank 3 that
     * computes 2 ms adds half its run. The all-ranks timing is the same either way.
     */
    @Test
    void onlyGroupsWhoseDifferenceMattersToTheRunStayApart() {
        Trace trace = timedJob(r -> r == 3 ? 2_000_000 : r == 2 ? 8_000 : 4_000);
        DeltaTiming compute = allreduce(trace).computeDelta();
        assertThat(compute.byRanks()).hasSize(2);
        assertThat(compute.byRanks().get(0).ranks()).isEqualTo(RankList.ofSorted(new int[] {0, 1, 2}));
        assertThat(compute.byRanks().get(0).mergedEntries()).isEqualTo(1);
        assertThat(compute.byRanks().get(1).ranks()).isEqualTo(RankList.of(3));
        assertThat(compute.stats().count()).isEqualTo(600);
        assertThat(compute.byRanks().get(0).stats().count() + compute.byRanks().get(1).stats().count()).isEqualTo(600);

        // Only the immaterial difference: no groups, and the same all-ranks statistics as the unsettled merge.
        Trace small = timedJob(r -> r == 2 ? 8_000 : 4_000);
        DeltaTiming settled = allreduce(small).computeDelta();
        assertThat(settled.byRanks()).isEmpty();
        assertThat(settled.stats().count()).isEqualTo(600);
        assertThat(settled.stats().maxRank()).as("the extremes still name the rank").isEqualTo(2);
        // Without a wall time (a trace assembled from deltas alone) nothing is settled: the sign test's split stands.
        Trace unsettled = job(4, 150, TraceConfig.of(TimeEncoding.HIST), r -> r == 2 ? 8_000 : 4_000, 31);
        assertThat(allreduce(unsettled).computeDelta().byRanks()).hasSize(2);
        assertThat(allreduce(unsettled).computeDelta().stats().mean()).isCloseTo(settled.stats().mean(),
                org.assertj.core.data.Offset.offset(200.0));
    }

    /** The merge of timings from the same rank (a loop folding its iterations) adds samples and splits nothing. */
    @Test
    void timingsOfOneRankMergeIntoOne() {
        TraceConfig config = TraceConfig.of(TimeEncoding.HIST);
        DeltaTiming a = new DeltaTiming(config);
        DeltaTiming b = new DeltaTiming(config);
        for (int i = 0; i < 20; i++) {
            a.add(1_000, 3, 0);
            b.add(900_000, 3, 0);
        }
        a.merge(b);
        assertThat(a.byRanks()).isEmpty();
        assertThat(a.ranks()).isEqualTo(RankList.of(3));
        assertThat(a.stats().count()).isEqualTo(40);
    }
}
