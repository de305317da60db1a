package org.eventspace.monitor;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Which rank arrives late at its own gred, measured against the gred's other contributors: the rank to look at first.
 *
 * <p>A rank's score at the gred its path enters is how much more often than chance it arrived last there:
 * {@code (share − 1/P) / (1 − 1/P)} for a gred of P contributors, where share is the fraction of calls in which it came
 * last: 1 if it was always last, 0 at chance, −1 if never. It is measured among siblings, which share their path above the
 * gred, so the tree's structural lateness (a remote subtree whose proxy is late at every gred above it) does not enter
 * it; that is what the heaviest path of {@link LoadBalance} shows. A rank in several trees (gsum alternates two) gets
 * the mean of its scores over them, weighted by calls: an order that comes from how the threads are woken, not from the
 * rank, differs between identical trees and averages out (measured: 32 ranks on 2 cores, rank 31 last in 100 % of one
 * tree's calls and 0 % of the other's; the slow rank last in 90 % and 92 %). Counts, not mean waits, decide: on an
 * oversubscribed machine a preempted thread adds milliseconds to a mean. The lateness in µs, {@code mean_p(wait_p) −
 * wait_i} from the mean arrival waits, is reported beside it.
 *
 * @param rank     the latest rank; -1 if no gred with ranks among its contributors was monitored.
 * @param score    its score, −1..1.
 * @param lateness its mean lateness against its siblings, µs.
 * @param gred     the gred where its score was highest.
 */
record RankLateness(int rank, double score, double lateness, String gred) {
    static RankLateness slowest(JsonNode greds) {
        Map<Integer, double[]> sums = new HashMap<>(); // rank → {Σ score × calls, Σ lateness × calls, Σ calls, best score}
        Map<Integer, String> where = new HashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = greds.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode g = e.getValue();
            long calls = g.path("calls").asLong();
            JsonNode waits = g.path("mean_arrival_wait_us");
            JsonNode last = g.path("last_arrivals");
            JsonNode contributors = g.path("contributors");
            int ports = contributors.size();
            if (calls == 0 || ports < 2 || waits.size() != ports || last.size() != ports) {
                continue;
            }
            double meanWait = 0;
            for (JsonNode w : waits) {
                meanWait += w.asDouble();
            }
            meanWait /= ports;
            double chance = 1.0 / ports;
            for (int p = 0; p < ports; p++) {
                String who = contributors.get(p).asText();
                if (!who.startsWith("rank ") || who.contains(",")) {
                    continue;
                }
                int rank = Integer.parseInt(who.substring("rank ".length()));
                double score = ((double) last.get(p).asLong() / calls - chance) / (1 - chance);
                double late = meanWait - waits.get(p).asDouble();
                double[] s = sums.computeIfAbsent(rank, r -> new double[] {0, 0, 0, Double.NEGATIVE_INFINITY});
                s[0] += score * calls;
                s[1] += late * calls;
                s[2] += calls;
                if (score > s[3]) {
                    s[3] = score;
                    where.put(rank, e.getKey());
                }
            }
        }
        int best = -1;
        double bestScore = Double.NEGATIVE_INFINITY;
        double bestLate = 0;
        for (Map.Entry<Integer, double[]> e : sums.entrySet()) {
            double[] s = e.getValue();
            double score = s[0] / s[2];
            double late = s[1] / s[2];
            if (score > bestScore || score == bestScore && (late > bestLate || late == bestLate && e.getKey() < best)) {
                best = e.getKey();
                bestScore = score;
                bestLate = late;
            }
        }
        return best < 0 ? new RankLateness(-1, 0, 0, null) : new RankLateness(best, bestScore, bestLate, where.get(best));
    }
}
