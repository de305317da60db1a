package org.eventspace.monitor;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.eventspace.monitor.model.SlowestRankRule;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What the load-balance monitor's greds say of each rank, as {@link SlowestRankRule} takes it: a rank is judged at the
 * gred its path enters, among its siblings there, which share its path above the gred, so the tree's structural
 * lateness (a remote subtree whose proxy is late at every gred above it) does not enter it; that is what the heaviest
 * path of {@link LoadBalance} shows. A rank in several trees (gsum alternates two) pools its calls over them: an order
 * that comes from how the threads are woken, not from the rank, differs between identical trees and averages out
 * (measured: 32 ranks on 2 cores, rank 31 last in 100 % of one tree's calls and 0 % of the other's; the slow rank last
 * in 90 % and 92 %). Its lateness per call at a gred is {@code mean_p(wait_p) − wait_i} from the mean arrival waits;
 * times calls, summed over its greds, it is the rank's total lateness, and the longest span of its greds is the time
 * that lateness is a share of.
 */
final class RankLateness {
    private RankLateness() {
    }

    /** Per rank (in rank order), its evidence from the {@code greds} of a monitors block. */
    static List<SlowestRankRule.Evidence> evidence(JsonNode greds) {
        // rank → {last arrivals, calls, expected, variance, lateness µs, span µs, best share}
        Map<Integer, double[]> sums = new TreeMap<>();
        Map<Integer, String> where = new TreeMap<>();
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
            double span = g.path("span_us").asDouble(0);
            for (int p = 0; p < ports; p++) {
                String who = contributors.get(p).asText();
                if (!who.startsWith("rank ") || who.contains(",")) {
                    continue;
                }
                int rank = Integer.parseInt(who.substring("rank ".length()));
                long k = last.get(p).asLong();
                double[] s = sums.computeIfAbsent(rank, r -> new double[] {0, 0, 0, 0, 0, 0, Double.NEGATIVE_INFINITY});
                s[0] += k;
                s[1] += calls;
                s[2] += calls * chance;
                s[3] += calls * chance * (1 - chance);
                s[4] += (meanWait - waits.get(p).asDouble()) * calls;
                s[5] = Math.max(s[5], span);
                double share = (double) k / calls - chance;
                if (share > s[6]) {
                    s[6] = share;
                    where.put(rank, e.getKey());
                }
            }
        }
        List<SlowestRankRule.Evidence> out = new ArrayList<>();
        sums.forEach((rank, s) -> out.add(new SlowestRankRule.Evidence(rank, (long) s[0], (long) s[1], s[2], s[3], s[4],
                s[5], where.get(rank))));
        return out;
    }
}
