package org.eventspace.scope.filter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
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
 * ToM's ClassFilter (§4.3) on random data, random trees and each kind of scheme equals a central grouping of the
 * ranks by the set of their selected event names: the same classes with the same members, each class with the
 * central statistics of its ranks' records, and byte counts that are the encoded lengths of the concatenating
 * gather's root packet and of the filter's own root packet.
 */
class ClassFilterProperties {
    static final List<String> SCHEMES = List.of("all", "comm", "^(MPI|io)", "compute|Patch", "zzz");
    private static final Pattern RUN = Pattern.compile("^(-?\\d+)(?:-(-?\\d+)(?:/(\\d+))?)?$");

    @Property(tries = 250)
    void classesEqualTheCentralGrouping(@ForAll long seed,
                                        @ForAll @IntRange(min = 1, max = 40) int ranks,
                                        @ForAll @IntRange(min = 1, max = 12) int hosts,
                                        @ForAll @IntRange(min = 1, max = 3) int rounds,
                                        @ForAll @IntRange(min = 0, max = 4) int schemeIndex) {
        Random random = new Random(seed);
        Workload workload = Workload.random(random, ranks, hosts, rounds);
        ClassScheme scheme = ClassScheme.parse(SCHEMES.get(schemeIndex));
        ScopeTreeSimulator tree = ScopeTreeSimulator.random(hosts, new FilterSpec.Classify(scheme), random);

        for (int r = 0; r < rounds; r++) {
            int round = r;
            Map<String, Object> result = tree.round(round, host -> workload.recordsOf(round, host));
            List<ScopeRecord> records = workload.rounds().get(r);

            Map<Set<String>, Set<Integer>> central = centralClasses(records, scheme);
            List<Map<String, Object>> classList = classList(result);
            assertThat(result.get("classes")).isEqualTo(central.size());
            assertThat(classList).hasSize(central.size());
            Set<Set<Integer>> memberSets = new HashSet<>();
            for (Map<String, Object> c : classList) {
                Set<Integer> members = members(c);
                memberSets.add(members);
                Set<String> selected = central.entrySet().stream().filter(e -> e.getValue().equals(members))
                        .map(Map.Entry::getKey).findFirst().orElseThrow(() ->
                                new AssertionError("class " + members + " is not a central class " + central));
                assertThat(c.get("id")).isEqualTo(String.format("%016x", ClassFilter.classId(selected)));
                assertThat(c.get("rank_count")).isEqualTo(members.size());
                List<ScopeRecord> ofClass = records.stream().filter(x -> members.contains(x.rank())).toList();
                StatsFilterProperties.assertStatistics(events(c), ofClass);
            }
            assertThat(memberSets).isEqualTo(new HashSet<>(central.values()));
            long rawBytes = 8L * PacketCodec.encodedLength(Packet.ofRecords(ConcatFilter.RECORDS, r, records));
            long reducedBytes = 8L * PacketCodec.encodedLength(tree.lastRoot());
            assertThat(result.get("raw_bytes")).isEqualTo(rawBytes);
            assertThat(result.get("reduced_bytes")).isEqualTo(reducedBytes);
            assertThat(result.get("reduction_factor")).isEqualTo((double) rawBytes / reducedBytes);
        }
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

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> classList(Map<String, Object> result) {
        return (List<Map<String, Object>>) result.get("class_list");
    }

    @SuppressWarnings("unchecked")
    static Map<String, Map<String, Object>> events(Map<String, Object> classEntry) {
        return (Map<String, Map<String, Object>>) classEntry.get("events");
    }

    @SuppressWarnings("unchecked")
    static Set<Integer> members(Map<String, Object> classEntry) {
        return expand((List<String>) classEntry.get("members"));
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
