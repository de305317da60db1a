package org.eventspace.mpi;

import java.util.Optional;

import org.eventspace.monitor.model.RunModel;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What an MPI run's analysis holds while the program runs, for a reader on another thread (the dashboard's sampler):
 * the tree it is drawn on ({@link MpiPathmap}), and the newest {@code monitors} and {@code scope} blocks, which the
 * agent thread publishes every {@link #PERIOD_MS} ms as immutable JSON (the analysis itself stays on that one thread,
 * without a lock). {@link #running()} turns false once the program ended and the blocks are final.
 *
 * <p>Thread-safe: one writer (the run), any readers. The published nodes must not be modified by readers.
 */
public final class MpiLiveView {
    /** How often the agent thread publishes (the dashboard samples every 500 ms). */
    public static final long PERIOD_MS = 250;
    /** The most ranks whose arrival and departure orders the analysis counts (O(P²) per collective instance). */
    public static final int ORDERED_RANKS = CollectiveWaits.MAX_ORDERED;

    private final String program;
    private final int ranks;
    private final int hosts;
    private final MpiPathmap tree;
    private final boolean agentsElsewhere;
    private volatile JsonNode monitors;
    private volatile JsonNode scope;
    private volatile RunModel model;
    private volatile boolean running = true;
    private volatile java.util.List<RankStalls.Stall> stalled = java.util.List.of();
    private volatile double wallSeconds = Double.NaN;

    MpiLiveView(String program, int ranks, int hosts, boolean agentsElsewhere) {
        this.program = program;
        this.ranks = ranks;
        this.hosts = hosts;
        this.agentsElsewhere = agentsElsewhere;
        this.tree = MpiPathmap.of(ranks, hosts);
    }

    /** The program's file name. */
    public String program() {
        return program;
    }

    public int ranks() {
        return ranks;
    }

    /** Hosts as the run knows them: simulated hosts, or 1 (this machine: its agent reads only its own ranks' files). */
    public int hosts() {
        return hosts;
    }

    public MpiPathmap tree() {
        return tree;
    }

    /**
     * Whether the node agents are processes of their own ({@code --agents processes} or {@code listen:N}): the
     * {@code analysis} CPU in {@link #monitors()} is then this JVM's thread that pulls and analyses, not theirs.
     */
    public boolean agentsElsewhere() {
        return agentsElsewhere;
    }

    /** The newest {@code monitors} block ({@link MonitorsBlock#live}); empty before the first publication. */
    public Optional<JsonNode> monitors() {
        return Optional.ofNullable(monitors);
    }

    /** The newest {@code scope} block of {@code --filter} ({@link MpiScope}); empty without a filter. */
    public Optional<JsonNode> scope() {
        return Optional.ofNullable(scope);
    }

    /** The newest run model (live: no exits, no verdict on faults yet; final once the run ended). */
    public Optional<RunModel> model() {
        return Optional.ofNullable(model);
    }

    public boolean running() {
        return running;
    }

    /**
     * The program's wall time in seconds (mpirun's start to its end) once it ended, NaN while it runs: the dashboard's
     * cost view gives the agent's CPU over it.
     */
    public double wallSeconds() {
        return wallSeconds;
    }

    /** The ranks stalled at the newest observation ({@link RankStalls}): named live, with certainty. */
    java.util.List<RankStalls.Stall> stalled() {
        return stalled;
    }

    void stalled(java.util.List<RankStalls.Stall> now) {
        stalled = java.util.List.copyOf(now);
    }

    void publish(JsonNode newMonitors, JsonNode newScope, RunModel newModel) {
        scope = newScope;
        model = newModel;
        monitors = newMonitors;
    }

    void finished(JsonNode finalMonitors, JsonNode finalScope, RunModel finalModel, double wallS) {
        publish(finalMonitors, finalScope, finalModel);
        wallSeconds = wallS;
        running = false;
    }
}
