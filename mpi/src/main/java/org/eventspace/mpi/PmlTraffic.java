package org.eventspace.mpi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An MPI program's traffic, counted where Open MPI hands messages to its transports: its PML monitoring component
 * ({@code --mca pml_monitoring_enable 2}) counts, per rank and destination, the messages and bytes every send moves
 * through the point-to-point messaging layer, the program's own sends apart from those a collective's algorithm makes
 * inside the library, and the one-sided layer's traffic apart again. This is what ibprof takes inside the MPI library
 * (ibprof paper §3.2) and PMPI cannot see: a broadcast called once is several messages between ranks. At
 * MPI_Finalize every rank writes {@code PREFIX.<rank>.prof}; {@link #read} turns the files into rank × rank matrices
 * per operation.
 *
 * <p>The component counts at the sender only, so a matrix's received fields repeat what the sender counted.
 */
public final class PmlTraffic {
    /** The program's own point-to-point messages (the files' {@code E} lines). */
    public static final String POINT_TO_POINT = "send";
    /** Messages a collective's algorithm sent inside the library ({@code I} lines). */
    public static final String COLLECTIVES = "collectives";
    /** One-sided traffic ({@code S}: put by this rank into the peer, {@code R}: got from the peer). */
    public static final String ONE_SIDED = "one-sided";
    /** Says in the traffic file where the counts come from and what the received fields mean. */
    public static final String COUNTED_BY = "Open MPI's PML monitoring (pml_monitoring_enable 2) at each sender; "
            + "bytes_received repeats what the sender counted";

    /** What {@link #read} found: per operation [field][source][dest] (fields as the traffic file orders them). */
    public record Counts(Map<String, long[][][]> byOperation, List<Integer> ranksWithoutFile) {
    }

    private PmlTraffic() {
    }

    /** The arguments that make Open MPI's mpirun write the files under {@code prefix}. */
    public static List<String> mpirunArgs(Path prefix) {
        return List.of("--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "3",
                "--mca", "pml_monitoring_filename", prefix.toAbsolutePath().toString());
    }

    /** The file rank {@code rank} writes. */
    public static Path file(Path prefix, int rank) {
        return prefix.resolveSibling(prefix.getFileName() + "." + rank + ".prof");
    }

    /**
     * Reads the files of ranks 0 .. ranks-1. A rank that wrote no file (it died before MPI_Finalize) is listed, and
     * the others' counts are kept.
     *
     * @throws IllegalArgumentException naming the file, the line and what was expected.
     * @throws IOException              if a file exists and cannot be read.
     */
    public static Counts read(Path prefix, int ranks) throws IOException {
        Map<String, long[][][]> ops = new LinkedHashMap<>();
        for (String op : List.of(POINT_TO_POINT, COLLECTIVES, ONE_SIDED)) {
            ops.put(op, new long[4][ranks][ranks]);
        }
        List<Integer> missing = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            Path f = file(prefix, r);
            if (!Files.exists(f)) {
                missing.add(r);
                continue;
            }
            List<String> lines = Files.readAllLines(f);
            for (int i = 0; i < lines.size(); i++) {
                parseLine(f, i + 1, lines.get(i), r, ranks, ops);
            }
        }
        // received as the sender counted it
        for (long[][][] m : ops.values()) {
            m[2] = copy(m[0]);
            m[3] = copy(m[1]);
        }
        return new Counts(ops, missing);
    }

    /**
     * Takes the interposition library's own clock-synchronisation messages out of the program's sends: for each rank
     * r > 0, {@code syncs[r]} × {@link MpiRankMetaLayout#SYNC_ROUNDS} pings ({@link MpiRankMetaLayout#SYNC_PING_BYTES})
     * from r to its tree parent {@link MpiRankMetaLayout#syncParent(int)} and as many pongs
     * ({@link MpiRankMetaLayout#SYNC_PONG_BYTES}) back.
     *
     * @throws IllegalArgumentException if the counts hold fewer such messages than the library sent (the files are
     *                                  not this run's).
     */
    public static void removeClockSync(Counts counts, int[] syncs) {
        long[][][] m = counts.byOperation().get(POINT_TO_POINT);
        for (int r = 1; r < syncs.length && r < m[0].length; r++) {
            long messages = (long) syncs[r] * MpiRankMetaLayout.SYNC_ROUNDS;
            int parent = MpiRankMetaLayout.syncParent(r);
            for (int[] pair : new int[][] {{r, parent, MpiRankMetaLayout.SYNC_PING_BYTES},
                    {parent, r, MpiRankMetaLayout.SYNC_PONG_BYTES}}) {
                int s = pair[0];
                int d = pair[1];
                long bytes = pair[2] * messages;
                if (m[1][s][d] < messages || m[0][s][d] < bytes) {
                    throw new IllegalArgumentException("the PML counts from rank " + s + " to " + d + " (" + m[1][s][d]
                            + " messages) hold fewer than the " + messages + " clock-synchronisation messages sent");
                }
                for (int f : new int[] {0, 2}) {
                    m[f][s][d] -= bytes;
                }
                for (int f : new int[] {1, 3}) {
                    m[f][s][d] -= messages;
                }
            }
        }
    }

    private static void parseLine(Path file, int line, String text, int rank, int ranks, Map<String, long[][][]> ops) {
        if (text.isBlank() || text.startsWith("#")) {
            return;
        }
        String[] f = text.split("\t");
        String kind = f[0];
        switch (kind) {
            case "E", "I", "S", "R" -> {
                if (f.length < 5) {
                    throw error(file, line, "'" + kind + "<tab>rank<tab>peer<tab>N bytes<tab>M msgs sent'", text);
                }
                int me = integer(file, line, f[1], "the rank");
                int peer = integer(file, line, f[2], "the peer");
                if (me != rank) {
                    throw error(file, line, "rank " + rank + " (the file's rank) in field 2", text);
                }
                if (peer < 0 || peer >= ranks) {
                    throw error(file, line, "a peer in 0.." + (ranks - 1), text);
                }
                long bytes = count(file, line, f[3], " bytes");
                long messages = count(file, line, f[4], " msgs sent");
                String op = kind.equals("E") ? POINT_TO_POINT : kind.equals("I") ? COLLECTIVES : ONE_SIDED;
                // R: data this rank got from the peer, which the peer's memory sent
                int src = kind.equals("R") ? peer : me;
                int dst = kind.equals("R") ? me : peer;
                long[][][] m = ops.get(op);
                m[0][src][dst] += bytes;
                m[1][src][dst] += messages;
            }
            // per-communicator summaries of the collectives already counted by the I lines
            case "C", "D", "O2A", "A2O", "A2A" -> {
            }
            default -> throw error(file, line, "a line of kind E, I, S, R, C, D, O2A, A2O or A2A", text);
        }
    }

    private static int integer(Path file, int line, String s, String what) {
        try {
            return Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            throw error(file, line, what + " as an integer", s);
        }
    }

    private static long count(Path file, int line, String s, String unit) {
        if (!s.endsWith(unit)) {
            throw error(file, line, "'N" + unit + "'", s);
        }
        try {
            long v = Long.parseLong(s.substring(0, s.length() - unit.length()).trim());
            if (v < 0) {
                throw error(file, line, "a count >= 0", s);
            }
            return v;
        } catch (NumberFormatException e) {
            throw error(file, line, "'N" + unit + "'", s);
        }
    }

    private static IllegalArgumentException error(Path file, int line, String expected, String got) {
        return new IllegalArgumentException(file + ":" + line + ": expected " + expected + ", got '" + got + "'");
    }

    private static long[][] copy(long[][] m) {
        long[][] out = new long[m.length][];
        for (int i = 0; i < m.length; i++) {
            out[i] = m[i].clone();
        }
        return out;
    }
}
