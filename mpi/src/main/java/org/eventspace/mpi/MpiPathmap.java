package org.eventspace.mpi;

import java.util.ArrayList;
import java.util.List;

import org.eventspace.comm.pathmap.Entry;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;

/**
 * The tree an MPI job's collectives are drawn on. PMPI sees each call's entry and exit, not the tree inside the MPI
 * library (SPEC §8), so what it can say of a collective instance is Scalasca's wait at N×N: which member came last,
 * and how long each waited for it. That is exactly one flat gred whose ports are the ranks: one tree, ranks
 * block-mapped over the hosts as the library names them ({@code ES_MPI_SIM_HOSTS}: rank × H / P, which is
 * {@link PathmapSpec#blockMapping}), so the dashboard's tree, colouring, orders and heaviest path read an MPI run as
 * they read a job of ours. Immutable.
 */
public final class MpiPathmap {
    private final Pathmap pathmap;
    private final String gred;
    private final int[] portOf;
    private final List<String> contributors;

    private MpiPathmap(Pathmap pathmap) {
        this.pathmap = pathmap;
        int ranks = pathmap.spec().ranks();
        this.portOf = new int[ranks];
        String[] names = new String[ranks];
        String found = null;
        for (int r = 0; r < ranks; r++) {
            Entry e = pathmap.entry(0, r);
            int port = e.port();
            String name = null;
            for (Node n : pathmap.path(0, r)) {
                if (n.kind().equals(PathmapBuilder.GRED)) {
                    name = n.name();
                    break;
                }
                port = n.parentPort();
            }
            if (name == null || found != null && !found.equals(name)) {
                throw new IllegalStateException("a flat tree joins every rank at one gred; rank " + r + " enters " + name);
            }
            found = name;
            portOf[r] = port;
            names[port] = "rank " + r;
        }
        this.gred = found;
        this.contributors = List.of(names);
    }

    /** The drawing of {@code ranks} ranks on {@code hosts} hosts (a host: a machine, or a simulated host's folder). */
    public static MpiPathmap of(int ranks, int hosts) {
        if (ranks < 1 || hosts < 1 || hosts > ranks) {
            throw new IllegalArgumentException("an MPI job of ranks=" + ranks + " on hosts=" + hosts
                    + " (1 <= hosts <= ranks) cannot be drawn");
        }
        int cpus = (ranks + hosts - 1) / hosts;
        return new MpiPathmap(PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, hosts, cpus), ranks, 1, TreeShape.FLAT)));
    }

    public Pathmap pathmap() {
        return pathmap;
    }

    /** The one gred every collective instance is joined at. */
    public String gred() {
        return gred;
    }

    /** The port of {@code gred()} where rank {@code rank} arrives. */
    public int port(int rank) {
        return portOf[rank];
    }

    /** Per port, its contributor's name ({@code rank R}). */
    public List<String> contributors() {
        return contributors;
    }

    /** The heaviest path to {@code rank}: node names from the root (the core) to the rank's entry. */
    public List<String> pathFromRoot(int rank) {
        List<String> names = new ArrayList<>();
        for (Node n : pathmap.path(0, rank)) {
            names.add(0, n.name());
        }
        return names;
    }
}
