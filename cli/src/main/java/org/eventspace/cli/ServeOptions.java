package org.eventspace.cli;

import java.util.Locale;
import java.util.Map;

import org.eventspace.run.RunEngine;
import org.eventspace.run.RunConfig;
import org.eventspace.job.MonitoredJob;
import org.eventspace.monitor.Monitors;
import org.eventspace.ui.DashboardRequest;
import org.eventspace.ui.DashboardServer;
import org.eventspace.ui.DashboardSource;
import org.eventspace.ui.LiveJobSource;
import org.eventspace.job.JobTransport;
import org.eventspace.net.Fabric;
import org.eventspace.net.HostMapping;
import org.eventspace.net.TopologyFile;

import com.fasterxml.jackson.databind.JsonNode;

import picocli.CommandLine.Option;

/**
 * {@code --serve [PORT]} and {@code --bind ADDR} of {@code run} and {@code launch}: the live dashboard of the job itself,
 * while it runs (docs/API.md). In this JVM for a {@code --transport jvm} run ({@link #watcher}); for a job of host
 * processes, host 0's process serves it (it runs the event scope's front-end, which gathers every host's monitor
 * results), asked through its environment ({@link #hostEnvironment}). Not thread-safe: picocli fills it, the command's
 * thread uses it.
 */
final class ServeOptions {
    static final int DEFAULT_PORT = 7070;

    @Option(names = "--serve", arity = "0..1", paramLabel = "PORT", fallbackValue = "" + DEFAULT_PORT,
            description = "Serve the live dashboard of this job on 127.0.0.1:PORT (" + DEFAULT_PORT + " without PORT; 0: any "
                    + "free port) while it runs, and print its address; with host processes (--transport tcp, launch) "
                    + "host 0's process serves it.")
    Integer port;

    @Option(names = "--bind", paramLabel = "ADDR", description = "With --serve: the address the dashboard listens on. "
            + "Default: ${DEFAULT-VALUE} (this machine only).", defaultValue = DashboardServer.LOOPBACK)
    String bind;

    /** The network the dashboard routes the job's traffic over ({@code run --topology}), or null. */
    private Fabric network;

    boolean enabled() {
        return port != null;
    }

    /** Checks the flags before anything starts. */
    void check() {
        if (port != null && (port < 0 || port > 65_535)) {
            throw new UsageError("--serve must be a port 0..65535 (0: any free port), got " + port);
        }
        if (port != null && bind.isBlank()) {
            throw new UsageError("--bind must be an address, got '" + bind + "'");
        }
    }

    /**
     * What every host process of a job gets in its environment so that host 0 serves the dashboard
     * ({@link DashboardRequest}); empty without {@code --serve}.
     */
    Map<String, String> hostEnvironment(String name, String description, int injectedSlowRank) {
        if (port == null) {
            return Map.of();
        }
        return Map.of(DashboardRequest.ENV, new DashboardRequest(port, bind, name, description, injectedSlowRank).encode());
    }

    /**
     * Routes the job's counted traffic over {@code topology} (read by {@code run --topology}) in the network pane: a job
     * in one JVM that counts traffic, with no more hosts than the topology has nodes (they go onto its nodes in order).
     */
    void network(java.nio.file.Path topology, RunConfig config) {
        if (port == null) {
            throw new UsageError("--topology " + topology + " draws the traffic in the live dashboard: it needs --serve");
        }
        if (config.job().traffic() == null) {
            throw new UsageError("--topology draws the traffic the job counts: it needs --traffic FILE");
        }
        if (config.transport() != JobTransport.JVM) {
            throw new UsageError("--topology with --serve draws a job in one JVM (--transport jvm); for host processes "
                    + "route the run's --traffic file afterwards with traffic map --topology");
        }
        try {
            network = TopologyFile.read(topology);
            java.util.List<String> names = new java.util.ArrayList<>();
            for (int h = 0; h < config.hosts(); h++) {
                names.add(config.spec().topology().host(h).name());
            }
            HostMapping.inOrder(names, network);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--topology: " + e.getMessage());
        }
    }

    /** A watcher that serves the run's dashboard from its start; {@link Served#close} ends it. */
    Served watcher(RunConfig config, String benchmark) {
        return new Served(config, benchmark);
    }

    /** The dashboard of one run: started when the run's job is, closed by the command. */
    final class Served implements RunEngine.Watcher, AutoCloseable {
        private final RunConfig config;
        private final String benchmark;
        private LiveJobSource source;
        private DashboardServer server;

        Served(RunConfig config, String benchmark) {
            this.config = config;
            this.benchmark = benchmark;
        }

        @Override
        public void started(MonitoredJob job, Monitors monitors) {
            source = new LiveJobSource(job, monitors, new DashboardSource.RunInfo(benchmark,
                    String.format(Locale.ROOT, "%s, %d ranks on %d simulated hosts, %s trees, %d iterations%s", benchmark,
                            config.ranks(), config.hosts(), config.spec().shape(), config.iterations(),
                            monitors == null ? " (no --monitor: the tree has no figures)" : ""),
                    config.ranks(), config.hosts(), config.spec().shape().toString(), config.spec().trees(),
                    config.scope() != null ? config.scope().filter().text() : "", config.faults().slowRank(), Double.NaN));
            if (network != null) {
                source.withNetwork(network);
            }
            try {
                server = DashboardServer.start(source, bind, port);
            } catch (IllegalStateException e) {
                throw new UsageError(e.getMessage() + " (--serve 0 picks a free port)");
            }
            System.err.println("dashboard: " + server.url());
        }

        @Override
        public void finished(JsonNode monitors, JsonNode scope) {
            if (source != null) {
                source.finished(monitors, scope);
            }
        }

        /** The page's address, or null before the run started. */
        String url() {
            return server == null ? null : server.url();
        }

        @Override
        public void close() {
            if (server != null) {
                server.close();
            }
        }
    }
}
