package org.eventspace.mpi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The pairing and the waits of {@link PointToPointWaits} depend on each rank's own order only: two hosts' readers
 * (ranks 0–1 on one, 2–3 on the other) may interleave their streams in any way, as node agents of different hosts
 * do, and the matches, the unmatched calls and every rank's waits come out the same.
 */
class PointToPointOrderProperties {
    private static final int RANKS = 4;
    private static final int WORLD = 0;

    /** One call of a rank's stream, as the analysis hands it over. */
    private interface Call extends Consumer<PointToPointWaits> {
    }

    @Property(tries = 300)
    void everyInterleavingOfTwoHostsGivesTheSameMatchesAndWaits(@ForAll long programSeed,
                                                                 @ForAll long orderSeed,
                                                                 @ForAll @IntRange(min = 1, max = 60) int callsPerRank) {
        List<List<Call>> streams = program(new Random(programSeed), callsPerRank);
        Outcome rankByRank = feed(streams, sequential(streams));
        Outcome hostAFirst = feed(streams, hostsInTurn(streams, true));
        Outcome hostBFirst = feed(streams, hostsInTurn(streams, false));
        Outcome interleaved = feed(streams, randomInterleaving(streams, new Random(orderSeed)));

        assertThat(hostAFirst).isEqualTo(rankByRank);
        assertThat(hostBFirst).isEqualTo(rankByRank);
        assertThat(interleaved).isEqualTo(rankByRank);
    }

    /** Everything {@link PointToPointWaits} reports, compared as a whole. */
    private record Outcome(long matched, long unmatched, long noPartner, long overwritten, long withoutPost,
                           List<Long> lateSenderNs, List<Long> lateSenderCount, List<Long> lateSenderCausedNs,
                           List<Long> lateReceiverNs, List<Long> lateReceiverCount) {
    }

    private static Outcome feed(List<List<Call>> streams, int[] order) {
        PointToPointWaits p = new PointToPointWaits(RANKS);
        int[] next = new int[RANKS];
        for (int rank : order) {
            streams.get(rank).get(next[rank]++).accept(p);
        }
        for (int r = 0; r < RANKS; r++) {
            assertThat(next[r]).as("rank %d fed whole", r).isEqualTo(streams.get(r).size());
        }
        p.finish(new long[] {0, 0, 3, 0});
        return new Outcome(p.matched, p.unmatched(), p.unmatchedNoPartner, p.unmatchedPartnerOverwritten,
                p.completionsWithoutPost, list(p.lateSenderNs), list(p.lateSenderCount), list(p.lateSenderCausedNs),
                list(p.lateReceiverNs), list(p.lateReceiverCount));
    }

    private static List<Long> list(long[] a) {
        List<Long> l = new ArrayList<>();
        for (long x : a) {
            l.add(x);
        }
        return l;
    }

    /** Each rank's stream: sends, blocking receives, sendrecvs, named and wildcard MPI_Irecv with their completions. */
    private static List<List<Call>> program(Random random, int callsPerRank) {
        List<List<Call>> streams = new ArrayList<>();
        for (int rank = 0; rank < RANKS; rank++) {
            List<Call> calls = new ArrayList<>();
            long now = random.nextInt(1_000);
            int postLow = 1;
            List<long[]> open = new ArrayList<>(); // outstanding MPI_Irecv: {postLow, src, tag}
            for (int i = 0; i < callsPerRank; i++) {
                int peer = (rank + 1 + random.nextInt(RANKS - 1)) % RANKS;
                int tag = random.nextInt(2);
                long entry = now + random.nextInt(500);
                long exit = entry + 1 + random.nextInt(2_000);
                now = exit;
                int me = rank;
                switch (random.nextInt(6)) {
                    case 0, 1 -> calls.add(p -> p.send(WORLD, me, peer, tag, entry, exit, true));
                    case 2 -> calls.add(p -> p.receive(WORLD, peer, me, tag, entry, exit));
                    case 3 -> {
                        calls.add(p -> p.send(WORLD, me, peer, tag, entry, exit, false));
                        calls.add(p -> p.receive(WORLD, peer, me, tag, entry, exit));
                    }
                    case 4 -> {
                        boolean wildcard = random.nextInt(4) == 0;
                        int low = postLow++;
                        calls.add(p -> p.post(WORLD, wildcard ? -1 : peer, me, wildcard ? -1 : tag, entry, low));
                        open.add(new long[] {low, peer, tag});
                    }
                    default -> {
                        // one wait or waitall completing every outstanding MPI_Irecv: records share its window
                        for (long[] o : open) {
                            calls.add(p -> p.complete(WORLD, (int) o[1], me, (int) o[2], (int) o[0], entry, exit));
                        }
                        open.clear();
                    }
                }
            }
            streams.add(calls);
        }
        return streams;
    }

    private static int[] sequential(List<List<Call>> streams) {
        List<Integer> order = new ArrayList<>();
        for (int r = 0; r < RANKS; r++) {
            for (int i = 0; i < streams.get(r).size(); i++) {
                order.add(r);
            }
        }
        return order.stream().mapToInt(Integer::intValue).toArray();
    }

    /** One host's ranks read to their end (in batches of 3, rank by rank), then the other's. */
    private static int[] hostsInTurn(List<List<Call>> streams, boolean aFirst) {
        List<Integer> order = new ArrayList<>();
        int[][] hosts = aFirst ? new int[][] {{0, 1}, {2, 3}} : new int[][] {{2, 3}, {0, 1}};
        for (int[] host : hosts) {
            int[] left = {streams.get(host[0]).size(), streams.get(host[1]).size()};
            while (left[0] + left[1] > 0) {
                for (int k = 0; k < 2; k++) {
                    for (int n = 0; n < 3 && left[k] > 0; n++, left[k]--) {
                        order.add(host[k]);
                    }
                }
            }
        }
        return order.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Any merge of the four streams that keeps each rank's own order. */
    private static int[] randomInterleaving(List<List<Call>> streams, Random random) {
        int[] left = new int[RANKS];
        int total = 0;
        for (int r = 0; r < RANKS; r++) {
            left[r] = streams.get(r).size();
            total += left[r];
        }
        int[] order = new int[total];
        for (int i = 0; i < total; i++) {
            int pick = random.nextInt(total - i);
            int r = 0;
            while (pick >= left[r]) {
                pick -= left[r];
                r++;
            }
            left[r]--;
            order[i] = r;
        }
        return order;
    }
}
