package org.eventspace.mpi;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.eventspace.net.TrafficMatrix;
import org.eventspace.base.json.Json;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code mpirun --traffic}: Open MPI's PML monitoring switched on, its per-rank files ({@link PmlTraffic}) made into
 * a traffic file ({@code eventspace.traffic/1}, net's {@link TrafficMatrix}); under an MPI without it (MPICH), the
 * interposition library's own per-peer send records ({@link PeerTraffic}). The output says which source counted. A
 * problem found before the program runs is an {@link IllegalArgumentException} whose message names the flag.
 */
public final class MpiTraffic {
    private MpiTraffic() {
    }

    /**
     * Refuses a {@code mpirun} whose MPI has no PML monitoring component (not Open MPI, or built without it), before
     * the program runs rather than after.
     *
     * @param mpirun the {@code --mpirun} flag's value, for the message.
     * @param found  the executable it stands for (a path, or looked up on the PATH), or null if there is none.
     */
    public static void check(String mpirun, Path found) {
        Path ompiInfo = found == null ? null : found.resolveSibling("ompi_info");
        String why = "--traffic counts through Open MPI's PML monitoring component";
        if (ompiInfo == null || !Files.isExecutable(ompiInfo)) {
            throw new IllegalArgumentException(why + ", and there is no ompi_info next to " + mpirun + " (is this Open MPI?)");
        }
        try {
            Process p = new ProcessBuilder(ompiInfo.toString(), "--param", "pml", "monitoring", "--level", "9")
                    .redirectErrorStream(true).start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalArgumentException(why + "; " + ompiInfo + " did not answer within 30 s");
            }
            if (!new String(out, StandardCharsets.UTF_8).contains("pml_monitoring_enable")) {
                throw new IllegalArgumentException(why + ", which " + ompiInfo + " does not list (Open MPI 2.1 or newer has it)");
            }
        } catch (IOException e) {
            throw new IllegalArgumentException(why + "; " + ompiInfo + " could not be run: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalArgumentException(why + "; interrupted while asking " + ompiInfo);
        }
    }

    /** An earlier run's files in the same trace folder must not be taken for this run's. */
    public static void removeOld(Path prefix, int np) {
        try {
            for (int r = 0; r < np; r++) {
                Files.deleteIfExists(PmlTraffic.file(prefix, r));
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("--traffic: cannot remove an earlier run's " + prefix + ".*.prof: " + e.getMessage());
        }
    }

    /** Reads the ranks' files and writes {@code eventspace.traffic/1}; what is missing is said, what is there kept. */
    public static void write(MpiRunResult result, Path prefix, int np, String program, Path file, PrintWriter err) throws IOException {
        PmlTraffic.Counts counts;
        try {
            counts = PmlTraffic.read(prefix, np);
            PmlTraffic.removeClockSync(counts, result.clockSyncs());
        } catch (IllegalArgumentException e) {
            err.println("eventspace: traffic: " + e.getMessage() + "; no traffic file written");
            err.flush();
            return;
        }
        if (counts.ranksWithoutFile().size() == np) {
            err.println("eventspace: traffic: no rank wrote " + prefix + ".<rank>.prof (they write it in MPI_Finalize; "
                    + "a program that did not reach it, or an MPI without PML monitoring, leaves none); no traffic file written");
            err.flush();
            return;
        }
        write(result, counts, np, program, file, err, PmlTraffic.COUNTED_BY, "pml monitoring");
    }

    /**
     * Writes {@code eventspace.traffic/1} from the interposition library's own counts (an MPI without PML monitoring);
     * calls the agent could not read (overwritten in a ring) are not in them, and the output says how many.
     */
    public static void write(MpiRunResult result, PeerTraffic counted, int np, String program, Path file, PrintWriter err)
            throws IOException {
        if (result.tuplesMissed() > 0) {
            err.println("eventspace: traffic: " + result.tuplesMissed() + " calls were overwritten in the ranks' rings "
                    + "before the agent read them; their sends are not in " + file + " (a larger --capacity keeps them)");
        }
        write(result, counted.counts(), np, program, file, err, PeerTraffic.COUNTED_BY, PeerTraffic.SOURCE);
    }

    private static void write(MpiRunResult result, PmlTraffic.Counts counts, int np, String program, Path file,
                              PrintWriter err, String countedBy, String source) throws IOException {
        MpiHostLayout hosts = result.hostLayout();
        int[] rankHosts = hosts.rankHosts().length == np ? hosts.rankHosts() : new int[np];
        List<String> names = hosts.rankHosts().length == np ? hosts.hostNames() : List.of("host-0");
        TrafficMatrix m = TrafficMatrix.ofRanks("all", rankHosts, names, counts.byOperation(), countedBy);
        ObjectMapper json = Json.mapper();
        ObjectNode run = json.createObjectNode();
        run.put("benchmark", program);
        run.put("transport", "mpi");
        run.put("ranks", np);
        if (!counts.ranksWithoutFile().isEmpty()) {
            counts.ranksWithoutFile().forEach(run.putArray("ranks_without_counts")::add);
            err.println("eventspace: traffic: rank(s) " + counts.ranksWithoutFile()
                    + " wrote no counts (they did not reach MPI_Finalize); the others' are in " + file);
        }
        m.write(file, run);
        long[][][] collectives = counts.byOperation().get(PmlTraffic.COLLECTIVES);
        err.println(String.format(Locale.ROOT, "eventspace: traffic (%s): %d B in %d messages between ranks (%d B by the "
                        + "program's sends, %s inside collectives), %d B between hosts -> %s", source,
                TrafficMatrix.total(m.rankMatrix(-1, 0)), TrafficMatrix.total(m.rankMatrix(-1, 1)),
                TrafficMatrix.total(counts.byOperation().get(PmlTraffic.POINT_TO_POINT)[0]),
                collectives == null ? "not seen" : TrafficMatrix.total(collectives[0]) + " B", offHost(m), file));
        err.flush();
    }

    private static long offHost(TrafficMatrix m) {
        long[][] h = m.hostMatrix(-1, 0);
        long t = TrafficMatrix.total(h);
        for (int i = 0; i < h.length; i++) {
            t -= h[i][i];
        }
        return t;
    }
}
