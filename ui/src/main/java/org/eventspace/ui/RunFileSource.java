package org.eventspace.ui;

import java.util.Optional;

import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.job.JobConfig;
import org.eventspace.job.JobTransport;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A {@link DashboardSource} over a finished run's report ({@code eventspace.run/1}, {@code run --json}): its monitors
 * and scope blocks as they were at the end, and its pathmap rebuilt from the report's layout fields (ranks, hosts,
 * clusters, tree shape). Immutable.
 *
 * <p>The report does not hold the pathmap itself, so a run laid out by {@code --config FILE} is refused: its tree
 * cannot be drawn from the fields alone.
 */
public final class RunFileSource implements DashboardSource {
    private final JsonNode run;
    private final RunInfo info;
    private final Pathmap pathmap;

    /**
     * @param name what to call the run (its file name).
     * @throws IllegalArgumentException naming the field, if {@code run} is not a run report this can draw.
     */
    public RunFileSource(String name, JsonNode run) {
        if (!run.path("schema").asText().equals("eventspace.run/1")) {
            throw new IllegalArgumentException(name + ": not a run report (expected \"schema\": \"eventspace.run/1\", got "
                    + (run.has("schema") ? run.get("schema").toString() : "none") + ")");
        }
        for (String field : new String[] {"ranks", "hosts", "clusters", "trees"}) {
            if (!run.path(field).canConvertToInt() || run.path(field).asInt() < 1) {
                throw new IllegalArgumentException(name + ": field '" + field + "' must be a positive integer");
            }
        }
        String tree = run.path("tree").asText("");
        TreeShape shape;
        try {
            shape = TreeShape.parse(tree);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + ": its tree '" + tree + "' is not a shape this can draw (a run laid out "
                    + "by --config FILE keeps its pathmap in that file): " + e.getMessage());
        }
        this.run = run;
        this.pathmap = JobConfig.of(JobConfig.shortcut(run.path("ranks").asInt(), run.path("hosts").asInt(),
                run.path("clusters").asInt(), shape), JobTransport.JVM).pathmap();
        if (pathmap.spec().trees() != run.path("trees").asInt()) {
            throw new IllegalArgumentException(name + ": it ran " + run.path("trees").asInt() + " trees; the layout fields give "
                    + pathmap.spec().trees());
        }
        JsonNode faults = run.path("faults");
        this.info = new RunInfo(name, run.path("benchmark").asText("?") + ", " + run.path("ranks").asInt() + " ranks on "
                + run.path("hosts").asInt() + " hosts (" + run.path("transport").asText("?") + "), " + tree + " trees, "
                + run.path("iterations").asLong() + " iterations" + (run.has("date") ? ", " + run.path("date").asText() : ""),
                run.path("ranks").asInt(), run.path("hosts").asInt(), tree, run.path("trees").asInt(),
                run.path("scope").path("filter").asText(""), faults.path("slow_rank").asInt(-1),
                run.path("wall_s").isNumber() ? run.path("wall_s").asDouble() : Double.NaN);
    }

    @Override
    public RunInfo info() {
        return info;
    }

    @Override
    public Pathmap pathmap() {
        return pathmap;
    }

    @Override
    public Optional<JsonNode> monitors() {
        JsonNode m = run.get("monitors");
        return m == null || m.isNull() ? Optional.empty() : Optional.of(m);
    }

    @Override
    public Optional<JsonNode> scope() {
        JsonNode s = run.get("scope");
        return s == null || s.isNull() ? Optional.empty() : Optional.of(s);
    }

    @Override
    public boolean running() {
        return false;
    }
}
