package org.eventspace.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.eventspace.run.RunEngine;
import org.eventspace.run.RunConfig;
import org.eventspace.job.MonitoredJob;
import org.eventspace.monitor.Monitors;
import org.eventspace.monitor.model.RunModel;
import org.eventspace.ui.DashboardFrames;
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
 * {@code --serve [PORT]}, {@code --bind ADDR} and {@code --linger S} of {@code run}, {@code launch} and {@code mpirun}:
 * the live dashboard of the job itself, while it runs (docs/API.md). In this JVM for a {@code --transport jvm} run
 * ({@link #watcher}) and for {@code mpirun}; for a job of host processes, host 0's process serves it (it runs the event
 * scope's front-end, which gathers every host's monitor results), asked through its environment
 * ({@link #hostEnvironment}).
 *
 * <p>A dashboard this JVM serves outlives the run by {@link #lingering()}: a browser opened late, or a person who
 * looked away, still finds the final state (the last frame, marked ended, with the run's result) rather than a refused
 * connection. By default it stays until Ctrl-C only when a person is at a terminal, and not at all otherwise, so a
 * script never hangs on it. Not thread-safe: picocli fills it, the command's thread uses it.
 */
final class ServeOptions {
    static final int DEFAULT_PORT = 7070;

    @Option(names = "--serve", arity = "0..1", paramLabel = "PORT", fallbackValue = "" + DEFAULT_PORT,
            description = "Serve the live dashboard of this job on 127.0.0.1:PORT (" + DEFAULT_PORT + " without PORT; 0: any "
                    + "free port) while it runs, and print its address; with host processes (--transport tcp, launch) "
                    + "host 0's process serves it.")
    Integer port;

    @Option(names = "--bind", paramLabel = "ADDR", description = "With --serve: the address the dashboard listens on. "
            + "Default: ${DEFAULT-VALUE} (this machine only). Beyond loopback (e.g. 0.0.0.0) it warns, and every request "
            + "needs the random token in the address it prints (docs/DASHBOARD.md).", defaultValue = DashboardServer.LOOPBACK)
    String bind;

    @Option(names = "--linger", paramLabel = "S", description = "With --serve: once the run ended, keep serving its "
            + "final state (the last frame, marked ended, and the run's result) for S seconds; Ctrl-C ends it sooner; "
            + "0: stop at once. Default: until Ctrl-C when stdin and stdout are a terminal, else 0 (a script never waits). "
            + "Only where this process serves the dashboard (mpirun, run --transport jvm).")
    Integer lingerS;

    @Option(names = "--tui", description = "With --serve: also show the dashboard as text in this terminal (on standard "
            + "error), redrawn in place every second: the verdict, the slowest rank, the heaviest path, each rank's wait.")
    boolean tui;

    /** Longest --linger: a day. */
    static final int MAX_LINGER_S = 86_400;

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
        if (lingerS != null && port == null) {
            throw new UsageError("--linger " + lingerS + " keeps the dashboard of --serve up after the run: it needs --serve");
        }
        if (tui && port == null) {
            throw new UsageError("--tui draws the dashboard of --serve as text: it needs --serve");
        }
        if (lingerS != null && (lingerS < 0 || lingerS > MAX_LINGER_S)) {
            throw new UsageError("--linger must be 0.." + MAX_LINGER_S + " seconds (0: stop serving when the run ends), got "
                    + lingerS);
        }
    }

    /**
     * Refuses {@code --linger} where another process serves the dashboard ({@code what}: host 0's process of a job of
     * host processes), which ends with the job.
     */
    void lingerServedHere(String what) {
        if (lingerS != null) {
            throw new UsageError("--linger keeps a dashboard this process serves (mpirun, run --transport jvm); " + what
                    + " host 0's process serves it, and it ends with the job");
        }
        if (tui) {
            throw new UsageError("--tui draws a dashboard this process serves (mpirun, run --transport jvm); " + what
                    + " host 0's process serves it");
        }
    }

    /**
     * How long the dashboard stays up after the run: {@code --linger S}; without it, until Ctrl-C (null) when stdin and
     * stdout are a terminal ({@link System#console()}), else not at all.
     */
    Duration lingering() {
        if (lingerS != null) {
            return Duration.ofSeconds(lingerS);
        }
        return System.console() != null ? null : Duration.ZERO;
    }

    /**
     * After the run, with its result already printed and written: tells {@code server} how the run ended, and keeps it
     * serving that final state for {@link #lingering()} (Ctrl-C ends it sooner), saying so on {@code err}. Returns at
     * once when it does not linger; the caller closes the server.
     *
     * @param what what ended, for the message ({@code program}, {@code run}).
     */
    void serveFinalState(DashboardServer server, DashboardFrames.Outcome outcome, String what, PrintWriter err)
            throws InterruptedException {
        server.ended(outcome);
        Duration linger = lingering();
        if (linger != null && linger.isZero()) {
            return;
        }
        // The page opened from now on must see the run's end and result, not a frame sampled just before it.
        server.awaitFinalFrame(Duration.ofSeconds(5), true);
        err.println("dashboard: " + server.url() + "  " + what + " ended; serving the final state "
                + (linger == null ? "until Ctrl-C (or --linger S)"
                : String.format(Locale.ROOT, "for %d s (--linger %d), or until Ctrl-C", linger.toSeconds(), linger.toSeconds())));
        err.flush();
        CountDownLatch interrupted = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        // Ctrl-C runs the shutdown hooks: this one ends the wait and lets this thread stop the server before the JVM goes.
        Thread hook = new Thread(() -> {
            interrupted.countDown();
            try {
                done.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "es-linger-ctrl-c");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            if (linger == null) {
                interrupted.await();
            } else {
                interrupted.await(linger.toMillis(), TimeUnit.MILLISECONDS);
            }
        } finally {
            server.close();
            done.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // Shutting down already (Ctrl-C): the hook is running.
            }
        }
    }

    /** How a run of our workloads ended, for the dashboard: its verdict and its summary's lines. */
    static DashboardFrames.Outcome outcome(boolean ok, Integer exitCode, List<String> summary) {
        return new DashboardFrames.Outcome(ok, exitCode, summary, System.currentTimeMillis());
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
        private TerminalView terminal;

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
            if (tui) {
                terminal = TerminalView.start(server, System.err);
            }
        }

        @Override
        public void finished(JsonNode monitors, JsonNode scope) {
            if (source != null) {
                source.finished(monitors, scope);
            }
        }

        /** The run's final model, once its report exists: the dashboard and /metrics serve it from now on. */
        void finalModel(RunModel model) {
            if (terminal != null) {
                terminal.close();
                terminal = null;
            }
            if (source != null) {
                source.finalModel(model);
            }
        }

        /** The page's address, or null before the run started. */
        String url() {
            return server == null ? null : server.url();
        }

        /**
         * After the run, its result printed: keeps the dashboard serving the final state as {@link #serveFinalState}
         * says (nothing when it never started).
         */
        void serveFinalState(boolean ok, List<String> summary, PrintWriter err) throws InterruptedException {
            if (server != null) {
                ServeOptions.this.serveFinalState(server, outcome(ok, null, summary), "run", err);
            }
        }

        @Override
        public void close() {
            if (terminal != null) {
                terminal.close();
            }
            if (server != null) {
                server.close();
            }
        }
    }
}
