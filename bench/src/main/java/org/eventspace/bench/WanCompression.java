package org.eventspace.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.eventspace.job.MonitoredJob;
import org.eventspace.monitor.Monitors;
import org.eventspace.scope.ResultBoard;
import org.eventspace.scope.filter.EdgeCodec;
import org.eventspace.scope.filter.EdgeDecoder;
import org.eventspace.scope.filter.EdgeEncoder;
import org.eventspace.scope.filter.NewestFilter;
import org.eventspace.scope.filter.Packet;
import org.eventspace.scope.filter.PacketCodec;
import org.eventspace.scope.filter.ScopeRecord;
import org.eventspace.wan.LinkDirection;
import org.eventspace.wan.WanLayout;
import org.eventspace.wan.WanPlacement;
import org.eventspace.run.RunEngine;
import org.eventspace.run.RunConfig;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code bench wan-compression}: what each edge codec ({@link EdgeCodec}: none, deflate, cbc, cbc+deflate) does to
 * the monitor data a multi-cluster job's event scope moves across its WAN links (dissertation §4.1.2 and §8.4: keep
 * content-based compression only where it beats the general-purpose compressor on bytes moved and time).
 *
 * <p>Two steps. <b>Capture</b>: the real job runs in this JVM with its monitors (e.g. gsum with {@code --monitor
 * loadbalance,stats} over the sites of a WAN file); after every round its event scope pulls, each host's newest
 * result set is taken as the scope's leaf takes it (only a set newer than the last one passed, values only when its
 * names are the last whole set's), and the sets of each site's hosts are concatenated into the {@code newest} packet
 * that site's gather sends through its gateway to the front-end's site in a {@code hier} scope (intra-cluster before
 * inter-cluster). <b>Replay</b>: per codec, every site's packet sequence goes through a fresh encoder and decoder
 * pair, each packet checked byte for byte, {@code passes} times; the figures are the pass with the median CPU time.
 * The transfer time of a packet is its serialisation on the emulated link ({@link LinkDirection#transmitNs}) plus the
 * link's one-way latency, the arithmetic Longcut delays by (§8.1 §III); a round's is its slowest site's.
 */
public final class WanCompression {
    public static final String SCHEMA = "eventspace.bench-wan-compression/1";

    private WanCompression() {
    }

    /** The packets one site's gather sent over its link to the front-end's site, one per scope round. */
    public record Edge(String site, LinkDirection link, List<byte[]> packets) {
    }

    /**
     * One codec's figures, per scope round: bytes and CPU summed over the WAN edges; serialisation (bytes over the
     * link's bandwidth), transfer (serialisation + one-way latency) and total (encode + transfer + decode) of the
     * round's slowest edge, the edges being gathered in parallel.
     */
    public record Figures(String codec, int rounds, double rawBytesPerRound, double bytesPerRound, double ratio,
                          double encodeUsPerRound, double decodeUsPerRound, double serialisationMsPerRound,
                          double transferMsPerRound, double totalMsPerRound) {
    }

    /** Runs {@code config} and captures, per site other than the front-end's, the packet of every scope round. */
    public static List<Edge> capture(RunConfig config, WanLayout layout) {
        WanPlacement.Sites sites = WanPlacement.sites(layout, config.spec().topology());
        String home = sites.siteOf(0);
        List<String> names = new ArrayList<>();
        for (var s : layout.sites()) {
            if (!s.name().equals(home)) {
                names.add(s.name());
            }
        }
        int hosts = config.hosts();
        long[] versions = new long[hosts];
        long[] namesSent = new long[hosts];
        List<List<byte[]>> packets = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            packets.add(new ArrayList<>());
        }
        RunEngine.run(config, new RunEngine.Watcher() {
            @Override
            public void started(MonitoredJob job, Monitors monitors) {
                job.onScopeRound(round -> {
                    List<List<ScopeRecord>> perSite = new ArrayList<>();
                    for (int i = 0; i < names.size(); i++) {
                        perSite.add(new ArrayList<>());
                    }
                    for (int h = 0; h < hosts; h++) {
                        int site = names.indexOf(sites.siteOf(h));
                        ResultBoard board = job.resultBoard(h).orElse(null);
                        if (site < 0 || board == null) {
                            continue;
                        }
                        ResultBoard.Published set = board.newest();
                        if (set.version() <= versions[h]) {
                            continue;
                        }
                        versions[h] = set.version();
                        if (set.names() == namesSent[h] && set.records().size() > 1) {
                            perSite.get(site).addAll(set.valuesOnly());
                        } else {
                            namesSent[h] = set.names();
                            perSite.get(site).addAll(set.records());
                        }
                    }
                    for (int i = 0; i < names.size(); i++) {
                        long[] words = PacketCodec.encode(Packet.ofRecords(NewestFilter.SETS, round.round(), perSite.get(i)));
                        byte[] bytes = new byte[words.length * Long.BYTES];
                        java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN).asLongBuffer().put(words);
                        packets.get(i).add(bytes);
                    }
                });
            }
        });
        List<Edge> edges = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            edges.add(new Edge(names.get(i), layout.link(names.get(i), home), List.copyOf(packets.get(i))));
        }
        return edges;
    }

    /** Replays the captured edges through {@code codec}, {@code passes} times; the median pass by CPU time. */
    public static Figures measure(List<Edge> edges, EdgeCodec codec, int passes) {
        int rounds = edges.isEmpty() ? 0 : edges.get(0).packets().size();
        long[][] passTotals = new long[passes][];
        for (int p = 0; p < passes; p++) {
            long raw = 0;
            long bytes = 0;
            long encodeNs = 0;
            long decodeNs = 0;
            long serialisationNs = 0;
            long transferNs = 0;
            long totalNs = 0;
            List<EdgeEncoder> encoders = new ArrayList<>();
            List<EdgeDecoder> decoders = new ArrayList<>();
            for (int e = 0; e < edges.size(); e++) {
                encoders.add(codec.newEncoder());
                decoders.add(codec.newDecoder());
            }
            for (int r = 0; r < rounds; r++) {
                long slowestSerial = 0;
                long slowestTransfer = 0;
                long slowest = 0;
                for (int e = 0; e < edges.size(); e++) {
                    byte[] packet = edges.get(e).packets().get(r);
                    EdgeEncoder encoder = encoders.get(e);
                    EdgeDecoder decoder = decoders.get(e);
                    long t0 = System.nanoTime();
                    int n = encoder.encode(packet, packet.length);
                    long t1 = System.nanoTime();
                    int m = decoder.decode(encoder.output(), n);
                    long t2 = System.nanoTime();
                    if (m != packet.length || !Arrays.equals(decoder.output(), 0, m, packet, 0, m)) {
                        throw new IllegalStateException(codec.text() + ": site " + edges.get(e).site() + ", round " + r
                                + ": decoded packet differs from the one sent (" + m + " bytes, sent " + packet.length + ")");
                    }
                    encodeNs += t1 - t0;
                    decodeNs += t2 - t1;
                    raw += packet.length;
                    bytes += n;
                    LinkDirection link = edges.get(e).link();
                    long serial = link.transmitNs(0, n);
                    slowestSerial = Math.max(slowestSerial, serial);
                    slowestTransfer = Math.max(slowestTransfer, serial + link.latencyNs(0));
                    slowest = Math.max(slowest, serial + link.latencyNs(0) + (t2 - t0));
                }
                serialisationNs += slowestSerial;
                transferNs += slowestTransfer;
                totalNs += slowest;
            }
            passTotals[p] = new long[] {encodeNs + decodeNs, raw, bytes, encodeNs, decodeNs, serialisationNs, transferNs, totalNs};
        }
        Arrays.sort(passTotals, (a, b) -> Long.compare(a[0], b[0]));
        long[] t = passTotals[passes / 2];
        double perRound = Math.max(1, rounds);
        return new Figures(codec.text(), rounds, t[1] / perRound, t[2] / perRound, t[2] == 0 ? 0 : (double) t[1] / t[2],
                t[3] / 1e3 / perRound, t[4] / 1e3 / perRound, t[5] / 1e6 / perRound, t[6] / 1e6 / perRound,
                t[7] / 1e6 / perRound);
    }

    /** The report: schema, the edges, and every codec's figures. */
    public static ObjectNode json(ObjectMapper json, String command, List<Edge> edges, List<Figures> figures) {
        ObjectNode out = json.createObjectNode();
        out.put("schema", SCHEMA);
        out.put("command", command);
        ArrayNode e = out.putArray("edges");
        for (Edge edge : edges) {
            long raw = edge.packets().stream().mapToLong(b -> b.length).sum();
            e.addObject().put("site", edge.site()).put("link", edge.link().name())
                    .put("rounds", edge.packets().size()).put("raw_bytes", raw)
                    .put("latency_ms", edge.link().latencyNs(0) / 1e6)
                    .put("bandwidth_mbit_s", edge.link().bandwidthMbit().at(0));
        }
        ArrayNode c = out.putArray("codecs");
        for (Figures f : figures) {
            c.addObject().put("codec", f.codec()).put("rounds", f.rounds())
                    .put("raw_bytes_per_round", f.rawBytesPerRound()).put("bytes_per_round", f.bytesPerRound())
                    .put("compression_ratio", f.ratio()).put("encode_us_per_round", f.encodeUsPerRound())
                    .put("decode_us_per_round", f.decodeUsPerRound())
                    .put("serialisation_ms_per_round", f.serialisationMsPerRound())
                    .put("transfer_ms_per_round", f.transferMsPerRound())
                    .put("total_ms_per_round", f.totalMsPerRound());
        }
        return out;
    }

    /** The figures as a table for people. */
    public static String table(List<Figures> figures) {
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "%-22s %8s %10s %10s %7s %10s %10s %13s %11s %11s%n",
                "codec", "rounds", "raw B/rnd", "sent B/rnd", "ratio", "enc µs/rnd", "dec µs/rnd", "serial ms/rnd",
                "xfer ms/rnd", "total ms/rnd"));
        for (Figures f : figures) {
            s.append(String.format(Locale.ROOT, "%-22s %8d %10.0f %10.0f %7.2f %10.1f %10.1f %13.3f %11.3f %11.3f%n", f.codec(),
                    f.rounds(), f.rawBytesPerRound(), f.bytesPerRound(), f.ratio(), f.encodeUsPerRound(),
                    f.decodeUsPerRound(), f.serialisationMsPerRound(), f.transferMsPerRound(), f.totalMsPerRound()));
        }
        return s.toString();
    }
}
