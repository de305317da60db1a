package org.eventspace.comm.traffic;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Which of the application's messages the traffic counters count (ibprof paper §3.2): {@code all} of them, only those
 * of chosen collectives ({@code collectives:alltoall,allreduce}; {@code send} names point-to-point messages), or only
 * those sent in chosen application phases ({@code phases:exchange,solve}, marked with {@code Comm.phase("name")}).
 * Parsed once from a flag or {@code ES_TRAFFIC_SCOPE}.
 *
 * <p>One per process and job: it also numbers the phases the ranks mark, in the order they are first marked, so that a
 * message's tag names a phase by a small number. Every rank must mark the same phases in the same order (as every rank
 * calls the same collectives), so that the numbers agree between processes; the readers check the names agree.
 * Thread-safe: {@link #phase} may be called from any rank's thread, {@link #tag} from any thread after the phase's
 * number was returned to it.
 */
public final class TrafficScope {
    /** How messages are chosen. */
    public enum Mode { ALL, COLLECTIVES, PHASES }

    /** The environment variable a process reads its scope from when no flag gives one. */
    public static final String ENV = "ES_TRAFFIC_SCOPE";
    /** The name the report gives phase 0, before any phase was marked; no marked phase can have it. */
    public static final String UNMARKED = "(none)";
    private static final Pattern PHASE_NAME = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");

    private final Mode mode;
    private final Set<Integer> kinds;
    private final Set<String> phases;
    /** The trees whose collectives count; empty: all of them. */
    private final Set<Integer> trees;
    /** The tag a sender gives a message of (phase, kind): its counted bit set when this scope counts it. */
    private final byte[] tags = new byte[TrafficTag.TAGS];
    private final ConcurrentHashMap<String, Integer> numbers = new ConcurrentHashMap<>();
    private final List<String> names = new ArrayList<>();

    private TrafficScope(Mode mode, Set<Integer> kinds, Set<String> phases, Set<Integer> trees) {
        this.mode = mode;
        this.kinds = Collections.unmodifiableSet(kinds);
        this.phases = Collections.unmodifiableSet(phases);
        this.trees = Collections.unmodifiableSet(trees);
        names.add(UNMARKED);
        numbers.put(UNMARKED, 0);
        enable(0, UNMARKED);
    }

    /** Every message of the application. */
    public static TrafficScope all() {
        return new TrafficScope(Mode.ALL, Set.of(), Set.of(), Set.of());
    }

    /**
     * This scope restricted to the collectives of the job's trees {@code trees} (point-to-point messages belong to no
     * tree and stay as they were): what the interleaved overhead benchmark counts, whose ranks alternate between two
     * trees and count on one only.
     */
    public TrafficScope onTrees(Set<Integer> trees) {
        for (int t : trees) {
            if (t < 0) {
                throw new IllegalArgumentException("traffic scope: tree " + t + " is not a tree index (0, 1, …)");
            }
        }
        return new TrafficScope(mode, kinds, phases, new java.util.TreeSet<>(trees));
    }

    /**
     * {@code all}, {@code collectives:K[,K…]} or {@code phases:P[,P…]}, each optionally followed by {@code ;trees:T[,T…]}
     * ({@link #onTrees}).
     *
     * @throws IllegalArgumentException naming what was expected.
     */
    public static TrafficScope parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("traffic scope is empty: expected all, collectives:K,… or phases:P,…");
        }
        int semicolon = text.indexOf(';');
        if (semicolon >= 0) {
            String suffix = text.substring(semicolon + 1).trim();
            if (!suffix.startsWith("trees:") || suffix.length() == "trees:".length()) {
                throw new IllegalArgumentException("traffic scope '" + bounded(text.trim()) + "': expected ';trees:T,…' after "
                        + "the scope, got ';" + bounded(suffix) + "'");
            }
            Set<Integer> trees = new LinkedHashSet<>();
            for (String item : suffix.substring("trees:".length()).split(",", -1)) {
                try {
                    trees.add(Integer.parseInt(item.trim()));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("traffic scope '" + bounded(text.trim()) + "': '" + bounded(item.trim())
                            + "' is not a tree index (0, 1, …)");
                }
            }
            return parse(text.substring(0, semicolon)).onTrees(trees);
        }
        String t = text.trim();
        if (t.equals("all")) {
            return all();
        }
        int colon = t.indexOf(':');
        String head = colon < 0 ? t : t.substring(0, colon);
        String list = colon < 0 ? "" : t.substring(colon + 1);
        if (!head.equals("collectives") && !head.equals("phases")) {
            throw new IllegalArgumentException("traffic scope '" + bounded(t) + "': expected all, collectives:K,… or phases:P,…");
        }
        if (list.isBlank()) {
            throw new IllegalArgumentException("traffic scope '" + bounded(t) + "': expected a comma-separated list after '"
                    + head + ":'");
        }
        Set<Integer> kinds = new LinkedHashSet<>();
        Set<String> phases = new LinkedHashSet<>();
        for (String item : list.split(",", -1)) {
            String name = item.trim();
            if (head.equals("collectives")) {
                int kind = TrafficTag.kindOf(name);
                if (kind < 0) {
                    throw new IllegalArgumentException("traffic scope '" + bounded(t) + "': '" + bounded(name)
                            + "' is not a collective; expected one of " + TrafficTag.kindNames());
                }
                kinds.add(kind);
            } else {
                checkPhaseName(name);
                phases.add(name);
            }
        }
        if (head.equals("phases") && phases.size() >= TrafficTag.MAX_PHASES) {
            throw new IllegalArgumentException("traffic scope '" + bounded(t) + "': at most " + (TrafficTag.MAX_PHASES - 1)
                    + " phases can be told apart, got " + phases.size());
        }
        return head.equals("collectives") ? new TrafficScope(Mode.COLLECTIVES, kinds, Set.of(), Set.of())
                : new TrafficScope(Mode.PHASES, Set.of(), phases, Set.of());
    }

    /** The scope {@code ES_TRAFFIC_SCOPE} names, or {@code all} when it is unset. */
    public static TrafficScope fromEnvironment() {
        String value = System.getenv(ENV);
        if (value == null || value.isBlank()) {
            return all();
        }
        try {
            return parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(ENV + ": " + e.getMessage(), e);
        }
    }

    /** @throws IllegalArgumentException if {@code name} cannot name a phase. */
    public static void checkPhaseName(String name) {
        if (name == null || !PHASE_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("phase name '" + bounded(String.valueOf(name))
                    + "': expected 1 to 64 of the characters A-Z a-z 0-9 _ . : -");
        }
    }

    private static String bounded(String s) {
        return s.length() <= 80 ? s : s.substring(0, 80) + "…";
    }

    public Mode mode() {
        return mode;
    }

    /** The collectives counted ({@link Mode#COLLECTIVES}), as {@link TrafficTag} kinds. */
    public Set<Integer> kinds() {
        return kinds;
    }

    /** The phases counted ({@link Mode#PHASES}). */
    public Set<String> phases() {
        return phases;
    }

    /** The scope as {@link #parse} reads it. */
    public String text() {
        String scope = switch (mode) {
            case ALL -> "all";
            case COLLECTIVES -> "collectives:" + String.join(",", kinds.stream().map(TrafficTag::kindName).toList());
            case PHASES -> "phases:" + String.join(",", phases);
        };
        return trees.isEmpty() ? scope : scope + ";trees:" + String.join(",", trees.stream().map(String::valueOf).toList());
    }

    /** Whether the collectives of tree {@code tree} count (point-to-point messages belong to no tree). */
    public boolean countsTree(int tree) {
        return trees.isEmpty() || trees.contains(tree);
    }

    /**
     * The number of phase {@code name}, given on its first mark (not on the hot path: a rank marks a phase once per
     * phase, not per message).
     *
     * @throws IllegalArgumentException if the name is malformed or more phases were marked than a tag can tell apart.
     */
    public int phase(String name) {
        Integer known = numbers.get(name);
        if (known != null) {
            return known;
        }
        checkPhaseName(name);
        synchronized (names) {
            known = numbers.get(name);
            if (known != null) {
                return known;
            }
            if (names.size() >= TrafficTag.MAX_PHASES) {
                throw new IllegalArgumentException("phase '" + name + "': at most " + (TrafficTag.MAX_PHASES - 1)
                        + " phases can be told apart, already marked " + names.subList(1, names.size()));
            }
            int number = names.size();
            enable(number, name);
            names.add(name);
            // Published after its table entries: whoever learns the number from the map sees them.
            numbers.put(name, number);
            return number;
        }
    }

    private void enable(int phase, String name) {
        for (int kind = 1; kind <= TrafficTag.KIND_MASK; kind++) {
            boolean on = switch (mode) {
                case ALL -> kind < TrafficTag.kinds();
                case COLLECTIVES -> kinds.contains(kind);
                case PHASES -> phases.contains(name) && kind < TrafficTag.kinds();
            };
            byte tag = TrafficTag.of(phase, kind);
            tags[tag] = on ? TrafficTag.counted(tag) : tag;
        }
    }

    /** The phases marked so far, by number (0: {@link #UNMARKED}). */
    public List<String> phaseNames() {
        synchronized (names) {
            return List.copyOf(names);
        }
    }

    /**
     * The tag a sender in phase {@code phase} (a number {@link #phase} gave) puts on a message of {@code kind}: with the
     * counted bit when this scope counts it. The receiving end counts what the sender marked, whatever it knows of the
     * sender's phases.
     */
    public byte tag(int phase, int kind) {
        return tags[TrafficTag.of(phase, kind)];
    }

    @Override
    public String toString() {
        return text();
    }
}
