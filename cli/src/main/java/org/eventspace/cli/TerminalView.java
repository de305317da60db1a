package org.eventspace.cli;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.eventspace.ui.DashboardServer;
import org.eventspace.ui.TextView;

/**
 * {@code --tui}: the dashboard's newest frame as text ({@link TextView}), redrawn in place every second on a terminal,
 * for a served run (demo, run, mpirun) — the run model's verdict first, then the slowest rank and the heaviest path.
 * One daemon thread, role {@code es-terminal-view}; {@link #close} stops it and waits at most a second.
 */
final class TerminalView implements AutoCloseable {
    private final Thread thread;
    private volatile boolean running = true;

    private TerminalView(DashboardServer server, PrintStream out) {
        thread = new Thread(() -> {
            int drawn = 0;
            while (running) {
                try {
                    drawn = redraw(out, TextView.render(server.sampler().newest().node()), drawn);
                    TimeUnit.SECONDS.sleep(1);
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    out.println("eventspace: the text view stopped: " + e.getMessage());
                    return;
                }
            }
        }, "es-terminal-view");
        thread.setDaemon(true);
    }

    /** Starts drawing {@code server}'s frames on {@code out}. */
    static TerminalView start(DashboardServer server, PrintStream out) {
        TerminalView view = new TerminalView(server, out);
        view.thread.start();
        return view;
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Writes {@code lines} over the {@code previous} lines written last time (ANSI: cursor up, clear each line). */
    static int redraw(PrintStream out, List<String> lines, int previous) {
        StringBuilder b = new StringBuilder();
        if (previous > 0) {
            b.append("\033[").append(previous).append('F');
        }
        for (String line : lines) {
            b.append(line).append("\033[K\n");
        }
        b.append("\033[J");
        out.print(b);
        out.flush();
        return lines.size();
    }
}
