package org.eventspace.ui;

import java.util.Optional;

import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.monitor.model.RunModel;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A run file's source that says the run is still going: the live dashboard of a crafted run. Tests override what their
 * case changes (the run's info, a frame that blocks, a network).
 */
class RunningFileSource implements DashboardSource {
    final RunFileSource file;

    RunningFileSource(String name, JsonNode run) {
        this.file = new RunFileSource(name, run);
    }

    @Override
    public RunInfo info() {
        return file.info();
    }

    @Override
    public Pathmap pathmap() {
        return file.pathmap();
    }

    @Override
    public Optional<JsonNode> monitors() {
        return file.monitors();
    }

    @Override
    public Optional<JsonNode> scope() {
        return file.scope();
    }

    @Override
    public boolean running() {
        return true;
    }

    @Override
    public Optional<RunModel> model() {
        return file.model();
    }
}
