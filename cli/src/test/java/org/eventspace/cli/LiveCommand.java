package org.eventspace.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.eventspace.comm.launch.Launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The eventspace command in a process of its own (a real process, as a user starts it), its output read as it comes,
 * the dashboard address it prints found, and the API read over loopback; {@link #close} ends it and every process it
 * started. For the tests of {@code --serve} on jobs of several processes.
 */
final class LiveCommand implements AutoCloseable {
    private static final Pattern URL = Pattern.compile("dashboard: (http://127\\.0\\.0\\.1:\\d+/)");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private final CompletableFuture<String> url = new CompletableFuture<>();
    private final List<Thread> pumps = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private LiveCommand(Process process) {
        this.process = process;
        pump(process.getInputStream(), "out");
        pump(process.getErrorStream(), "err");
    }

    static LiveCommand start(List<String> args) throws IOException {
        return new LiveCommand(new ProcessBuilder(Launcher.javaCommand(EventSpaceCommand.class.getName(), args)).start());
    }

    private void pump(java.io.InputStream in, String name) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (lines) {
                        lines.add(line);
                    }
                    Matcher m = URL.matcher(line);
                    if (m.find()) {
                        url.complete(m.group(1));
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
        }, "test-pump-" + name);
        t.setDaemon(true);
        t.start();
        pumps.add(t);
    }

    String awaitUrl(Duration bound) throws Exception {
        try {
            return url.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("no dashboard address within " + bound + "; output:\n" + output());
        }
    }

    /** The answer's JSON, or null if the server did not answer 200 (not up yet, or gone). */
    JsonNode get(String address) throws InterruptedException {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(address)).timeout(Duration.ofSeconds(5))
                    .build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? JSON.readTree(r.body()) : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** The answer's text, or null if the server did not answer 200 (not up yet, or gone). */
    String text(String address) throws InterruptedException {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(address)).timeout(Duration.ofSeconds(5))
                    .build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body() : null;
        } catch (IOException e) {
            return null;
        }
    }

    Process process() {
        return process;
    }

    String output() {
        synchronized (lines) {
            return String.join("\n", lines);
        }
    }

    @Override
    public void close() throws InterruptedException {
        // The command's host processes are ours too: end them even if the command does not.
        List<ProcessHandle> hosts = process.descendants().toList();
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
        hosts.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        for (Thread t : pumps) {
            t.join(5_000);
        }
    }
}
