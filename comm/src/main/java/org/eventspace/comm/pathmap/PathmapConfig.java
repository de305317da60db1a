package org.eventspace.comm.pathmap;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.eventspace.base.io.BoundedFiles;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The pathmap configuration file ({@value #SCHEMA}, documented in {@code docs/PATHMAP.md}): read into a validated
 * {@link PathmapSpec}, and written back from one.
 *
 * <pre>{@code
 * {
 *   "schema": "eventspace.pathmap/1",
 *   "topology": { "clusters": [ { "name": "c0", "hosts": [ {"name": "h0", "cpus": 2}, {"prefix": "n", "count": 4} ] } ] },
 *   "application": { "ranks": 8, "trees": 2, "tree": "hier:2", "overrides": { "h0": "flat" } },
 *   "mapping": { "ranks": "block", "root": "h0", "resultWords": 16384 }
 * }
 * }</pre>
 *
 * <p>Every check happens here, before any spec record is built, so every error names the file, line, column and
 * field path and what was expected ({@link PathmapConfigException}). Unknown fields are errors. Thread-safe:
 * stateless.
 */
public final class PathmapConfig {
    public static final String SCHEMA = "eventspace.pathmap/1";

    /* Sanity limits: an extra zero in a count fails here with a line number, not later as an OutOfMemoryError. */
    public static final int MAX_HOSTS = 1 << 16;
    public static final int MAX_CPUS = 1 << 12;
    public static final int MAX_RANKS = 1 << 20;
    public static final int MAX_TREES = 256;
    public static final int MAX_RESULT_WORDS = 1 << 24;

    static final String BLOCK = "block";
    static final String CYCLIC = "cyclic";

    /** Host and cluster names: they become parts of wrapper names and command-line arguments. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    private static final String SHAPES = "flat, binary, kary:K, hier:K or butterfly[:K] with K >= 2";

    private PathmapConfig() {
    }

    /**
     * Reads and validates a configuration file; messages name the file as given.
     *
     * @throws IOException              if the file cannot be read (or is not UTF-8); an
     *                                  {@link org.eventspace.base.io.InputLimitException} if it is over the input limit.
     * @throws PathmapConfigException   if its content is not a valid {@value #SCHEMA} document.
     */
    public static PathmapSpec read(Path file) throws IOException {
        return parse(BoundedFiles.readString(file), file.toString());
    }

    /**
     * Parses and validates configuration text.
     *
     * @param json   the document.
     * @param source what to call it in messages, usually the file name.
     * @throws PathmapConfigException naming source, line, column, field and what was expected.
     */
    public static PathmapSpec parse(String json, String source) {
        ConfigValue root = ConfigValue.parse(json, source);
        if (!root.is(ConfigValue.Type.OBJECT)) {
            throw root.error("expected a JSON object with \"schema\": \"" + SCHEMA + "\", got " + root.shown());
        }
        // Schema first: a file of another version is reported as such, not as a pile of unknown fields; but a
        // misspelt "schema" is reported as the unknown field it is.
        String[] fields = {"schema", "topology", "application", "mapping"};
        if (root.optional("schema") == null) {
            root.object(fields);
        }
        ConfigValue schema = root.member("schema");
        if (!schema.is(ConfigValue.Type.STRING) || !schema.string().equals(SCHEMA)) {
            throw schema.error("expected \"" + SCHEMA + "\" (the only version this build reads), got " + schema.shown());
        }
        root.object(fields);

        Topology topology = topology(root.member("topology"));
        ConfigValue app = root.member("application").object("ranks", "trees", "tree", "overrides");
        int ranks = app.member("ranks").integer(1, MAX_RANKS);
        ConfigValue treesValue = app.optional("trees");
        int trees = treesValue == null ? 1 : treesValue.integer(1, MAX_TREES);
        TreeShape shape = shape(app.member("tree"));
        Map<String, TreeShape> overrides = overrides(app.optional("overrides"), shape, topology);

        int[] rankHosts = PathmapSpec.blockMapping(ranks, topology.size());
        int rootHost = 0;
        int resultWords = PathmapSpec.DEFAULT_RESULT_WORDS;
        ConfigValue mapping = root.optional("mapping");
        if (mapping != null) {
            mapping.object("ranks", "root", "resultWords");
            if (mapping.optional("ranks") != null) {
                rankHosts = rankHosts(mapping.member("ranks"), ranks, topology);
            }
            if (mapping.optional("root") != null) {
                rootHost = host(mapping.member("root"), topology, null);
            }
            if (mapping.optional("resultWords") != null) {
                resultWords = mapping.member("resultWords").integer(1, MAX_RESULT_WORDS);
            }
        }
        try {
            return new PathmapSpec(topology, ranks, trees, shape, overrides, rankHosts, rootHost, resultWords);
        } catch (IllegalArgumentException e) {
            // Everything PathmapSpec checks was checked above; this is a safety net, not a code path.
            throw root.error(e.getMessage());
        }
    }

    private static Topology topology(ConfigValue topology) {
        topology.object("clusters");
        List<String> clusters = new ArrayList<>();
        List<Host> hosts = new ArrayList<>();
        Map<String, String> defined = new HashMap<>(); // host or cluster name -> "host at 4:17"
        for (ConfigValue c : topology.member("clusters").items(1, "clusters")) {
            c.object("name", "hosts");
            ConfigValue nameValue = c.member("name");
            String cluster = name(nameValue);
            claim(defined, cluster, "cluster", nameValue, "duplicate cluster name \"" + cluster + "\"");
            clusters.add(cluster);
            for (ConfigValue h : c.member("hosts").items(1, "hosts")) {
                h.object("name", "prefix", "count", "cpus");
                int cpus = h.optional("cpus") == null ? 1 : h.member("cpus").integer(1, MAX_CPUS);
                ConfigValue hostName = h.optional("name");
                ConfigValue prefix = h.optional("prefix");
                if (hostName != null && (prefix != null || h.optional("count") != null)) {
                    throw h.error("give either \"name\" or \"prefix\" and \"count\", not both");
                }
                if (hostName != null) {
                    String name = name(hostName);
                    claim(defined, name, "host", hostName, "duplicate host name \"" + name + "\"");
                    hosts.add(new Host(hosts.size(), name, cluster, cpus));
                } else if (prefix != null) {
                    String p = prefix.string();
                    int count = h.member("count").integer(1, MAX_HOSTS);
                    for (int i = 0; i < count && hosts.size() <= MAX_HOSTS; i++) {
                        String name = p + i;
                        if (!NAME.matcher(name).matches()) {
                            throw prefix.error("prefix makes host name \"" + name + "\"; expected letters, digits, "
                                    + "'.', '-' or '_'");
                        }
                        claim(defined, name, "host", prefix, "prefix \"" + p + "\" with count " + count
                                + " makes host name \"" + name + "\"");
                        hosts.add(new Host(hosts.size(), name, cluster, cpus));
                    }
                } else {
                    throw h.error("expected a host {\"name\": …} or a run of hosts {\"prefix\": …, \"count\": …}");
                }
                if (hosts.size() > MAX_HOSTS) {
                    throw h.error("the topology has more than " + MAX_HOSTS + " hosts");
                }
            }
        }
        return new Topology(clusters, hosts);
    }

    private static String name(ConfigValue value) {
        String name = value.string();
        if (!NAME.matcher(name).matches()) {
            throw value.error("expected a name of letters, digits, '.', '-' or '_' (not starting with one of the "
                    + "last three), got " + value.shown());
        }
        return name;
    }

    /**
     * Host names are unique across clusters, and no host is named like a cluster: overrides are keyed by either,
     * so a shared name would be ambiguous.
     */
    private static void claim(Map<String, String> defined, String name, String what, ConfigValue at, String lead) {
        String first = defined.putIfAbsent(name, what + " at " + at.line() + ":" + at.column());
        if (first != null) {
            throw at.error(lead + ", already used by the " + first);
        }
    }

    private static TreeShape shape(ConfigValue value) {
        String text = value.string();
        try {
            return TreeShape.parse(text);
        } catch (IllegalArgumentException e) {
            throw value.error("expected " + SHAPES + ", got " + value.shown());
        }
    }

    private static Map<String, TreeShape> overrides(ConfigValue value, TreeShape shape, Topology topology) {
        if (value == null) {
            return Map.of();
        }
        Map<String, ConfigValue> members = value.members();
        if (!members.isEmpty() && shape.kind() != TreeShape.Kind.HIER) {
            // The builder only consults overrides when it joins a host's or a cluster's branch.
            throw value.error("overrides apply only to hier:K trees, but application.tree is " + shape);
        }
        Map<String, TreeShape> overrides = new LinkedHashMap<>();
        for (Map.Entry<String, ConfigValue> m : members.entrySet()) {
            String branch = m.getKey();
            if (topology.hostId(branch) < 0 && !topology.clusters().contains(branch)) {
                throw m.getValue().keyError("\"" + branch + "\" names neither a host nor a cluster; clusters are "
                        + sample(topology.clusters()) + ", hosts are " + sample(hostNames(topology)));
            }
            overrides.put(branch, shape(m.getValue()));
        }
        return overrides;
    }

    private static int[] rankHosts(ConfigValue value, int ranks, Topology topology) {
        String expected = "expected \"" + BLOCK + "\", \"" + CYCLIC + "\" or an array of " + ranks
                + " host names (one per rank)";
        if (value.is(ConfigValue.Type.STRING)) {
            switch (value.string()) {
                case BLOCK:
                    return PathmapSpec.blockMapping(ranks, topology.size());
                case CYCLIC:
                    return PathmapSpec.cyclicMapping(ranks, topology.size());
                default:
                    throw value.error(expected + ", got " + value.shown());
            }
        }
        if (!value.is(ConfigValue.Type.ARRAY)) {
            throw value.error(expected + ", got " + value.shown());
        }
        List<ConfigValue> items = value.items(0, "host names");
        if (items.size() != ranks) {
            throw value.error("expected " + ranks + " host names, one per rank (application.ranks = " + ranks
                    + "), got " + items.size());
        }
        // Host ids by name, looked up once per rank: Topology.hostId scans, ranks x hosts was quadratic.
        Map<String, Integer> ids = new HashMap<>();
        for (Host h : topology.hosts()) {
            ids.put(h.name(), h.id());
        }
        int[] map = new int[ranks];
        for (int r = 0; r < ranks; r++) {
            map[r] = host(items.get(r), topology, ids);
        }
        return map;
    }

    private static int host(ConfigValue value, Topology topology, Map<String, Integer> ids) {
        int id = ids == null ? topology.hostId(value.string()) : ids.getOrDefault(value.string(), -1);
        if (id < 0) {
            throw value.error("unknown host " + value.shown() + "; hosts are " + sample(hostNames(topology)));
        }
        return id;
    }


    /** {@code "block"}, {@code "cyclic"} or null, whichever names the spec's rank mapping (block wins a tie). */
    static String mappingName(PathmapSpec spec) {
        int[] rankHosts = spec.rankHosts();
        if (Arrays.equals(rankHosts, PathmapSpec.blockMapping(spec.ranks(), spec.topology().size()))) {
            return BLOCK;
        }
        if (Arrays.equals(rankHosts, PathmapSpec.cyclicMapping(spec.ranks(), spec.topology().size()))) {
            return CYCLIC;
        }
        return null;
    }

    private static List<String> hostNames(Topology topology) {
        return topology.hosts().stream().map(Host::name).toList();
    }

    private static String sample(List<String> names) {
        return names.size() <= 8 ? String.join(", ", names)
                : String.join(", ", names.subList(0, 4)) + ", … " + names.get(names.size() - 1) + " (" + names.size()
                + " in all)";
    }

    /**
     * The spec as a {@value #SCHEMA} document that {@link #parse} reads back into an equal spec: mappings are
     * written as {@code "block"} or {@code "cyclic"} when they are one, runs of hosts {@code p0, p1, …} with equal
     * CPUs as {@code {"prefix": "p", "count": n}}, overrides in topology order.
     *
     * @throws IllegalArgumentException if the spec cannot be expressed in the format (a name the format does not
     *                                  allow, a cluster without hosts, hosts not listed cluster by cluster, or
     *                                  overrides on a tree that is not hier:K); the message says which.
     */
    public static String write(PathmapSpec spec) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        Topology topology = spec.topology();
        ObjectNode root = f.objectNode().put("schema", SCHEMA);
        ArrayNode clusters = root.putObject("topology").putArray("clusters");
        for (String cluster : topology.clusters()) {
            ObjectNode c = clusters.addObject().put("name", cluster);
            ArrayNode hosts = c.putArray("hosts");
            List<Host> members = topology.hosts().stream().filter(h -> h.cluster().equals(cluster)).toList();
            for (int i = 0; i < members.size(); ) {
                int run = run(members, i);
                Host h = members.get(i);
                ObjectNode host = hosts.addObject();
                if (run > 1) {
                    host.put("prefix", h.name().substring(0, h.name().length() - 1)).put("count", run);
                } else {
                    host.put("name", h.name());
                }
                host.put("cpus", h.cpus());
                i += run;
            }
        }
        ObjectNode app = root.putObject("application").put("ranks", spec.ranks()).put("trees", spec.trees())
                .put("tree", spec.shape().toString());
        if (!spec.overrides().isEmpty()) {
            ObjectNode overrides = app.putObject("overrides");
            List<String> branches = new ArrayList<>(topology.clusters());
            branches.addAll(hostNames(topology));
            for (String branch : branches) {
                TreeShape s = spec.overrides().get(branch);
                if (s != null) {
                    overrides.put(branch, s.toString());
                }
            }
        }
        ObjectNode mapping = root.putObject("mapping");
        String named = mappingName(spec);
        if (named != null) {
            mapping.put("ranks", named);
        } else {
            ArrayNode ranks = mapping.putArray("ranks");
            for (int r = 0; r < spec.ranks(); r++) {
                ranks.add(topology.host(spec.hostOf(r)).name());
            }
        }
        mapping.put("root", topology.host(spec.rootHost()).name()).put("resultWords", spec.resultWords());

        String text = JsonPrinter.print(root, JsonPrinter.WIDTH);
        // One source of truth for what the format allows: read the text back.
        PathmapSpec back;
        try {
            back = parse(text, "<written>");
        } catch (PathmapConfigException e) {
            throw new IllegalArgumentException("spec cannot be written as " + SCHEMA + ": " + e.field() + ": "
                    + e.problem(), e);
        }
        if (!back.equals(spec)) {
            throw new IllegalArgumentException("spec cannot be written as " + SCHEMA + ": its hosts are not listed "
                    + "cluster by cluster in cluster order, so host ids would change: " + topology.hosts());
        }
        return text;
    }

    /** Length of the run of hosts named p0, p1, p2, … with equal CPUs starting at {@code from}; 1 if none. */
    private static int run(List<Host> hosts, int from) {
        String first = hosts.get(from).name();
        if (!first.endsWith("0") || first.length() > 1 && Character.isDigit(first.charAt(first.length() - 2))) {
            return 1;
        }
        String prefix = first.substring(0, first.length() - 1);
        int n = 1;
        while (from + n < hosts.size() && hosts.get(from + n).name().equals(prefix + n)
                && hosts.get(from + n).cpus() == hosts.get(from).cpus()) {
            n++;
        }
        return n;
    }
}
