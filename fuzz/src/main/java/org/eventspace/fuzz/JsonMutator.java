package org.eventspace.fuzz;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;

import org.eventspace.base.json.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Damages a JSON document the way a hand edit, a bad tool or a hostile peer would: structural edits of its tree (a
 * field or item replaced by an extreme number, a value of the wrong type, a string of up to 10 MB, null, a value
 * taken from elsewhere in the document, deep nesting; a field removed, an unknown field added, a key given twice, an
 * item appended) and edits of its text (cut short, bytes flipped, characters inserted or deleted). Each edit is
 * noted on the case.
 *
 * <p>Stateless but for the case it serves; one per case.
 */
final class JsonMutator {
    /** The longest string an edit writes: 10 MB, the size quoted in the issue and in docs/RELIABILITY.md. */
    static final int HUGE_STRING_CHARS = 10 << 20;
    /** Placeholders replaced in the text after the tree is written: Jackson's tree cannot hold these edits. */
    private static final String DUPLICATE_KEY = "__es_fuzz_duplicate__";
    private static final String DEEP_VALUE = "__es_fuzz_deep__";
    private static final ObjectMapper JSON = Json.mapper();
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private final FuzzCase c;
    private final SplittableRandom random;
    /** Scalars of the valid documents: swapping one into another field often makes a valid but different input. */
    private final List<JsonNode> plausible;

    /** @param templates valid documents of the format; their scalar values are the plausible replacements. */
    JsonMutator(FuzzCase c, List<JsonNode> templates) {
        this.c = c;
        this.random = c.random();
        this.plausible = new ArrayList<>();
        for (JsonNode t : templates) {
            scalars(t, plausible);
        }
    }

    /** One to three edits of {@code json} (one in half the cases), each noted on the case; what a target is then fed. */
    String mutate(String json) {
        String text = json;
        int edits = new int[] {1, 1, 1, 1, 1, 2, 2, 2, 3, 3}[random.nextInt(10)];
        for (int e = 0; e < edits; e++) {
            text = random.nextInt(10) < 7 ? editTree(text) : editText(text);
        }
        return text;
    }

    /**
     * One or two values replaced by values of their own kind ({@link #near}): an input that often stays valid, so the
     * code behind the parser (a builder, a constructor's checks) sees unusual but well-formed documents too.
     */
    String mutatePlausibly(String json) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("a template is not JSON", e);
        }
        List<Slot> slots = new ArrayList<>();
        slots(root, "", slots);
        List<Slot> scalars = slots.stream().filter(s -> !s.value.isContainerNode()).toList();
        int edits = 1 + random.nextInt(2);
        for (int e = 0; e < edits && !scalars.isEmpty(); e++) {
            Slot s = scalars.get(random.nextInt(scalars.size()));
            JsonNode value = near(s.value);
            s.set(value);
            c.note(s.path + " = " + shown(value));
        }
        return root.toString();
    }

    /** One structural edit; a document that no longer parses gets a text edit instead. */
    String editTree(String json) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (IOException | RuntimeException e) {
            return editText(json);
        }
        if (root == null || !root.isContainerNode()) {
            return editText(json);
        }
        List<Slot> slots = new ArrayList<>();
        slots(root, "", slots);
        List<Slot> containers = new ArrayList<>();
        containers.add(new Slot(null, null, -1, "", root));
        for (Slot s : slots) {
            if (s.value.isContainerNode()) {
                containers.add(s);
            }
        }
        String deep = null;
        int kind = random.nextInt(100);
        if (kind < 55 && !slots.isEmpty()) {
            Slot s = slots.get(random.nextInt(slots.size()));
            JsonNode value;
            String what;
            int pick = random.nextInt(100);
            if (pick < 25 && !plausible.isEmpty()) {
                value = plausible.get(random.nextInt(plausible.size()));
                what = "value from elsewhere " + shown(value);
            } else if (pick < 45) {
                value = near(s.value);
                what = shown(value);
            } else if (pick < 94) {
                value = extreme();
                what = shown(value);
            } else {
                value = F.textNode(DEEP_VALUE);
                deep = deepText();
                what = "nesting " + deep.length() / 2 + " deep";
            }
            s.set(value);
            c.note(s.path + " = " + what);
        } else if (kind < 70 && !slots.isEmpty()) {
            Slot s = slots.get(random.nextInt(slots.size()));
            s.remove();
            c.note("removed " + s.path);
        } else if (kind < 80) {
            Slot container = containers.get(random.nextInt(containers.size()));
            JsonNode value = random.nextBoolean() || plausible.isEmpty() ? extreme()
                    : plausible.get(random.nextInt(plausible.size()));
            if (container.value instanceof ObjectNode o) {
                String name = random.nextInt(4) == 0 ? "" : "unknown" + random.nextInt(10);
                o.set(name, value);
                c.note("added field " + (container.path.isEmpty() ? "" : container.path + ".") + name + " = " + shown(value));
            } else {
                ((ArrayNode) container.value).add(value);
                c.note("appended " + shown(value) + " to " + container.path);
            }
        } else if (kind < 90) {
            List<Slot> objects = containers.stream().filter(s -> s.value instanceof ObjectNode o && !o.isEmpty()).toList();
            if (objects.isEmpty()) {
                return editText(json);
            }
            ObjectNode o = (ObjectNode) objects.get(random.nextInt(objects.size())).value;
            List<String> names = names(o);
            String name = names.get(random.nextInt(names.size()));
            JsonNode value = random.nextBoolean() ? o.get(name).deepCopy() : extreme();
            o.set(DUPLICATE_KEY, value);
            c.note("field \"" + FuzzCase.cut(name, 40) + "\" given twice, again as " + shown(value));
            return root.toString().replace("\"" + DUPLICATE_KEY + "\"", F.textNode(name).toString());
        } else {
            List<Slot> arrays = containers.stream().filter(s -> s.value instanceof ArrayNode a && !a.isEmpty()).toList();
            if (arrays.isEmpty()) {
                return editText(json);
            }
            ArrayNode a = (ArrayNode) arrays.get(random.nextInt(arrays.size())).value;
            int copies = random.nextInt(4) == 0 ? 1 + random.nextInt(1000) : 1;
            JsonNode item = a.get(random.nextInt(a.size()));
            for (int i = 0; i < copies; i++) {
                a.add(item.deepCopy());
            }
            c.note("repeated an item " + copies + " times in an array of " + (a.size() - copies));
        }
        String text = root.toString();
        return deep == null ? text : text.replace("\"" + DEEP_VALUE + "\"", deep);
    }

    /** One edit of the text itself. */
    String editText(String text) {
        int kind = random.nextInt(100);
        if (text.isEmpty() || kind < 25) {
            int cut = random.nextInt(text.length() + 1);
            c.note("cut the text at " + cut + " of " + text.length() + " characters");
            return text.substring(0, cut);
        }
        StringBuilder b = new StringBuilder(text);
        if (kind < 60) {
            int flips = 1 + random.nextInt(4);
            for (int i = 0; i < flips; i++) {
                int at = random.nextInt(b.length());
                b.setCharAt(at, (char) (b.charAt(at) ^ (1 << random.nextInt(8))));
            }
            c.note("flipped " + flips + " bits of the text");
        } else if (kind < 80) {
            String[] inserts = {"\"", "{", "}", "[", "]", ",", ":", "\\", "\u0000", "\uD800", "-", "e9999", "0x1F", "NaN",
                    "/*", "null", "\n"};
            int at = random.nextInt(b.length() + 1);
            String insert = inserts[random.nextInt(inserts.length)];
            b.insert(at, insert);
            c.note("inserted " + F.textNode(insert) + " at " + at);
        } else if (kind < 95) {
            int at = random.nextInt(b.length());
            int length = 1 + random.nextInt(Math.min(b.length() - at, 40));
            b.delete(at, at + length);
            c.note("deleted " + length + " characters at " + at);
        } else {
            c.note("an empty text");
            return "";
        }
        return b.toString();
    }

    /**
     * A value of the same kind as {@code value}, often still valid: a number a little or a lot off, another string
     * of the documents, the other boolean.
     */
    private JsonNode near(JsonNode value) {
        if (value.isIntegralNumber()) {
            long v = value.longValue();
            long[] near = {v + 1, v - 1, v + random.nextInt(8), v * 2, v / 2, 1 + random.nextInt(64), 0};
            return F.numberNode(near[random.nextInt(near.length)]);
        }
        if (value.isBoolean()) {
            return F.booleanNode(!value.booleanValue());
        }
        List<JsonNode> strings = plausible.stream().filter(JsonNode::isTextual).toList();
        if (value.isTextual() && !strings.isEmpty()) {
            return strings.get(random.nextInt(strings.size()));
        }
        return extreme();
    }

    /** A value a field is unlikely to expect: an extreme number, a wrong type, an odd or huge string, null. */
    JsonNode extreme() {
        int kind = random.nextInt(100);
        if (kind < 45) {
            long[] numbers = {-1, 0, 1, 2, 3, Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE + 1L, Long.MAX_VALUE,
                    Long.MIN_VALUE, 255, 256, 257, 4096, 4097, 65_535, 65_536, 65_537, 1 << 20, (1 << 20) + 1, 1 << 22,
                    1 << 24, (1 << 24) + 1, 99_999, 86_400_000, 86_400_001};
            return F.numberNode(numbers[random.nextInt(numbers.length)]);
        }
        if (kind < 55) {
            return switch (random.nextInt(5)) {
                case 0 -> F.numberNode(new BigInteger("123456789012345678901234567890"));
                case 1 -> F.numberNode(new BigDecimal("1e400"));
                case 2 -> F.numberNode(-0.0);
                case 3 -> F.numberNode(1.5);
                default -> F.numberNode(random.nextInt(2000) - 1000);
            };
        }
        if (kind < 80) {
            String[] strings = {"", " ", "x", "\u0000", "é", "../../etc/passwd", "a b", "hier:1", "kary:0", "kary:-3",
                    "hier:2147483648", "hier:flat", "flat", "binary", "kary:3", "block", "cyclic", "tcp", "jvm", "auto",
                    "seq", "par:0", "par:99999", "stats", "hist:0", "max:value", "gsum", "pingpong", "12", "-1", "true",
                    "null", "NaN", "Infinity", "1e400", "\uD800", "\n", "class:(", "class:[a-", "class:comm", "class:", "hist:65537"};
            return F.textNode(strings[random.nextInt(strings.length)]);
        }
        if (kind < 85) {
            int length = switch (random.nextInt(10)) {
                case 0 -> HUGE_STRING_CHARS;
                case 1, 2 -> 100_000;
                default -> 300 + random.nextInt(2000);
            };
            if (random.nextInt(8) == 0) {
                // A filter's regular expression nested as deep as the string is long (Pattern compiles recursively).
                int depth = length / 2;
                return F.textNode("class:" + "(".repeat(depth) + ")".repeat(depth));
            }
            return F.textNode("y".repeat(length));
        }
        return switch (random.nextInt(6)) {
            case 0 -> F.nullNode();
            case 1 -> F.booleanNode(random.nextBoolean());
            case 2 -> F.arrayNode();
            case 3 -> F.arrayNode().add(1).add("a");
            case 4 -> F.objectNode();
            default -> F.objectNode().put("a", 1);
        };
    }

    /** Nested arrays or objects around one value, from a few levels to well past any parser's depth limit. */
    private String deepText() {
        int[] depths = {10, 100, 499, 500, 501, 999, 1000, 1001, 5000, 100_000};
        int depth = depths[random.nextInt(depths.length)];
        boolean arrays = random.nextBoolean();
        return (arrays ? "[" : "{\"a\":").repeat(depth) + "1" + (arrays ? "]" : "}").repeat(depth);
    }

    private static String shown(JsonNode value) {
        if (value.isTextual()) {
            String s = value.textValue();
            return s.length() > 40 ? "a string of " + s.length() + " characters" : value.toString();
        }
        return FuzzCase.cut(value.toString(), 40);
    }

    private static List<String> names(ObjectNode o) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }

    private static void scalars(JsonNode node, List<JsonNode> into) {
        if (node.isContainerNode()) {
            for (JsonNode child : node) {
                scalars(child, into);
            }
        } else {
            into.add(node);
        }
    }

    private static void slots(JsonNode node, String path, List<Slot> into) {
        if (node instanceof ObjectNode o) {
            for (String name : names(o)) {
                String p = path.isEmpty() ? name : path + "." + name;
                JsonNode child = o.get(name);
                into.add(new Slot(o, name, -1, p, child));
                slots(child, p, into);
            }
        } else if (node instanceof ArrayNode a) {
            for (int i = 0; i < a.size(); i++) {
                String p = path + "[" + i + "]";
                into.add(new Slot(a, null, i, p, a.get(i)));
                slots(a.get(i), p, into);
            }
        }
    }

    /** A place in the tree: a field of an object or an item of an array. */
    private record Slot(JsonNode parent, String field, int index, String path, JsonNode value) {
        void set(JsonNode v) {
            if (parent instanceof ObjectNode o) {
                o.set(field, v);
            } else {
                ((ArrayNode) parent).set(index, v);
            }
        }

        void remove() {
            if (parent instanceof ObjectNode o) {
                o.remove(field);
            } else {
                ((ArrayNode) parent).remove(index);
            }
        }
    }
}
