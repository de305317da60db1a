package org.eventspace.fuzz;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.wan.LinkDirection;
import org.eventspace.wan.WanFile;
import org.eventspace.wan.WanFileException;
import org.eventspace.wan.WanLayout;
import org.eventspace.wan.WanPlacement;

/**
 * WAN link files ({@code eventspace-wan 1}) and their series files ({@code eventspace-wan-series 1},
 * docs/WAN-FORMAT.md): a valid file, and a series file it names, damaged line by line (lines dropped, doubled, swapped,
 * tokens replaced by junk, numbers out of range, bytes flipped, the text cut short) are read with {@link WanFile#read};
 * a file that reads is placed over a job of as many clusters with {@link WanPlacement#place}. Reading may only refuse
 * with a {@link WanFileException} that names the file (and a line where it has one) in at most
 * {@link FuzzCase#MAX_MESSAGE_CHARS} characters; placing only with an {@link IllegalArgumentException} as bounded; an
 * accepted layout's values are within the documented ranges, and its placed pathmap is valid (its constructor checks).
 */
final class WanFileFuzzer implements Fuzzer {
    static final List<String> TEMPLATES = List.of("""
            eventspace-wan 1
            # four sites (examples/wan/four-sites.wan, shortened)
            site tromso
            site trondheim
            site odense
            site aalborg
            link tromso    trondheim latency_ms=7.500  bandwidth_mbit_s=12.79
            link trondheim tromso    latency_ms=7.455  bandwidth_mbit_s=7.78
            link tromso    odense    latency_ms=18.245 bandwidth_mbit_s=4.75
            link odense    tromso    latency_ms=17.010 bandwidth_mbit_s=3.46
            link tromso    aalborg   latency_ms=18.475 bandwidth_mbit_s=3.19
            link aalborg   tromso    latency_ms=18.490 bandwidth_mbit_s=3.19
            """, """
            eventspace-wan 1
            site west cluster=c0 gateway=h1
            site east cluster=c1
            link west east latency_series=lat.series bandwidth_mbit_s=100
            link east west latency_ms=2 bandwidth_series=bw.series
            """);
    static final String SERIES = """
            eventspace-wan-series 1
            # TIME_S VALUE
            0.0 2.5
            1.5 3.0
            4.0 2.0
            """;
    private static final String[] JUNK = {"", "-1", "0", "NaN", "Infinity", "-0", "1e309", "1e-320", "99999999", "x",
            "site", "link", "=", "a=b", "latency_ms=", "latency_ms=1", "bandwidth_mbit_s=0", "bandwidth_mbit_s=1e7",
            "cluster=c9", "gateway=h99", "gateway=h0", "latency_series=../none", "latency_series=lat.series",
            "bandwidth_series=bw.series", "ø", "\u0000", "#", "tromso", "east", "1", "eventspace-wan", "2"};
    private static final String[] LINES = {"site extra", "link tromso tromso latency_ms=1 bandwidth_mbit_s=1",
            "link west east latency_ms=1 bandwidth_mbit_s=1", "eventspace-wan 1", "eventspace-wan 2", "site", "link",
            "site east cluster=c0", "link east west latency_ms=1 latency_series=lat.series bandwidth_mbit_s=1"};

    private final Path work;

    WanFileFuzzer(Path work) {
        this.work = work;
    }

    @Override
    public String format() {
        return "wan";
    }

    @Override
    public void run(FuzzCase c) throws IOException {
        SplittableRandom random = c.random();
        int template = random.nextInt(TEMPLATES.size());
        c.note("template " + template);
        // A folder per case: a case that timed out may still read its files while the next writes its own.
        Path dir = Files.createDirectories(work.resolve("wan-" + Long.toHexString(c.seed())));
        try {
            String link = mutate(c, TEMPLATES.get(template), random.nextInt(4) + (random.nextInt(5) == 0 ? 0 : 1));
            String series = random.nextInt(3) == 0 ? mutate(c, SERIES, 1 + random.nextInt(2)) : SERIES;
            Files.writeString(dir.resolve("lat.series"), series, StandardCharsets.UTF_8);
            Files.writeString(dir.resolve("bw.series"), SERIES.replace("2.5", "100").replace("3.0", "50").replace(" 2.0", " 80"),
                    StandardCharsets.UTF_8);
            Path file = dir.resolve("fuzz.wan");
            if (random.nextInt(20) == 0 && !link.isEmpty()) {
                byte[] bytes = link.getBytes(StandardCharsets.UTF_8);
                bytes[random.nextInt(bytes.length)] = (byte) 0xC3;
                c.note("invalid UTF-8");
                Files.write(file, bytes);
            } else {
                Files.writeString(file, link, StandardCharsets.UTF_8);
            }
            check(c, file);
        } finally {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    private static String mutate(FuzzCase c, String text, int mutations) {
        SplittableRandom random = c.random();
        List<String> lines = new ArrayList<>(Arrays.asList(text.split("\n", -1)));
        for (int m = 0; m < mutations && !lines.isEmpty(); m++) {
            int i = random.nextInt(lines.size());
            int kind = random.nextInt(7);
            switch (kind) {
                case 0, 1, 2 -> LineEdits.reorder(c, lines, i, kind);
                case 3, 4 -> {
                    String[] words = lines.get(i).split(" ", -1);
                    int w = random.nextInt(words.length);
                    String junk = random.nextInt(30) == 0 ? "n".repeat(5000) : JUNK[random.nextInt(JUNK.length)];
                    c.note("line " + (i + 1) + " word " + w + " -> '" + FuzzCase.cut(junk, 20) + "'");
                    words[w] = junk;
                    lines.set(i, String.join(" ", words));
                }
                case 5 -> {
                    String line = LINES[random.nextInt(LINES.length)];
                    c.note("insert '" + line + "' at " + (i + 1));
                    lines.add(i, line);
                }
                default -> lines = LineEdits.cut(c, lines);
            }
        }
        return String.join("\n", lines);
    }

    private static void check(FuzzCase c, Path file) {
        WanLayout layout;
        try {
            layout = WanFile.read(file);
        } catch (WanFileException e) {
            FuzzCase.checkRefusal(e, FuzzCase.MAX_MESSAGE_CHARS);
            FuzzCase.check(e.getMessage().startsWith(file.toString() + (e.line() > 0 ? ":" + e.line() + ": " : ": ")),
                    "WanFileException does not start with file[:line]: " + FuzzCase.cut(e.getMessage(), 200));
            c.refused();
            return;
        }
        FuzzCase.check(layout.sites().size() >= 2 && !layout.links().isEmpty(), "accepted a layout of "
                + layout.sites().size() + " sites and " + layout.links().size() + " links");
        for (LinkDirection l : layout.links().values()) {
            FuzzCase.check(l.latencyMs().min() >= 0 && l.latencyMs().max() <= WanFile.MAX_LATENCY_MS
                    && l.bandwidthMbit().min() >= WanFile.MIN_BANDWIDTH_MBIT && l.bandwidthMbit().max() <= WanFile.MAX_BANDWIDTH_MBIT,
                    "accepted link " + l.name() + " out of range: latency " + l.latencyMs() + ", bandwidth " + l.bandwidthMbit());
        }
        // Two hosts a cluster; the clusters' joins meet at the root, so the links to and from the first site suffice.
        int clusters = layout.sites().size();
        Pathmap trees = PathmapBuilder.build(PathmapSpec.of(Topology.simulated(clusters, 2, 1), 2 * clusters, 1,
                TreeShape.hier(8)));
        try {
            Pathmap placed = WanPlacement.place(trees, layout);
            FuzzCase.check(placed.entries().equals(trees.entries()), "placement changed the ranks' entries");
        } catch (IllegalArgumentException e) {
            FuzzCase.checkRefusal(e, FuzzCase.MAX_MESSAGE_CHARS);
            c.refused();
            return;
        }
        c.accepted();
    }
}
