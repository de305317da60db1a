package org.eventspace.trace;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.eventspace.base.json.Json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The conditions a traced run ran under, kept in its trace file's optional {@code "conditions"} block
 * (docs/TRACE-FORMAT.md): a timed replay (Ratn et al. §3.4) is compared with its original, and the comparison only
 * means something when the replay runs as the original ran. Over TCP the time of a collective is decided by the
 * layout, not by the trace: two ranks in one host process reduce in shared memory in a few µs, on two hosts over
 * loopback in tens of µs; collectors on every edge add their own cost to every call. A replay that guessed these
 * from its own flags' defaults ran 2 ranks on 1 host and measured −79 % against its original, while the same
 * trace replayed on the original's 2 hosts without collectors came within −5 %. So the recorder writes what
 * shaped its calls' times, and {@code trace replay} takes them as its defaults and says which of them it changed.
 *
 * <p>Values are the labels the command line takes ({@code tcp}, {@code hier:8}, {@code auto}, {@code core}): this
 * module does not know the job's types; the command that applies them validates them as it validates its flags.
 *
 * @param workload          the benchmark that was traced ({@code gsum}, {@code compute-gsum}, {@code sor}, …).
 * @param iterations        its timed iterations.
 * @param warmupIterations  its untimed warm-up iterations (at least this many).
 * @param warmupSeconds     ...repeated until this much time had passed on every rank.
 * @param transport         {@code jvm} (simulated hosts in one JVM) or {@code tcp} (one process per host).
 * @param ranks             application ranks.
 * @param hosts             hosts (processes over TCP) the ranks were block-mapped over.
 * @param clusters          clusters the hosts were split into.
 * @param tree              the trees' shape ({@code flat}, {@code binary}, {@code kary:K}, {@code hier:K}).
 * @param trees             trees in the pathmap.
 * @param layout            {@code shortcut} when the pathmap is the one {@code --ranks/--hosts/--clusters/--tree}
 *                          make; {@code config} when it came from a pathmap file (not kept here: the replay needs
 *                          {@code --config} to run on it).
 * @param poll              how TCP hops waited for a frame ({@code spin}, {@code yield}, {@code block}, {@code auto}).
 * @param bindTo            how the host processes were bound to CPUs ({@code none}, {@code core}).
 * @param socketBufferBytes SO_SNDBUF and SO_RCVBUF of every TCP hop; 0 for the OS default.
 * @param collectors        whether every edge carried an event collector.
 * @param scope             the event scope pulled while the ranks ran, or {@code none}.
 * @param monitors          the monitors the hosts ran (empty: none).
 * @param jvmOptions        the launching JVM's {@code -X}/{@code -XX} options (its memory bounds reach the host
 *                          processes).
 */
public record RunConditions(String workload, long iterations, int warmupIterations, double warmupSeconds,
                            String transport, int ranks, int hosts, int clusters, String tree, int trees, String layout,
                            String poll, String bindTo, int socketBufferBytes, boolean collectors, String scope,
                            List<String> monitors, List<String> jvmOptions) {
    /** The block's name in the trace file's root object. */
    public static final String FIELD = "conditions";
    public static final String SHORTCUT = "shortcut";
    public static final String CONFIG = "config";

    public RunConditions {
        Objects.requireNonNull(workload, "workload");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(tree, "tree");
        Objects.requireNonNull(layout, "layout");
        Objects.requireNonNull(poll, "poll");
        Objects.requireNonNull(bindTo, "bindTo");
        Objects.requireNonNull(scope, "scope");
        monitors = List.copyOf(monitors);
        jvmOptions = List.copyOf(jvmOptions);
    }

    /** The JVM options of this process that shape a run's speed or its host processes: its {@code -X…} and {@code -XX:…}. */
    public static List<String> jvmOptionsOfThisProcess() {
        List<String> out = new ArrayList<>();
        for (String option : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (option.startsWith("-X")) {
                out.add(option);
            }
        }
        return out;
    }

    public ObjectNode toJson() {
        ObjectNode o = Json.mapper().createObjectNode();
        o.put("workload", workload);
        o.put("iterations", iterations);
        o.put("warmup_iterations", warmupIterations);
        o.put("warmup_s", warmupSeconds);
        o.put("transport", transport);
        o.put("ranks", ranks);
        o.put("hosts", hosts);
        o.put("clusters", clusters);
        o.put("tree", tree);
        o.put("trees", trees);
        o.put("layout", layout);
        o.put("poll", poll);
        o.put("bind_to", bindTo);
        o.put("socket_buffer_bytes", socketBufferBytes);
        o.put("collectors", collectors);
        o.put("scope", scope);
        monitors.forEach(o.putArray("monitors")::add);
        jvmOptions.forEach(o.putArray("jvm_options")::add);
        return o;
    }

    /**
     * The block {@code o} of trace {@code source}; every error names the source, the JSON pointer under
     * {@code /conditions} and what was expected.
     */
    public static RunConditions fromJson(JsonNode o, String source) throws TraceFormatException {
        Fields f = new Fields(o, source);
        if (!o.isObject()) {
            throw f.bad("", "an object", o);
        }
        String layout = f.text("layout");
        if (!layout.equals(SHORTCUT) && !layout.equals(CONFIG)) {
            throw f.bad("/layout", "\"" + SHORTCUT + "\" or \"" + CONFIG + "\"", o.get("layout"));
        }
        return new RunConditions(f.text("workload"), f.integer("iterations", 1, Long.MAX_VALUE),
                (int) f.integer("warmup_iterations", 0, Integer.MAX_VALUE), f.number("warmup_s"), f.text("transport"),
                (int) f.integer("ranks", 1, Integer.MAX_VALUE), (int) f.integer("hosts", 1, Integer.MAX_VALUE),
                (int) f.integer("clusters", 1, Integer.MAX_VALUE), f.text("tree"), (int) f.integer("trees", 1, Integer.MAX_VALUE),
                layout, f.text("poll"), f.text("bind_to"), (int) f.integer("socket_buffer_bytes", 0, Integer.MAX_VALUE),
                f.bool("collectors"), f.text("scope"), f.texts("monitors"), f.texts("jvm_options"));
    }

    /**
     * What differs between the conditions a replay ran under ({@code replay}) and the original's (this): one line
     * each, {@code "hosts 1 (original 2)"}; empty when the replay ran as the original did. The workload, its
     * iterations and warm-up are the trace's own, not the replay's, and are not compared.
     */
    public List<String> differences(RunConditions replay) {
        List<String> out = new ArrayList<>();
        differ(out, "transport", replay.transport, transport);
        differ(out, "ranks", replay.ranks, ranks);
        differ(out, "hosts", replay.hosts, hosts);
        differ(out, "clusters", replay.clusters, clusters);
        differ(out, "layout", replay.layout, layout);
        differ(out, "tree", replay.tree, tree);
        differ(out, "trees", replay.trees, trees);
        if (transport.equals("tcp") || replay.transport.equals("tcp")) {
            differ(out, "poll", replay.poll, poll);
            differ(out, "bind-to", replay.bindTo, bindTo);
            differ(out, "socket-buffer", replay.socketBufferBytes, socketBufferBytes);
        }
        differ(out, "collectors", replay.collectors ? "on" : "off", collectors ? "on" : "off");
        differ(out, "scope", replay.scope, scope);
        differ(out, "monitors", replay.monitors.isEmpty() ? "none" : String.join(",", replay.monitors),
                monitors.isEmpty() ? "none" : String.join(",", monitors));
        differ(out, "JVM options", replay.jvmOptions.isEmpty() ? "none" : String.join(" ", replay.jvmOptions),
                jvmOptions.isEmpty() ? "none" : String.join(" ", jvmOptions));
        return out;
    }

    private static void differ(List<String> out, String name, Object replay, Object original) {
        if (!replay.equals(original)) {
            out.add(name + " " + replay + " (original " + original + ")");
        }
    }

    /** One line for people: {@code tcp, 2 ranks on 2 hosts, tree hier:8 × 2, poll auto, bind-to core, collectors off}. */
    public String summary() {
        return transport + ", " + ranks + " ranks on " + hosts + " host(s)" + (clusters > 1 ? " in " + clusters + " clusters" : "")
                + (layout.equals(CONFIG) ? ", pathmap from a file" : ", tree " + tree + " × " + trees)
                + (transport.equals("tcp") ? ", poll " + poll + ", bind-to " + bindTo
                        + (socketBufferBytes > 0 ? ", socket buffer " + socketBufferBytes + " bytes" : "") : "")
                + ", collectors " + (collectors ? "on" : "off") + (scope.equals("none") ? "" : ", scope " + scope)
                + (monitors.isEmpty() ? "" : ", monitors " + String.join(",", monitors));
    }

    /** Reads the block's fields; every error names the source and the pointer. */
    private record Fields(JsonNode o, String source) {
        TraceFormatException bad(String pointer, String expected, JsonNode got) {
            String text = got == null || got.isMissingNode() ? "nothing" : got.toString();
            return new TraceFormatException(source + ": at /" + FIELD + pointer + ": expected " + expected + ", got "
                    + (text.length() > 60 ? text.substring(0, 57) + "..." : text));
        }

        private JsonNode get(String name) {
            return o.path(name);
        }

        String text(String name) throws TraceFormatException {
            JsonNode v = get(name);
            if (!v.isTextual() || v.asText().isEmpty()) {
                throw bad("/" + name, "a non-empty string", v);
            }
            return v.asText();
        }

        long integer(String name, long min, long max) throws TraceFormatException {
            JsonNode v = get(name);
            if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < min || v.asLong() > max) {
                throw bad("/" + name, "an integer " + min + ".." + max, v);
            }
            return v.asLong();
        }

        double number(String name) throws TraceFormatException {
            JsonNode v = get(name);
            if (!v.isNumber() || !(v.asDouble() >= 0) || Double.isInfinite(v.asDouble())) {
                throw bad("/" + name, "a number >= 0", v);
            }
            return v.asDouble();
        }

        boolean bool(String name) throws TraceFormatException {
            JsonNode v = get(name);
            if (!v.isBoolean()) {
                throw bad("/" + name, "true or false", v);
            }
            return v.asBoolean();
        }

        List<String> texts(String name) throws TraceFormatException {
            JsonNode v = get(name);
            if (!v.isArray()) {
                throw bad("/" + name, "an array of strings", v);
            }
            List<String> out = new ArrayList<>();
            for (int i = 0; i < v.size(); i++) {
                if (!v.get(i).isTextual()) {
                    throw bad("/" + name + "/" + i, "a string", v.get(i));
                }
                out.add(v.get(i).asText());
            }
            return out;
        }
    }
}
