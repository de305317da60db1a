package org.eventspace.fuzz;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What a server's threads say while it is fuzzed: every line they print to {@code System.err} (kept here, not shown:
 * a fuzzed server logs a refusal per case) and every exception that escapes a thread. comm's agents print an error
 * that escapes their duty cycle as {@code es-agent <role>: <error>} ({@code AgentThreads}), so such a line, like an
 * uncaught exception, means a server thread failed.
 *
 * <p>{@link #install()} replaces {@code System.err} and the default uncaught-exception handler for the whole JVM
 * until {@link #close()}: one watch at a time. Thread-safe.
 */
final class ServerWatch implements AutoCloseable {
    private final List<String> lines = new ArrayList<>();
    private final List<String> uncaught = new ArrayList<>();
    private final int maxLineChars;
    private PrintStream originalErr;
    private Thread.UncaughtExceptionHandler originalHandler;

    /** @param maxLineChars the longest line a server may print (its format's bound on the text it echoes). */
    ServerWatch(int maxLineChars) {
        this.maxLineChars = maxLineChars;
    }

    ServerWatch install() {
        originalErr = System.err;
        originalHandler = Thread.getDefaultUncaughtExceptionHandler();
        System.setErr(new PrintStream(new LineCollector(), true, StandardCharsets.UTF_8));
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            synchronized (this) {
                uncaught.add(t.getName() + ": " + e);
            }
        });
        return this;
    }

    /** The lines printed and exceptions thrown since the last call, checked: none escaped, every line bounded. */
    synchronized List<String> check() {
        List<String> said = List.copyOf(lines);
        List<String> escaped = List.copyOf(uncaught);
        lines.clear();
        uncaught.clear();
        if (!escaped.isEmpty()) {
            throw new FuzzCase.CheckFailed("an exception escaped a server thread: " + FuzzCase.cut(escaped.get(0), 500));
        }
        for (String line : said) {
            FuzzCase.check(!line.startsWith("es-agent "), "a server thread failed: " + FuzzCase.cut(line, 500));
            FuzzCase.check(line.length() <= maxLineChars, "the server logged a line of " + line.length()
                    + " characters, more than " + maxLineChars + ": " + FuzzCase.cut(line, 200));
        }
        return said;
    }

    /** Forgets what was said so far (before a case, what earlier cases' stragglers said). */
    synchronized void clear() {
        lines.clear();
        uncaught.clear();
    }

    private synchronized void add(String line) {
        lines.add(line);
    }

    @Override
    public void close() {
        if (originalErr != null) {
            System.err.flush();
            System.setErr(originalErr);
            Thread.setDefaultUncaughtExceptionHandler(originalHandler);
            originalErr = null;
        }
    }

    /** Splits what is written into lines. */
    private final class LineCollector extends OutputStream {
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
            if (b == '\n') {
                add(line.toString(StandardCharsets.UTF_8));
                line.reset();
            } else {
                line.write(b);
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            for (int i = off; i < off + len; i++) {
                write(b[i]);
            }
        }
    }
}
