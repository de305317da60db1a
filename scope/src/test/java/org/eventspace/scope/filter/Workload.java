package org.eventspace.scope.filter;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random monitoring records for property tests: ranks mapped to hosts at random, a few rounds, per round and rank
 * a random subset of a small event alphabet with one or two records each. Values are drawn per event and round
 * from one of three styles so that the edge cases occur often: spread-out doubles, small integers (ties, many
 * values equal to the maximum) and one constant (min == max). A rank may be silent in a round; rank −1 (a host
 * record) turns up now and then.
 */
record Workload(int hosts, int[] hostOfRank, List<List<ScopeRecord>> rounds) {
    static final List<String> EVENTS = List.of("MPI_Allreduce()", "MPI_Send()", "compute", "io_write",
            "t0.gred.h0.0 down", "Patch 1 -> 1", "\u00e9v\u00e9nement \u4e8b\u4ef6");

    static Workload random(Random random, int ranks, int hosts, int roundCount) {
        int[] hostOfRank = new int[ranks];
        for (int r = 0; r < ranks; r++) {
            hostOfRank[r] = random.nextInt(hosts);
        }
        int alphabet = 1 + random.nextInt(EVENTS.size());
        List<List<ScopeRecord>> rounds = new ArrayList<>();
        for (int round = 0; round < roundCount; round++) {
            int[] style = new int[alphabet];
            double[] constant = new double[alphabet];
            for (int e = 0; e < alphabet; e++) {
                style[e] = random.nextInt(3);
                constant[e] = random.nextInt(100) - 50.5;
            }
            List<ScopeRecord> records = new ArrayList<>();
            for (int r = -1; r < ranks; r++) {
                if ((r == -1 && random.nextInt(4) != 0) || random.nextInt(8) == 0) {
                    continue;
                }
                for (int e = 0; e < alphabet; e++) {
                    if (random.nextInt(3) == 0) {
                        continue;
                    }
                    for (int k = 1 + random.nextInt(2); k > 0; k--) {
                        double value = switch (style[e]) {
                            case 0 -> (random.nextDouble() - 0.5) * 2000.0;
                            case 1 -> random.nextInt(4);
                            default -> constant[e];
                        };
                        records.add(new ScopeRecord(r, EVENTS.get(e), round, value));
                    }
                }
            }
            rounds.add(records);
        }
        return new Workload(hosts, hostOfRank, rounds);
    }

    int hostOf(int rank) {
        return rank < 0 ? 0 : hostOfRank[rank];
    }

    /** The records of {@code host} in {@code round}, in production order; none for a round past the last. */
    List<ScopeRecord> recordsOf(int round, int host) {
        if (round >= rounds.size()) {
            return List.of();
        }
        List<ScopeRecord> out = new ArrayList<>();
        for (ScopeRecord record : rounds.get(round)) {
            if (hostOf(record.rank()) == host) {
                out.add(record);
            }
        }
        return out;
    }

    /** All records of {@code round} in the order a tree with hosts left to right concatenates them. */
    List<ScopeRecord> inTreeOrder(int round) {
        List<ScopeRecord> out = new ArrayList<>();
        for (int h = 0; h < hosts; h++) {
            out.addAll(recordsOf(round, h));
        }
        return out;
    }

    @Override
    public String toString() {
        return "Workload[hosts=" + hosts + ", ranks=" + hostOfRank.length + ", rounds=" + rounds.size()
                + ", records=" + rounds.stream().mapToInt(List::size).sum() + "]";
    }
}
