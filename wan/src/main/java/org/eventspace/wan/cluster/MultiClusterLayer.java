package org.eventspace.wan.cluster;

import org.eventspace.comm.path.Condition;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.runtime.PathExtension;
import org.eventspace.comm.runtime.WrapperKinds;

/**
 * The {@link PathExtension} of {@code run --allreduce magpie|conditional}: {@link MultiClusterTrees} over the builder's
 * trees, then the layer it wraps (WAN emulation, {@code --wan FILE}), so the prefetch paths cross the emulated links
 * through the gateways like the trees' own hops. Immutable; {@link #start} gives each process its own
 * {@link ClusterKinds}.
 */
public final class MultiClusterLayer implements PathExtension {
    public static final String NAME = "multicluster";
    private static final String SEPARATOR = "\t";

    private final ClusterAllreduce mode;
    private final Condition condition;
    private final double constant;
    private final PathExtension inner;

    /**
     * @param condition for {@link ClusterAllreduce#CONDITIONAL}: the condition (and {@code constant}) its trees decide
     *                  early; ignored otherwise.
     * @param inner     the layer laid after this one, or null.
     */
    public MultiClusterLayer(ClusterAllreduce mode, Condition condition, double constant, PathExtension inner) {
        if (mode == ClusterAllreduce.CONDITIONAL && condition == null) {
            throw new IllegalArgumentException("a conditional multi-cluster allreduce needs its condition and constant");
        }
        this.mode = mode;
        this.condition = mode == ClusterAllreduce.CONDITIONAL ? condition : null;
        this.constant = mode == ClusterAllreduce.CONDITIONAL ? constant : 0;
        this.inner = inner;
    }

    public ClusterAllreduce mode() {
        return mode;
    }

    @Override
    public String describe() {
        return "allreduce " + mode + (condition == null ? "" : " (result " + condition + " " + constant + ")")
                + (inner == null ? "" : ", " + inner.describe());
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String argument() {
        return String.join(SEPARATOR, mode.toString(), condition == null ? "-" : condition.name(),
                Double.toString(constant), inner == null ? "-" : inner.name(), inner == null ? "-" : inner.argument());
    }

    @Override
    public Pathmap place(Pathmap trees) {
        Pathmap joined = mode == ClusterAllreduce.SEQUENTIAL ? trees : MultiClusterTrees.place(trees, condition, constant);
        return inner == null ? joined : inner.place(joined);
    }

    @Override
    public Running start(WrapperKinds kinds) {
        return new Running(kinds);
    }

    /** The layer in one process. */
    public final class Running implements PathExtension.Started {
        private final PathExtension.Started innerStarted;
        private final ClusterKinds clusterKinds = new ClusterKinds();
        private final WrapperKinds kinds;

        Running(WrapperKinds base) {
            this.innerStarted = inner == null ? null : inner.start(base);
            this.kinds = clusterKinds.register(innerStarted == null ? base : innerStarted.kinds());
        }

        @Override
        public WrapperKinds kinds() {
            return kinds;
        }

        public ClusterKinds clusterKinds() {
            return clusterKinds;
        }

        /** The wrapped layer running in this process, or null. */
        public PathExtension.Started inner() {
            return innerStarted;
        }

        /** Wakes every fetch waiting for a remote cluster's next value (the ranks are done: none will come). */
        @Override
        public void quiesce() {
            clusterKinds.wake();
            if (innerStarted != null) {
                innerStarted.quiesce();
            }
        }

        @Override
        public void close() {
            clusterKinds.close();
            if (innerStarted != null) {
                innerStarted.close();
            }
        }
    }

    /** Makes the layer again in a host process from {@link #argument()} ({@code META-INF/services}). */
    public static final class Provider implements PathExtension.Provider {
        @Override
        public String name() {
            return NAME;
        }

        @Override
        public PathExtension open(String argument) {
            String[] f = argument.split(SEPARATOR, 5);
            if (f.length != 5) {
                throw new IllegalArgumentException("multicluster layer argument: expected 5 tab-separated fields, found "
                        + f.length);
            }
            PathExtension inner = f[3].equals("-") ? null : PathExtension.Provider.named(f[3]).open(f[4]);
            return new MultiClusterLayer(ClusterAllreduce.parse(f[0]), f[1].equals("-") ? null : Condition.valueOf(f[1]),
                    Double.parseDouble(f[2]), inner);
        }
    }
}
