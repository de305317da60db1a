package org.eventspace.scope.filter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * ToM's ClassFilter (§4.3) on random data, random trees and each kind of scheme, pipelined over 3–5 rounds and
 * flushed, equals a central grouping of each round's ranks by the set of their selected event names: the same
 * classes with the same members, each class with the central statistics of its ranks' records and, per event, the
 * central histogram of those records (the class's global minimum and maximum of the event, {@link HistFilter#bin}),
 * bin for bin; and byte counts that are the encoded lengths of the concatenating gather's root packet for the
 * round and of the filter's root packet that carries it.
 */
class ClassFilterProperties {
    static final List<String> SCHEMES = List.of("all", "comm", "^(MPI|io)", "compute|Patch", "zzz");
    private static final Pattern RUN = Pattern.compile("^(-?\\d+)(?:-(-?\\d+)(?:/(\\d+))?)?$");

    @Property(tries = 250)
    void pipelinedClassesAndHistogramsEqualTheCentralGrouping(@ForAll long seed,
                                                             @ForAll @IntRange(min = 1, max = 40) int ranks,
                                                             @ForAll @IntRange(min = 1, max = 12) int hosts,
                                                             @ForAll @IntRange(min = 3, max = 5) int rounds,
                                                             @ForAll @IntRange(min = 0, max = 4) int schemeIndex,
                                                             @ForAll @IntRange(min = 1, max = ClassFilter.DEFAULT_BINS) int bins) {
        Random random = new Random(seed);
        Workload workload = Workload.random(random, ranks, hosts, rounds);
        ClassScheme scheme = ClassScheme.parse(SCHEMES.get(schemeIndex));
        // The command line's class:SCHEME has DEFAULT_BINS; other bin counts come from the API's constructor.
        ScopeTreeSimulator tree = ScopeTreeSimulator.random(hosts, () -> new ClassFilter(scheme, bins), random);

        for (int r = 0; r <= rounds; r++) { // round `rounds` has no records: it flushes round rounds−1
            int round = r;
            FilterResult filterResult = tree.round(round, host -> workload.recordsOf(round, host));
            if (r == 0) {
                assertThat(filterResult.isEmpty()).as("pipeline filling").isTrue();
                assertThat(filterResult).isEqualTo(FilterResult.none());
                continue;
            }
            ClassResult result = (ClassResult) filterResult;
            List<ScopeRecord> records = workload.rounds().get(r - 1);
            assertThat(result.round()).isEqualTo((long) (r - 1));
            assertThat(result.bins()).isEqualTo(bins);

            Map<Set<String>, Set<Integer>> central = centralClasses(records, scheme);
            List<ClassResult.FunctionalClass> classList = result.classList();
            assertThat(result.classes()).isEqualTo(central.size());
            assertThat(classList).hasSize(central.size());
            Set<Set<Integer>> memberSets = new HashSet<>();
            for (ClassResult.FunctionalClass c : classList) {
                Set<Integer> members = members(c);
                memberSets.add(members);
                Set<String> selected = central.entrySet().stream().filter(e -> e.getValue().equals(members))
                        .map(Map.Entry::getKey).findFirst().orElseThrow(() ->
                                new AssertionError("class " + members + " is not a central class " + central));
                assertThat(c.id()).isEqualTo(String.format("%016x", ClassFilter.classId(selected)));
                assertThat(c.rankCount()).isEqualTo(members.size());
                List<ScopeRecord> ofClass = records.stream().filter(x -> members.contains(x.rank())).toList();
                StatsFilterProperties.assertStatistics(c.events(), ofClass);
                assertThat(c.histograms()).as("histograms of class %s, round %d", members, r - 1)
                        .isEqualTo(centralHistograms(ofClass, bins));
            }
            assertThat(memberSets).isEqualTo(new HashSet<>(central.values()));
            long rawBytes = 8L * PacketCodec.encodedLength(Packet.ofRecords(ConcatFilter.RECORDS, r - 1, records));
            long reducedBytes = 8L * PacketCodec.encodedLength(tree.lastRoot());
            assertThat(result.rawBytes()).isEqualTo(rawBytes);
            assertThat(result.reducedBytes()).isEqualTo(reducedBytes);
            assertThat(result.reductionFactor()).isEqualTo((double) rawBytes / reducedBytes);
        }
    }

    /** Per event of {@code records}: {min, max, count, bins} over the event's global minimum and maximum. */
    static Map<String, ClassResult.Histogram> centralHistograms(List<ScopeRecord> records, int bins) {
        TreeMap<String, List<Double>> byEvent = new TreeMap<>();
        for (ScopeRecord record : records) {
            byEvent.computeIfAbsent(record.event(), e -> new ArrayList<>()).add(record.value());
        }
        Map<String, ClassResult.Histogram> histograms = new TreeMap<>();
        byEvent.forEach((event, values) -> {
            double min = values.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
            double max = values.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
            long[] counts = new long[bins];
            values.forEach(v -> counts[HistFilter.bin(v, min, max, bins)]++);
            List<Long> countList = new ArrayList<>();
            for (long count : counts) {
                countList.add(count);
            }
            histograms.put(event, new ClassResult.Histogram(min, max, values.size(), countList));
        });
        return histograms;
    }

    @Property(tries = 200)
    void rankListsEncodeTheirSetExactlyAndCanonically(@ForAll long seed, @ForAll @IntRange(min = 0, max = 60) int size) {
        Random random = new Random(seed);
        TreeSet<Integer> ranks = new TreeSet<>();
        int bound = 1 + random.nextInt(200);
        while (ranks.size() < Math.min(size, bound + 1)) {
            ranks.add(random.nextInt(bound + 1) - 1);
        }
        List<Integer> shuffled = new ArrayList<>(ranks);
        java.util.Collections.shuffle(shuffled, random);
        RankList one = new RankList();
        shuffled.forEach(one::add);
        RankList halves = new RankList();
        long[] firstHalf = runsOf(shuffled.subList(0, shuffled.size() / 2));
        long[] secondHalf = runsOf(shuffled.subList(shuffled.size() / 2, shuffled.size()));
        halves.addRuns(firstHalf, 0, firstHalf.length / RankList.RUN_LONGS, "test", 0);
        halves.addRuns(secondHalf, 0, secondHalf.length / RankList.RUN_LONGS, "test", 1);

        assertThat(one.runs()).isEqualTo(halves.runs());
        assertThat(one.size()).isEqualTo(ranks.size());
        assertThat(expand(RankList.text(one.runs()))).isEqualTo(ranks);
    }

    private static long[] runsOf(List<Integer> ranks) {
        RankList list = new RankList();
        ranks.forEach(list::add);
        return list.runs();
    }

    /** Ranks grouped by the set of their selected event names. */
    static Map<Set<String>, Set<Integer>> centralClasses(List<ScopeRecord> records, ClassScheme scheme) {
        Map<Integer, Set<String>> selectedOfRank = new TreeMap<>();
        for (ScopeRecord record : records) {
            if (record.rank() < 0) {
                continue;   // a host's record: no rank to classify
            }
            Set<String> selected = selectedOfRank.computeIfAbsent(record.rank(), r -> new TreeSet<>());
            if (scheme.selects(record.event())) {
                selected.add(record.event());
            }
        }
        Map<Set<String>, Set<Integer>> classes = new HashMap<>();
        selectedOfRank.forEach((rank, selected) ->
                classes.computeIfAbsent(selected, s -> new TreeSet<>()).add(rank));
        return classes;
    }

    static Set<Integer> members(ClassResult.FunctionalClass c) {
        return expand(c.members());
    }

    static Set<Integer> expand(List<String> runs) {
        Set<Integer> ranks = new TreeSet<>();
        for (String run : runs) {
            Matcher m = RUN.matcher(run);
            assertThat(m.matches()).as("rank run text '%s'", run).isTrue();
            int first = Integer.parseInt(m.group(1));
            int last = m.group(2) == null ? first : Integer.parseInt(m.group(2));
            int stride = m.group(3) == null ? 1 : Integer.parseInt(m.group(3));
            for (int r = first; r <= last; r += stride) {
                ranks.add(r);
            }
        }
        return ranks;
    }
}
