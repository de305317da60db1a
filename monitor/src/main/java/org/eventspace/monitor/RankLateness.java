package org.eventspace.monitor;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.eventspace.comm.pathmap.Entry;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.events.CollectorKind;
import org.eventspace.monitor.model.SlowestRankRule;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What the load-balance monitor's greds say of each rank, as {@link SlowestRankRule} takes it: a rank is judged at the
 * gred its path enters, at the port it feeds there (directly or through proxies: on a flat tree over several hosts
 * every remote rank enters the root gred through a proxy of its own), among its <em>like</em> siblings: the ports fed
 * by one rank each through the same wrappers on the same hosts. Siblings of another kind are not its baseline: a remote
 * rank's proxy hop makes it arrive later than every local rank in every call (measured: 32 ranks on 4 hosts, flat,
 * the 8 local ranks last at 1 of 1 707 calls, and their mean arrival wait 2 000 µs against 1 300 µs for the remote
 * ones), so against all ports every remote rank looks late by the hop, and the slow rank was never judged at all
 * because its port's contributor is a proxy. Where a rank has no like sibling on its host, it is judged among the
 * ports fed through the same kinds of wrappers from any host; with none there either it is not judged (no baseline
 * tells its own lateness from its place in the tree), which {@link #notJudged} lists.
 *
 * <p>At a gred with c calls, a rank in a group G of like ports, of which one was last at L_G calls, is last by chance
 * at L_G/|G| of them: its chance per call is {@code L_G / (c |G|)} (for a gred of local ranks only, L_G = c and this is
 * 1/P). Its lateness per call is {@code mean_G(wait) − wait_i} from the mean arrival waits: times calls, summed over
 * its greds, the rank's total lateness, and the longest span of its greds is the time that lateness is a share of.
 * A rank in several trees (gsum alternates two) pools its calls over them: an order that comes from how the threads
 * are woken, not from the rank, differs between identical trees and averages out (measured: 32 ranks on 2 cores, rank
 * 31 last in 100 % of one tree's calls and 0 % of the other's; the slow rank last in 90 % and 92 %).
 */
final class RankLateness {
    private RankLateness() {
    }

    /** Where a rank feeds a gred: the gred, the port, and the wrappers between (host-exact and kinds-only). */
    private record Port(int rank, String gred, int port, String likeOnHost, String like) {
    }

    /** Per rank (in rank order), its evidence from the {@code greds} of a monitors block over {@code pathmap}. */
    static List<SlowestRankRule.Evidence> evidence(JsonNode greds, Pathmap pathmap) {
        Map<String, Map<Integer, Port>> byGred = ports(greds, pathmap);
        // rank → {last arrivals, calls, expected, variance, lateness µs, span µs, best share}
        Map<Integer, double[]> sums = new TreeMap<>();
        Map<Integer, String> where = new TreeMap<>();
        byGred.forEach((name, ports) -> {
            JsonNode g = greds.path(name);
            long calls = g.path("calls").asLong();
            JsonNode waits = g.path("mean_arrival_wait_us");
            JsonNode last = g.path("last_arrivals");
            double span = g.path("span_us").asDouble(0);
            // The contributors' own lateness (median per call of the time since their previous departure, against the
            // ports' mean; GredCalls): what the order the previous call released them in does not decide.
            JsonNode own = g.path("own_lateness_us");
            JsonNode interval = g.path("interval_us");
            boolean useOwn = own.size() == waits.size() && interval.size() == waits.size();
            if (calls == 0) {
                return;
            }
            Map<Integer, List<Port>> likeOf = like(ports);
            for (Port p : ports.values()) {
                List<Port> like = likeOf.get(p.port());
                if (like.size() < 2) {
                    continue;
                }
                long groupLast = 0;
                double groupWait = 0;
                double groupOwn = 0;
                for (Port q : like) {
                    groupLast += last.get(q.port()).asLong();
                    groupWait += waits.get(q.port()).asDouble();
                    groupOwn += useOwn ? own.get(q.port()).asDouble() : 0;
                }
                groupWait /= like.size();
                groupOwn /= like.size();
                double chance = (double) groupLast / calls / like.size();
                long k = last.get(p.port()).asLong();
                double[] s = sums.computeIfAbsent(p.rank(), r -> new double[] {0, 0, 0, 0, 0, 0, Double.NEGATIVE_INFINITY});
                s[0] += k;
                s[1] += calls;
                s[2] += calls * chance;
                s[3] += calls * chance * (1 - chance);
                if (useOwn) {
                    s[4] += (own.get(p.port()).asDouble() - groupOwn) * calls;
                    s[5] = Math.max(s[5], interval.get(p.port()).asDouble() * calls);
                } else {
                    s[4] += (groupWait - waits.get(p.port()).asDouble()) * calls;
                    s[5] = Math.max(s[5], span);
                }
                double share = (double) k / calls - chance;
                if (share > s[6]) {
                    s[6] = share;
                    where.put(p.rank(), name);
                }
            }
        });
        List<SlowestRankRule.Evidence> out = new ArrayList<>();
        sums.forEach((rank, s) -> out.add(new SlowestRankRule.Evidence(rank, (long) s[0], (long) s[1], s[2], s[3], s[4],
                s[5], where.get(rank))));
        return out;
    }

    /**
     * Per rank that feeds a monitored gred's port alone (directly or through proxies), its total arrival wait there
     * (mean wait × calls, summed over its trees), µs: the per-rank wait of a rank whose port's contributor is a proxy.
     */
    static Map<Integer, Double> waits(JsonNode greds, Pathmap pathmap) {
        Map<Integer, Double> out = new TreeMap<>();
        ports(greds, pathmap).forEach((name, ports) -> {
            JsonNode g = greds.path(name);
            long calls = g.path("calls").asLong();
            for (Port p : ports.values()) {
                out.merge(p.rank(), g.path("mean_arrival_wait_us").get(p.port()).asDouble() * calls, Double::sum);
            }
        });
        return out;
    }

    /**
     * The ranks that feed a monitored gred with calls but have no like sibling at any of them, so {@link #evidence}
     * leaves them out (a rank alone on the root host of a flat tree whose other ranks are each on a host of their own).
     */
    static Set<Integer> notJudged(JsonNode greds, Pathmap pathmap) {
        Set<Integer> seen = new TreeSet<>();
        Set<Integer> judged = new HashSet<>();
        ports(greds, pathmap).forEach((name, ports) -> {
            if (greds.path(name).path("calls").asLong() == 0) {
                return;
            }
            Map<Integer, List<Port>> likeOf = like(ports);
            for (Port p : ports.values()) {
                seen.add(p.rank());
                if (likeOf.get(p.port()).size() >= 2) {
                    judged.add(p.rank());
                }
            }
        });
        seen.removeAll(judged);
        return seen;
    }

    /**
     * Per port of one gred, the ports like it (itself included): fed through the same wrappers from the same host if it
     * has such a sibling, else through the same kinds of wrappers from any host.
     */
    private static Map<Integer, List<Port>> like(Map<Integer, Port> ports) {
        Map<String, List<Port>> onHost = new HashMap<>();
        Map<String, List<Port>> anyHost = new HashMap<>();
        for (Port q : ports.values()) {
            onHost.computeIfAbsent(q.likeOnHost(), k -> new ArrayList<>()).add(q);
            anyHost.computeIfAbsent(q.like(), k -> new ArrayList<>()).add(q);
        }
        Map<Integer, List<Port>> out = new TreeMap<>();
        for (Port p : ports.values()) {
            List<Port> same = onHost.get(p.likeOnHost());
            out.put(p.port(), same.size() >= 2 ? same : anyHost.get(p.like()));
        }
        return out;
    }

    /**
     * Per monitored gred (one with usable counts in {@code greds}), its ports fed by exactly one rank each: the rank,
     * and the wrappers between the rank's entry and the gred (collectors aside).
     */
    private static Map<String, Map<Integer, Port>> ports(JsonNode greds, Pathmap pathmap) {
        Map<String, Map<Integer, Port>> out = new TreeMap<>();
        Map<String, Set<Integer>> shared = new HashMap<>();
        for (Entry e : pathmap.entries()) {
            List<Node> path = pathmap.path(e.tree(), e.rank());
            int at = -1;
            for (int i = 0; i < path.size(); i++) {
                if (path.get(i).kind().equals(PathmapBuilder.GRED)) {
                    at = i;
                    break;
                }
            }
            if (at < 0) {
                continue;
            }
            Node gred = path.get(at);
            JsonNode g = greds.get(gred.name());
            int ports = gred.arity();
            if (g == null || g.path("contributors").size() != ports || g.path("last_arrivals").size() != ports
                    || g.path("mean_arrival_wait_us").size() != ports) {
                continue;
            }
            int port = at == 0 ? e.port() : path.get(at - 1).parentPort();
            StringBuilder onHost = new StringBuilder();
            StringBuilder kinds = new StringBuilder();
            for (int i = at - 1; i >= 0; i--) {
                Node n = path.get(i);
                if (!n.kind().equals(CollectorKind.NAME)) {
                    onHost.append(n.kind()).append('@').append(n.host()).append(' ');
                    kinds.append(n.kind()).append(' ');
                }
            }
            onHost.append("rank@").append(pathmap.node(e.node()).host());
            Port p = new Port(e.rank(), gred.name(), port, onHost.toString(), kinds.toString());
            if (out.computeIfAbsent(gred.name(), k -> new TreeMap<>()).putIfAbsent(port, p) != null) {
                shared.computeIfAbsent(gred.name(), k -> new HashSet<>()).add(port);
            }
        }
        // A port fed by several ranks (a shared wrapper below it) is no one rank's.
        shared.forEach((gred, ports) -> ports.forEach(out.get(gred)::remove));
        return out;
    }
}
