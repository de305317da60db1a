package org.eventspace.mpi;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.eventspace.base.stats.RunningStatistics;
import org.eventspace.scope.filter.FilterResult;
import org.eventspace.scope.filter.FilterSpec;
import org.eventspace.scope.filter.Packet;
import org.eventspace.scope.filter.ScopeFilter;
import org.eventspace.scope.filter.ScopeRecord;
import org.eventspace.scope.filter.StatsResult;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * ToM's filters (ToM §3–4: statistics, 3-phase histogram, functional classes …) over an MPI program's calls, with the
 * event scope's round structure: each round the front-end's filter makes a command, each host's node agent answers
 * {@link ScopeFilter#leaf} over the records its ranks produced since the last round (one record per MPI call: the
 * rank, the function's name as the event, the call's duration in µs), and the front-end combines the hosts' packets
 * with {@link ScopeFilter#up} and reads {@link ScopeFilter#result}. The same filter classes as a job's event scope;
 * what is missing is the transport: the agents of one process hand their packets over in memory.
 *
 * <p>Not thread-safe: the agent thread adds records and runs rounds.
 */
final class MpiScope {
    private final FilterSpec spec;
    private final ScopeFilter root;
    private final Map<Integer, ScopeFilter> leaves = new TreeMap<>();
    private final Map<Integer, List<ScopeRecord>> records = new TreeMap<>();
    private long round;
    private Packet previousRoot;
    private FilterResult newest = FilterResult.none();
    private long recordsTotal;
    private long rounds;
    private final Map<Long, Long> recordsByRound = new TreeMap<>();
    private final Map<String, RunningStatistics> runStatistics = new TreeMap<>();

    MpiScope(FilterSpec spec) {
        this.spec = spec;
        this.root = spec.newInstance();
    }

    /** Records held before a round is forced (an agent that reads only after the run would otherwise hold them all). */
    static final int MAX_ROUND_RECORDS = 1 << 20;
    private int held;

    /** One MPI call of {@code rank} on {@code host}: its function and duration. */
    void add(int host, int rank, String function, double durationUs) {
        records.computeIfAbsent(host, h -> new ArrayList<>()).add(new ScopeRecord(rank, function, round, durationUs));
        leaves.computeIfAbsent(host, h -> spec.newInstance());
        recordsTotal++;
        if (++held >= MAX_ROUND_RECORDS) {
            round();
        }
    }

    /** One round: command down, a leaf packet per host over its records since the last round, up, result. */
    void round() {
        Packet command = root.command(round, previousRoot);
        Packet down = root.down(command);
        List<Packet> packets = new ArrayList<>(leaves.size());
        for (Map.Entry<Integer, ScopeFilter> leaf : leaves.entrySet()) {
            List<ScopeRecord> mine = records.getOrDefault(leaf.getKey(), List.of());
            packets.add(leaf.getValue().leaf(leaf.getValue().down(down), mine));
        }
        long inRound = 0;
        for (List<ScopeRecord> r : records.values()) {
            inRound += r.size();
        }
        recordsByRound.put(round, inRound);
        Packet rootPacket = root.up(command, packets);
        FilterResult result = root.result(rootPacket);
        // the newest result that describes a round with records (a pipelined filter's describes an earlier round)
        if (!result.isEmpty() && recordsByRound.getOrDefault(result.round(), 0L) > 0) {
            newest = result;
        }
        if (result instanceof StatsResult stats) {
            // the whole run, as the job's front-end merges it: population sd, M2 = sd² × count (Chan et al. 1979)
            stats.events().forEach((event, e) -> runStatistics.computeIfAbsent(event, k -> new RunningStatistics())
                    .merge(e.count(), e.mean(), e.sd() * e.sd() * e.count(), e.min(), e.max()));
        }
        recordsByRound.keySet().removeIf(r -> r < round - 4);
        previousRoot = rootPacket;
        records.values().forEach(List::clear);
        held = 0;
        round++;
        rounds++;
    }

    /** The last rounds once the program ended: one for the last records, one for a pipelined filter's last round. */
    void finish() {
        round();
        round();
    }

    ObjectNode toJson(ObjectMapper json) {
        ObjectNode scope = json.createObjectNode();
        scope.put("filter", spec.text());
        scope.put("hosts", leaves.size());
        scope.put("rounds", rounds);
        scope.put("records", recordsTotal);
        scope.put("result_round", newest.isEmpty() ? null : newest.round());
        scope.set("result", json.valueToTree(newest));
        if (!runStatistics.isEmpty()) {
            ObjectNode run = scope.putObject("run_statistics");
            runStatistics.forEach((event, st) -> run.set(event, json.valueToTree(st.summary())));
        }
        return scope;
    }
}
