package org.eventspace.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.eventspace.comm.Comm;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.pathmap.Host;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.events.CollectorSettings;
import org.eventspace.job.JobConfig;
import org.eventspace.job.JobTransport;
import org.eventspace.job.MonitoredJob;
import org.eventspace.job.PollMode;
import org.eventspace.job.RankThreads;
import org.eventspace.wan.WanLayout;
import org.eventspace.wan.LinkDirection;
import org.eventspace.wan.WanEmulation;
import org.eventspace.wan.GatewayScheduler;
import org.eventspace.wan.Site;
import org.eventspace.wan.LinkSchedule;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code eventspace bench wan-accuracy}: how closely Longcut's emulated links match their configuration (dissertation
 * §8.1 §V: PingPong precision, and scalability "with increasing number of emulated connections per gateway", 2 to 40).
 *
 * <p>Two sites of one host each, which are their own gateways; site B runs {@code K} ranks ({@code K} connections through
 * the gateway pair: a flat tree gives each its own hop), site A one rank and the tree's root. Each iteration is one
 * allreduce of {@code size} bytes: each of B's messages crosses B&gt;A, the result comes back A&gt;B, so for {@code K = 1} it
 * is a ping-pong of {@code size} bytes each way. Per (K, size) the same job runs once with the link file's emulation and
 * once without (the LAN baseline, same hops, same threads), each in a fresh job, and the report gives:
 *
 * <ul>
 *   <li>{@code configured_two_way_us}: one message alone, latency(B&gt;A) + latency(A&gt;B) + size/bandwidth each way;</li>
 *   <li>{@code model_us}: the time per iteration the link arithmetic ({@link LinkSchedule}) gives the K messages of every
 *       iteration, serialisation included, simulated without threads or clock (for K = 1 the line above);</li>
 *   <li>{@code emulated_us}: the measured time per iteration (median call) with the emulation minus the baseline's;</li>
 *   <li>{@code error_us}, {@code error_pct}: emulated − model; {@code within_bar}: |error| ≤ max(5 % of the model, 50 µs);</li>
 *   <li>for K = 1, bandwidth: configured (the two directions' harmonic mean) and emulated (2 × size over what the
 *       emulated time leaves after the two latencies), the latter only where the wire takes ≥ 1 ms of the round trip;</li>
 *   <li>the gateways' own lateness: how long after a message's due time the scheduler released it and its thread ran.</li>
 * </ul>
 *
 * <p>The time per iteration is the median call of site B's ranks (in the steady state of a synchronised allreduce a
 * rank's call lasts one period); the model is the slowest rank's span over the timed iterations. One JVM: the
 * connections are in-JVM hops with a service thread each.
 */
public final class WanAccuracy {
    public static final String SCHEMA = "eventspace.bench-wan-accuracy/1";
    /** The bar: within 5 % of the modelled time, or 50 µs, whichever is larger. */
    public static final double BAR_FRACTION = 0.05;
    public static final double BAR_US = 50;

    private WanAccuracy() {
    }

    /**
     * The benchmark's parameters.
     *
     * @param layout      the link file; its first two sites are A (root) and B (the K ranks), both directions needed.
     * @param sizes       message sizes in bytes, each a positive multiple of 8.
     * @param connections connection counts K.
     * @param iterations  timed iterations per (K, size).
     * @param warmup      untimed iterations before them.
     * @param spinWindowNs how long before a due time the gateways' schedulers spin instead of parking.
     */
    public record Config(WanLayout layout, Path file, List<Integer> sizes, List<Integer> connections, int iterations,
                         int warmup, long spinWindowNs) {
        public Config(WanLayout layout, Path file, List<Integer> sizes, List<Integer> connections, int iterations,
                      int warmup) {
            this(layout, file, sizes, connections, iterations, warmup, GatewayScheduler.DEFAULT_SPIN_WINDOW_NS);
        }

        public Config {
            if (spinWindowNs < 0 || spinWindowNs > 1_000_000_000L) {
                throw new IllegalArgumentException("the spin window must be 0 to 1 s, spinWindowNs=" + spinWindowNs);
            }
            sizes = List.copyOf(sizes);
            connections = List.copyOf(connections);
            if (layout.sites().size() < 2) {
                throw new IllegalArgumentException(layout.source() + ": the benchmark needs two sites");
            }
            String a = layout.sites().get(0).name();
            String b = layout.sites().get(1).name();
            if (layout.link(a, b) == null || layout.link(b, a) == null) {
                throw new IllegalArgumentException(layout.source() + ": the benchmark needs both links between its first two "
                        + "sites, " + a + " and " + b);
            }
            for (int s : sizes) {
                if (s < 8 || s % 8 != 0 || s > 8 * PathmapSpec.DEFAULT_RESULT_WORDS) {
                    throw new IllegalArgumentException("sizes must be multiples of 8 from 8 to "
                            + 8 * PathmapSpec.DEFAULT_RESULT_WORDS + " bytes, size=" + s);
                }
            }
            for (int k : connections) {
                if (k < 1 || k > 256) {
                    throw new IllegalArgumentException("connections must be 1 to 256, connections=" + k);
                }
            }
            if (iterations < 1 || warmup < 0) {
                throw new IllegalArgumentException("iterations must be >= 1 and warmup >= 0, iterations=" + iterations
                        + ", warmup=" + warmup);
            }
        }

        String siteA() {
            return layout.sites().get(0).name();
        }

        String siteB() {
            return layout.sites().get(1).name();
        }

        /** The two sites alone, each on its own cluster, for a job of two hosts. */
        WanEmulation emulation() {
            List<Site> two = List.of(new Site(siteA(), "c0", null, layout.sites().get(0).line()),
                    new Site(siteB(), "c1", null, layout.sites().get(1).line()));
            LinkDirection ab = layout.link(siteA(), siteB());
            LinkDirection ba = layout.link(siteB(), siteA());
            return new WanEmulation(new WanLayout(layout.source(), two, Map.of(ab.name(), ab, ba.name(), ba)), file,
                    spinWindowNs);
        }
    }

    /** One (K, size): what was configured, modelled and measured. */
    public record Row(int connections, int bytes, double configuredTwoWayUs, double modelUs, double wanUs, double lanUs,
                      double configuredMbit, Double emulatedMbit, long released, double releaseLateMeanUs,
                      double releaseLateMaxUs, double wakeLateMeanUs, double wakeLateMaxUs, double queuedMeanUs) {
        public double emulatedUs() {
            return wanUs - lanUs;
        }

        public double errorUs() {
            return emulatedUs() - modelUs;
        }

        public double errorPct() {
            return 100 * errorUs() / modelUs;
        }

        public boolean withinBar() {
            return Math.abs(errorUs()) <= Math.max(BAR_FRACTION * modelUs, BAR_US);
        }
    }

    /**
     * Runs every (K, size), K outer; prints a line per row to {@code progress}. A first row of the smallest K and size
     * is run and thrown away: the first jobs of a JVM run the gateways', hops' and ranks' code before the JIT compiled
     * it (its error was ten times the others').
     */
    public static List<Row> run(Config config, java.io.PrintStream progress) {
        row(config, config.connections().get(0), config.sizes().get(0));
        List<Row> rows = new ArrayList<>();
        for (int k : config.connections()) {
            for (int size : config.sizes()) {
                Row row = row(config, k, size);
                progress.println(line(row));
                rows.add(row);
            }
        }
        return rows;
    }

    static Row row(Config config, int k, int size) {
        WanEmulation emulation = config.emulation();
        LinkDirection ba = config.layout().link(config.siteB(), config.siteA());
        LinkDirection ab = config.layout().link(config.siteA(), config.siteB());
        JobConfig plain = job(k);
        double wanUs;
        List<GatewayScheduler.Stats> stats;
        try (MonitoredJob job = MonitoredJob.inJvm(plain.withExtension(emulation))) {
            wanUs = iterationUs(job, size, config.warmup(), config.iterations());
            stats = ((WanEmulation.Running) job.extension().orElseThrow()).stats();
        }
        double lanUs;
        try (MonitoredJob job = MonitoredJob.inJvm(plain)) {
            // Microseconds an iteration: ten times the calls cost nothing and steady the baseline's median.
            lanUs = iterationUs(job, size, Math.max(10, config.warmup()), Math.max(100, 10 * config.iterations()));
        }
        long configuredNs = ba.latencyNs(0) + ab.latencyNs(0) + ba.transmitNs(0, size) + ab.transmitNs(0, size);
        double modelUs = modelNs(ba, ab, k, size, config.warmup(), config.iterations()) / 1e3;
        double configuredMbit = 2.0 * size * 8 / (ba.transmitNs(0, size) + ab.transmitNs(0, size)) * 1e3;
        double transmitUs = wanUs - lanUs - (ba.latencyNs(0) + ab.latencyNs(0)) / 1e3;
        // Bandwidth only where the wire time is a measurable part of the round trip (≥ 1 ms both ways), and for one connection.
        boolean measurable = ba.transmitNs(0, size) + ab.transmitNs(0, size) >= 1_000_000;
        Double emulatedMbit = k == 1 && measurable && transmitUs > 0 ? 2.0 * size * 8 / transmitUs : null;
        long released = 0;
        long releaseLateMax = 0;
        long wakeLateMax = 0;
        double releaseLateSum = 0;
        double wakeLateSum = 0;
        long messages = 0;
        long queued = 0;
        for (GatewayScheduler.Stats s : stats) {
            released += s.released();
            releaseLateSum += (double) s.releaseLateMeanNs() * s.released();
            wakeLateSum += (double) s.wakeLateMeanNs() * s.released();
            releaseLateMax = Math.max(releaseLateMax, s.releaseLateMaxNs());
            wakeLateMax = Math.max(wakeLateMax, s.wakeLateMaxNs());
            for (GatewayScheduler.LinkStats l : s.links()) {
                messages += l.messages();
                queued += l.queuedNs();
            }
        }
        return new Row(k, size, configuredNs / 1e3, modelUs, wanUs, lanUs, configuredMbit, emulatedMbit, released,
                released == 0 ? 0 : releaseLateSum / released / 1e3, releaseLateMax / 1e3,
                released == 0 ? 0 : wakeLateSum / released / 1e3, wakeLateMax / 1e3,
                messages == 0 ? 0 : (double) queued / messages / 1e3);
    }

    /** Rank 0 on host 0 (site A, the root), ranks 1..K on host 1 (site B); one flat tree: K hops through the gateways. */
    static JobConfig job(int k) {
        Topology topology = new Topology(List.of("c0", "c1"), List.of(new Host(0, "h0", "c0", 1), new Host(1, "h1", "c1", k)));
        int[] mapping = new int[k + 1];
        Arrays.fill(mapping, 1);
        mapping[0] = 0;
        PathmapSpec spec = new PathmapSpec(topology, k + 1, 1, TreeShape.FLAT, Map.of(), mapping, 0,
                PathmapSpec.DEFAULT_RESULT_WORDS);
        return new JobConfig(spec, JobTransport.JVM, Duration.ofMinutes(5), PollMode.AUTO, 0, false, null,
                CollectorSettings.ALL, null);
    }

    /**
     * The median of every rank's timed calls, in µs. In the steady state of a synchronised allreduce each rank's call
     * lasts one period (it sends right after its reply came), so the median call is the time per iteration, and a call
     * the loaded machine held up does not move it as it moves a mean.
     */
    private static double iterationUs(MonitoredJob job, int size, int warmup, int iterations) {
        int words = size / 8;
        List<RankThreads.Outcome<long[]>> outcomes = job.runRanks(rank -> {
            Comm comm = job.comm(rank);
            long[] values = new long[words];
            long[] calls = new long[iterations];
            for (int i = 0; i < warmup + iterations; i++) {
                Arrays.fill(values, rank);
                long start = System.nanoTime();
                comm.allreduce(values, words, ReduceOp.SUM);
                if (i >= warmup) {
                    calls[i - warmup] = System.nanoTime() - start;
                }
                long expected = (long) comm.size() * (comm.size() - 1) / 2;
                if (values[0] != expected || values[words - 1] != expected) {
                    throw new IllegalStateException("rank " + rank + " got " + values[0] + ", expected " + expected);
                }
            }
            return calls;
        }, Duration.ofMinutes(10));
        long[] all = new long[0];
        for (RankThreads.Outcome<long[]> o : outcomes) {
            if (!o.ok()) {
                throw new IllegalStateException("rank " + o.rank() + " failed: " + o.error());
            }
            if (o.rank() == 0 && outcomes.size() > 1) {
                continue; // the root's own rank waits in the gred; the connections are the other site's ranks
            }
            long[] grown = Arrays.copyOf(all, all.length + o.value().length);
            System.arraycopy(o.value(), 0, grown, all.length, o.value().length);
            all = grown;
        }
        Arrays.sort(all);
        int n = all.length;
        return (n % 2 == 1 ? all[n / 2] : (all[n / 2 - 1] + all[n / 2]) / 2.0) / 1e3;
    }

    /**
     * The time per timed iteration the link arithmetic gives K synchronised messages of {@code size} bytes: the K
     * requests cross B&gt;A in the order they arrive, the root answers when the last is due, the K replies cross A&gt;B
     * in the same order, and each rank sends its next request when its reply is due; the slowest rank's own timed span
     * over the iterations, as the benchmark measures it. No LAN time (the baseline run takes it).
     */
    static long modelNs(LinkDirection ba, LinkDirection ab, int k, int size, int warmup, int iterations) {
        LinkSchedule up = new LinkSchedule(ba, 0);
        LinkSchedule down = new LinkSchedule(ab, 0);
        long[] arrival = new long[k];
        long[] start = new long[k];
        Integer[] order = new Integer[k];
        for (int i = 0; i < warmup + iterations; i++) {
            if (i == warmup) {
                start = arrival.clone();
            }
            for (int r = 0; r < k; r++) {
                order[r] = r;
            }
            long[] at = arrival;
            Arrays.sort(order, (x, y) -> Long.compare(at[x], at[y]));
            long root = 0;
            for (int r : order) {
                root = Math.max(root, up.schedule(arrival[r], size));
            }
            for (int r : order) {
                arrival[r] = down.schedule(root, size);
            }
        }
        long slowest = 0;
        for (int r = 0; r < k; r++) {
            slowest = Math.max(slowest, arrival[r] - start[r]);
        }
        return slowest / iterations;
    }

    public static String line(Row r) {
        return String.format(java.util.Locale.ROOT,
                "K=%-3d %6d B  configured %9.1f µs  model %10.1f µs  emulated %10.1f µs (lan %7.1f µs)  error %+8.1f µs "
                        + "%+6.2f %%  %s  late: release %.1f µs (max %.1f), wake %.1f µs (max %.1f)",
                r.connections(), r.bytes(), r.configuredTwoWayUs(), r.modelUs(), r.emulatedUs(), r.lanUs(), r.errorUs(),
                r.errorPct(), r.withinBar() ? "within bar" : "OUTSIDE bar", r.releaseLateMeanUs(), r.releaseLateMaxUs(),
                r.wakeLateMeanUs(), r.wakeLateMaxUs());
    }

    /** The {@value #SCHEMA} document. */
    public static ObjectNode toJson(Config config, List<Row> rows, ObjectMapper mapper) {
        List<RowJson> out = new ArrayList<>(rows.size());
        for (Row r : rows) {
            out.add(new RowJson(r.connections(), r.bytes(), r.configuredTwoWayUs(), r.modelUs(), r.wanUs(), r.lanUs(),
                    r.emulatedUs(), r.errorUs(), r.errorPct(), r.withinBar(), r.configuredMbit(), r.emulatedMbit(),
                    new Gateways(r.released(), r.releaseLateMeanUs(), r.releaseLateMaxUs(), r.wakeLateMeanUs(),
                            r.wakeLateMaxUs(), r.queuedMeanUs())));
        }
        return mapper.valueToTree(new Document(SCHEMA, config.file().toAbsolutePath().toString(), config.siteA(),
                config.siteB(), config.iterations(), config.warmup(), config.spinWindowNs() / 1e3,
                "|error_us| <= max(5 % of model_us, 50 us)", rows.stream().allMatch(Row::withinBar), out,
                new Machine(Runtime.getRuntime().availableProcessors(),
                        System.getProperty("java.vm.name") + " " + System.getProperty("java.version"),
                        System.getProperty("os.name") + " " + System.getProperty("os.arch")),
                Instant.now().toString()));
    }

    @JsonPropertyOrder({"schema", "wan", "site_a", "site_b", "iterations", "warmup", "spin_window_us", "bar",
            "all_within_bar", "rows", "machine", "date"})
    record Document(String schema, String wan, @JsonProperty("site_a") String siteA,
                    @JsonProperty("site_b") String siteB, int iterations, int warmup,
                    @JsonProperty("spin_window_us") double spinWindowUs, String bar,
                    @JsonProperty("all_within_bar") boolean allWithinBar, List<RowJson> rows, Machine machine,
                    String date) {
    }

    /** A row as written; {@code emulated_mbit_s} null where the size is too small to measure a bandwidth. */
    @JsonPropertyOrder({"connections", "bytes", "configured_two_way_us", "model_us", "wan_us", "lan_us", "emulated_us",
            "error_us", "error_pct", "within_bar", "configured_mbit_s", "emulated_mbit_s", "gateways"})
    record RowJson(int connections, int bytes, @JsonProperty("configured_two_way_us") double configuredTwoWayUs,
                   @JsonProperty("model_us") double modelUs, @JsonProperty("wan_us") double wanUs,
                   @JsonProperty("lan_us") double lanUs, @JsonProperty("emulated_us") double emulatedUs,
                   @JsonProperty("error_us") double errorUs, @JsonProperty("error_pct") double errorPct,
                   @JsonProperty("within_bar") boolean withinBar,
                   @JsonProperty("configured_mbit_s") double configuredMbit,
                   @JsonProperty("emulated_mbit_s") Double emulatedMbit, Gateways gateways) {
    }

    /** What the gateways' schedulers counted ({@code GatewayScheduler.Stats}), in µs. */
    @JsonPropertyOrder({"released", "release_late_mean_us", "release_late_max_us", "wake_late_mean_us",
            "wake_late_max_us", "queued_mean_us"})
    record Gateways(long released, @JsonProperty("release_late_mean_us") double releaseLateMeanUs,
                    @JsonProperty("release_late_max_us") double releaseLateMaxUs,
                    @JsonProperty("wake_late_mean_us") double wakeLateMeanUs,
                    @JsonProperty("wake_late_max_us") double wakeLateMaxUs,
                    @JsonProperty("queued_mean_us") double queuedMeanUs) {
    }

    /** The machine the figures were measured on. */
    @JsonPropertyOrder({"cores", "java", "os"})
    record Machine(int cores, String java, String os) {
    }
}
