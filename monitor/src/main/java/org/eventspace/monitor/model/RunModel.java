package org.eventspace.monitor.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.eventspace.base.json.Json;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The one run model: what a run is, whoever ran it — one of our workloads over the communication system, or an MPI
 * program seen through PMPI. Both analyses fill it, live and at the end; the report ({@value #SCHEMA}) is its
 * serialisation, plus blocks only one kind has (collectors, scope, trace; the MPI library's counters); the text
 * summary, {@code report}, the dashboard, {@code diff}, the exports and {@code /metrics} read it.
 *
 * @param schema       {@value #SCHEMA}.
 * @param kind         {@code workload} (ours) or {@code mpi}.
 * @param benchmark    the workload's name, or the MPI program's file name.
 * @param ranks        the ranks.
 * @param hosts        the hosts (host processes, or the MPI job's nodes).
 * @param transport    {@code jvm}, {@code tcp} or {@code mpi}.
 * @param wallS        the wall time of the run (our workloads: the timed part), null if it did not run.
 * @param resultOk     whether everything checked out; false always comes with {@code errors}.
 * @param errors       what went wrong, each naming the rank or host it concerns.
 * @param perRank      every rank, in rank order.
 * @param operations   per operation, calls and the spread of time over ranks; empty when not profiled.
 * @param verdict      the slowest rank, the heaviest path and the machine's load, each with its certainty.
 * @param coverage     what the tool did not see.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"schema", "kind", "benchmark", "ranks", "hosts", "transport", "wall_s", "result_ok", "errors",
        "verdict", "coverage", "per_rank", "operations"})
public record RunModel(String schema, String kind, String benchmark, int ranks, int hosts, String transport,
                       @JsonInclude(JsonInclude.Include.ALWAYS) Double wallS, boolean resultOk, List<String> errors,
                       List<RankRecord> perRank, Map<String, OperationRecord> operations, Verdict verdict,
                       Coverage coverage) {
    public static final String SCHEMA = "eventspace.run/2";
    public static final String WORKLOAD = "workload";
    public static final String MPI = "mpi";

    private static final ObjectReader READER = Json.mapper().copy()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false).readerFor(RunModel.class);

    public RunModel {
        errors = List.copyOf(errors);
        perRank = List.copyOf(perRank);
        operations = Map.copyOf(new LinkedHashMap<>(operations));
        if (!resultOk && errors.isEmpty()) {
            throw new IllegalArgumentException("a run that is not ok must say why: result_ok is false and errors is empty");
        }
    }

    /** Whether this is an MPI program's run. */
    @JsonIgnore
    public boolean mpi() {
        return MPI.equals(kind);
    }

    /** The rank record of {@code rank}, or null. */
    public RankRecord rank(int rank) {
        return rank >= 0 && rank < perRank.size() && perRank.get(rank).rank() == rank ? perRank.get(rank)
                : perRank.stream().filter(r -> r.rank() == rank).findFirst().orElse(null);
    }

    /** The model as the top-level fields of a report; the caller adds its kind's blocks. */
    public ObjectNode toJson(ObjectMapper json) {
        return json.valueToTree(this);
    }

    /**
     * The model of a report document: checks {@code schema} first (a reader of /2 refuses anything else, and says
     * what), then the fields the model requires. {@code source} names the document in errors (a file name).
     */
    public static RunModel read(JsonNode doc, String source) {
        if (doc == null || !doc.isObject()) {
            throw new IllegalArgumentException(source + ": expected a JSON object (an eventspace run report)");
        }
        String schema = doc.path("schema").asText("");
        if (!SCHEMA.equals(schema)) {
            throw new IllegalArgumentException(source + ": field 'schema' is '" + quoted(schema) + "', expected '" + SCHEMA + "'"
                    + (schema.equals("eventspace.run/1")
                    ? " (written by an older eventspace: run it again to get the report every view reads)" : ""));
        }
        for (String field : List.of("kind", "benchmark", "ranks", "hosts", "result_ok", "errors", "per_rank",
                "verdict", "coverage")) {
            if (!doc.has(field)) {
                throw new IllegalArgumentException(source + ": missing field '" + field + "' of " + SCHEMA);
            }
        }
        if (!doc.path("per_rank").isArray()) {
            throw new IllegalArgumentException(source + ": field 'per_rank' must be an array of ranks");
        }
        for (String field : List.of("verdict", "coverage")) {
            if (!doc.path(field).isObject()) {
                throw new IllegalArgumentException(source + ": field '" + field + "' must be an object (every view draws it)");
            }
        }
        checkShape(doc, source);
        try {
            return READER.readValue(doc);
        } catch (com.fasterxml.jackson.databind.exc.ValueInstantiationException e) {
            // A record refused its values: a list or object that is null, or a check of its constructor. Name the place;
            // a NullPointerException from a constructor says nothing to the reader of the message, so it is not kept.
            Throwable why = e.getCause();
            boolean checked = why instanceof IllegalArgumentException;
            throw new IllegalArgumentException(source + ": not a valid " + SCHEMA + " report: at " + place(e) + ": "
                    + (checked ? quoted(why.getMessage()) : "a required value is null or missing"), checked ? why : null);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException(source + ": not a valid " + SCHEMA + " report: "
                    + quoted(e.getMessage().lines().findFirst().orElse("")), e);
        }
    }

    /** Where in the report a reading error is: {@code verdict.slowest_rank}, {@code per_rank[2]}, or {@code /}. */
    private static String place(com.fasterxml.jackson.databind.JsonMappingException e) {
        StringBuilder b = new StringBuilder();
        for (com.fasterxml.jackson.databind.JsonMappingException.Reference r : e.getPath()) {
            if (r.getFieldName() != null) {
                b.append(b.length() == 0 ? "" : ".").append(quoted(r.getFieldName()));
            } else if (r.getIndex() >= 0) {
                b.append('[').append(r.getIndex()).append(']');
            }
        }
        return b.length() == 0 ? "/" : b.toString();
    }

    /** Text from the report quoted in a message, cut to 80 characters: a message never grows with the input. */
    private static String quoted(String text) {
        return text == null || text.length() <= 80 ? String.valueOf(text) : text.substring(0, 80) + "… (" + text.length()
                + " characters)";
    }

    /**
     * The report's structure, checked before it is decoded or drawn, in time linear in its size: every writer lists
     * each rank once, in rank order ({@code per_rank[i].rank == i}), so {@code ranks} is the length of {@code
     * per_rank}. A report that claims more ranks than it holds (a 39 KB file claiming 100 000) would make every view
     * size itself by the claim; it is refused naming the field and both numbers.
     */
    private static void checkShape(JsonNode doc, String source) {
        JsonNode ranks = doc.get("ranks");
        if (!ranks.canConvertToInt() || !ranks.isIntegralNumber() || ranks.asInt() < 0) {
            throw new IllegalArgumentException(source + ": field 'ranks' must be a rank count (an integer >= 0), got "
                    + abbreviate(ranks.toString()));
        }
        JsonNode hosts = doc.get("hosts");
        if (!hosts.canConvertToInt() || !hosts.isIntegralNumber() || hosts.asInt() < 0) {
            throw new IllegalArgumentException(source + ": field 'hosts' must be a host count (an integer >= 0), got "
                    + abbreviate(hosts.toString()));
        }
        JsonNode perRank = doc.get("per_rank");
        if (perRank.size() != ranks.asInt()) {
            throw new IllegalArgumentException(source + ": field 'ranks' is " + ranks.asInt() + " but 'per_rank' lists "
                    + perRank.size() + " ranks (a report lists every rank once)");
        }
        for (int i = 0; i < perRank.size(); i++) {
            JsonNode rank = perRank.get(i).path("rank");
            if (!rank.isIntegralNumber() || rank.asLong() != i) {
                throw new IllegalArgumentException(source + ": per_rank/" + i + "/rank must be " + i
                        + " (ranks in rank order, each once), got " + abbreviate(rank.toString()));
            }
        }
    }

    private static String abbreviate(String s) {
        return s.length() > 60 ? s.substring(0, 57) + "..." : s;
    }

    /**
     * Per operation over {@code ranks}' profiles: calls summed, and the spread of time over the ranks that called it
     * (a rank that did not call it counts as 0 µs, so a rank that skips it shows as imbalance).
     */
    public static Map<String, OperationRecord> operationsOf(List<RankRecord> ranks) {
        TreeSet<String> names = new TreeSet<>();
        for (RankRecord r : ranks) {
            if (r.profile() != null) {
                names.addAll(r.profile().keySet());
            }
        }
        Map<String, OperationRecord> out = new LinkedHashMap<>();
        for (String op : names) {
            long calls = 0;
            double sum = 0;
            double min = Double.POSITIVE_INFINITY;
            double max = Double.NEGATIVE_INFINITY;
            int minRank = -1;
            int maxRank = -1;
            int n = 0;
            for (RankRecord r : ranks) {
                if (r.profile() == null) {
                    continue;
                }
                RankRecord.Calls c = r.profile().get(op);
                double t = c == null ? 0 : c.timeUs();
                calls += c == null ? 0 : c.calls();
                sum += t;
                n++;
                if (t < min) {
                    min = t;
                    minRank = r.rank();
                }
                if (t > max) {
                    max = t;
                    maxRank = r.rank();
                }
            }
            double mean = sum / n;
            out.put(op, new OperationRecord(calls, null, n, round(sum), round(min), minRank, round(mean), round(max),
                    maxRank, mean == 0 ? 0 : round((max / mean - 1) * 100)));
        }
        return out;
    }

    /** Errors of {@code perRank} and {@code outside}, each once, in that order. */
    public static List<String> errorsOf(List<RankRecord> perRank, List<String> outside) {
        List<String> errors = new ArrayList<>(outside);
        for (RankRecord r : perRank) {
            if (r.error() != null && !errors.contains(r.error())) {
                errors.add(r.error());
            }
        }
        return errors;
    }

    static double round(double x) {
        return Math.round(x * 10.0) / 10.0;
    }
}
