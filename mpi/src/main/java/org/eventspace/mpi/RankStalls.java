package org.eventspace.mpi;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Ranks that stopped making progress while others wait on them, observed live from the meta files: a rank's exact call
 * counters, and its watchdog's heartbeat and current op (native/es_mpi.c "watchdog", every
 * {@link MpiRankMetaLayout#HEARTBEAT_PERIOD_MS} ms). A rank is <b>stalled</b> when its call count has not moved for the
 * stall timeout and it is not itself waiting — its process stopped beating (SIGSTOP, a debugger, a lost machine) or it
 * is outside MPI — while another rank, alive, sits inside an MPI call with its own count frozen for at least half
 * that time. This is an observation, not a statistical guess: the statistical verdict ({@code SlowestRankRule}) ranks
 * lateness over many instances and, through its median, deliberately ignores one huge wait; a stall is reported
 * beside it, and takes the headline.
 *
 * <p>The default stall timeout: {@value #AUTO_MULTIPLE} × the longest pause any rank's call count has made and then
 * resumed so far (a long collective, a compute phase), at least {@value #MIN_AUTO_S} s, at most {@value #MAX_AUTO_S} s.
 *
 * <p>Not thread-safe: the agent thread observes; it hands copies to others.
 */
final class RankStalls {
    static final int AUTO_MULTIPLE = 5;
    static final long MIN_AUTO_S = 10;
    static final long MAX_AUTO_S = 60;
    /** Beats missed before a process counts as stopped: four periods. */
    private static final long BEAT_STALE_NS = 4 * MpiRankMetaLayout.HEARTBEAT_PERIOD_MS * 1_000_000L;

    /**
     * One stall as observed.
     *
     * @param rank      the stalled rank.
     * @param stalledS  how long its call count had not moved, s (at the last observation).
     * @param where     {@code in MPI_Allreduce} or {@code outside MPI (after MPI_Allreduce)}.
     * @param stopped   its process stopped beating (not scheduled at all: SIGSTOP, a debugger).
     * @param waiting   the ranks that waited inside an MPI call meanwhile.
     * @param ongoing   still stalled at the last observation (false: it moved again).
     */
    record Stall(int rank, double stalledS, String where, boolean stopped, List<Integer> waiting, boolean ongoing) {
        /** {@code rank 1 stalled for 42 s in MPI_Allreduce (its process stopped: no heartbeat) while ranks [0, 2] waited}. */
        String words() {
            return String.format(java.util.Locale.ROOT, "rank %d stalled for %.0f s %s%s while %s waited (stalled: observed)",
                    rank, stalledS, where, stopped ? " (its process stopped: no heartbeat)" : "",
                    waiting.size() == 1 ? "rank " + waiting.get(0) : "ranks " + waiting);
        }
    }

    private static final class Seen {
        long calls = -1;
        long callsSinceNs;
        long beat = -1;
        long beatSinceNs;
        int op;
        boolean ended;
        Stall current;
    }

    private final long timeoutNs;
    private final Map<Integer, Seen> ranks = new HashMap<>();
    private final List<Stall> ended = new ArrayList<>();
    private long longestPauseNs;
    private boolean beating;

    /** {@code timeoutS} 0: the default above. */
    RankStalls(long timeoutS) {
        this.timeoutNs = timeoutS * 1_000_000_000L;
    }

    /** The stall timeout in force now, ns. */
    long timeoutNs() {
        if (timeoutNs > 0) {
            return timeoutNs;
        }
        return Math.max(MIN_AUTO_S * 1_000_000_000L, Math.min(MAX_AUTO_S * 1_000_000_000L, AUTO_MULTIPLE * longestPauseNs));
    }

    /** Reads each rank's counters, beat and op as they are at {@code nowNs}; returns the ranks stalled now. */
    List<Stall> observe(Iterable<MpiRankFiles> files, long nowNs) {
        for (MpiRankFiles f : files) {
            Seen s = ranks.computeIfAbsent(f.rank(), r -> new Seen());
            long calls = 0;
            for (int i = 0; i < f.opCount(); i++) {
                calls += f.calls(i);
            }
            if (calls != s.calls) {
                if (s.calls >= 0 && s.current == null) {
                    longestPauseNs = Math.max(longestPauseNs, nowNs - s.callsSinceNs);
                }
                s.calls = calls;
                s.callsSinceNs = nowNs;
            }
            long beat = f.heartbeat();
            if (beat != s.beat) {
                s.beat = beat;
                s.beatSinceNs = nowNs;
                beating |= beat > 0;
            }
            s.op = f.currentOp();
            s.ended = f.finalized() || f.endFlags() != 0;
        }
        long timeout = timeoutNs();
        List<Stall> now = new ArrayList<>();
        for (Map.Entry<Integer, Seen> e : ranks.entrySet()) {
            Seen s = e.getValue();
            Stall stall = beating ? judge(e.getKey(), s, nowNs, timeout) : null;
            if (stall == null && s.current != null) {
                ended.add(new Stall(s.current.rank(), s.current.stalledS(), s.current.where(), s.current.stopped(),
                        s.current.waiting(), false));
            }
            s.current = stall;
            if (stall != null) {
                now.add(stall);
            }
        }
        now.sort(java.util.Comparator.comparingInt(Stall::rank));
        return now;
    }

    private Stall judge(int rank, Seen s, long nowNs, long timeout) {
        long frozen = nowNs - s.callsSinceNs;
        if (s.ended || s.calls < 0 || frozen < timeout) {
            return null;
        }
        boolean stopped = nowNs - s.beatSinceNs >= BEAT_STALE_NS;
        if (!stopped && s.op > 0) {
            return null; // alive inside a call: it waits itself
        }
        List<Integer> waiting = new ArrayList<>();
        for (Map.Entry<Integer, Seen> o : ranks.entrySet()) {
            Seen w = o.getValue();
            if (o.getKey() != rank && !w.ended && w.op > 0 && nowNs - w.beatSinceNs < BEAT_STALE_NS
                    && nowNs - w.callsSinceNs >= timeout / 2) {
                waiting.add(o.getKey());
            }
        }
        if (waiting.isEmpty()) {
            return null;
        }
        waiting.sort(null);
        String where = s.op > 0 ? "in " + MpiOp.name(s.op)
                : "outside MPI" + (s.op < 0 ? " (after " + MpiOp.name(-s.op) + ")" : "");
        return new Stall(rank, frozen / 1e9, where, stopped, List.copyOf(waiting), true);
    }

    /** Every stall seen: those that ended (the rank moved again), then those still on, longest first. */
    List<Stall> all() {
        List<Stall> all = new ArrayList<>(ended);
        for (Seen s : ranks.values()) {
            if (s.current != null) {
                all.add(s.current);
            }
        }
        all.sort(java.util.Comparator.comparingDouble(Stall::stalledS).reversed());
        return all;
    }
}
