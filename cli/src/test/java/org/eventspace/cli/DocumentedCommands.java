package org.eventspace.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The {@code eventspace …} command lines written in the repository's documentation: markdown (fenced code blocks,
 * lines that start with the command, inline code spans that start with it) and the comments of main Java sources
 * ({@code {@code …}} spans, and lines such as a {@code <pre>} block's). Each is cut and tokenised as a shell would, with
 * placeholders replaced by sample values (below), so that the real command model can parse it. Not thread-safe.
 *
 * <p>Placeholders: {@code …} and {@code ...} (and {@code flags}, {@code [flags]}) are dropped and mark the command
 * <em>elided</em>; {@code <word>} becomes {@code word}; {@code <command>} and {@code COMMAND} become {@code run};
 * {@code HOST:PORT} becomes {@code 127.0.0.1:47000}; the numeric placeholders {@link #NUMBERS} become {@code 2}; the
 * square brackets of an optional part ({@code [-cp PATH]}) are removed, so the optional flags are checked too; a shell
 * variable is the value a line of the same code block assigned it, else {@code 1}. Any other word ({@code FILE},
 * {@code DIR}, {@code OUT.json}) is a valid string or path already.
 */
final class DocumentedCommands {
    /** Placeholders that stand for a number in the docs (ranks, blocks, ports, percentiles …). */
    static final Set<String> NUMBERS = Set.of("N", "M", "K", "R", "B", "C", "P", "S", "E", "F", "H", "W", "US", "BLOCK",
            "PORT", "BINS", "USEC", "MS");
    private static final Set<String> ELLIPSES = Set.of("…", "...", "flags", "FLAGS");

    /** {@code ./eventspace} anywhere, or {@code eventspace} not inside a word, a path or a Java name. */
    private static final Pattern COMMAND = Pattern.compile("(?<![\\w./-])(\\./)?eventspace(?=\\s|$|\\))");
    /** What may stand before a bare {@code eventspace}: nothing, a prompt, environment assignments, {@code $(}. */
    private static final Pattern BARE_PREFIX = Pattern.compile("(\\$\\s+)?([A-Za-z_]\\w*=\\S*\\s+)*|.*\\$\\(");
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_]\\w*)}|\\$([A-Za-z_]\\w*)");
    private static final Pattern ASSIGNMENT = Pattern.compile("([A-Za-z_]\\w*)=(.*)", Pattern.DOTALL);

    /** Where a command line was written, how it reads there, and whether it is a mention inside prose. */
    record Found(Path file, int line, String text, boolean inline) {
        @Override
        public String toString() {
            return file + ":" + line + ": " + text;
        }
    }

    /** One command ready to parse: its arguments after the program name, and whether parts of it were elided. */
    record Command(Found where, List<String> args, boolean elided) {
    }

    private DocumentedCommands() {
    }

    /** README.md, every docs/*.md and the comments of every module's src/main/java, below {@code root}. */
    static List<Path> sources(Path root) {
        List<Path> files = new ArrayList<>();
        files.add(root.resolve("README.md"));
        try (Stream<Path> docs = Files.list(root.resolve("docs"));
             Stream<Path> all = Files.walk(root)) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
            all.filter(p -> p.toString().endsWith(".java") && p.toString().contains("/src/main/java/")
                    && !p.toString().contains("/target/")).sorted().forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /** Every command written in {@code file} (markdown or Java). */
    static List<Command> in(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Found> found = file.toString().endsWith(".java") ? javaComments(file, text) : markdown(file, text);
        List<Command> commands = new ArrayList<>();
        for (Found f : found) {
            commands.addAll(commands(f));
        }
        return commands;
    }

    /** Code-block lines (continuations joined, variables expanded), lines that start with the command, inline spans. */
    static List<Found> markdown(Path file, String text) {
        List<Found> found = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        StringBuilder prose = new StringBuilder();
        List<Integer> proseLines = new ArrayList<>();
        Map<String, String> variables = new HashMap<>();
        boolean fence = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.strip().startsWith("```") || line.strip().startsWith("~~~")) {
                fence = !fence;
                variables.clear();
                continue;
            }
            if (!fence) {
                prose.append(line).append('\n');
                proseLines.add(i + 1);
                String start = line.stripLeading();
                if (start.startsWith("./eventspace ") || start.startsWith("$ ")) {
                    found.add(new Found(file, i + 1, line, false));
                }
                continue;
            }
            int first = i;
            StringBuilder joined = new StringBuilder(line);
            while (joined.toString().endsWith("\\") && i + 1 < lines.length) {
                joined.setLength(joined.length() - 1);
                joined.append(' ').append(lines[++i].strip());
            }
            String expanded = expand(joined.toString(), variables);
            List<String> words = tokens(expanded, 0, (char) 0);
            Matcher assignment = words.size() == 1 ? ASSIGNMENT.matcher(words.get(0)) : null;
            // A value from a command substitution is not known here: the variable stays a placeholder.
            if (assignment != null && assignment.matches() && !expanded.contains("$(")) {
                variables.put(assignment.group(1), assignment.group(2));
            }
            found.add(new Found(file, first + 1, expanded, false));
        }
        Matcher span = Pattern.compile("`([^`]+)`").matcher(prose);
        while (span.find()) {
            int line = proseLines.get((int) prose.substring(0, span.start()).chars().filter(c -> c == '\n').count());
            found.add(new Found(file, line, span.group(1).replace('\n', ' '), true));
        }
        return found;
    }

    /** {@code {@code …}} spans of comments (inline), and the comments' other lines. */
    static List<Found> javaComments(Path file, String text) {
        List<Found> found = new ArrayList<>();
        int i = 0;
        int line = 1;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '\n') {
                line++;
                i++;
            } else if (text.startsWith("\"\"\"", i)) {
                int end = text.indexOf("\"\"\"", i + 3);
                end = end < 0 ? text.length() : end + 3;
                line += count(text, i, end);
                i = end;
            } else if (c == '"' || c == '\'') {
                int j = i + 1;
                while (j < text.length() && text.charAt(j) != c && text.charAt(j) != '\n') {
                    j += text.charAt(j) == '\\' ? 2 : 1;
                }
                i = j + 1;
            } else if (text.startsWith("//", i) || text.startsWith("/*", i)) {
                boolean block = text.charAt(i + 1) == '*';
                int end = block ? text.indexOf("*/", i + 2) : text.indexOf('\n', i);
                end = end < 0 ? text.length() : end;
                comment(file, line, text.substring(i + 2, end), found);
                line += count(text, i, end);
                i = block ? end + 2 : end;
            } else {
                i++;
            }
        }
        return found;
    }

    private static void comment(Path file, int firstLine, String body, List<Found> found) {
        String[] lines = body.split("\n", -1);
        StringBuilder text = new StringBuilder();
        for (String l : lines) {
            text.append(l.replaceFirst("^\\s*\\*+", "").replaceFirst("^/", "")).append('\n');
        }
        StringBuilder rest = new StringBuilder(text);
        int from = 0;
        while ((from = text.indexOf("{@code", from)) >= 0) {
            int depth = 0;
            int end = from + 1;
            for (; end < text.length(); end++) {
                char c = text.charAt(end);
                if (c == '{') {
                    depth++;
                } else if (c == '}' && depth-- == 0) {
                    break;
                }
            }
            String span = text.substring(from + "{@code".length(), Math.min(end, text.length())).strip();
            found.add(new Found(file, firstLine + count(text, 0, from), span.replace('\n', ' '), true));
            for (int k = from; k < Math.min(end + 1, rest.length()); k++) {
                if (rest.charAt(k) != '\n') {
                    rest.setCharAt(k, ' ');
                }
            }
            from = end;
        }
        String[] plain = rest.toString().split("\n", -1);
        for (int k = 0; k < plain.length; k++) {
            String l = plain[k].replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
            if (l.contains("eventspace")) {
                found.add(new Found(file, firstLine + k, l, false));
            }
        }
    }

    /** The commands in one found text: every {@code ./eventspace}, and {@code eventspace} where a command starts. */
    static List<Command> commands(Found f) {
        List<Command> commands = new ArrayList<>();
        Matcher m = COMMAND.matcher(f.text());
        while (m.find()) {
            String before = f.text().substring(0, m.start());
            boolean dotSlash = m.group(1) != null;
            if (!dotSlash && !BARE_PREFIX.matcher(before.stripLeading()).matches()) {
                continue;
            }
            char closer = before.endsWith("\"") || before.endsWith("'") ? before.charAt(before.length() - 1) : 0;
            List<String> raw = tokens(f.text(), m.end(), closer);
            List<String> args = new ArrayList<>();
            boolean elided = false;
            for (String t : raw) {
                String value = placeholder(t);
                if (value == null) {
                    elided = true;
                } else if (!value.isEmpty()) {
                    args.add(value);
                }
            }
            commands.add(new Command(f, args, elided));
        }
        return commands;
    }

    /** A token's sample value; null for an elision; empty for brackets alone. */
    static String placeholder(String token) {
        String t = token;
        while (t.startsWith("[")) {
            t = t.substring(1);
        }
        while (t.endsWith("]")) {
            t = t.substring(0, t.length() - 1);
        }
        if (ELLIPSES.contains(t) || t.endsWith("…") || t.endsWith("...")) {
            return null;
        }
        if (t.equals("<command>") || t.equals("COMMAND")) {
            return "run";
        }
        if (t.startsWith("<") && t.endsWith(">") && t.length() > 2) {
            return t.substring(1, t.length() - 1);
        }
        if (t.equals("HOST:PORT")) {
            return "127.0.0.1:47000";
        }
        return NUMBERS.contains(t) ? "2" : t;
    }

    /** Shell variables: those {@code variables} holds, any other one {@code 1}. */
    static String expand(String line, Map<String, String> variables) {
        Matcher v = VARIABLE.matcher(line);
        StringBuilder out = new StringBuilder();
        while (v.find()) {
            String name = v.group(1) != null ? v.group(1) : v.group(2);
            v.appendReplacement(out, Matcher.quoteReplacement(variables.getOrDefault(name, "1")));
        }
        return v.appendTail(out).toString();
    }

    /**
     * Shell words from {@code from}: quotes and backslashes as a shell reads them; the command ends at {@code |},
     * {@code &}, {@code ;}, a parenthesis, {@code >} (and {@code 2>}), a {@code #} comment, a lone {@code <}, or
     * {@code closer} (the quote around the whole command).
     */
    static List<String> tokens(String s, int from, char closer) {
        List<String> tokens = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean inToken = false;
        int i = from;
        scan:
        for (; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == closer) {
                break;
            }
            switch (c) {
                case '\'', '"' -> {
                    int end = s.indexOf(c, i + 1);
                    end = end < 0 ? s.length() : end;
                    cur.append(c == '"' ? s.substring(i + 1, end).replace("\\\"", "\"") : s.substring(i + 1, end));
                    inToken = true;
                    i = end;
                }
                case '\\' -> {
                    if (i + 1 < s.length()) {
                        cur.append(s.charAt(++i));
                        inToken = true;
                    }
                }
                case ' ', '\t', '\n' -> {
                    if (inToken) {
                        tokens.add(cur.toString());
                        cur.setLength(0);
                        inToken = false;
                    }
                }
                case '|', '&', ';', '(', ')' -> {
                    break scan;
                }
                case '>' -> {
                    if (inToken && cur.toString().matches("[0-9]")) {
                        cur.setLength(0);
                        inToken = false;
                    }
                    break scan;
                }
                case '#' -> {
                    if (!inToken) {
                        break scan;
                    }
                    cur.append(c);
                }
                case '<' -> {
                    int end = s.indexOf('>', i);
                    if (inToken || end < 0 || s.substring(i, end).chars().anyMatch(Character::isWhitespace)) {
                        break scan;
                    }
                    cur.append(s, i, end + 1);
                    inToken = true;
                    i = end;
                }
                default -> {
                    cur.append(c);
                    inToken = true;
                }
            }
        }
        if (inToken) {
            tokens.add(cur.toString());
        }
        return tokens;
    }

    private static int count(CharSequence s, int from, int to) {
        int n = 0;
        for (int i = from; i < to && i < s.length(); i++) {
            n += s.charAt(i) == '\n' ? 1 : 0;
        }
        return n;
    }
}
