package org.eventspace.job;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.scope.GatherMode;
import org.eventspace.scope.ScopeSpec;
import org.eventspace.scope.filter.FilterSpec;

/**
 * The event scope a job lays over its hosts and pulls while its ranks run: its shape over the hosts, how gathers
 * read their children, the filter it runs, and the front-end's pause between pulls. Typed values, parsed once at the
 * edge ({@link #parse}); immutable. The front-end is host 0, a leaf sits on every host that runs ranks, and hosts that
 * run none are the scope's additional resources (ToM §3; EventSpace §6.2: gathers moved to unused hosts).
 *
 * @param shape      {@code flat}, {@code kary:K} or {@code hier:K} over the hosts.
 * @param gather     sequential, or N helper threads per gather (EventSpace §4.2: parallel gathering trades
 *                   perturbation for gather rate).
 * @param filter     the filter every scope node runs (ToM's filters, or concatenation).
 * @param intervalMs the front-end's pause between two pulls; 0 pulls back to back (the EventSpace paper's continuous
 *                   gathering); {@link #ADAPTIVE} pulls back to back while rounds are full and waits for a round's worth
 *                   of records when they are not ({@link ScopeFrontEnd}).
 */
public record ScopeSettings(TreeShape shape, GatherMode gather, FilterSpec filter, int intervalMs) {
    /** The longest pause between pulls: a day; a longer one is a typo. */
    public static final int MAX_INTERVAL_MS = 86_400_000;
    /**
     * The default cadence: back to back while each round brings enough records that a reducing filter's packet is
     * smaller than the records it summarises, otherwise a pause until it would, bounded by the trace buffers' headroom.
     */
    public static final int ADAPTIVE = -1;

    public ScopeSettings {
        Objects.requireNonNull(shape, "shape");
        Objects.requireNonNull(gather, "gather");
        Objects.requireNonNull(filter, "filter");
        if (shape.kind() == TreeShape.Kind.BUTTERFLY) {
            throw new IllegalArgumentException("scope shape " + shape + ": a scope gathers to one front-end, so it is a "
                    + "tree: flat, binary, kary:K or hier:K (butterfly is for the application's trees, --tree)");
        }
        if (intervalMs < ADAPTIVE || intervalMs > MAX_INTERVAL_MS) {
            throw new IllegalArgumentException("scope interval must be 0.." + MAX_INTERVAL_MS + " ms, or adaptive ("
                    + ADAPTIVE + "), intervalMs=" + intervalMs);
        }
    }

    /** Hosts with ranks up to which a scope gathers sequentially unless told otherwise ({@link #defaultGather}). */
    public static final int SEQUENTIAL_UP_TO_HOSTS = 8;
    /** Helper threads a gather has when the default gathers in parallel: the widest gather's children, at most this. */
    public static final int DEFAULT_HELPERS = 8;

    /**
     * How a scope of {@code shape} over job {@code job} gathers when the user did not say: sequentially over at most
     * {@value #SEQUENTIAL_UP_TO_HOSTS} hosts with ranks, else in parallel with as many helper threads as the widest gather
     * has children, at most {@value #DEFAULT_HELPERS}. A sequential round visits every leaf one after the other, so its
     * time grows with the hosts, and faster than them where the hosts share cores: at 512 ranks in 32 host processes on
     * 2 cores a {@code hier:8} round took 2.65 s sequentially and 0.30 s with {@code par:8}, and at 64 processes the
     * sequential round came within a third of the scope's timeout (docs/RELIABILITY.md).
     */
    public static GatherMode defaultGather(TreeShape shape, PathmapSpec job) {
        int leaves = rankHosts(job).size();
        if (leaves <= SEQUENTIAL_UP_TO_HOSTS) {
            return GatherMode.SEQUENTIAL;
        }
        return GatherMode.parallel(Math.min(DEFAULT_HELPERS, Math.min(leaves, shape.fanout())));
    }

    private static TreeSet<Integer> rankHosts(PathmapSpec job) {
        TreeSet<Integer> rankHosts = new TreeSet<>();
        for (int r = 0; r < job.ranks(); r++) {
            rankHosts.add(job.hostOf(r));
        }
        return rankHosts;
    }

    /** From command-line texts. @throws IllegalArgumentException naming the text that is wrong. */
    public static ScopeSettings parse(String shape, String gather, String filter, int intervalMs) {
        return new ScopeSettings(TreeShape.parse(shape), GatherMode.parse(gather), FilterSpec.parse(filter), intervalMs);
    }

    /**
     * The scope's spec over the job {@code job}, with {@code timeout} as its own: a leaf on every host that runs ranks,
     * the hosts that run none given to the scope as its additional resources, which take their cluster's inner gathers.
     */
    public ScopeSpec toSpec(Duration timeout, PathmapSpec job) {
        TreeSet<Integer> rankHosts = rankHosts(job);
        List<Integer> idle = new ArrayList<>();
        for (int h = 0; h < job.topology().size(); h++) {
            if (!rankHosts.contains(h)) {
                idle.add(h);
            }
        }
        return ScopeSpec.builder().shape(shape).gather(gather).filter(filter).frontEnd(0).timeout(timeout)
                .leafHosts(List.copyOf(rankHosts)).extraHosts(idle).build();
    }

    /** The shape in the scope's own words: {@code flat}, {@code kary:K} or {@code hier:K} (a 2-ary scope is {@code kary:2}). */
    public String shapeText() {
        return shape.kind() == TreeShape.Kind.KARY ? "kary:" + shape.fanout() : shape.toString();
    }

    /** Whether the front-end adapts its pause to the rounds' size ({@link #ADAPTIVE}). */
    public boolean adaptive() {
        return intervalMs == ADAPTIVE;
    }

    /** How the front-end paces its pulls, as the report's {@code cadence} names it: adaptive, back-to-back or interval. */
    public String cadenceKind() {
        return adaptive() ? "adaptive" : intervalMs == 0 ? "back-to-back" : "interval";
    }

    /** How the front-end paces its pulls, in words: {@code adaptive}, {@code back-to-back} or {@code every N ms}. */
    public String cadence() {
        return intervalMs > 0 ? "every " + intervalMs + " ms" : cadenceKind();
    }

    @Override
    public String toString() {
        return shapeText() + " " + gather + " " + filter.text() + " " + cadence();
    }
}
