package org.eventspace.comm.pathmap;

import java.util.Iterator;
import java.util.Map;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * Prints a Jackson tree for people and diffs alike: a container that fits on one line of the given width
 * ({@value #WIDTH} characters for files people edit) is printed on one line ({@code {"name": "h0", "cpus": 2}}),
 * a longer one is broken one member per line, and a long array of scalars is filled line by line. Jackson's
 * default pretty printer puts every field of every host on its own line: a 64-host topology becomes 300 lines.
 */
final class JsonPrinter {
    static final int WIDTH = 100;
    private static final String INDENT = "  ";

    private JsonPrinter() {
    }

    /** The whole document, ending with a newline. */
    static String print(JsonNode root, int width) {
        StringBuilder out = new StringBuilder();
        print(root, "", width, out);
        return out.append('\n').toString();
    }

    private static void print(JsonNode node, String indent, int width, StringBuilder out) {
        StringBuilder line = new StringBuilder();
        if (inline(node, line, width - indent.length()) || !node.isContainerNode()) {
            out.append(line);
            return;
        }
        String inner = indent + INDENT;
        if (node.isObject()) {
            out.append("{\n");
            for (Iterator<Map.Entry<String, JsonNode>> it = node.properties().iterator(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                out.append(inner).append(quote(e.getKey())).append(": ");
                print(e.getValue(), inner, width, out);
                out.append(it.hasNext() ? ",\n" : "\n");
            }
            out.append(indent).append('}');
            return;
        }
        boolean scalars = true;
        for (JsonNode item : node) {
            scalars &= !item.isContainerNode();
        }
        out.append("[\n").append(inner);
        int lineStart = out.length();
        for (Iterator<JsonNode> it = node.elements(); it.hasNext(); ) {
            JsonNode item = it.next();
            if (scalars) {
                StringBuilder text = new StringBuilder();
                inline(item, text, Integer.MAX_VALUE);
                if (out.length() > lineStart && out.length() - lineStart + inner.length() + text.length() + 2 > width) {
                    out.append('\n').append(inner);
                    lineStart = out.length();
                }
                out.append(text);
                if (it.hasNext()) {
                    out.append(", ");
                }
            } else {
                print(item, inner, width, out);
                if (it.hasNext()) {
                    out.append(",\n").append(inner);
                }
            }
        }
        out.append('\n').append(indent).append(']');
    }

    /**
     * Appends the one-line form (a space after every colon and comma) to {@code out}; gives up, returning false,
     * once a container passes {@code limit} characters, so that printing stays linear in the document's size.
     */
    private static boolean inline(JsonNode node, StringBuilder out, int limit) {
        if (node.isObject()) {
            out.append('{');
            for (Iterator<Map.Entry<String, JsonNode>> it = node.properties().iterator(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                out.append(quote(e.getKey())).append(": ");
                if (!inline(e.getValue(), out, limit) || out.length() > limit) {
                    return false;
                }
                out.append(it.hasNext() ? ", " : "");
            }
            out.append('}');
        } else if (node.isArray()) {
            out.append('[');
            for (Iterator<JsonNode> it = node.elements(); it.hasNext(); ) {
                if (!inline(it.next(), out, limit) || out.length() > limit) {
                    return false;
                }
                out.append(it.hasNext() ? ", " : "");
            }
            out.append(']');
        } else if (node.isTextual()) {
            out.append(quote(node.textValue()));
        } else {
            out.append(node.asText()); // numbers, booleans and null are written as JSON writes them
        }
        return out.length() <= limit;
    }

    private static String quote(String s) {
        return '"' + new String(JsonStringEncoder.getInstance().quoteAsString(s)) + '"';
    }
}
