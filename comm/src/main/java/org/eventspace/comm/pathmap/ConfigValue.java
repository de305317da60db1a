package org.eventspace.comm.pathmap;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;

/**
 * A JSON value that remembers where it was: source, line, column and field path. Jackson's tree model drops
 * locations, so {@link #parse} walks Jackson's streaming parser and keeps them; every accessor that finds the
 * wrong thing throws a {@link PathmapConfigException} pointing at the value (or at its key, for names).
 *
 * <p>Immutable after parsing; not part of the package's API.
 */
final class ConfigValue {
    enum Type { OBJECT, ARRAY, STRING, INTEGER, DECIMAL, BOOLEAN, NULL }

    private static final JsonFactory JSON = new JsonFactory();
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final String source;
    private final String path;
    private final Type type;
    private final int line;
    private final int column;
    private final int keyLine;
    private final int keyColumn;
    private final String text;
    private final Map<String, ConfigValue> members;
    private final List<ConfigValue> items;

    private ConfigValue(String source, String path, Type type, JsonLocation at, JsonLocation key, String text,
                        Map<String, ConfigValue> members, List<ConfigValue> items) {
        this.source = source;
        this.path = path;
        this.type = type;
        this.line = at.getLineNr();
        this.column = at.getColumnNr();
        this.keyLine = key == null ? line : key.getLineNr();
        this.keyColumn = key == null ? column : key.getColumnNr();
        this.text = text;
        this.members = members;
        this.items = items;
    }

    /** Parses one JSON document; trailing content, duplicate keys and an empty text are errors. */
    static ConfigValue parse(String json, String source) {
        try (JsonParser parser = JSON.createParser(json)) {
            try {
                if (parser.nextToken() == null) {
                    throw new PathmapConfigException(source, 1, 1, "", "expected a JSON object, got an empty file");
                }
                ConfigValue root = read(parser, source, "", null);
                if (parser.nextToken() != null) {
                    JsonLocation at = parser.currentTokenLocation();
                    throw new PathmapConfigException(source, at.getLineNr(), at.getColumnNr(), "",
                            "unexpected content after the end of the document");
                }
                return root;
            } catch (JacksonException e) {
                JsonLocation at = e.getLocation() != null ? e.getLocation() : parser.currentLocation();
                throw new PathmapConfigException(source, at.getLineNr(), at.getColumnNr(),
                        pathOf(parser.getParsingContext()), "invalid JSON: " + e.getOriginalMessage());
            }
        } catch (IOException e) {
            // Only reachable from close(); parsing a String does no I/O.
            throw new IllegalStateException(e);
        }
    }

    private static ConfigValue read(JsonParser p, String source, String path, JsonLocation key) throws IOException {
        JsonLocation at = p.currentTokenLocation();
        JsonToken token = p.currentToken();
        switch (token) {
            case START_OBJECT: {
                Map<String, ConfigValue> members = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    JsonLocation nameAt = p.currentTokenLocation();
                    ConfigValue first = members.get(name);
                    if (first != null) {
                        throw new PathmapConfigException(source, nameAt.getLineNr(), nameAt.getColumnNr(),
                                member(path, name), "duplicate field, first given at " + first.keyLine + ":"
                                + first.keyColumn);
                    }
                    p.nextToken();
                    members.put(name, read(p, source, member(path, name), nameAt));
                }
                return new ConfigValue(source, path, Type.OBJECT, at, key, null, members, List.of());
            }
            case START_ARRAY: {
                List<ConfigValue> items = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    items.add(read(p, source, path + "[" + items.size() + "]", null));
                }
                return new ConfigValue(source, path, Type.ARRAY, at, key, null, Map.of(), items);
            }
            case VALUE_STRING:
                return scalar(source, path, Type.STRING, at, key, p.getText());
            case VALUE_NUMBER_INT:
                return scalar(source, path, Type.INTEGER, at, key, p.getText());
            case VALUE_NUMBER_FLOAT:
                return scalar(source, path, Type.DECIMAL, at, key, p.getText());
            case VALUE_TRUE:
            case VALUE_FALSE:
                return scalar(source, path, Type.BOOLEAN, at, key, p.getText());
            case VALUE_NULL:
                return scalar(source, path, Type.NULL, at, key, "null");
            default:
                throw new IllegalStateException("unexpected token " + token + " at " + at);
        }
    }

    private static ConfigValue scalar(String source, String path, Type type, JsonLocation at, JsonLocation key,
                                      String text) {
        return new ConfigValue(source, path, type, at, key, text, Map.of(), List.of());
    }

    private static String member(String path, String name) {
        String step = IDENTIFIER.matcher(name).matches() ? name : "[\"" + name + "\"]";
        return path.isEmpty() || step.startsWith("[") ? path + step : path + "." + step;
    }

    /** The field path Jackson was in when it failed, in our notation. */
    private static String pathOf(JsonStreamContext context) {
        Deque<JsonStreamContext> chain = new ArrayDeque<>();
        for (JsonStreamContext c = context; c != null && !c.inRoot(); c = c.getParent()) {
            chain.push(c);
        }
        String path = "";
        for (JsonStreamContext c : chain) {
            if (c.inObject() && c.getCurrentName() != null) {
                path = member(path, c.getCurrentName());
            } else if (c.inArray() && c.getCurrentIndex() >= 0) {
                path = path + "[" + c.getCurrentIndex() + "]";
            }
        }
        return path;
    }

    int line() {
        return line;
    }

    int column() {
        return column;
    }

    /** An error located at this value. */
    PathmapConfigException error(String problem) {
        return new PathmapConfigException(source, line, column, path, problem);
    }

    /** An error located at this value's key: for values that are names, or fields that are not wanted. */
    PathmapConfigException keyError(String problem) {
        return new PathmapConfigException(source, keyLine, keyColumn, path, problem);
    }

    boolean is(Type t) {
        return type == t;
    }

    /** Checks this is an object whose fields are all among {@code allowed} (typos must not be ignored). */
    ConfigValue object(String... allowed) {
        expect(Type.OBJECT, "an object");
        List<String> names = List.of(allowed);
        for (Map.Entry<String, ConfigValue> m : members.entrySet()) {
            if (!names.contains(m.getKey())) {
                String hint = nearest(m.getKey(), names);
                throw m.getValue().keyError("unknown field" + (hint == null ? "" : " (did you mean \"" + hint + "\"?)")
                        + "; expected " + String.join(", ", names));
            }
        }
        return this;
    }

    /** A required member of this object; missing is reported at the object, under the member's path. */
    ConfigValue member(String name) {
        ConfigValue m = members.get(name);
        if (m == null) {
            throw new PathmapConfigException(source, line, column, member(path, name), "missing required field");
        }
        return m;
    }

    /** An optional member, or null. */
    ConfigValue optional(String name) {
        return members.get(name);
    }

    /** Members of this object in file order. */
    Map<String, ConfigValue> members() {
        expect(Type.OBJECT, "an object");
        return members;
    }

    /** Items of this array, at least {@code min} of them. */
    List<ConfigValue> items(int min, String what) {
        expect(Type.ARRAY, "an array of " + what);
        if (items.size() < min) {
            throw error("expected at least " + min + " " + what + ", got " + items.size());
        }
        return items;
    }

    String string() {
        expect(Type.STRING, "a string");
        return text;
    }

    /** An integer in {@code [min, max]}; decimals, strings and out-of-range values are errors. */
    int integer(int min, int max) {
        expect(Type.INTEGER, "an integer");
        long v;
        try {
            v = Long.parseLong(text);
        } catch (NumberFormatException e) {
            v = text.startsWith("-") ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        if (v < min || v > max) {
            throw error("expected an integer in " + min + ".." + max + ", got " + text);
        }
        return (int) v;
    }

    /** How this value is shown in a message: strings quoted, numbers as written, containers by kind. */
    String shown() {
        return switch (type) {
            case OBJECT -> "an object";
            case ARRAY -> "an array";
            case STRING -> "\"" + text + "\"";
            default -> text;
        };
    }

    private void expect(Type wanted, String what) {
        if (type != wanted) {
            throw error("expected " + what + ", got " + shown());
        }
    }

    /** The allowed name closest to {@code key} by edit distance, if it is close enough to be a typo. */
    private static String nearest(String key, List<String> allowed) {
        String best = null;
        int bestDistance = 3;
        for (String a : allowed) {
            int d = editDistance(key.toLowerCase(), a.toLowerCase());
            if (d < bestDistance) {
                best = a;
                bestDistance = d;
            }
        }
        return best;
    }

    private static int editDistance(String a, String b) {
        int[] row = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            row[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            int diagonal = row[0];
            row[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int up = row[j];
                row[j] = Math.min(Math.min(row[j] + 1, row[j - 1] + 1),
                        diagonal + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
                diagonal = up;
            }
        }
        return row[b.length()];
    }
}
