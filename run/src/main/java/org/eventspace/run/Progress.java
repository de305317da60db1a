package org.eventspace.run;

import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.eventspace.base.os.SettingException;

/**
 * What rank 0 of a run is doing, for a person watching a long run: the phase (warm-up, calibration, timed
 * iterations) and the iterations done, written only where a phase or a warm-up round changes, never inside a timed
 * loop. {@link #watch} prints it to stderr every few seconds once a run has lasted that long. The phase may be
 * written by one thread and read by any.
 */
final class Progress {
    /** A run nobody watches (ranks other than 0, and tests). */
    static final Progress NONE = new Progress(null);
    /** Seconds before the first line and between lines, unless {@value #PERIOD_ENV} says otherwise. */
    static final long PERIOD_S = 5;
    /** The environment variable that sets the period (whole seconds, 1..3600); host processes inherit it. */
    static final String PERIOD_ENV = "ES_PROGRESS_S";

    private final String label;
    private final long start = System.nanoTime();
    private volatile String phase = "starting";
    private volatile long done;
    private volatile long total;

    private Progress(String label) {
        this.label = label;
    }

    /** Progress of {@code label} (e.g. {@code compute-gsum, 128 ranks}) for rank 0 to write. */
    static Progress of(String label) {
        return new Progress(label);
    }

    void phase(String name, long iterationsDone, long iterationsTotal) {
        if (this == NONE) {
            return;
        }
        phase = name;
        done = iterationsDone;
        total = iterationsTotal;
    }

    @Override
    public String toString() {
        long t = total;
        long d = done;
        String count = t > 0 && d > 0 ? String.format(Locale.ROOT, ", %d of %d iterations", d, t)
                : t > 0 ? String.format(Locale.ROOT, ", %d iterations", t)
                : d > 0 ? String.format(Locale.ROOT, ", %d iterations done", d) : "";
        return String.format(Locale.ROOT, "%s: %.0f s, %s%s", label, (System.nanoTime() - start) / 1e9, phase, count);
    }

    /** A running printer: closing it stops it. */
    interface Watch extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * The period {@code value} of {@value #PERIOD_ENV} sets, or {@link #PERIOD_S} when it is unset or empty.
     *
     * @throws IllegalArgumentException naming the variable and what it takes, when {@code value} is not 1..3600.
     */
    static long periodSeconds(String value) {
        if (value == null || value.isBlank()) {
            return PERIOD_S;
        }
        long s;
        try {
            s = Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            s = -1;
        }
        if (s < 1 || s > 3600) {
            throw new SettingException(PERIOD_ENV + "=" + value + ": expected whole seconds between progress lines, "
                    + "1..3600 (unset: " + PERIOD_S + ")");
        }
        return s;
    }

    /**
     * Prints this progress to stderr every {@link #periodSeconds period} (5 s unless {@value #PERIOD_ENV} says
     * otherwise), from one period on; close the result to stop. {@link #NONE} prints nothing.
     */
    Watch watch() {
        if (this == NONE) {
            return () -> { };
        }
        long period = periodSeconds(System.getenv(PERIOD_ENV));
        ScheduledExecutorService printer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "es-progress");
            t.setDaemon(true);
            return t;
        });
        printer.scheduleAtFixedRate(() -> System.err.println("eventspace: " + this), period, period, TimeUnit.SECONDS);
        return printer::shutdownNow;
    }
}
