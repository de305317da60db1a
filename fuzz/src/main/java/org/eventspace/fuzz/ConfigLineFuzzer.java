package org.eventspace.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.Function;

import org.eventspace.base.json.Json;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.eventspace.run.RunConfigCodec;

/**
 * A configuration that travels to a host process as one command-line word, base64 of JSON: the job's
 * ({@code JobConfigCodec}, {@code eventspace.job-config/1}) and a benchmark run's ({@code RunConfigCodec},
 * {@code eventspace.run-config/3}). A valid word is damaged in its JSON ({@link JsonMutator}, also inside the pathmap
 * document it carries as a string), in the bytes of that JSON (bits flipped, invalid UTF-8, cut short) or in the word
 * itself (cut, characters outside base64), and decoded. Decoding may only refuse with an
 * {@link IllegalArgumentException} whose message has at most {@link FuzzCase#MAX_MESSAGE_CHARS} characters and whose
 * causes are no programming error; a word it accepts must survive a round trip: encoded again and decoded, it gives
 * an equal configuration.
 *
 * @param <T> the configuration type.
 */
final class ConfigLineFuzzer<T> implements Fuzzer {
    private static final ObjectMapper JSON = Json.mapper();

    private final String format;
    private final List<String> words;
    private final List<JsonNode> trees = new ArrayList<>();
    private final List<JsonNode> pathmaps = new ArrayList<>();
    private final JsonPointer pathmapField;
    private final Function<String, T> decode;
    private final Function<T, String> encode;

    /**
     * @param templates    valid configurations.
     * @param pathmapField where the configuration's JSON holds its pathmap document (a string).
     */
    ConfigLineFuzzer(String format, List<T> templates, String pathmapField, Function<String, T> decode,
                     Function<T, String> encode) {
        this.format = format;
        this.decode = decode;
        this.encode = encode;
        this.pathmapField = JsonPointer.compile(pathmapField);
        this.words = templates.stream().map(encode).toList();
        try {
            for (String word : words) {
                JsonNode tree = JSON.readTree(Base64.getDecoder().decode(word));
                trees.add(tree);
                pathmaps.add(JSON.readTree(tree.at(pathmapField).asText()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String format() {
        return format;
    }

    @Override
    public void run(FuzzCase c) throws IOException {
        SplittableRandom random = c.random();
        int template = random.nextInt(words.size());
        c.note("template " + template);
        String word = mutate(c, words.get(template));
        T decoded;
        try {
            decoded = decode.apply(word);
        } catch (IllegalArgumentException e) {
            FuzzCase.checkRefusal(e, FuzzCase.MAX_MESSAGE_CHARS);
            c.refused();
            return;
        }
        String again = encode.apply(decoded);
        T back = decode.apply(again);
        FuzzCase.check(Objects.equals(back, decoded), "an accepted configuration does not survive a round trip: "
                + FuzzCase.cut(String.valueOf(decoded), 300) + " came back as " + FuzzCase.cut(String.valueOf(back), 300));
        c.accepted();
    }

    private String mutate(FuzzCase c, String word) throws IOException {
        SplittableRandom random = c.random();
        byte[] json = Base64.getDecoder().decode(word);
        int kind = random.nextInt(100);
        if (kind < 45) {
            JsonMutator mutator = new JsonMutator(c, trees);
            String original = new String(json, StandardCharsets.UTF_8);
            String text = random.nextInt(4) == 0 ? mutator.mutatePlausibly(original) : mutator.mutate(original);
            return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
        }
        if (kind < 70) {
            // The pathmap document inside, as a string field: damaged as pathmap files are.
            JsonNode root = JSON.readTree(json);
            JsonNode holder = root.at(pathmapField.head());
            String field = pathmapField.last().getMatchingProperty();
            JsonMutator mutator = new JsonMutator(c, pathmaps);
            String pathmap = random.nextInt(3) == 0 ? mutator.mutatePlausibly(holder.get(field).asText())
                    : mutator.mutate(holder.get(field).asText());
            ((ObjectNode) holder).put(field, pathmap);
            c.note("in the pathmap document");
            return Base64.getEncoder().encodeToString(root.toString().getBytes(StandardCharsets.UTF_8));
        }
        if (kind < 88) {
            byte[] bytes = json;
            if (random.nextInt(3) == 0) {
                int cut = random.nextInt(bytes.length + 1);
                bytes = Arrays.copyOf(bytes, cut);
                c.note("cut the JSON at byte " + cut + " of " + json.length);
            } else {
                int flips = 1 + random.nextInt(6);
                for (int i = 0; i < flips; i++) {
                    int at = random.nextInt(bytes.length);
                    bytes[at] ^= (byte) (1 << random.nextInt(8));
                }
                c.note("flipped " + flips + " bits of the JSON's bytes");
            }
            return Base64.getEncoder().encodeToString(bytes);
        }
        StringBuilder b = new StringBuilder(word);
        switch (random.nextInt(4)) {
            case 0 -> {
                int cut = random.nextInt(b.length() + 1);
                b.setLength(cut);
                c.note("cut the word at " + cut + " of " + word.length() + " characters");
            }
            case 1 -> {
                int at = random.nextInt(b.length());
                char[] odd = {'*', ' ', '=', '\n', '-', '_', '\u00e9', '\u0000'};
                char ch = odd[random.nextInt(odd.length)];
                b.setCharAt(at, ch);
                c.note("character " + at + " of the word set to U+" + Integer.toHexString(ch));
            }
            case 2 -> {
                int at = random.nextInt(b.length());
                String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
                b.setCharAt(at, alphabet.charAt(random.nextInt(alphabet.length())));
                c.note("character " + at + " of the word replaced within base64");
            }
            default -> {
                c.note("an empty word");
                return "";
            }
        }
        return b.toString();
    }
}
