package org.eventspace.wan;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.agrona.concurrent.SystemNanoClock;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.runtime.HostRuntime;
import org.eventspace.comm.runtime.PathExtension;
import org.eventspace.comm.runtime.WrapperKinds;
import org.eventspace.comm.transport.AgentThreads;

/**
 * Longcut on a job: the link file's sites laid over the job's clusters, inter-site hops routed through the gateways
 * ({@link WanPlacement} for the trees, {@link WanPointToPoint} for point-to-point sends), and in each process one scheduler thread per gateway host it runs
 * ({@link GatewayScheduler}). The {@link PathExtension} a job configuration carries for {@code --wan FILE}.
 *
 * <p>Immutable; {@link #start} gives each process its own schedulers, sharing one epoch for the series.
 */
public final class WanEmulation implements PathExtension {
    /** The {@link PathExtension.Provider} name a job configuration carries it under. */
    public static final String NAME = "wan";

    private final WanLayout layout;
    private final Path file;
    private final long spinWindowNs;

    /** @param file the link file, absolute: host processes over TCP read it again ({@link #argument()}). */
    public WanEmulation(WanLayout layout, Path file, long spinWindowNs) {
        this.layout = layout;
        this.file = file.toAbsolutePath().normalize();
        this.spinWindowNs = spinWindowNs;
    }

    /** Reads {@code file} (docs/WAN-FORMAT.md) with the default spin window. */
    public static WanEmulation read(Path file) {
        return new WanEmulation(WanFile.read(file), file, GatewayScheduler.DEFAULT_SPIN_WINDOW_NS);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String argument() {
        return file.toString();
    }

    /** Makes the emulation in a host process from the link file's absolute path ({@code META-INF/services}). */
    public static final class Provider implements PathExtension.Provider {
        @Override
        public String name() {
            return NAME;
        }

        @Override
        public PathExtension open(String argument) {
            return read(Path.of(argument));
        }
    }

    public WanLayout layout() {
        return layout;
    }

    @Override
    public String describe() {
        return "wan " + layout.source() + " (" + layout.sites().size() + " sites, " + layout.links().size()
                + " link directions)";
    }

    @Override
    public Pathmap place(Pathmap trees) {
        return WanPlacement.place(trees, layout);
    }

    @Override
    public Running start(WrapperKinds kinds) {
        return new Running(kinds, SystemNanoClock.INSTANCE);
    }

    /** The emulation in one process: its gateways' schedulers, each on its own thread once a host needs it. */
    public final class Running implements PathExtension.Started {
        private static final Duration CLOSE_BOUND = Duration.ofSeconds(1);
        private final NanoClock clock;
        private final long epochNs;
        private final LongcutKind kind;
        private final WrapperKinds kinds;
        private final List<AgentRunner> runners = new ArrayList<>();
        private final List<GatewayScheduler> started = new ArrayList<>();

        Running(WrapperKinds base, NanoClock clock) {
            this.clock = clock;
            this.epochNs = clock.nanoTime();
            this.kind = new LongcutKind(this::scheduler);
            WanPointToPoint pointToPoint = new WanPointToPoint(layout, base.pointToPoint(), kind);
            this.kinds = base.with(kind).withPointToPoint(pointToPoint).withPointToPointRoute(pointToPoint)
                    .withHopWrappers(pointToPoint);
        }

        private synchronized GatewayScheduler scheduler(HostRuntime host) {
            String site = siteOfGateway(host);
            List<LinkSchedule> links = new ArrayList<>();
            for (LinkDirection link : layout.linksFrom(site)) {
                links.add(new LinkSchedule(link, epochNs));
            }
            GatewayScheduler scheduler = new GatewayScheduler(host.hostName(), links, clock, spinWindowNs,
                    host.waitPolicy().timeoutNanos());
            runners.add(AgentThreads.start(scheduler, new NoOpIdleStrategy()));
            started.add(scheduler);
            return scheduler;
        }

        private String siteOfGateway(HostRuntime host) {
            return WanPlacement.sites(layout, host.pathmap().spec().topology()).siteOf(host.host());
        }

        @Override
        public WrapperKinds kinds() {
            return kinds;
        }

        /** Every gateway's figures so far. */
        public synchronized List<GatewayScheduler.Stats> stats() {
            return started.stream().map(GatewayScheduler::stats).toList();
        }

        @Override
        public synchronized void close() {
            for (GatewayScheduler s : started) {
                s.close();
            }
            for (AgentRunner r : runners) {
                AgentThreads.awaitEnd(r, CLOSE_BOUND);
            }
        }
    }
}
