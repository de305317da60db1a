package org.eventspace.ui;

import java.util.Locale;
import java.util.Optional;

import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.monitor.model.RunModel;
import org.eventspace.mpi.MpiLiveView;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The dashboard's door onto an MPI program's run ({@code mpirun --serve}): the blocks the node agent's analysis
 * publishes while the program runs ({@link MpiLiveView}), drawn on one flat gred whose ports are the ranks — what PMPI
 * sees of a collective (SPEC §8: the last arriver and each rank's wait, not the library's tree). Thread-safe: it
 * only reads the view's volatile blocks.
 */
public final class MpiDashboardSource implements DashboardSource {
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

    @Override
    public RunInfo info() {
        return info;
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
}
