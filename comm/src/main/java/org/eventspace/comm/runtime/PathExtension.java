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

    /** The name of the {@link Provider} that makes it again from {@link #argument()} in another process. */
    String name();

    /** What its provider needs to make the same layer in a host process (e.g. the absolute path of a file). */
    String argument();

    /**
     * The pathmap with this layer's nodes: {@code trees} is the application's trees as built; the result must be a valid
     * pathmap over the same spec, with every entry kept.
     *
     * @throws IllegalArgumentException naming what in the layer's configuration does not fit the trees.
     */
    Pathmap place(Pathmap trees);

    /** Starts what this layer's wrappers need in this process and returns {@code kinds} with its own registered. */
    Started start(WrapperKinds kinds);

    /**
     * Makes a layer from its name and argument: how a job's configuration carries one to host processes over TCP.
     * Found with {@link java.util.ServiceLoader}, so {@code comm} and the job layer name no module above them.
     */
    interface Provider {
        String name();

        /** @throws IllegalArgumentException naming what in {@code argument} is wrong. */
        PathExtension open(String argument);

        /** The provider called {@code name} on the class path. */
        static Provider named(String name) {
            for (Provider p : java.util.ServiceLoader.load(Provider.class)) {
                if (p.name().equals(name)) {
                    return p;
                }
            }
            throw new IllegalArgumentException("no path extension '" + name + "' on the class path");
        }
    }

    /** A layer running in a process: the kinds to build hosts with, and how to stop its threads (after the hosts). */
    interface Started extends AutoCloseable {
        WrapperKinds kinds();

        /**
         * Every rank of the job has returned and the hosts are about to close: wake the threads this layer's wrappers keep
         * waiting for the program (a fetch waiting for a remote cluster's next value, which will not come), so the hosts'
         * service threads can end, instead of each holding its host's close for the length of its wait. Messages already
         * on their way keep their schedule. {@link #close} follows, after the hosts. Default: nothing waits on the program.
         */
        default void quiesce() {
        }

        @Override
        void close();
    }
}
