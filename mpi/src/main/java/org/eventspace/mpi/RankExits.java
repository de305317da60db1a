package org.eventspace.mpi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which ranks failed and which were only stopped because of it. When one rank dies, Open MPI's mpirun sends SIGTERM
 * to the others (and SIGKILL to those that linger), so a run where rank 1 crashed leaves every rank unfinished: the
 * rank that failed by itself (aborted, a fatal signal other than a stop signal, an exit with a non-zero status or
 * before MPI_Finalize) is the cause, the earliest first; the ranks killed by a stop signal or gone without a record
 * were stopped after it. When no rank failed by itself but some were stopped by a signal, a rank gone without a
 * record (SIGKILL cannot be caught) is taken for the cause.
 */
final class RankExits {
    /** Signals that stop a rank from outside (mpirun's SIGTERM, then SIGKILL; ^C; a lost terminal). */
    private static final Set<Integer> STOP_SIGNALS = Set.of(1, 2, 9, 15);

    private static final int FINALIZE = MpiOp.code("MPI_Finalize");

    private RankExits() {
    }

    /** One per rank 0 .. worldSize-1 (none before a rank reached MPI_Init); {@code profile} may be null. */
    static List<RankExit> of(RankSnapshots snapshots, int worldSize, CallProfile profile) {
        List<RankExit> exits = new ArrayList<>();
        int first = -1;
        long firstAt = Long.MAX_VALUE;
        for (int r = 0; r < worldSize; r++) {
            RankSnapshot s = snapshots.of(r);
            RankExit exit = exit(r, s, profile == null ? 0 : profile.lastOp(r));
            exits.add(exit);
            if (selfInflicted(exit)) {
                long at = s.failedNs() == 0 ? Long.MAX_VALUE - 1
                        : s.failedNs() + (s.initOffsetNs() == MpiRankMetaLayout.NO_OFFSET ? 0 : s.initOffsetNs());
                if (first < 0 || at < firstAt) {
                    first = r;
                    firstAt = at;
                }
            }
        }
        // a rank gone without a record is the cause only when mpirun was seen stopping the others (a lost agent's
        // stale copies look gone too, and then nobody was stopped)
        boolean vanishedAreCauses = first < 0
                && exits.stream().anyMatch(e -> e.state() == RankExit.State.KILLED_BY_SIGNAL);
        if (vanishedAreCauses) {
            for (RankExit e : exits) {
                if (e.state() == RankExit.State.UNKNOWN && snapshots.of(e.rank()) != null) {
                    first = e.rank();
                    break;
                }
            }
        }
        if (first < 0) {
            return exits;
        }
        for (int r = 0; r < exits.size(); r++) {
            RankExit e = exits.get(r);
            boolean cause = selfInflicted(e) || vanishedAreCauses && e.state() == RankExit.State.UNKNOWN
                    && snapshots.of(r) != null;
            if (!e.finished() && !cause) {
                exits.set(r, e.stoppedAfter(first));
            }
        }
        return exits;
    }

    private static RankExit exit(int rank, RankSnapshot s, int lastOp) {
        String last = lastOp == 0 ? null : MpiOp.name(lastOp);
        if (s == null) {
            return new RankExit(rank, RankExit.State.UNKNOWN, null, null, null, null, null, null, null);
        }
        if (s.ended(MpiRankMetaLayout.END_ABORTED)) {
            return new RankExit(rank, RankExit.State.ABORTED, null, null, null, s.abortCode(), "MPI_Abort", null, null);
        }
        if (s.ended(MpiRankMetaLayout.END_SIGNALED) && STOP_SIGNALS.contains(s.endSignal())
                && (s.finalized() || s.endSignalOp() == FINALIZE)) {
            // In or past MPI_Finalize, then stopped by mpirun because another rank failed (Open MPI's MPI_Finalize is
            // no barrier: a rank may return from it and exit while others are still inside): its MPI work was done,
            // so it is not one of the ranks the failure cut short.
            return new RankExit(rank, RankExit.State.FINISHED, null, null, null, null, null, null, null);
        }
        if (s.ended(MpiRankMetaLayout.END_SIGNALED)) {
            return new RankExit(rank, RankExit.State.KILLED_BY_SIGNAL, null, s.endSignal(),
                    RankExit.signalName(s.endSignal()), null, s.endSignalOp() == 0 ? null : MpiOp.name(s.endSignalOp()),
                    s.endSignalOp() == 0 ? null : s.ended(MpiRankMetaLayout.END_IN_CALL), null);
        }
        if (s.ended(MpiRankMetaLayout.END_BEFORE_FINALIZE)) {
            return new RankExit(rank, RankExit.State.EXITED_BEFORE_FINALIZE, s.exitStatus(), null, null, null, last,
                    null, null);
        }
        Integer code = s.ended(MpiRankMetaLayout.END_EXITED) ? s.exitStatus() : null;
        if (code != null && code != 0) {
            return new RankExit(rank, RankExit.State.EXITED_NONZERO, code, null, null, null, null, null, null);
        }
        if (s.finalized()) {
            return new RankExit(rank, RankExit.State.FINISHED, code, null, null, null, null, null, null);
        }
        return new RankExit(rank, RankExit.State.UNKNOWN, null, null, null, null, last, null, null);
    }

    /** Failed by itself, not stopped from outside. */
    private static boolean selfInflicted(RankExit e) {
        return switch (e.state()) {
            case ABORTED, EXITED_NONZERO, EXITED_BEFORE_FINALIZE -> true;
            case KILLED_BY_SIGNAL -> !STOP_SIGNALS.contains(e.signal());
            case FINISHED, UNKNOWN -> false;
        };
    }

    /**
     * The report's errors: one per failed rank naming it with its signal or code, then one line for the ranks
     * stopped after a failure; with no cause known, the ranks killed from outside and those that left no record.
     */
    static List<String> errors(List<RankExit> exits) {
        List<String> errors = new ArrayList<>();
        List<Integer> stopped = new ArrayList<>();
        // ranks that exited (or aborted) with the same code are one line: "ranks [0, 1, 2] exited with code 5"
        Map<String, List<Integer>> sameCode = new LinkedHashMap<>();
        List<RankExit> unknown = new ArrayList<>();
        int after = -1;
        for (RankExit e : exits) {
            if (e.finished()) {
                continue;
            }
            if (e.stoppedAfterRank() != null) {
                stopped.add(e.rank());
                after = e.stoppedAfterRank();
            } else if (e.state() == RankExit.State.EXITED_NONZERO) {
                sameCode.computeIfAbsent(" exited with code " + e.exitCode(), k -> new ArrayList<>()).add(e.rank());
            } else if (e.state() == RankExit.State.ABORTED) {
                sameCode.computeIfAbsent(" called MPI_Abort with code " + e.abortCode(), k -> new ArrayList<>())
                        .add(e.rank());
            } else if (e.state() == RankExit.State.UNKNOWN) {
                unknown.add(e);
            } else {
                errors.add(describe(e));
            }
        }
        if (unknown.size() == 1) {
            errors.add(describe(unknown.get(0)));
        } else if (!unknown.isEmpty()) {
            errors.add("ranks " + unknown.stream().map(RankExit::rank).toList() + " did not reach MPI_Finalize and"
                    + " recorded no exit, abort or signal (SIGKILL cannot be caught; or they left no trace files)");
        }
        List<String> grouped = new ArrayList<>();
        sameCode.forEach((what, ranks) -> grouped.add(
                (ranks.size() == 1 ? "rank " + ranks.get(0) : "ranks " + ranks) + what));
        errors.addAll(0, grouped);
        if (!stopped.isEmpty()) {
            errors.add((stopped.size() == 1 ? "rank " + stopped.get(0) + " was" : "ranks " + stopped + " were")
                    + " stopped before MPI_Finalize (after rank " + after + " failed)");
        }
        return errors;
    }

    /** {@code rank 1 was killed by signal 11 (SIGSEGV) in MPI_Allreduce}, and so on. */
    static String describe(RankExit e) {
        return "rank " + e.rank() + " " + what(e);
    }

    /**
     * Why a rank did not finish, without its number (the run model's {@code coverage.unfinished_ranks[].reason}): what
     * {@link #describe} says, or for a rank stopped after another's failure, that.
     */
    static String reason(RankExit e) {
        return e.stoppedAfterRank() != null
                ? "was stopped before MPI_Finalize (after rank " + e.stoppedAfterRank() + " failed)" : what(e);
    }

    private static String what(RankExit e) {
        return switch (e.state()) {
            case ABORTED -> "called MPI_Abort with code " + e.abortCode();
            case KILLED_BY_SIGNAL -> "was killed by signal " + e.signal() + " (" + e.signalName() + ")"
                    + (e.lastCall() == null ? " before its first MPI call"
                    : (Boolean.TRUE.equals(e.inCall()) ? " in " : " after ") + e.lastCall());
            case EXITED_NONZERO -> "exited with code " + e.exitCode();
            case EXITED_BEFORE_FINALIZE -> "exited with code " + e.exitCode() + " before MPI_Finalize"
                    + (e.lastCall() == null ? "" : " (after " + e.lastCall() + ")");
            case UNKNOWN -> "did not reach MPI_Finalize and recorded no exit, abort or signal (SIGKILL cannot"
                    + " be caught; or it left no trace files)" + (e.lastCall() == null ? "" : "; last call " + e.lastCall());
            case FINISHED -> "finished";
        };
    }
}
