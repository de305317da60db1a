package org.eventspace.ui;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.monitor.model.RunModel;
import org.eventspace.mpi.MpiLiveView;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The dashboard's door onto an MPI program's run ({@code mpirun --serve}): the blocks the node agent's analysis
 * publishes while the program runs ({@link MpiLiveView}), drawn on one flat gred whose ports are the ranks — what PMPI
 * sees of a collective (SPEC §8: the last arriver and each rank's wait, not the library's tree). Thread-safe: it
 * only reads the view's volatile blocks.
 *
 * <p>What PMPI cannot see is said, not left blank ({@link #notMeasured}): the way down and up through a gred, a
 * path's stages (the timemap), the hops and the store are inside the MPI library. What it can see is given: each
 * rank's arrival wait and order from the calls' entries, its departure wait and order from their exits.
 */
public final class MpiDashboardSource implements DashboardSource {
    /** Why a figure inside the MPI library is not there. */
    static final String INSIDE_THE_LIBRARY = "not measured for MPI runs: PMPI sees each collective call's entry and exit "
            + "on every rank, not the messages inside the MPI library";

    private final MpiLiveView view;
    private final RunInfo info;

    public MpiDashboardSource(MpiLiveView view, String filter) {
        this.view = view;
        this.info = new RunInfo(view.program(), String.format(Locale.ROOT,
                "%s, %d MPI ranks on %d host(s); PMPI sees each collective's entries and exits, so every collective "
                        + "instance is drawn joined at one flat gred (its last arriver, each rank's wait)",
                view.program(), view.ranks(), view.hosts()), view.ranks(), view.hosts(), "flat", 1,
                filter == null ? "" : filter, -1, Double.NaN);
    }

    /** What the run is; once the program ended, with its wall time (the cost view's agent CPU is over it). */
    @Override
    public RunInfo info() {
        double wall = view.wallSeconds();
        if (Double.isNaN(wall)) {
            return info;
        }
        return new RunInfo(info.name(), info.description(), info.ranks(), info.hosts(), info.tree(), info.trees(),
                info.filter(), info.injectedSlowRank(), wall);
    }

    @Override
    public Pathmap pathmap() {
        return view.tree().pathmap();
    }

    @Override
    public Optional<JsonNode> monitors() {
        return view.monitors();
    }

    @Override
    public Optional<JsonNode> scope() {
        return view.scope();
    }

    @Override
    public Optional<RunModel> model() {
        return view.model();
    }

    @Override
    public boolean running() {
        return view.running();
    }

    /**
     * Down and up latency, the timemap's stages and the calls dropped live are not measured for any MPI run; the
     * arrival and departure orders not beyond the ranks the analysis orders ({@link MpiLiveView#ORDERED_RANKS}: O(P²)
     * per instance); ToM's histogram not without {@code --filter}.
     */
    @Override
    public Map<String, String> notMeasured() {
        Map<String, String> out = new TreeMap<>();
        out.put("down_us", INSIDE_THE_LIBRARY + " (no way down to time)");
        out.put("up_us", INSIDE_THE_LIBRARY + " (no way back up to time)");
        out.put("timemap", INSIDE_THE_LIBRARY + ", so a path has no stages to time (down, up, reduce, broadcast, hops, "
                + "store); each rank's wait at N×N is in the ranks' view");
        out.put("calls_dropped", "not counted while an MPI program runs: a collective instance still missing a member "
                + "is counted incomplete once the program ended (the report's mpi.collectives.incomplete)");
        if (view.agentsElsewhere()) {
            out.put("analysis_cpu_pct", "the node-agent processes' own CPU is not measured: this is the CPU of the thread "
                    + "of eventspace mpirun that pulls their tuples and analyses them");
        }
        if (info.filter().isEmpty()) {
            out.put("histograms", "no event scope in this run: mpirun --filter hist:16 runs ToM's histogram over every call");
        }
        JsonNode port = view.monitors().map(m -> m.path("stats").path("wrappers").path(view.tree().gred())
                .path("ports").path(0)).orElse(null);
        if (port != null && !port.isMissingNode() && !port.path("arrival_order").isArray()) {
            String why = String.format(Locale.ROOT, "not measured for MPI runs of more than %d ranks (this one has %d): "
                    + "counting the orders costs O(P²) per collective instance", MpiLiveView.ORDERED_RANKS, view.ranks());
            out.put("arrival_order", why);
            out.put("departure_order", why);
        }
        return out;
    }
}
