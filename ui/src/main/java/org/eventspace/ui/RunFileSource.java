package org.eventspace.ui;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

import org.eventspace.base.json.Json;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.job.JobConfig;
import org.eventspace.job.JobTransport;
import org.eventspace.monitor.model.RankRecord;
import org.eventspace.monitor.model.RunModel;
import org.eventspace.monitor.model.Verdict;
import org.eventspace.mpi.MpiPathmap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A {@link DashboardSource} over a finished run's report ({@code eventspace.run/2}, {@code run --json} or
 * {@code mpirun --json}), read as its run model ({@link RunModel}) first. Immutable.
 *
 * <ul>
 *   <li>One of our workloads: its monitors and scope blocks as they were at the end, and its pathmap rebuilt from the
 *   report's layout fields (ranks, hosts, clusters, tree shape). A run laid out by {@code --config FILE} is refused:
 *   the report does not hold the pathmap itself, so its tree cannot be drawn from the fields alone.</li>
 *   <li>An MPI program: the one flat gred whose ports are the ranks ({@link MpiPathmap}, what PMPI sees of a
 *   collective, as {@code mpirun --serve} draws it), its figures — each rank's last arrivals and mean wait at the
 *   collective instances, the heaviest path, each rank's profile — taken from the model's ranks and verdict.</li>
 * </ul>
 */
public final class RunFileSource implements DashboardSource {
    private final JsonNode run;
    private final RunModel model;
    private final RunInfo info;
    private final Pathmap pathmap;
    private final JsonNode monitors;

    /**
     * @param name what to call the run (its file name).
     * @throws IllegalArgumentException naming the file and the field, if {@code run} is not a run report this can draw.
     */
    public RunFileSource(String name, JsonNode run) {
        this.model = RunModel.read(run, name);
        this.run = run;
        String when = run.has("date") ? ", " + run.path("date").asText() : "";
        double wall = model.wallS() == null ? Double.NaN : model.wallS();
        if (model.mpi()) {
            MpiPathmap tree;
            try {
                tree = MpiPathmap.of(model.ranks(), model.hosts());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
            }
            this.pathmap = tree.pathmap();
            this.monitors = monitorsOf(model, tree);
            JsonNode instances = run.path("mpi").path("collectives").path("instances");
            if (monitors != null && instances.canConvertToLong()) {
                ((ObjectNode) monitors).put("calls_joined", instances.asLong()); // the collective instances joined
            }
            this.info = new RunInfo(name, String.format(Locale.ROOT, "%s, %d MPI ranks on %d host(s)%s; PMPI sees each "
                            + "collective's entries and exits, so every collective instance is drawn joined at one flat "
                            + "gred (its last arriver, each rank's wait)%s", model.benchmark(), model.ranks(), model.hosts(),
                    model.wallS() == null ? "" : String.format(Locale.ROOT, ", %.2f s", model.wallS()), when),
                    model.ranks(), model.hosts(), "flat", 1, run.path("scope").path("filter").asText(""), -1, wall);
            return;
        }
        for (String field : new String[] {"clusters", "trees"}) {
            if (!run.path(field).canConvertToInt() || run.path(field).asInt() < 1) {
                throw new IllegalArgumentException(name + ": field '" + field + "' must be a positive integer");
            }
        }
        if (model.ranks() < 1 || model.hosts() < 1) {
            throw new IllegalArgumentException(name + ": fields 'ranks' and 'hosts' must be positive integers, got "
                    + model.ranks() + " and " + model.hosts());
        }
        String tree = run.path("tree").asText("");
        TreeShape shape;
        try {
            shape = TreeShape.parse(tree);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + ": its tree '" + tree + "' is not a shape this can draw (a run laid out "
                    + "by --config FILE keeps its pathmap in that file): " + e.getMessage());
        }
        this.pathmap = JobConfig.of(JobConfig.shortcut(model.ranks(), model.hosts(), run.path("clusters").asInt(), shape),
                JobTransport.JVM).pathmap();
        if (pathmap.spec().trees() != run.path("trees").asInt()) {
            throw new IllegalArgumentException(name + ": it ran " + run.path("trees").asInt() + " trees; the layout fields give "
                    + pathmap.spec().trees());
        }
        JsonNode m = run.get("monitors");
        this.monitors = m == null || m.isNull() ? null : m;
        this.info = new RunInfo(name, model.benchmark() + ", " + model.ranks() + " ranks on " + model.hosts() + " hosts ("
                + model.transport() + "), " + tree + " trees, " + run.path("iterations").asLong() + " iterations" + when,
                model.ranks(), model.hosts(), tree, run.path("trees").asInt(), run.path("scope").path("filter").asText(""),
                run.path("faults").path("slow_rank").asInt(-1), wall);
    }

    /**
     * An MPI run's figures in the shape of a {@code monitors} block over the flat gred ({@code MonitorSnapshot.report}'s,
     * as {@code mpirun --serve} publishes it), from the model: per port (rank) its last arrivals and mean wait per
     * collective instance, the heaviest path to the rank most often last, the slowest rank only when the verdict names
     * it, each rank's profile, and the tuples read and missed. Null when no rank took part in a collective instance.
     */
    private static JsonNode monitorsOf(RunModel model, MpiPathmap tree) {
        ObjectNode m = Json.mapper().createObjectNode();
        m.put("tuples_read", model.coverage().tuplesRead());
        m.put("tuples_missed", model.coverage().tuplesMissed());
        m.put("gather_rate", model.coverage().gatherRate());
        ObjectNode profiles = m.putObject("profile").putObject("ranks");
        int ranks = tree.pathmap().spec().ranks();
        long[] last = new long[ranks];
        double[] meanWait = new double[ranks];
        long instances = 0;
        boolean judged = false;
        for (RankRecord r : model.perRank()) {
            if (r.profile() != null) {
                profiles.set(Integer.toString(r.rank()), Json.mapper().valueToTree(r.profile()));
            }
            if (r.rank() >= ranks || r.instances() == null || r.instances() == 0) {
                continue;
            }
            judged = true;
            int port = tree.port(r.rank());
            last[port] = r.lastArrivals() == null ? 0 : r.lastArrivals();
            meanWait[port] = r.collectiveWaitUs() == null ? 0 : r.collectiveWaitUs() / r.instances();
            instances = Math.max(instances, r.instances());
        }
        if (!judged) {
            return m;
        }
        Verdict v = model.verdict();
        ObjectNode lb = m.putObject("loadbalance");
        Integer culprit = v.slowestRank().culprit();
        if (culprit == null) {
            lb.putNull("slowest_rank");
        } else {
            lb.put("slowest_rank", culprit);
        }
        lb.put("slowest_rank_gred", tree.gred());
        ObjectNode gred = lb.putObject("greds").putObject(tree.gred());
        ArrayNode contributors = gred.putArray("contributors");
        tree.contributors().forEach(contributors::add);
        ArrayNode lastArrivals = gred.putArray("last_arrivals");
        ArrayNode waits = gred.putArray("mean_arrival_wait_us");
        for (int p = 0; p < ranks; p++) {
            lastArrivals.add(last[p]);
            waits.add(Math.round(meanWait[p] * 1000) / 1000.0);
        }
        gred.put("calls", instances);
        Verdict.HeaviestPath heavy = v.heaviestPath();
        ObjectNode t = lb.putArray("trees").addObject();
        t.put("tree", 0);
        if (heavy != null && heavy.rank() != null && heavy.rank() < ranks) {
            List<String> path = tree.pathFromRoot(heavy.rank());
            ArrayNode p = lb.putArray("heaviest_path");
            path.forEach(p::add);
            lb.put("heaviest_path_rank", heavy.rank());
            lb.put("heaviest_path_weight", heavy.weight());
            t.put("slowest_rank", heavy.rank());
            t.put("weight", heavy.weight());
            t.set("heaviest_path", p.deepCopy());
        } else {
            t.put("slowest_rank", -1);
            t.put("weight", 0.0);
            t.putArray("heaviest_path");
        }
        return m;
    }

    /** The report's run model. */
    @Override
    public Optional<RunModel> model() {
        return Optional.of(model);
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
        return Optional.ofNullable(monitors);
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
