package org.eventspace.ui;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The page's files, shipped in the jar (no CDN: clusters are often offline; no front-end build): the page, its style
 * and its script, hand-written, drawing with SVG and canvas. Read once and kept. Thread-safe.
 */
public final class DashboardAssets {
    /** Every file the server gives out under {@code /} and {@code /assets/}. */
    public static final List<String> NAMES = List.of("index.html", "dashboard.css", "dashboard.js");
    private static final String FOLDER = "/org/eventspace/ui/dashboard/";
    private static final Map<String, byte[]> CACHE = new ConcurrentHashMap<>();

    private DashboardAssets() {
    }

    /** The bytes of asset {@code name}, one of {@link #NAMES}. */
    public static byte[] bytes(String name) {
        if (!NAMES.contains(name)) {
            throw new IllegalArgumentException("no dashboard asset named '" + name + "'; expected one of " + NAMES);
        }
        return CACHE.computeIfAbsent(name, n -> {
            try (InputStream in = DashboardAssets.class.getResourceAsStream(FOLDER + n)) {
                if (in == null) {
                    throw new IllegalStateException("the jar lacks the dashboard's " + FOLDER + n);
                }
                return in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    public static String text(String name) {
        return new String(bytes(name), StandardCharsets.UTF_8);
    }
}
