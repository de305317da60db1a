package org.eventspace.ui;

import java.util.Map;
import java.util.Optional;

import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.monitor.model.RunModel;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Everything the dashboard reads of a job, in one narrow door: the job's pathmap, the newest {@code monitors} report
 * block, the newest event-scope snapshot, and what the run is. The views never touch a job, a monitor or a scope
 * directly, so a change in how those deliver their results (gathered through the scope, a centralised analysis) is
 * a change to an implementation of this interface and nothing else.
 *
 * <p>Called from the dashboard's one sampling thread ({@link DashboardSampler}), never from a rank's thread and never
 * from an HTTP request: implementations may take a snapshot per call, but must not block a rank.
 */
public interface DashboardSource {
    /** What the run is: benchmark, ranks, hosts, tree shape, faults injected; printed as the page's title line. */
    RunInfo info();

    /** The pathmap the job runs (trees, collectors, scope nodes). */
    Pathmap pathmap();

    /**
     * The newest {@code monitors} block, in the shape of {@code MonitorSnapshot.report} (the {@code monitors} block of an
     * {@code eventspace.run/2} report); empty before the monitors have anything or when the job runs none.
     */
    Optional<JsonNode> monitors();

    /**
     * The event scope's newest state in the shape of the {@code scope} block of a run report ({@code ScopeSnapshot.toJson}:
     * counters and ToM's filter result of the newest round with data); empty when the job has no scope on this process.
     */
    Optional<JsonNode> scope();

    /** Whether the job still runs (false once it finished: the data are final). */
    boolean running();

    /**
     * What a run is, for people: its name and a one-line description, ranks, hosts, the tree shape, the number of
     * trees, the filter of its event scope, the rank a fault was injected into (-1 when none or unknown), and for a
     * finished run its wall time in seconds (NaN while it runs: the cost view then measures between frames).
     */
    record RunInfo(String name, String description, int ranks, int hosts, String tree, int trees, String filter,
                   int injectedSlowRank, double wallSeconds) {
    }

    /**
     * The job's network traffic so far (ibprof + BoxFish): an {@code eventspace.link-loads/1} document of the traffic its
     * transports counted, routed over the topology it runs on; empty when the job counts no traffic or has no topology.
     * Called by the sampler's thread only.
     */
    default Optional<JsonNode> network() {
        return Optional.empty();
    }

    /**
     * The run as the one run model ({@link RunModel}): live while the job runs (no outcomes yet), final once it ended;
     * empty when the source cannot make one. {@code /metrics} and the verdict pane read it.
     */
    default Optional<RunModel> model() {
        return Optional.empty();
    }

    /**
     * What this run cannot measure, by the frame field or view it leaves empty ({@code down_us}, {@code timemap},
     * {@code arrival_order}, …), each with why, for a person: the page says so where it would draw them instead of
     * drawing nothing (an MPI run: PMPI sees each call's entry and exit, not the tree inside the MPI library). Empty
     * when the run measures everything the page draws, as our own jobs with every monitor do. Called by the sampler's
     * thread only.
     */
    default Map<String, String> notMeasured() {
        return Map.of();
    }
}
