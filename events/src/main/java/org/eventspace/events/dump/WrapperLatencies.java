package org.eventspace.events.dump;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;

import org.agrona.collections.LongHashSet;
import org.eventspace.base.json.Json;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.events.PointToPointCollectors;
import org.eventspace.events.analysis.GredCalls;
import org.eventspace.events.dump.TraceDump.DumpEntry;
import org.eventspace.events.dump.TraceDump.DumpNode;
import org.eventspace.base.stats.RunningStatistics;
import org.eventspace.base.stats.StatisticsSummary;

/**
 * The post-mortem latency analysis of the dissertation's appendix paper (§7.1, "Monitoring and Analysis", §3;
 * dissertation §7.1), computed from a {@link TraceDump}. Immutable and thread-safe once computed.
 *
 * <p>Per wrapper kind, with the paper's names:
 * <ul>
 *   <li><b>gred</b>, with contributors i on ports 0..P−1: the collector above port i gives t1,i (down) and t4,i
 *   (up), the collector between the gred and its parent gives t2 and t3. l is the last arriver (largest t1,i),
 *   f the first departer (smallest t4,i). Per port: down latency t2 − t1,i, up latency t4,i − t3, total
 *   (t4,i − t1,i) − (t3 − t2) (the time spent in the gred itself), arrival wait t1,l − t1,i, departure wait
 *   t4,i − t4,f, and the arrival- and departure-order distributions (how often the port was 1st, 2nd, …; ties
 *   go to the lower port). For the gred: down latency t2 − t1,l and up latency t4,f − t3.</li>
 *   <li><b>proxy</b> (an inter-host hop): the two-way latency (t4 − t1) − (t3 − t2), t1/t4 from the collector
 *   before the stub (caller's host) and t2/t3 from the first collector on the serving host; no timestamps of
 *   different hosts are ever subtracted from each other, so no clock synchronisation is needed.</li>
 *   <li><b>core</b>: the store latency t_up − t_down of the collector above it.</li>
 * </ul>
 * Tuples of one call join by sequence number (the core's, the same in every collector of one tree). Only calls
 * present, and not failed, in every collector involved count; the others are counted as dropped (a collector
 * whose ring overwrote old tuples, or a call cut short by the end of the run). Wrappers without the collectors
 * the formulas need are listed in {@link #skipped()} with the reason.
 */
public final class WrapperLatencies {
    public static final String SCHEMA = "eventspace.latencies/1";

    // Every StatisticsSummary below is over the calls joined, in ns; one of no calls has count 0 and NaN figures.

    /** One contributor port of a gred. Orders: element k counts the calls where the port came (k+1)-th. */
    public record PortLatencies(int port, String collector, String contributor, StatisticsSummary down,
                                StatisticsSummary up, StatisticsSummary total, StatisticsSummary arrivalWait,
                                StatisticsSummary departureWait, long[] arrivalOrder, long[] departureOrder) {
    }

    public record GredLatencies(String gred, String host, int tree, String collectorBelow, long callsJoined,
                                long callsDropped, StatisticsSummary down, StatisticsSummary up, List<PortLatencies> ports) {
    }

    public record HopLatencies(String proxy, String fromHost, String toHost, int tree, String collectorBefore,
                               String collectorAfter, long callsJoined, long callsDropped, StatisticsSummary twoWay) {
    }

    public record StoreLatencies(String core, String host, int tree, String collector, long callsJoined,
                                 long callsDropped, StatisticsSummary store) {
    }

    private final String source;
    private final long overwritten;
    private final List<GredLatencies> greds;
    private final List<HopLatencies> hops;
    private final List<StoreLatencies> stores;
    private final List<String> skipped;

    private WrapperLatencies(String source, long overwritten, List<GredLatencies> greds, List<HopLatencies> hops,
                             List<StoreLatencies> stores, List<String> skipped) {
        this.source = source;
        this.overwritten = overwritten;
        this.greds = List.copyOf(greds);
        this.hops = List.copyOf(hops);
        this.stores = List.copyOf(stores);
        this.skipped = List.copyOf(skipped);
    }

    /** Computes every latency the dump's collectors allow. */
    public static WrapperLatencies of(TraceDump dump) {
        List<List<DumpNode>> children = new ArrayList<>();
        List<List<DumpEntry>> entriesAt = new ArrayList<>();
        for (int i = 0; i < dump.nodes().size(); i++) {
            children.add(new ArrayList<>());
            entriesAt.add(new ArrayList<>());
        }
        for (DumpNode n : dump.nodes()) {
            if (n.parent() >= 0 && n.parent() < children.size()) {
                children.get(n.parent()).add(n);
            }
        }
        for (DumpEntry e : dump.entries()) {
            if (e.node() >= 0 && e.node() < entriesAt.size()) {
                entriesAt.get(e.node()).add(e);
            }
        }
        Analysis a = new Analysis(dump, children, entriesAt);
        for (DumpNode n : dump.nodes()) {
            switch (n.kind()) {
                case PathmapBuilder.GRED -> a.gred(n);
                case PathmapBuilder.PROXY -> a.proxy(n);
                case PathmapBuilder.CORE -> a.core(n);
                default -> {
                }
            }
        }
        a.pointToPoint();
        long overwritten = 0;
        for (CollectorTrace c : dump.collectors()) {
            overwritten = Math.max(overwritten, c.overwritten());
        }
        return new WrapperLatencies(dump.directory().toString(), overwritten, a.greds, a.hops, a.stores, a.skipped);
    }

    /**
     * The most tuples any one collector's ring overwrote before the dump: calls older than the rings hold are in
     * no collector, so they are neither joined nor dropped, only not analysed.
     */
    public long overwrittenTuplesMax() {
        return overwritten;
    }

    public List<GredLatencies> greds() {
        return greds;
    }

    public List<HopLatencies> hops() {
        return hops;
    }

    public List<StoreLatencies> stores() {
        return stores;
    }

    /** Wrappers not analysed, each with the reason (a collector missing from the pathmap or from the dump). */
    public List<String> skipped() {
        return skipped;
    }

    public GredLatencies gred(String name) {
        return greds.stream().filter(g -> g.gred().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no gred named " + name + " was analysed; greds: "
                        + greds.stream().map(GredLatencies::gred).toList()));
    }

    public HopLatencies hop(String proxyName) {
        return hops.stream().filter(h -> h.proxy().equals(proxyName)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no proxy named " + proxyName + " was analysed; proxies: "
                        + hops.stream().map(HopLatencies::proxy).toList()));
    }

    public StoreLatencies store(String coreName) {
        return stores.stream().filter(s -> s.core().equals(coreName)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no core named " + coreName + " was analysed; cores: "
                        + stores.stream().map(StoreLatencies::core).toList()));
    }

    /** Calls present in every one of {@code collectors} (sorted), and how many present in some but not all. */
    record Join(long[] sequences, long dropped) {
        static Join of(CollectorTrace... collectors) {
            LongHashSet union = new LongHashSet();
            for (CollectorTrace c : collectors) {
                for (int i = 0; i < c.size(); i++) {
                    if (!c.failed(i)) {
                        union.add(c.sequence(i));
                    }
                }
            }
            long[] joined = new long[union.size()];
            int n = 0;
            LongHashSet.LongIterator it = union.iterator();
            while (it.hasNext()) {
                long seq = it.nextValue();
                boolean all = true;
                for (CollectorTrace c : collectors) {
                    if (c.indexOf(seq) < 0) {
                        all = false;
                        break;
                    }
                }
                if (all) {
                    joined[n++] = seq;
                }
            }
            long[] sequences = Arrays.copyOf(joined, n);
            Arrays.sort(sequences);
            return new Join(sequences, union.size() - n);
        }
    }

    /** The walk over the pathmap; not thread-safe, used once. */
    private static final class Analysis {
        final TraceDump dump;
        final List<List<DumpNode>> children;
        final List<List<DumpEntry>> entriesAt;
        final List<GredLatencies> greds = new ArrayList<>();
        final List<HopLatencies> hops = new ArrayList<>();
        final List<StoreLatencies> stores = new ArrayList<>();
        final List<String> skipped = new ArrayList<>();

        Analysis(TraceDump dump, List<List<DumpNode>> children, List<List<DumpEntry>> entriesAt) {
            this.dump = dump;
            this.children = children;
            this.entriesAt = entriesAt;
        }

        /** The trace of the collector node {@code n}, or null with the reason added to {@link #skipped}. */
        private CollectorTrace trace(DumpNode wrapper, DumpNode n, String role) {
            CollectorTrace c = dump.collector(n.id());
            if (c == null) {
                skipped.add(wrapper.kind() + " " + wrapper.name() + ": " + role + " collector " + n.name()
                        + " has no readable trace file");
            }
            return c;
        }

        void gred(DumpNode g) {
            DumpNode below = g.parent() >= 0 ? dump.node(g.parent()) : null;
            if (below == null || !below.isCollector()) {
                skipped.add("gred " + g.name() + ": no collector between it and its parent (t2, t3)");
                return;
            }
            DumpNode[] above = new DumpNode[g.arity()];
            for (DumpNode child : children.get(g.id())) {
                if (child.isCollector() && child.parentPort() >= 0 && child.parentPort() < above.length) {
                    above[child.parentPort()] = child;
                }
            }
            for (int p = 0; p < above.length; p++) {
                if (above[p] == null) {
                    skipped.add("gred " + g.name() + ": no collector above port " + p + " (t1," + p + ", t4," + p + ")");
                    return;
                }
            }
            CollectorTrace t23 = trace(g, below, "below");
            CollectorTrace[] t14 = new CollectorTrace[above.length];
            CollectorTrace[] all = new CollectorTrace[above.length + 1];
            boolean missing = t23 == null;
            for (int p = 0; p < above.length; p++) {
                t14[p] = trace(g, above[p], "port " + p);
                missing |= t14[p] == null;
                all[p] = t14[p];
            }
            if (missing) {
                return;
            }
            all[above.length] = t23;
            Join join = Join.of(all);

            int ports = above.length;
            GredCalls calls = new GredCalls(ports);
            long[] t1 = new long[ports];
            long[] t4 = new long[ports];
            for (long seq : join.sequences()) {
                int j = t23.indexOf(seq);
                for (int p = 0; p < ports; p++) {
                    int i = t14[p].indexOf(seq);
                    t1[p] = t14[p].startNs(i);
                    t4[p] = t14[p].endNs(i);
                }
                calls.add(t1, t4, t23.startNs(j), t23.endNs(j));
            }
            List<PortLatencies> portLatencies = new ArrayList<>();
            for (int p = 0; p < ports; p++) {
                portLatencies.add(new PortLatencies(p, above[p].name(), contributor(above[p]), calls.port(p, GredCalls.DOWN),
                        calls.port(p, GredCalls.UP), calls.port(p, GredCalls.TOTAL), calls.port(p, GredCalls.ARRIVAL_WAIT),
                        calls.port(p, GredCalls.DEPARTURE_WAIT), calls.arrivalOrder(p), calls.departureOrder(p)));
            }
            greds.add(new GredLatencies(g.name(), g.host(), g.tree(), below.name(), join.sequences().length,
                    join.dropped(), calls.down(), calls.up(), portLatencies));
        }

        /** Who calls collector {@code c}: a rank (its entry) or the wrapper whose parent it is. */
        private String contributor(DumpNode c) {
            List<String> names = new ArrayList<>();
            for (DumpEntry e : entriesAt.get(c.id())) {
                names.add("rank " + e.rank());
            }
            for (DumpNode n : children.get(c.id())) {
                names.add(n.name());
            }
            return names.isEmpty() ? "?" : String.join(", ", names);
        }

        void proxy(DumpNode x) {
            if (x.parent() < 0) {
                return;   // a root proxy serves point-to-point paths: no hop of a tree to time
            }
            DumpNode after = dump.node(x.parent());
            DumpNode before = null;
            for (DumpNode child : children.get(x.id())) {
                if (child.isCollector()) {
                    before = child;
                }
            }
            if (before == null || !after.isCollector()) {
                skipped.add("proxy " + x.name() + ": " + (before == null ? "no collector before the stub (t1, t4)"
                        : "no collector first on the serving host (t2, t3)"));
                return;
            }
            CollectorTrace c14 = trace(x, before, "before-stub");
            CollectorTrace c23 = trace(x, after, "serving-host");
            if (c14 == null || c23 == null) {
                return;
            }
            hop(x.name(), x.host(), after.host(), x.tree(), before.name(), after.name(), c14, c23);
        }

        /** A hop's two-way latency {@code (t4 − t1) − (t3 − t2)} over the calls both its collectors hold. */
        private void hop(String name, String fromHost, String toHost, int tree, String before, String after,
                         CollectorTrace c14, CollectorTrace c23) {
            Join join = Join.of(c14, c23);
            RunningStatistics twoWay = new RunningStatistics();
            for (long seq : join.sequences()) {
                int i = c14.indexOf(seq);
                int j = c23.indexOf(seq);
                twoWay.add((c14.endNs(i) - c14.startNs(i)) - (c23.endNs(j) - c23.startNs(j)));
            }
            hops.add(new HopLatencies(name, fromHost, toHost, tree, before, after, join.sequences().length,
                    join.dropped(), twoWay.summary()));
        }

        /**
         * Point-to-point hops: the collector on the sender's path ({@code p2p.<s>.<d>.send}, t1/t4) and the one the
         * receiving host's service thread ran ({@code p2p.<s>.<d>.serve}, t2/t3), joined by the sequence the
         * mailbox gave each send; listed with the trees' hops under the mailbox's name, tree −1. A send within one
         * host has no serving collector and no hop.
         */
        void pointToPoint() {
            Map<String, DumpNode> serving = new HashMap<>();
            for (DumpNode n : dump.nodes()) {
                if (n.isCollector() && n.name().startsWith(PointToPointCollectors.PREFIX) && n.name().endsWith(".serve")) {
                    serving.put(n.name().substring(0, n.name().length() - ".serve".length()), n);
                }
            }
            for (DumpNode before : dump.nodes()) {
                if (!before.isCollector() || !before.name().startsWith(PointToPointCollectors.PREFIX)
                        || !before.name().endsWith(".send")) {
                    continue;
                }
                String mailbox = before.name().substring(0, before.name().length() - ".send".length());
                DumpNode after = serving.get(mailbox);
                if (after == null) {
                    continue;
                }
                CollectorTrace c14 = trace(before, before, "sender's");
                CollectorTrace c23 = trace(before, after, "serving-host");
                if (c14 == null || c23 == null) {
                    continue;
                }
                hop(mailbox, before.host(), after.host(), -1, before.name(), after.name(), c14, c23);
            }
        }

        void core(DumpNode k) {
            boolean any = false;
            for (DumpNode child : children.get(k.id())) {
                if (!child.isCollector()) {
                    continue;
                }
                any = true;
                CollectorTrace c = trace(k, child, "above");
                if (c == null) {
                    continue;
                }
                Join join = Join.of(c);
                RunningStatistics store = new RunningStatistics();
                for (long seq : join.sequences()) {
                    int i = c.indexOf(seq);
                    store.add(c.endNs(i) - c.startNs(i));
                }
                stores.add(new StoreLatencies(k.name(), k.host(), k.tree(), child.name(), join.sequences().length,
                        join.dropped(), store.summary()));
            }
            if (!any) {
                skipped.add("core " + k.name() + ": no collector above it");
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ output

    /** The report for people: every number with its unit (µs with ns precision, counts of calls). */
    public void printText(PrintWriter out) {
        out.printf(Locale.ROOT, "Wrapper latencies from %s (dissertation §7.1 §3): %s, %s, %s%n", source,
                count(greds.size(), "gred"), count(hops.size(), "hop"), count(stores.size(), "core"));
        if (overwritten > 0) {
            out.printf(Locale.ROOT, "  only the calls the trace rings still held: up to %s per collector were overwritten%n",
                    count(overwritten, "older tuple"));
        }
        for (GredLatencies g : greds) {
            out.printf(Locale.ROOT, "%ngred %s @%s, tree %d, %d ports, t2/t3 from %s: %d calls joined, %d dropped%n",
                    g.gred(), g.host(), g.tree(), g.ports().size(), g.collectorBelow(), g.callsJoined(), g.callsDropped());
            out.printf(Locale.ROOT, "  down latency  t2 - t1,l   %s%n", text(g.down()));
            out.printf(Locale.ROOT, "  up latency    t4,f - t3   %s%n", text(g.up()));
            for (PortLatencies p : g.ports()) {
                out.printf(Locale.ROOT, "  port %d (%s, t1,i/t4,i from %s)%n", p.port(), p.contributor(), p.collector());
                out.printf(Locale.ROOT, "    down latency    t2 - t1,i                   %s%n", text(p.down()));
                out.printf(Locale.ROOT, "    up latency      t4,i - t3                   %s%n", text(p.up()));
                out.printf(Locale.ROOT, "    total           (t4,i - t1,i) - (t3 - t2)   %s%n", text(p.total()));
                out.printf(Locale.ROOT, "    arrival wait    t1,l - t1,i                 %s%n", text(p.arrivalWait()));
                out.printf(Locale.ROOT, "    departure wait  t4,i - t4,f                 %s%n", text(p.departureWait()));
                out.printf(Locale.ROOT, "    arrival order   %s%n", orderText(p.arrivalOrder()));
                out.printf(Locale.ROOT, "    departure order %s%n", orderText(p.departureOrder()));
            }
        }
        for (HopLatencies h : hops) {
            out.printf(Locale.ROOT, "%nproxy %s @%s -> %s, tree %d, t1/t4 from %s, t2/t3 from %s: %d calls joined, %d dropped%n",
                    h.proxy(), h.fromHost(), h.toHost(), h.tree(), h.collectorBefore(), h.collectorAfter(),
                    h.callsJoined(), h.callsDropped());
            out.printf(Locale.ROOT, "  two-way latency  (t4 - t1) - (t3 - t2)   %s%n", text(h.twoWay()));
        }
        for (StoreLatencies s : stores) {
            out.printf(Locale.ROOT, "%ncore %s @%s, tree %d, timed by %s: %d calls joined, %d dropped%n", s.core(),
                    s.host(), s.tree(), s.collector(), s.callsJoined(), s.callsDropped());
            out.printf(Locale.ROOT, "  store latency  t_up - t_down   %s%n", text(s.store()));
        }
        for (String reason : skipped) {
            out.println("not analysed: " + reason);
        }
        out.flush();
    }

    private static String text(StatisticsSummary s) {
        if (s.count() == 0) {
            return "no calls";
        }
        return String.format(Locale.ROOT, "mean %s  min %s  max %s  (%d calls)", TraceDumpPrinter.micros(s.mean()),
                TraceDumpPrinter.micros((long) s.min()), TraceDumpPrinter.micros((long) s.max()), s.count());
    }

    private static String count(long n, String unit) {
        return n + " " + unit + (n == 1 ? "" : "s");
    }

    /** 1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, …, 21st. */
    static String ordinal(int n) {
        int tens = n % 100;
        String suffix = tens >= 11 && tens <= 13 ? "th" : switch (n % 10) {
            case 1 -> "st";
            case 2 -> "nd";
            case 3 -> "rd";
            default -> "th";
        };
        return n + suffix;
    }

    private static String orderText(long[] counts) {
        StringBuilder s = new StringBuilder();
        for (int k = 0; k < counts.length; k++) {
            s.append(k == 0 ? "" : ", ").append(ordinal(k + 1)).append(' ')
                    .append(counts[k]).append(counts[k] == 1 ? " call" : " calls");
        }
        return s.toString();
    }

    /** The report for machines, {@value #SCHEMA}, indented: every latency in ns ({@code mean_ns}, {@code min_ns}, {@code max_ns}). */
    public String toJson() {
        return toJson(true);
    }

    /** {@link #toJson()}, indented or on one line (then it ends with a newline all the same). */
    public String toJson(boolean indent) {
        List<GredJson> g = new ArrayList<>(greds.size());
        for (GredLatencies gred : greds) {
            List<PortJson> ports = new ArrayList<>(gred.ports().size());
            for (PortLatencies p : gred.ports()) {
                ports.add(new PortJson(p.port(), p.contributor(), p.collector(), Latency.of(p.down()), Latency.of(p.up()),
                        Latency.of(p.total()), Latency.of(p.arrivalWait()), Latency.of(p.departureWait()),
                        p.arrivalOrder(), p.departureOrder()));
            }
            g.add(new GredJson(gred.gred(), gred.host(), gred.tree(), gred.collectorBelow(), gred.callsJoined(),
                    gred.callsDropped(), Latency.of(gred.down()), Latency.of(gred.up()), ports));
        }
        List<HopJson> h = new ArrayList<>(hops.size());
        for (HopLatencies hop : hops) {
            h.add(new HopJson(hop.proxy(), hop.fromHost(), hop.toHost(), hop.tree(), hop.collectorBefore(),
                    hop.collectorAfter(), hop.callsJoined(), hop.callsDropped(), Latency.of(hop.twoWay())));
        }
        List<CoreJson> c = new ArrayList<>(stores.size());
        for (StoreLatencies st : stores) {
            c.add(new CoreJson(st.core(), st.host(), st.tree(), st.collector(), st.callsJoined(), st.callsDropped(),
                    Latency.of(st.store())));
        }
        try {
            return (indent ? Json.pretty() : Json.mapper().writer())
                    .writeValueAsString(new Report(SCHEMA, source, overwritten, g, h, c, skipped)) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the latency report as JSON", e);
        }
    }

    /** The {@value #SCHEMA} document. */
    @JsonPropertyOrder({"schema", "dump", "overwritten_tuples_max", "greds", "hops", "cores", "skipped"})
    record Report(String schema, String dump, @JsonProperty("overwritten_tuples_max") long overwrittenTuplesMax,
                  List<GredJson> greds, List<HopJson> hops, List<CoreJson> cores, List<String> skipped) {
    }

    @JsonPropertyOrder({"gred", "host", "tree", "collector_below", "calls_joined", "calls_dropped", "down_latency",
            "up_latency", "ports"})
    record GredJson(String gred, String host, int tree, @JsonProperty("collector_below") String collectorBelow,
                    @JsonProperty("calls_joined") long callsJoined, @JsonProperty("calls_dropped") long callsDropped,
                    @JsonProperty("down_latency") Latency downLatency, @JsonProperty("up_latency") Latency upLatency,
                    List<PortJson> ports) {
    }

    @JsonPropertyOrder({"port", "contributor", "collector", "down_latency", "up_latency", "total", "arrival_wait",
            "departure_wait", "arrival_order", "departure_order"})
    record PortJson(int port, String contributor, String collector, @JsonProperty("down_latency") Latency downLatency,
                    @JsonProperty("up_latency") Latency upLatency, Latency total,
                    @JsonProperty("arrival_wait") Latency arrivalWait,
                    @JsonProperty("departure_wait") Latency departureWait,
                    @JsonProperty("arrival_order") long[] arrivalOrder,
                    @JsonProperty("departure_order") long[] departureOrder) {
    }

    @JsonPropertyOrder({"proxy", "from_host", "to_host", "tree", "collector_before", "collector_after", "calls_joined",
            "calls_dropped", "two_way_latency"})
    record HopJson(String proxy, @JsonProperty("from_host") String fromHost, @JsonProperty("to_host") String toHost,
                   int tree, @JsonProperty("collector_before") String collectorBefore,
                   @JsonProperty("collector_after") String collectorAfter,
                   @JsonProperty("calls_joined") long callsJoined, @JsonProperty("calls_dropped") long callsDropped,
                   @JsonProperty("two_way_latency") Latency twoWayLatency) {
    }

    @JsonPropertyOrder({"core", "host", "tree", "collector", "calls_joined", "calls_dropped", "store_latency"})
    record CoreJson(String core, String host, int tree, String collector, @JsonProperty("calls_joined") long callsJoined,
                    @JsonProperty("calls_dropped") long callsDropped,
                    @JsonProperty("store_latency") Latency storeLatency) {
    }

    /**
     * A latency summary in ns; mean, min and max null when nothing was measured. Latencies are whole ns, held exactly
     * by a double (below 2^53 ns, 104 days): min and max print as the integers they are.
     */
    @JsonPropertyOrder({"count", "mean_ns", "min_ns", "max_ns"})
    record Latency(long count, @JsonProperty("mean_ns") Double meanNs, @JsonProperty("min_ns") Long minNs,
                   @JsonProperty("max_ns") Long maxNs) {
        static Latency of(StatisticsSummary s) {
            return s.count() == 0 ? new Latency(0, null, null, null)
                    : new Latency(s.count(), s.mean(), (long) s.min(), (long) s.max());
        }
    }
}
