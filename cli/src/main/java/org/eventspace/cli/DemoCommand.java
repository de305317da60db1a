package org.eventspace.cli;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.eventspace.ui.DashboardServer;
import org.eventspace.ui.DemoJob;
import org.eventspace.ui.TextView;

import com.fasterxml.jackson.databind.JsonNode;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code eventspace demo}: the front door. compute-gsum on a simulated cluster in this JVM with the load-balance and
 * statistics monitors and ToM's histogram filter, one rank made slow now and then, and the live dashboard on
 * 127.0.0.1; until Ctrl-C or {@code --duration}.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run compute-gsum on a simulated 4-host cluster in this JVM, monitored, with one rank made slow now "
                + "and then, and serve the live dashboard on 127.0.0.1 until Ctrl-C or --duration.")
final class DemoCommand implements java.util.concurrent.Callable<Integer> {
    @Option(names = "--port", description = "Dashboard port (0: any free port). Default: ${DEFAULT-VALUE}.", defaultValue = "7070")
    int port;

    @Option(names = "--bind", description = "Address the dashboard listens on. Default: ${DEFAULT-VALUE} (this machine only). "
            + "Beyond loopback it warns, and every request needs the token in the address it prints.",
            defaultValue = DashboardServer.LOOPBACK)
    String bind;

    @Option(names = "--duration", paramLabel = "S", description = "Seconds to run; 0 runs until Ctrl-C. Default: ${DEFAULT-VALUE}.",
            defaultValue = "0")
    double duration;

    @Option(names = "--ranks", description = "Ranks (threads). Default: ${DEFAULT-VALUE}.", defaultValue = "8")
    int ranks;

    @Option(names = "--hosts", description = "Simulated hosts, ranks block-mapped over them. Default: ${DEFAULT-VALUE}.",
            defaultValue = "4")
    int hosts;

    @Option(names = "--slow-rank", paramLabel = "R", description = "The rank made slow now and then. Default: ${DEFAULT-VALUE}.",
            defaultValue = "5")
    int slowRank;

    @Option(names = "--slow-us", paramLabel = "USEC", description = "How much slower it is per iteration while slow, µs. "
            + "Default: ${DEFAULT-VALUE}.", defaultValue = "1000")
    long slowMicros;

    @Option(names = "--tui", description = "Also show a live text view in the terminal, redrawn in place every second.")
    boolean tui;

    @Override
    public Integer call() throws InterruptedException {
        if (!(duration >= 0 && duration <= 86_400)) {
            throw new UsageError("--duration must be 0..86400 seconds (0: until Ctrl-C), got " + duration);
        }
        if (port < 0 || port > 65_535) {
            throw new UsageError("--port must be 0..65535 (0: any free port), got " + port);
        }
        DemoJob.Settings settings;
        try {
            settings = new DemoJob.Settings(ranks, hosts, "hier:2", slowRank, slowMicros,
                    DemoJob.Settings.DEFAULT.sortLength(), DemoJob.Settings.DEFAULT.bins(), DemoJob.Settings.DEFAULT.scopeMs());
            settings.job().pathmap();
        } catch (IllegalArgumentException e) {
            throw new UsageError("demo: " + e.getMessage());
        }
        CountDownLatch interrupted = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            interrupted.countDown();
            try {
                done.await(15, TimeUnit.SECONDS); // let the main thread stop the ranks and the server cleanly
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "es-demo-ctrl-c");
        Runtime.getRuntime().addShutdownHook(hook);
        try (DemoJob demo = DemoJob.start(settings)) {
            DashboardServer server;
            try {
                server = DashboardServer.start(demo.source(), bind, port);
            } catch (IllegalStateException e) {
                throw new UsageError(e.getMessage() + " (--port 0 picks a free port)");
            }
            try (server) {
                System.out.println("EventSpace demo: " + demo.source().info().description());
                System.out.println("dashboard: " + server.url() + (duration > 0
                        ? String.format(Locale.ROOT, "  (for %.0f s; Ctrl-C ends it sooner)", duration) : "  (Ctrl-C ends it)"));
                System.out.flush();
                long end = duration > 0 ? System.nanoTime() + (long) (duration * 1e9) : Long.MAX_VALUE;
                int drawn = 0;
                long nextText = System.nanoTime();
                while (!demo.finished() && System.nanoTime() - end < 0 && !interrupted.await(100, TimeUnit.MILLISECONDS)) {
                    // Serving; the sampler and the HTTP threads do the work.
                    if (tui && System.nanoTime() - nextText >= 0) {
                        drawn = redraw(TextView.render(server.sampler().newest().node()), drawn);
                        nextText = System.nanoTime() + 1_000_000_000L;
                    }
                }
                demo.stop();
                long bound = System.nanoTime() + settings.job().timeout().toNanos();
                while (!demo.finished() && System.nanoTime() - bound < 0) {
                    Thread.sleep(20);
                }
                summary(demo, server);
            }
            return demo.failure() == null && demo.finished() ? EventSpaceCommand.EXIT_OK : EventSpaceCommand.EXIT_FAILURE;
        } finally {
            done.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // Shutting down already (Ctrl-C): the hook is running.
            }
        }
    }

    private static int redraw(List<String> lines, int previous) {
        return TerminalView.redraw(System.out, lines, previous);
    }

    private static void summary(DemoJob demo, DashboardServer server) {
        JsonNode frame = server.sampler().sampleNow().node();
        JsonNode lb = frame.path("loadbalance");
        System.out.printf(Locale.ROOT, "ran %d iterations; %s%n", demo.iterations(),
                demo.failure() == null ? "every rank got the exact expected sum" : "FAILED: " + demo.failure());
        if (lb.has("slowest_rank")) {
            System.out.printf(Locale.ROOT, "slowest rank %d (made slow: %d); heaviest path ends at rank %d%n",
                    lb.path("slowest_rank").asInt(), demo.settings().slowRank(), lb.path("heaviest_path_rank").asInt());
        }
        JsonNode cost = frame.path("cost");
        System.out.printf(Locale.ROOT, "monitors: gather rate %.2f %%, %d tuples missed; dashboard frames %d%n",
                100 * cost.path("gather_rate").asDouble(1), cost.path("tuples_missed").asLong(), frame.path("frame").asLong());
    }
}
