package org.eventspace.fuzz;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.eventspace.net.Fabric;
import org.eventspace.net.TopologyFile;

/**
 * Topology files ({@code eventspace-topology 1}, docs/TOPOLOGY-FORMAT.md) and the files they name: each case takes one
 * of the examples (examples/topology: a graph with forwarding entries, a fat tree, a torus, two rails, a real fabric as
 * {@code ibnetdiscover} prints it with its switches' tables as {@code dump_lfts.sh} prints them) and damages one of its
 * files line by line: lines dropped, doubled or swapped, a word (a number, a guid, a quoted name) replaced by junk
 * (empty, -1, 0, 2^31 - 1, 10^11, a 5 000-character name, a NUL, hexadecimal, keywords), a line inserted (generators of
 * the largest sizes allowed and beyond, devices with too many ports, links to themselves, routes to nowhere, a file
 * that does not exist, ibnetdiscover and table lines with out-of-range numbers), a line of 100 000 characters, the text
 * cut short, a byte made invalid UTF-8. Then {@link TopologyFile#read}; a fabric it reads routes between its first and
 * last node.
 *
 * <p>Passes if reading refuses only with an {@link IllegalArgumentException} that starts with the name of one of the
 * case's files, has at most {@link FuzzCase#MAX_MESSAGE_CHARS} characters and wraps no programming error; routing only
 * with a bounded {@link IllegalArgumentException}. Not thread-safe; a folder per case.
 */
final class TopologyFuzzer implements Fuzzer {
    /** The examples, each a main file and the files it names. */
    static final List<List<String>> TEMPLATES = List.of(
            List.of("ring-graph.topo"),
            List.of("two-switch.topo", "two-switch.ibnetdiscover", "two-switch.lfts"),
            List.of("fattree-16.topo"),
            List.of("torus-4x4.topo"),
            List.of("tsubame-rails.topo"));
    private static final Pattern WORD = Pattern.compile("\"[^\"]*\"|0x[0-9a-fA-F]+|\\d+|[^\\s\\[\\]()\"]+");
    private static final String[] JUNK = {"", "-1", "0", "1", "2", "4", "255", "256", "1024", "1025", "65536",
            "2147483647", "-2147483648", "99999999999", "0x10", "1e3", "NaN", "x", "ø", "\u0000", "#", "\"\"", "[1]",
            "\"S-\"", "\"H-0\"", "S-0002c90300a1b2c0", "H-0002c903000e1230", "fattree", "torus", "switch", "node", "link",
            "route", "lfts", "subnets", "layer", "a", "s1", "missing.file", "../two-switch.lfts", "/"};
    private static final String[] LINES = {"fattree 2 16", "fattree 256 2", "fattree 4096 1", "fattree 2 17", "fattree 16 3",
            "fattree 4 2 subnets 4", "fattree 4 2 subnets 5", "torus 1024 64", "torus 1024 1024 1024", "torus 256 256",
            "torus 1 1", "switch s9 1024", "switch s9 1025", "switch s9 4 layer 0", "switch s1 4", "node a", "node s1",
            "link a 1 a 1", "link s1 1 s1 2", "link s1 4 s2 4", "link a 1 s1 99", "route s1 a 99", "route s1 s2 1",
            "route s9 a 1", "ibnetdiscover missing.file", "ibnetdiscover two-switch.ibnetdiscover lfts missing.file",
            "eventspace-topology 1", "eventspace-topology 2",
            "Switch\t99999999999 \"S-0002c90300a1b2c0\"\t# \"x\" lid 1", "Switch\t300 \"S-00aa\"\t# \"big\" lid 7",
            "Ca\t2 \"H-0002c903000e1230\"\t# \"node01 HCA-1\"", "Ca\t0 \"H-01\"", "[0]\t\"H-0002c903000e1230\"[1]",
            "[99999999999]\t\"S-0002c90300a1b2c0\"[1]\t# lid 1", "[1](2c903000e1231)\t\"S-0002c90300a1b2c0\"[99999999999]",
            "[2]\t\"S-0002c90300a1b2c0\"[2]\t# lid 99999999999 4xFDR", "[3]\t\"H-ffff\"[1]",
            "0x000b 99999999999 : (x)", "0xffffffffffff 001 : (x)", "0x000b 999 : (x)",
            "Unicast lids [0x0-0xe] of switch Lid 1 guid 0xdeadbeef (x):",
            "Unicast lids [0x0-0xe] of switch Lid 99999999999 guid 0x0002c90300a1b2c0 (x):"};

    private final Path work;
    private final Map<String, String> files = new LinkedHashMap<>();

    TopologyFuzzer(Path work) {
        this.work = work;
        for (List<String> t : TEMPLATES) {
            for (String name : t) {
                try (InputStream in = TopologyFuzzer.class.getResourceAsStream("topology/" + name)) {
                    if (in == null) {
                        throw new IllegalStateException("the fuzz jar lacks its topology example " + name);
                    }
                    files.put(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }

    @Override
    public String format() {
        return "topology";
    }

    @Override
    public void run(FuzzCase c) throws IOException {
        SplittableRandom random = c.random();
        List<String> template = TEMPLATES.get(random.nextInt(TEMPLATES.size()));
        c.note("template " + template.get(0));
        Path dir = Files.createDirectories(work.resolve("topology-" + Long.toHexString(c.seed())));
        try {
            String victim = template.get(random.nextInt(template.size()));
            for (String name : template) {
                byte[] bytes;
                if (name.equals(victim)) {
                    c.note(name + ":");
                    bytes = mutate(c, files.get(name));
                } else {
                    bytes = files.get(name).getBytes(StandardCharsets.UTF_8);
                }
                Files.write(dir.resolve(name), bytes);
                c.input(name, bytes);
            }
            read(c, dir, dir.resolve(template.get(0)));
        } finally {
            try (var in = Files.list(dir)) {
                for (Path f : in.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    private static byte[] mutate(FuzzCase c, String text) {
        SplittableRandom random = c.random();
        List<String> lines = new ArrayList<>(Arrays.asList(text.split("\n", -1)));
        int edits = 1 + random.nextInt(3);
        for (int e = 0; e < edits && !lines.isEmpty(); e++) {
            int i = random.nextInt(lines.size());
            int kind = random.nextInt(8);
            switch (kind) {
                case 0, 1, 2 -> LineEdits.reorder(c, lines, i, kind);
                case 3, 4 -> lines.set(i, replaceWord(c, lines.get(i), i));
                case 5 -> {
                    String line = LINES[random.nextInt(LINES.length)];
                    c.note("insert before line " + (i + 1) + ": " + line);
                    lines.add(i, line);
                }
                case 6 -> {
                    String line = random.nextBoolean() ? "x".repeat(100_000) : "switch " + "s".repeat(100_000) + " 4";
                    c.note("insert a line of " + line.length() + " characters before line " + (i + 1));
                    lines.add(i, line);
                }
                default -> lines = LineEdits.cut(c, lines);
            }
        }
        byte[] bytes = String.join("\n", lines).getBytes(StandardCharsets.UTF_8);
        if (random.nextInt(20) == 0 && bytes.length > 0) {
            int at = random.nextInt(bytes.length);
            bytes[at] = (byte) 0xC3;
            c.note("invalid UTF-8 at byte " + at);
        }
        return bytes;
    }

    private static String replaceWord(FuzzCase c, String line, int index) {
        SplittableRandom random = c.random();
        List<int[]> words = new ArrayList<>();
        Matcher m = WORD.matcher(line);
        while (m.find()) {
            words.add(new int[] {m.start(), m.end()});
        }
        if (words.isEmpty()) {
            c.note("nothing to replace on line " + (index + 1));
            return line;
        }
        int[] w = words.get(random.nextInt(words.size()));
        String junk = random.nextInt(30) == 0 ? "n".repeat(5000) : JUNK[random.nextInt(JUNK.length)];
        c.note("line " + (index + 1) + ": '" + FuzzCase.cut(line.substring(w[0], w[1]), 40) + "' -> '"
                + FuzzCase.cut(junk, 40) + "'");
        return line.substring(0, w[0]) + junk + line.substring(w[1]);
    }

    private static void read(FuzzCase c, Path dir, Path file) {
        Fabric fabric;
        try {
            fabric = TopologyFile.read(file);
        } catch (IllegalArgumentException e) {
            FuzzCase.checkRefusal(e, FuzzCase.MAX_MESSAGE_CHARS);
            FuzzCase.check(e.getMessage().startsWith(dir.toString()), e.getClass().getSimpleName() + " does not start "
                    + "with the name of a file read: " + FuzzCase.cut(e.getMessage(), 200));
            c.refused();
            return;
        }
        int nodes = fabric.nodes().size();
        if (nodes >= 2) {
            try {
                fabric.route(0, nodes - 1, fabric.subnetFor(0, nodes - 1));
            } catch (IllegalArgumentException e) {
                FuzzCase.checkRefusal(e, FuzzCase.MAX_MESSAGE_CHARS);
            }
        }
        c.accepted();
    }
}
