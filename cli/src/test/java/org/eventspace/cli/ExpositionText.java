package org.eventspace.cli;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A strict parser of Prometheus' text exposition format 0.0.4 and of OpenMetrics 1.0 text, for the tests of
 * {@code /metrics}: every line must be a {@code # HELP}, {@code # TYPE} (OpenMetrics also {@code # UNIT} and the final
 * {@code # EOF}) or a sample {@code name{label="value",...} number}, with the formats' escapes, names and numbers; every
 * sample must belong to the family whose {@code # TYPE} came before it, families must not interleave, and no series
 * may appear twice. Anything else fails with the line's number and what was expected.
 */
final class ExpositionText {
    /** One sample: its name as written (with {@code _total} or {@code _info}), its labels, its value. */
    record Sample(String name, Map<String, String> labels, double value) {
    }

    private static final Set<String> PROMETHEUS_TYPES = Set.of("counter", "gauge", "histogram", "summary", "untyped");
    private static final Set<String> OPEN_METRICS_TYPES = Set.of("counter", "gauge", "histogram", "gaugehistogram",
            "stateset", "info", "summary", "unknown");

    private final Map<String, String> types = new LinkedHashMap<>();
    private final Map<String, String> helps = new LinkedHashMap<>();
    private final Map<String, String> units = new LinkedHashMap<>();
    private final List<Sample> samples = new ArrayList<>();

    private ExpositionText() {
    }

    /** Prometheus' text format 0.0.4. */
    static ExpositionText prometheus(String text) {
        return parse(text, false);
    }

    /** OpenMetrics 1.0 text. */
    static ExpositionText openMetrics(String text) {
        return parse(text, true);
    }

    /** Family name to type, in order. */
    Map<String, String> types() {
        return types;
    }

    Map<String, String> helps() {
        return helps;
    }

    Map<String, String> units() {
        return units;
    }

    List<Sample> samples() {
        return samples;
    }

    /** The samples named {@code name}. */
    List<Sample> series(String name) {
        return samples.stream().filter(s -> s.name().equals(name)).toList();
    }

    /** The one sample named {@code name} whose labels include {@code labels} (name, value, …); fails unless exactly one. */
    double value(String name, String... labels) {
        Map<String, String> want = new TreeMap<>();
        for (int i = 0; i < labels.length; i += 2) {
            want.put(labels[i], labels[i + 1]);
        }
        List<Sample> found = samples.stream().filter(s -> s.name().equals(name)
                && s.labels().entrySet().containsAll(want.entrySet())).toList();
        if (found.size() != 1) {
            throw new AssertionError("expected one sample " + name + want + ", found " + found.size() + ": " + found);
        }
        return found.get(0).value();
    }

    /** Whether a sample named {@code name} exists. */
    boolean has(String name) {
        return samples.stream().anyMatch(s -> s.name().equals(name));
    }

    private static ExpositionText parse(String text, boolean open) {
        ExpositionText out = new ExpositionText();
        if (!text.endsWith("\n")) {
            throw new AssertionError("the exposition must end with a newline");
        }
        String[] lines = text.substring(0, text.length() - 1).split("\n", -1);
        String family = null;
        Set<String> closed = new HashSet<>();
        Set<String> seen = new HashSet<>();
        boolean eof = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            String where = "line " + (i + 1) + " '" + line + "'";
            if (eof) {
                throw new AssertionError(where + ": nothing may follow # EOF");
            }
            if (line.isEmpty()) {
                if (open) {
                    throw new AssertionError(where + ": OpenMetrics has no empty lines");
                }
                continue;
            }
            if (line.startsWith("#")) {
                if (open && line.equals("# EOF")) {
                    eof = true;
                    continue;
                }
                String[] parts = line.split(" ", 4);
                if (parts.length < 3 || !parts[0].equals("#")) {
                    throw new AssertionError(where + ": expected '# HELP name text', '# TYPE name type'"
                            + (open ? ", '# UNIT name unit' or '# EOF'" : ""));
                }
                String name = parts[2];
                checkName(name, where);
                switch (parts[1]) {
                    case "TYPE" -> {
                        String type = parts.length == 4 ? parts[3] : "";
                        if (!(open ? OPEN_METRICS_TYPES : PROMETHEUS_TYPES).contains(type)) {
                            throw new AssertionError(where + ": unknown type '" + type + "'");
                        }
                        if (out.types.containsKey(name)) {
                            throw new AssertionError(where + ": a second # TYPE for " + name);
                        }
                        if (family != null && !family.equals(name)) {
                            closed.add(family);
                        }
                        if (closed.contains(name)) {
                            throw new AssertionError(where + ": family " + name + " interleaved with another");
                        }
                        out.types.put(name, type);
                        family = name;
                    }
                    case "HELP" -> {
                        if (out.helps.containsKey(name)) {
                            throw new AssertionError(where + ": a second # HELP for " + name);
                        }
                        out.helps.put(name, unescape(parts.length == 4 ? parts[3] : "", open, false, where));
                    }
                    case "UNIT" -> {
                        if (!open) {
                            throw new AssertionError(where + ": # UNIT is OpenMetrics only");
                        }
                        String unit = parts.length == 4 ? parts[3] : "";
                        if (!name.endsWith("_" + unit)) {
                            throw new AssertionError(where + ": the unit must be the name's suffix");
                        }
                        out.units.put(name, unit);
                    }
                    default -> throw new AssertionError(where + ": expected HELP, TYPE" + (open ? ", UNIT" : ""));
                }
                continue;
            }
            Sample s = sample(line, open, where);
            String owner = owner(out.types, s.name(), open);
            if (owner == null || !owner.equals(family)) {
                throw new AssertionError(where + ": sample " + s.name() + " does not belong to the family whose # TYPE came "
                        + "last (" + family + ")");
            }
            if (!seen.add(s.name() + new TreeMap<>(s.labels()))) {
                throw new AssertionError(where + ": series given twice");
            }
            out.samples.add(s);
        }
        if (open && !eof) {
            throw new AssertionError("OpenMetrics must end with '# EOF'");
        }
        return out;
    }

    /** The family a sample belongs to: its own name, or (OpenMetrics) the name without the type's suffix. */
    private static String owner(Map<String, String> types, String sample, boolean open) {
        if (types.containsKey(sample)) {
            String t = types.get(sample);
            return !open || t.equals("gauge") || t.equals("unknown") ? sample : null;
        }
        if (open) {
            for (String suffix : List.of("_total", "_created", "_info")) {
                if (sample.endsWith(suffix)) {
                    String f = sample.substring(0, sample.length() - suffix.length());
                    String t = types.get(f);
                    if (t != null && (suffix.equals("_info") ? t.equals("info") : t.equals("counter"))) {
                        return f;
                    }
                }
            }
        }
        return null;
    }

    private static Sample sample(String line, boolean open, String where) {
        int i = 0;
        while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ') {
            i++;
        }
        String name = line.substring(0, i);
        checkName(name, where);
        Map<String, String> labels = new LinkedHashMap<>();
        if (i < line.length() && line.charAt(i) == '{') {
            i++;
            while (true) {
                if (i < line.length() && line.charAt(i) == '}') {
                    i++;
                    break;
                }
                int eq = line.indexOf('=', i);
                if (eq < 0) {
                    throw new AssertionError(where + ": expected label=\"value\" at column " + (i + 1));
                }
                String label = line.substring(i, eq);
                if (!label.matches("[a-zA-Z_][a-zA-Z0-9_]*")) {
                    throw new AssertionError(where + ": bad label name '" + label + "'");
                }
                if (eq + 1 >= line.length() || line.charAt(eq + 1) != '"') {
                    throw new AssertionError(where + ": a label value must be quoted");
                }
                StringBuilder raw = new StringBuilder();
                int j = eq + 2;
                for (; j < line.length() && line.charAt(j) != '"'; j++) {
                    raw.append(line.charAt(j));
                    if (line.charAt(j) == '\\') {
                        if (j + 1 >= line.length()) {
                            throw new AssertionError(where + ": a label value ends in a lone backslash");
                        }
                        raw.append(line.charAt(++j));
                    }
                }
                if (j >= line.length()) {
                    throw new AssertionError(where + ": unterminated label value");
                }
                if (labels.put(label, unescape(raw.toString(), open, true, where)) != null) {
                    throw new AssertionError(where + ": label " + label + " given twice");
                }
                i = j + 1;
                if (i < line.length() && line.charAt(i) == ',') {
                    i++;
                    if (open && i < line.length() && line.charAt(i) == '}') {
                        throw new AssertionError(where + ": OpenMetrics has no trailing comma in labels");
                    }
                } else if (i >= line.length() || line.charAt(i) != '}') {
                    throw new AssertionError(where + ": expected ',' or '}' after a label value");
                }
            }
        }
        if (i >= line.length() || line.charAt(i) != ' ') {
            throw new AssertionError(where + ": expected one space and a value after the name and labels");
        }
        String[] rest = line.substring(i + 1).split(" ", -1);
        if (rest.length > 2 || rest[0].isEmpty()) {
            throw new AssertionError(where + ": expected 'value' or 'value timestamp'");
        }
        double value = number(rest[0], where);
        if (rest.length == 2) {
            number(rest[1], where);
        }
        return new Sample(name, labels, value);
    }

    private static double number(String text, String where) {
        switch (text) {
            case "+Inf":
                return Double.POSITIVE_INFINITY;
            case "-Inf":
                return Double.NEGATIVE_INFINITY;
            case "NaN":
                return Double.NaN;
            default:
                if (!text.matches("[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?")) {
                    throw new AssertionError(where + ": '" + text + "' is not a number");
                }
                return Double.parseDouble(text);
        }
    }

    private static void checkName(String name, String where) {
        if (!name.matches("[a-zA-Z_:][a-zA-Z0-9_:]*")) {
            throw new AssertionError(where + ": bad metric name '" + name + "'");
        }
    }

    /** The formats' escapes: backslash, newline, and (in label values, and OpenMetrics' HELP) the double quote. */
    private static String unescape(String raw, boolean open, boolean labelValue, String where) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c != '\\') {
                if (labelValue && c == '"') {
                    throw new AssertionError(where + ": an unescaped quote in a label value");
                }
                b.append(c);
                continue;
            }
            if (++i >= raw.length()) {
                throw new AssertionError(where + ": a lone backslash");
            }
            char e = raw.charAt(i);
            switch (e) {
                case '\\' -> b.append('\\');
                case 'n' -> b.append('\n');
                case '"' -> {
                    if (!labelValue && !open) {
                        throw new AssertionError(where + ": '\\\"' is no escape in Prometheus' HELP text");
                    }
                    b.append('"');
                }
                default -> throw new AssertionError(where + ": unknown escape '\\" + e + "'");
            }
        }
        return b.toString();
    }
}
