package org.eventspace.wan;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads a WAN link file ({@value #HEADER} {@value #VERSION}) and the series files it names, as docs/WAN-FORMAT.md
 * describes them, into a validated {@link WanLayout}. Every error is a {@link WanFileException} naming the file, the
 * line and what was expected. Stateless; thread-safe.
 */
public final class WanFile {
    public static final String HEADER = "eventspace-wan";
    public static final String SERIES_HEADER = "eventspace-wan-series";
    public static final int VERSION = 1;
    /** Sanity limits: an extra digit fails here with its line, not as an emulated link of a year. */
    public static final double MAX_LATENCY_MS = 60_000;
    public static final double MAX_BANDWIDTH_MBIT = 1_000_000;
    /** 1 kbit/s: the largest payload (2^24 words) then takes 37 hours on the wire, and no delay overflows a long. */
    public static final double MIN_BANDWIDTH_MBIT = 0.001;
    public static final int MAX_SITES = 256;
    public static final int MAX_SAMPLES = 10_000_000;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    private WanFile() {
    }

    /** Reads {@code file}; series files are found relative to its folder. */
    public static WanLayout read(Path file) {
        String source = file.toString();
        return parse(lines(file, source), source, file.toAbsolutePath().getParent());
    }

    /**
     * Parses link-file text; {@code folder} is where series files are looked up (null: series are refused).
     *
     * @throws WanFileException naming {@code source}, the line and what was expected.
     */
    public static WanLayout parse(List<String> lines, String source, Path folder) {
        int n = 0;
        boolean header = false;
        Map<String, Site> sites = new LinkedHashMap<>();
        Map<String, LinkDirection> links = new LinkedHashMap<>();
        for (String raw : lines) {
            n++;
            String text = strip(raw);
            if (text.isEmpty()) {
                continue;
            }
            String[] words = text.split("\\s+");
            if (!header) {
                checkHeader(words, HEADER, source, n);
                header = true;
                continue;
            }
            switch (words[0]) {
                case "site" -> {
                    Site site = site(words, source, n);
                    if (sites.containsKey(site.name())) {
                        throw new WanFileException(source, n, "site '" + site.name() + "' was declared on line "
                                + sites.get(site.name()).line() + " already");
                    }
                    if (sites.size() == MAX_SITES) {
                        throw new WanFileException(source, n, "more than " + MAX_SITES + " sites");
                    }
                    sites.put(site.name(), site);
                }
                case "link" -> {
                    LinkDirection link = link(words, source, n, sites, folder);
                    LinkDirection before = links.putIfAbsent(link.name(), link);
                    if (before != null) {
                        throw new WanFileException(source, n, "link " + link.from() + " " + link.to()
                                + " was configured on line " + before.line() + " already (one line per direction)");
                    }
                }
                default -> throw new WanFileException(source, n, "expected a 'site NAME …' or 'link FROM TO …' line, got '"
                        + shorten(words[0]) + "'");
            }
        }
        if (!header) {
            throw new WanFileException(source, 0, "empty: expected the header '" + HEADER + " " + VERSION + "'");
        }
        if (sites.size() < 2) {
            throw new WanFileException(source, 0, "expected at least 2 sites, found " + sites.size());
        }
        if (links.isEmpty()) {
            throw new WanFileException(source, 0, "expected at least one 'link FROM TO …' line");
        }
        List<Site> list = new ArrayList<>(sites.values());
        boolean named = list.get(0).cluster() != null;
        for (Site s : list) {
            if ((s.cluster() != null) != named) {
                throw new WanFileException(source, s.line(), "either every site names its cluster= or none does (site '"
                        + list.get(0).name() + "' on line " + list.get(0).line() + (named ? " does" : " does not") + ")");
            }
        }
        return new WanLayout(source, list, links);
    }

    private static Site site(String[] words, String source, int n) {
        if (words.length < 2) {
            throw new WanFileException(source, n, "expected 'site NAME [cluster=CLUSTER] [gateway=HOST]'");
        }
        String name = name(words[1], "site name", source, n);
        Map<String, String> options = options(words, 2, source, n, "cluster", "gateway");
        String cluster = options.get("cluster");
        String gateway = options.get("gateway");
        return new Site(name, cluster == null ? null : name(cluster, "cluster", source, n),
                gateway == null ? null : name(gateway, "gateway host", source, n), n);
    }

    private static LinkDirection link(String[] words, String source, int n, Map<String, Site> sites, Path folder) {
        if (words.length < 3) {
            throw new WanFileException(source, n, "expected 'link FROM TO latency_ms=… bandwidth_mbit_s=…'");
        }
        String from = declared(words[1], sites, source, n);
        String to = declared(words[2], sites, source, n);
        if (from.equals(to)) {
            throw new WanFileException(source, n, "a link joins two different sites, got " + from + " to itself");
        }
        Map<String, String> options = options(words, 3, source, n, "latency_ms", "latency_series", "bandwidth_mbit_s",
                "bandwidth_series");
        LinkSeries latency = value(options, "latency_ms", "latency_series", 0, MAX_LATENCY_MS, false, source, n, folder);
        LinkSeries bandwidth = value(options, "bandwidth_mbit_s", "bandwidth_series", MIN_BANDWIDTH_MBIT,
                MAX_BANDWIDTH_MBIT, false, source, n, folder);
        return new LinkDirection(from, to, latency, bandwidth, n);
    }

    /** The constant {@code constKey} or the series file {@code seriesKey}: exactly one of them. */
    private static LinkSeries value(Map<String, String> options, String constKey, String seriesKey, double min,
                                    double max, boolean exclusiveMin, String source, int n, Path folder) {
        String constant = options.get(constKey);
        String series = options.get(seriesKey);
        if ((constant == null) == (series == null)) {
            throw new WanFileException(source, n, "expected exactly one of " + constKey + "=NUMBER or " + seriesKey
                    + "=FILE" + (constant != null ? ", got both" : ""));
        }
        if (constant != null) {
            return LinkSeries.constant(number(constant, constKey, min, max, exclusiveMin, source, n));
        }
        if (folder == null) {
            throw new WanFileException(source, n, seriesKey + " needs a link file on disk to find " + series + " from");
        }
        Path file = folder.resolve(series);
        String unit = constKey.substring(constKey.indexOf('_') + 1);
        try {
            return readSeries(file, unit, min, max, exclusiveMin);
        } catch (WanFileException e) {
            throw new WanFileException(source, n, seriesKey + "=" + series + ": " + e.getMessage());
        }
    }

    /**
     * Reads a series file: the header {@value #SERIES_HEADER} {@value #VERSION}, then lines {@code TIME_S VALUE}
     * with strictly increasing times ≥ 0 in seconds since the emulation started.
     */
    static LinkSeries readSeries(Path file, String unit, double min, double max, boolean exclusiveMin) {
        String source = file.toString();
        List<String> lines = lines(file, source);
        long[] t = new long[16];
        double[] v = new double[16];
        int count = 0;
        boolean header = false;
        int n = 0;
        for (String raw : lines) {
            n++;
            String text = strip(raw);
            if (text.isEmpty()) {
                continue;
            }
            String[] words = text.split("\\s+");
            if (!header) {
                checkHeader(words, SERIES_HEADER, source, n);
                header = true;
                continue;
            }
            if (words.length != 2) {
                throw new WanFileException(source, n, "expected 'TIME_S VALUE' (seconds since the start, " + unit
                        + "), got " + words.length + " fields");
            }
            double seconds = number(words[0], "time in seconds", 0, 1e7, false, source, n);
            long ns = Math.round(seconds * 1e9);
            if (count > 0 && ns <= t[count - 1]) {
                throw new WanFileException(source, n, "expected a time after the previous sample's "
                        + t[count - 1] / 1e9 + " s, got " + words[0]);
            }
            if (count == MAX_SAMPLES) {
                throw new WanFileException(source, n, "more than " + MAX_SAMPLES + " samples");
            }
            if (count == t.length) {
                t = java.util.Arrays.copyOf(t, 2 * count);
                v = java.util.Arrays.copyOf(v, 2 * count);
            }
            t[count] = ns;
            v[count] = number(words[1], unit, min, max, exclusiveMin, source, n);
            count++;
        }
        if (!header) {
            throw new WanFileException(source, 0, "empty: expected the header '" + SERIES_HEADER + " " + VERSION + "'");
        }
        if (count == 0) {
            throw new WanFileException(source, 0, "expected at least one 'TIME_S VALUE' sample");
        }
        return LinkSeries.of(java.util.Arrays.copyOf(t, count), java.util.Arrays.copyOf(v, count));
    }

    private static void checkHeader(String[] words, String expected, String source, int n) {
        if (!words[0].equals(expected) || words.length != 2) {
            throw new WanFileException(source, n, "expected the header '" + expected + " " + VERSION + "' first, got '"
                    + shorten(String.join(" ", words)) + "'");
        }
        if (!words[1].equals(Integer.toString(VERSION))) {
            throw new WanFileException(source, n, "version " + shorten(words[1]) + " is not one this build reads ("
                    + VERSION + ")");
        }
    }

    private static Map<String, String> options(String[] words, int from, String source, int n, String... allowed) {
        Map<String, String> options = new LinkedHashMap<>();
        List<String> keys = List.of(allowed);
        for (int i = from; i < words.length; i++) {
            int eq = words[i].indexOf('=');
            if (eq <= 0 || eq == words[i].length() - 1) {
                throw new WanFileException(source, n, "expected KEY=VALUE (" + String.join(", ", keys) + "), got '"
                        + shorten(words[i]) + "'");
            }
            String key = words[i].substring(0, eq);
            if (!keys.contains(key)) {
                throw new WanFileException(source, n, "unknown key '" + shorten(key) + "'; expected one of "
                        + String.join(", ", keys));
            }
            if (options.put(key, words[i].substring(eq + 1)) != null) {
                throw new WanFileException(source, n, "key '" + key + "' is given twice");
            }
        }
        return options;
    }

    private static String declared(String word, Map<String, Site> sites, String source, int n) {
        if (!sites.containsKey(word)) {
            List<String> known = new ArrayList<>(sites.keySet());
            String list = known.size() <= 8 ? known.toString()
                    : String.join(", ", known.subList(0, 8)) + ", … (" + known.size() + " sites)";
            throw new WanFileException(source, n, "unknown site '" + shorten(word) + "'; declare it with a 'site' line "
                    + "before its links (sites so far: " + list + ")");
        }
        return word;
    }

    private static String name(String word, String what, String source, int n) {
        if (!NAME.matcher(word).matches()) {
            throw new WanFileException(source, n, "expected a " + what + " of letters, digits, '.', '_' or '-' (at most "
                    + "64), got '" + shorten(word) + "'");
        }
        return word;
    }

    private static double number(String word, String what, double min, double max, boolean exclusiveMin, String source,
                                 int n) {
        double value;
        try {
            value = Double.parseDouble(word);
        } catch (NumberFormatException e) {
            throw new WanFileException(source, n, "expected a number for " + what + ", got '" + shorten(word) + "'");
        }
        if (!Double.isFinite(value) || value > max || (exclusiveMin ? value <= min : value < min)) {
            throw new WanFileException(source, n, "expected " + what + (exclusiveMin ? " > " : " >= ") + fmt(min)
                    + " and <= " + fmt(max) + ", got " + shorten(word));
        }
        return value;
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

    private static List<String> lines(Path file, String source) {
        try {
            return Files.readAllLines(file);
        } catch (NoSuchFileException e) {
            throw new WanFileException(source, 0, "no such file");
        } catch (MalformedInputException e) {
            throw new WanFileException(source, 0, "not UTF-8 text");
        } catch (IOException e) {
            throw new WanFileException(source, 0, "cannot be read: " + e.getMessage());
        }
    }

    private static String strip(String line) {
        int hash = line.indexOf('#');
        return (hash >= 0 ? line.substring(0, hash) : line).strip();
    }

    private static String shorten(String s) {
        return s.length() <= 60 ? s : s.substring(0, 60) + "…";
    }
}
