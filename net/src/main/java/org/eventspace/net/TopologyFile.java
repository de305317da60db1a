package org.eventspace.net;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.eventspace.base.io.BoundedFiles;
import org.eventspace.base.io.InputLimitException;

/**
 * Reads an {@code eventspace-topology 1} file (docs/TOPOLOGY-FORMAT.md): a generated fat tree or torus, a graph given
 * device by device with its forwarding tables, or a real InfiniBand fabric from {@code ibnetdiscover}'s output (and its
 * switches' linear forwarding tables as {@code dump_lfts.sh} prints them). Every error names the file, the line and what
 * was expected.
 */
public final class TopologyFile {
    public static final String HEADER = "eventspace-topology 1";

    private TopologyFile() {
    }

    public static Fabric read(Path file) {
        List<String> lines;
        try {
            lines = BoundedFiles.readAllLines(file);
        } catch (InputLimitException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": cannot read: " + e.getMessage(), e);
        }
        return parse(lines, file.toString(), file.toAbsolutePath().getParent());
    }

    /** @param base the folder relative paths ({@code ibnetdiscover FILE}) are resolved in. */
    public static Fabric parse(List<String> lines, String name, Path base) {
        int first = next(lines, 0);
        if (first < 0 || !lines.get(first).trim().equals(HEADER)) {
            throw new IllegalArgumentException(name + ":" + (first < 0 ? 1 : first + 1) + ": expected the header '" + HEADER
                    + "'" + (first < 0 ? ", the file is empty" : ", got '" + bounded(lines.get(first).trim()) + "'"));
        }
        Fabric.Builder graph = null;
        Fabric generated = null;
        int subnets = 1;
        int generatorLine = -1;
        List<String[]> routes = new ArrayList<>();
        List<Integer> routeLines = new ArrayList<>();
        for (int i = next(lines, first + 1); i >= 0; i = next(lines, i + 1)) {
            String where = name + ":" + (i + 1) + ": ";
            String[] w = lines.get(i).trim().split("\\s+");
            try {
                switch (w[0]) {
                    case "fattree" -> {
                        requireNothingBefore(generated, graph, where);
                        if (w.length != 3 && !(w.length == 5 && w[3].equals("subnets"))) {
                            throw new IllegalArgumentException("expected 'fattree K N [subnets S]'");
                        }
                        subnets = w.length == 5 ? integer(w[4], "S, the subnets (1..4)") : 1;
                        generated = FatTree.build(integer(w[1], "K, the switches' down ports"), integer(w[2], "N, the levels"),
                                subnets);
                        generatorLine = i;
                    }
                    case "torus" -> {
                        requireNothingBefore(generated, graph, where);
                        if (w.length != 3 && w.length != 4) {
                            throw new IllegalArgumentException("expected 'torus X Y [Z]'");
                        }
                        int[] dims = new int[w.length - 1];
                        for (int k = 1; k < w.length; k++) {
                            dims[k - 1] = integer(w[k], "a dimension's routers");
                        }
                        generated = Torus.build(dims);
                        generatorLine = i;
                    }
                    case "ibnetdiscover" -> {
                        requireNothingBefore(generated, graph, where);
                        if (w.length != 2 && !(w.length == 4 && w[2].equals("lfts"))) {
                            throw new IllegalArgumentException("expected 'ibnetdiscover FILE [lfts FILE]'");
                        }
                        generated = IbNetDiscover.read(base.resolve(w[1]), w.length == 4 ? base.resolve(w[3]) : null);
                        generatorLine = i;
                    }
                    case "switch" -> {
                        graph = graph(generated, graph, where, name);
                        if (w.length != 3 && !(w.length == 5 && w[3].equals("layer"))) {
                            throw new IllegalArgumentException("expected 'switch NAME PORTS [layer L]'");
                        }
                        int ports = integer(w[2], "PORTS, 1..1024");
                        if (ports < 1 || ports > 1024) {
                            throw new IllegalArgumentException("expected PORTS, 1..1024, got " + ports);
                        }
                        graph.device(w[1], Fabric.Kind.SWITCH, ports, w.length == 5
                                ? integer(w[4], "L, the layer to draw it in (>= 1)") : -1, 0, -1, -1);
                    }
                    case "node" -> {
                        graph = graph(generated, graph, where, name);
                        if (w.length != 2) {
                            throw new IllegalArgumentException("expected 'node NAME'");
                        }
                        int id = graph.device(w[1], Fabric.Kind.ENDPOINT, 1, 0, 0, -1, -1);
                        graph.node(w[1], new int[] {id});
                    }
                    case "link" -> {
                        graph = graph(generated, graph, where, name);
                        if (w.length != 5) {
                            throw new IllegalArgumentException("expected 'link DEVICE PORT DEVICE PORT'");
                        }
                        graph.link(known(graph, w[1]), integer(w[2], "a port number"), known(graph, w[3]),
                                integer(w[4], "a port number"));
                    }
                    case "route" -> {
                        graph = graph(generated, graph, where, name);
                        if (w.length != 4) {
                            throw new IllegalArgumentException("expected 'route SWITCH NODE PORT'");
                        }
                        routes.add(w);
                        routeLines.add(i);
                    }
                    default -> throw new IllegalArgumentException("expected one of fattree, torus, ibnetdiscover, switch, node, "
                            + "link, route; got '" + bounded(w[0]) + "'");
                }
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + e.getMessage(), e);
            }
        }
        if (generated != null) {
            return generated;
        }
        if (graph == null) {
            throw new IllegalArgumentException(name + ": expected a topology after the header (fattree, torus, ibnetdiscover, "
                    + "or switch/node/link lines)");
        }
        for (int r = 0; r < routes.size(); r++) {
            String[] w = routes.get(r);
            String where = name + ":" + (routeLines.get(r) + 1) + ": ";
            try {
                int endpoint = known(graph, w[2]);
                if (graph.get(endpoint).kind() != Fabric.Kind.ENDPOINT) {
                    throw new IllegalArgumentException("'" + w[2] + "' is a switch; a route names a node");
                }
                graph.forward(known(graph, w[1]), endpoint, integer(w[3], "a port number"));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + e.getMessage(), e);
            }
        }
        graph.markTablesGiven();
        graph.minHopTables();
        layers(graph);
        return graph.build();
    }

    /** Draws switches without a given layer one above their distance from the nearest node. */
    static void layers(Fabric.Builder b) {
        // Distances computed on the links; a device's layer is only a drawing hint, so an unreachable switch goes to 1.
        int n = b.size();
        int[] dist = new int[n];
        java.util.Arrays.fill(dist, Integer.MAX_VALUE);
        java.util.ArrayDeque<Integer> queue = new java.util.ArrayDeque<>();
        for (int d = 0; d < n; d++) {
            if (b.get(d).kind() == Fabric.Kind.ENDPOINT) {
                dist[d] = 0;
                queue.add(d);
            }
        }
        List<List<Integer>> adjacent = new ArrayList<>();
        for (int d = 0; d < n; d++) {
            adjacent.add(new ArrayList<>());
        }
        for (Fabric.Link l : b.links()) {
            adjacent.get(l.a()).add(l.b());
            adjacent.get(l.b()).add(l.a());
        }
        while (!queue.isEmpty()) {
            int at = queue.poll();
            for (int next : adjacent.get(at)) {
                if (dist[next] == Integer.MAX_VALUE) {
                    dist[next] = dist[at] + 1;
                    queue.add(next);
                }
            }
        }
        b.relayer(d -> b.get(d).layer() >= 0 ? b.get(d).layer() : dist[d] == Integer.MAX_VALUE ? 1 : dist[d]);
    }

    private static void requireNothingBefore(Fabric generated, Fabric.Builder graph, String where) {
        if (generated != null || graph != null) {
            throw new IllegalArgumentException("a file holds one topology: a generator line (fattree, torus, ibnetdiscover) "
                    + "or switch/node/link/route lines, not both or two generators");
        }
    }

    private static Fabric.Builder graph(Fabric generated, Fabric.Builder graph, String where, String name) {
        if (generated != null) {
            throw new IllegalArgumentException("a file holds one topology: switch/node/link/route lines cannot follow a "
                    + "generator line (fattree, torus, ibnetdiscover)");
        }
        return graph != null ? graph : new Fabric.Builder("graph from " + name);
    }

    private static int known(Fabric.Builder b, String device) {
        int id = b.find(device);
        if (id < 0) {
            throw new IllegalArgumentException("'" + bounded(device) + "' is not a device declared above (switch or node)");
        }
        return id;
    }

    static int integer(String text, String what) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected " + what + ", got '" + bounded(text) + "'");
        }
    }

    /** The next line at or after {@code from} that is neither blank nor a comment, or -1. */
    private static int next(List<String> lines, int from) {
        for (int i = from; i < lines.size(); i++) {
            String t = lines.get(i).trim();
            if (!t.isEmpty() && !t.startsWith("#")) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Why {@code file}, named in a topology file, cannot be read, in a bounded message: a name of thousands of characters
     * is shown by its start and end, and a missing file is said so rather than by its path again.
     */
    static String cannotRead(Path file, IOException e) {
        String name = file.toString();
        String shown = name.length() <= 200 ? name : name.substring(0, 100) + "…" + name.substring(name.length() - 60);
        String why = e instanceof java.nio.file.NoSuchFileException ? "no such file" : bounded(String.valueOf(e.getMessage()));
        return shown + ": cannot read: " + why;
    }

    static String bounded(String s) {
        return s.length() <= 60 ? s : s.substring(0, 60) + "…";
    }
}
