package org.eventspace.fuzz;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One fuzz case: its seed, the random numbers drawn from it, what it mutated (in words, for the failure report), and
 * how the target took the input. A {@link Fuzzer} notes each mutation before it feeds the target, so a case that does
 * not end still says what it sent, and ends with {@link #accepted()} or {@link #refused()}; a check that fails throws
 * {@link CheckFailed}.
 *
 * <p>Written by the case's own thread, read by the {@link FuzzRunner} after that thread ended or timed out: the list of
 * mutations is synchronized for that one hand-over.
 */
final class FuzzCase {
    /**
     * The most characters a message may have that quotes a user's input back: the project's bound for echoed text
     * (TraceDump.MAX_MESSAGE_CHARS, PathmapConfigException's three parts of at most 300 characters each).
     */
    public static final int MAX_MESSAGE_CHARS = 1024;

    /** How the target took a case's input. */
    public enum Verdict { ACCEPTED, REFUSED }

    private final long seed;
    private final SplittableRandom random;
    private final List<String> mutations = Collections.synchronizedList(new ArrayList<>());
    private volatile Verdict verdict;
    /** The input fed to the target, by file name, kept so that a failure can save it ({@link FuzzRunner}). */
    private final java.util.Map<String, byte[]> inputs = Collections.synchronizedMap(new java.util.LinkedHashMap<>());

    FuzzCase(long seed) {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
    }

    public long seed() {
        return seed;
    }

    /** The case's random numbers: the same seed draws the same ones, so a failure replays. */
    public SplittableRandom random() {
        return random;
    }

    /** Records one mutation, in a few words ({@code "application.ranks = -1"}); cut to 200 characters. */
    public void note(String mutation) {
        mutations.add(cut(mutation, 200));
    }

    /** The mutations noted so far, joined. */
    public String mutations() {
        synchronized (mutations) {
            return mutations.isEmpty() ? "no mutation" : String.join("; ", mutations);
        }
    }

    /**
     * Keeps the input fed to the target under {@code name} (a file name, no folders): a failing case's inputs are saved
     * to a folder, beside its replay command.
     */
    public void input(String name, byte[] bytes) {
        inputs.put(name, bytes);
    }

    /** The inputs kept, by name. */
    java.util.Map<String, byte[]> inputs() {
        synchronized (inputs) {
            return new java.util.LinkedHashMap<>(inputs);
        }
    }

    /** The target took the input. */
    public void accepted() {
        verdict = Verdict.ACCEPTED;
    }

    /** The target refused the input in the documented way. */
    public void refused() {
        verdict = Verdict.REFUSED;
    }

    Verdict verdict() {
        return verdict;
    }

    /** Fails the case with {@code problem} unless {@code condition} holds. */
    public static void check(boolean condition, String problem) {
        if (!condition) {
            throw new CheckFailed(problem);
        }
    }

    /**
     * Checks a message meant for people: present, not blank, at most {@code max} characters.
     *
     * @param what where the message came from, for the failure report ({@code "PathmapConfigException"}).
     */
    public static void checkMessage(String what, String message, int max) {
        check(message != null && !message.isBlank(), what + " has no message");
        check(message.length() <= max, what + " has a message of " + message.length() + " characters, more than "
                + max + ": " + cut(message, 200));
    }

    /**
     * Checks that a refusal is the documented one: an exception of an expected type with a bounded message, whose
     * causes are no programming error (a NullPointerException wrapped into an IllegalArgumentException says
     * nothing to the user about the input).
     */
    public static void checkRefusal(Throwable refusal, int max) {
        checkMessage(refusal.getClass().getSimpleName(), refusal.getMessage(), max);
        for (Throwable c = refusal.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            check(!isProgrammingError(c), refusal.getClass().getSimpleName() + " wraps " + c + ": the input was refused "
                    + "by a bug, not by a check");
        }
    }

    /** Exceptions that mean the code failed, not that the input was wrong. */
    public static boolean isProgrammingError(Throwable t) {
        return t instanceof NullPointerException || t instanceof ClassCastException
                || t instanceof IndexOutOfBoundsException || t instanceof ArithmeticException
                || t instanceof NegativeArraySizeException || t instanceof ArrayStoreException
                || t instanceof UnsupportedOperationException || t instanceof IllegalStateException
                || t instanceof Error;
    }

    /** {@code text} if it is at most {@code max} characters, else its start and its length. */
    public static String cut(String text, int max) {
        if (text == null) {
            return "null";
        }
        return text.length() <= max ? text : text.substring(0, max) + "… (" + text.length() + " characters)";
    }

    /** A check of the case failed: the message says which, with the values that were wrong. */
    public static final class CheckFailed extends RuntimeException {
        public CheckFailed(String problem) {
            super(problem);
        }
    }
}
