package org.eventspace.comm.runtime;

import org.eventspace.comm.pathmap.Pathmap;

/**
 * A layer laid over a job's trees before anything else is (before event collectors and scopes): it rewrites the
 * pathmap with wrappers of its own kinds and brings those kinds, with whatever threads they run, into the process
 * that builds the hosts. WAN emulation is one (its placement routes inter-site hops through gateway wrappers, which
 * need a scheduler thread per gateway); {@code comm} knows none of them, as it knows no collector.
 *
 * <p>Implementations are immutable values: {@link #place} is a pure function, {@link #start} may be called once per
 * process that runs hosts of the job.
 */
public interface PathExtension {
    /** What it is, for descriptions and messages (e.g. {@code wan four-sites.wan}). */
    String describe();

    /**
     * The pathmap with this layer's nodes: {@code trees} is the application's trees as built; the result must be a valid
     * pathmap over the same spec, with every entry kept.
     *
     * @throws IllegalArgumentException naming what in the layer's configuration does not fit the trees.
     */
    Pathmap place(Pathmap trees);

    /** Starts what this layer's wrappers need in this process and returns {@code kinds} with its own registered. */
    Started start(WrapperKinds kinds);

    /** A layer running in a process: the kinds to build hosts with, and how to stop its threads (after the hosts). */
    interface Started extends AutoCloseable {
        WrapperKinds kinds();

        @Override
        void close();
    }
}
