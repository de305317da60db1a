package org.eventspace.mpi;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.eventspace.base.stats.RunningStatistics;
import org.eventspace.base.stats.UniformSample;
import org.eventspace.monitor.model.SlowestRankRule;
import org.eventspace.monitor.model.Verdict;

/**
 * Scalasca's "Wait at N×N" over collective instances (Geimer et al., "The Scalasca performance toolset
 * architecture", 2010; the pattern for n-to-n collectives): an instance is one collective call on one communicator,
 * named by (communicator id, the communicator's collective sequence), which every member records alike. Once every
 * member's entry is in, the last arriver is the member with the latest entry on the common time base and each
 * member's wait is {@code last entry − its entry}. Exits give the other side, as a gred's collectors give it
 * (EventSpace paper §3: departure wait and order): each member's departure wait is {@code its exit − first exit}.
 * We apply it to every collective (rooted ones included: PMPI sees
 * entries and exits, not a collective's internal tree), and leave MPI_Init and MPI_Finalize out (their entries
 * measure process start-up and the program's end, not load balance). A window's MPI_Win_fence and MPI_Win_free are
 * instances of the window (its own id and sequence): Scalasca's wait at fence. Neighbourhood collectives are left
 * out by the caller: a rank waits there for its neighbours only.
 *
 * <p>A non-blocking collective (MPI_Ibarrier, MPI_Iallreduce, …, MPI_Comm_idup) is an instance like its blocking
 * form, on the same sequence (MPI-3.1 §5.12: blocking and non-blocking collectives are ordered alike): a member
 * arrives with the i-call's entry and departs with the exit of the wait or test that completed its request (the
 * library's completion record), so its departure wait is the time it spent completing, not the i-call's few
 * microseconds. An i-call whose completion never comes (its request freed, past the library's request table, a
 * rank that ended first, or more than {@link #MAX_POSTED} at once) departs at the i-call's own exit, and is counted
 * ({@link #postedWithoutCompletion}).
 *
 * <p>Not thread-safe: fed by one agent thread.
 */
final class CollectiveWaits {
    /** Instances kept waiting for members; beyond, the oldest is given up as incomplete. */
    static final int MAX_PENDING = 200_000;

    private final int worldSize;
    private final Map<Integer, Integer> commSizes = new HashMap<>();
    private final LinkedHashMap<Long, Instance> pending = new LinkedHashMap<>();
    final long[] lastArrivals;
    final long[] participations;
    final long[] waitNs;
    /** The waits of every other member at the instances where this rank came last. */
    final long[] waitCausedNs;
    /** The largest wait this rank caused at one instance (its members' waits summed): a stall shows as one huge one. */
    final long[] longestCausedNs;
    /** Σ 1/P and Σ (1/P)(1 − 1/P) over each rank's instances: the mean and variance of its last arrivals by chance. */
    final double[] expectedLast;
    final double[] varianceLast;
    /** Per rank, Σ over its instances of (the members' mean wait − its own wait), ns: how late it was, in total. */
    final double[] latenessNs;
    /**
     * Per rank, a uniform sample (Vitter's Algorithm R) of its own lateness at its instances, µs, of at most
     * {@link #LATENESS_SAMPLE}: the time it worked since its previous instance minus the members' mean (see
     * {@code complete}). The verdict's effect is its median, so that a rank preempted for a few time slices
     * (milliseconds at once, on a loaded machine) does not decide it the way it decides a mean.
     */
    static final int LATENESS_SAMPLE = 1024;
    private final UniformSample[] latenessSample;
    /** Per rank, a sample of the time between its consecutive instances (the last entries), µs: its iteration. */
    private final UniformSample[] intervalSample;
    private final long[] previousLastEntryNs;
    /** Per rank, its exit from its previous instance (0 before one): the start of its own work before the next. */
    private final long[] previousExitNs;
    private double[] gaps = new double[4];
    /** The earliest and latest entry of any complete instance: the span a rank's lateness is a share of. */
    long firstEntryNs = Long.MAX_VALUE;
    long lastEntryNs = Long.MIN_VALUE;
    /** Per rank, its wait at each instance (µs): the arrival-wait statistics the dashboard colours by. */
    final RunningStatistics[] waitUs;
    /**
     * Per rank, how often it arrived 1st, 2nd, … at an instance of MPI_COMM_WORLD (the arrival order of the paper's
     * load-balance monitor); kept for at most {@link #MAX_ORDERED} ranks, since counting it is O(P²) per instance.
     */
    final long[][] arrivalOrder;
    /** Per rank, how often it left 1st, 2nd, … an instance of MPI_COMM_WORLD (by exit time); as {@link #arrivalOrder}. */
    final long[][] departureOrder;
    /** Per rank, its departure wait at each instance (µs): its exit − the first member's exit. */
    final RunningStatistics[] departureWaitUs;
    static final int MAX_ORDERED = 64;
    long instances;
    long incomplete;
    /** Collective calls on a communicator or window the library could not name (past its tables). */
    long unknownCommunicator;

    CollectiveWaits(int worldSize) {
        this.worldSize = worldSize;
        this.lastArrivals = new long[worldSize];
        this.participations = new long[worldSize];
        this.waitNs = new long[worldSize];
        this.waitCausedNs = new long[worldSize];
        this.longestCausedNs = new long[worldSize];
        this.expectedLast = new double[worldSize];
        this.varianceLast = new double[worldSize];
        this.latenessNs = new double[worldSize];
        this.latenessSample = new UniformSample[worldSize];
        this.intervalSample = new UniformSample[worldSize];
        this.previousLastEntryNs = new long[worldSize];
        this.previousExitNs = new long[worldSize];
        this.waitUs = new RunningStatistics[worldSize];
        this.departureWaitUs = new RunningStatistics[worldSize];
        for (int r = 0; r < worldSize; r++) {
            waitUs[r] = new RunningStatistics();
            departureWaitUs[r] = new RunningStatistics();
        }
        this.arrivalOrder = worldSize <= MAX_ORDERED ? new long[worldSize][worldSize] : null;
        this.departureOrder = worldSize <= MAX_ORDERED ? new long[worldSize][worldSize] : null;
        commSizes.put(MpiTuple.COMM_WORLD_ID, worldSize);
        commSizes.put(MpiTuple.COMM_SELF_ID, 1);
    }

    /**
     * Communicator {@code id} has {@code size} members. The analysis reads a rank's tuples and its communicator list
     * as they come, so every member of an instance may have arrived before its communicator's size was read: such an
     * instance completes now, instead of waiting for a member that will not come and ending counted incomplete.
     */
    void communicator(int id, int size) {
        Integer previous = commSizes.put(id, size);
        if (previous != null && previous == size || pending.isEmpty()) {
            return;
        }
        Iterator<Map.Entry<Long, Instance>> it = pending.entrySet().iterator();
        List<Instance> done = new ArrayList<>();
        while (it.hasNext()) {
            Map.Entry<Long, Instance> e = it.next();
            if (commOf(e.getKey()) == id && (size == 1 || e.getValue().n >= size)) {
                it.remove();
                if (size > 1) {
                    done.add(e.getValue());
                }
            }
        }
        done.forEach(this::complete);
    }

    /** The key of instance (comm, seq) in {@code pending}: the communicator in the high half, the sequence in the low. */
    private static long key(int comm, int seq) {
        return ((long) comm << 32) | (seq & 0xFFFFFFFFL);
    }

    /** The communicator of a {@link #key}. */
    private static int commOf(long key) {
        return (int) (key >>> 32);
    }

    /** One member's entry into and exit from instance (comm, seq), both on the common time base. */
    void arrive(int comm, int seq, int rank, long entryNs, long exitNs) {
        if (rank < 0 || rank >= worldSize) {
            return;
        }
        if (comm == MpiTuple.COMM_UNKNOWN_ID) {
            unknownCommunicator++;
            return;
        }
        int size = commSizes.getOrDefault(comm, 0);
        if (size == 1) {
            return;
        }
        long key = key(comm, seq);
        Instance instance = pending.get(key);
        if (instance == null) {
            instance = new Instance();
            pending.put(key, instance);
            if (pending.size() > MAX_PENDING) {
                Iterator<Instance> eldest = pending.values().iterator();
                eldest.next();
                eldest.remove();
                incomplete++;
            }
        }
        instance.add(rank, entryNs, exitNs);
        if (size > 0 && instance.n >= size) {
            pending.remove(key);
            complete(instance);
        }
    }

    /** Non-blocking collective calls waiting for their completion record, at most; beyond, one departs at once. */
    static final int MAX_POSTED = 100_000;
    /** (rank, communicator, sequence) of a posted non-blocking collective -> {its entry, its i-call's exit}. */
    private final Map<PostedKey, long[]> posted = new HashMap<>();
    /** Non-blocking collectives that departed at the completing wait or test, and those that had to without it. */
    long postedCompleted;
    long postedWithoutCompletion;

    private record PostedKey(int rank, int comm, int seq) {
    }

    /** A non-blocking collective's i-call: it arrives now; it departs at its completion ({@link #completed}). */
    void posted(int comm, int seq, int rank, long entryNs, long exitNs) {
        if (posted.size() >= MAX_POSTED) {
            postedWithoutCompletion++;
            arrive(comm, seq, rank, entryNs, exitNs);
            return;
        }
        long[] previous = posted.put(new PostedKey(rank, comm, seq), new long[] {entryNs, exitNs});
        if (previous != null) {
            postedWithoutCompletion++;
            arrive(comm, seq, rank, previous[0], previous[1]);
        }
    }

    /**
     * The wait or test that completed rank's non-blocking collective (comm, seq) left at {@code exitNs}. A completion
     * whose i-call was never posted here lost it with the ring's overwritten tuples, which {@code tuples_missed} counts.
     */
    void completed(int comm, int seq, int rank, long exitNs) {
        long[] call = posted.remove(new PostedKey(rank, comm, seq));
        if (call != null) {
            postedCompleted++;
            arrive(comm, seq, rank, call[0], Math.max(call[1], exitNs));
        }
    }

    /**
     * The end of the run: instances of communicators whose size was never learnt complete with what arrived;
     * instances still missing a member (a rank that died before reaching them) are counted incomplete.
     */
    void finish(boolean sizesKnown) {
        for (Map.Entry<PostedKey, long[]> e : new ArrayList<>(posted.entrySet())) {
            postedWithoutCompletion++;
            arrive(e.getKey().comm(), e.getKey().seq(), e.getKey().rank(), e.getValue()[0], e.getValue()[1]);
        }
        posted.clear();
        for (Map.Entry<Long, Instance> e : pending.entrySet()) {
            Instance instance = e.getValue();
            int size = commSizes.getOrDefault(commOf(e.getKey()), 0);
            if (size > 1 && instance.n >= size || !sizesKnown && instance.n > 1) {
                complete(instance);
            } else {
                incomplete++;
            }
        }
        pending.clear();
    }

    private void complete(Instance instance) {
        int last = 0;
        for (int i = 1; i < instance.n; i++) {
            if (instance.entries[i] > instance.entries[last]) {
                last = i;
            }
        }
        long lastEntry = instance.entries[last];
        long firstExit = instance.exits[0];
        for (int i = 1; i < instance.n; i++) {
            firstExit = Math.min(firstExit, instance.exits[i]);
        }
        double p = 1.0 / instance.n;
        long caused = 0;
        long sumEntries = 0;
        long firstEntry = Long.MAX_VALUE;
        for (int i = 0; i < instance.n; i++) {
            sumEntries += instance.entries[i] - lastEntry;
            firstEntry = Math.min(firstEntry, instance.entries[i]);
        }
        // The members' mean wait is lastEntry − mean entry; a member's lateness is its entry − the mean entry.
        double meanEntryFromLast = (double) sumEntries / instance.n;
        firstEntryNs = Math.min(firstEntryNs, firstEntry);
        lastEntryNs = Math.max(lastEntryNs, lastEntry);
        // Each member's own work before this instance: its entry minus its exit from its previous one. Its lateness
        // as the verdict weighs it is that gap minus the members' mean gap — the part of its late entry that is its
        // own, not the order in which the previous collective let the ranks go (in a tight loop the rank the MPI
        // library releases last enters last, every time, by the library's algorithm).
        if (gaps.length < instance.n) {
            gaps = new double[instance.n * 2];
        }
        boolean allGaps = true;
        double sumGaps = 0;
        for (int i = 0; i < instance.n; i++) {
            long previous = previousExitNs[instance.ranks[i]];
            allGaps &= previous != 0 && instance.entries[i] >= previous;
            gaps[i] = instance.entries[i] - previous;
            sumGaps += gaps[i];
        }
        double meanGap = sumGaps / instance.n;
        for (int i = 0; i < instance.n; i++) {
            int r = instance.ranks[i];
            participations[r]++;
            waitNs[r] += lastEntry - instance.entries[i];
            waitUs[r].add((lastEntry - instance.entries[i]) / 1000.0);
            departureWaitUs[r].add((instance.exits[i] - firstExit) / 1000.0);
            caused += lastEntry - instance.entries[i];
            expectedLast[r] += p;
            double late = (instance.entries[i] - lastEntry) - meanEntryFromLast;
            latenessNs[r] += late;
            if (allGaps) {
                sample(latenessSample, r).add((gaps[i] - meanGap) / 1000.0);
            }
            previousExitNs[r] = Math.max(previousExitNs[r], instance.exits[i]);
            if (participations[r] > 1) {
                sample(intervalSample, r).add((lastEntry - previousLastEntryNs[r]) / 1000.0);
            }
            previousLastEntryNs[r] = lastEntry;
            varianceLast[r] += p * (1 - p);
        }
        if (arrivalOrder != null && instance.n == worldSize) {
            for (int i = 0; i < instance.n; i++) {
                arrivalOrder[instance.ranks[i]][place(instance.entries, instance.n, i)]++;
                departureOrder[instance.ranks[i]][place(instance.exits, instance.n, i)]++;
            }
        }
        lastArrivals[instance.ranks[last]]++;
        waitCausedNs[instance.ranks[last]] += caused;
        longestCausedNs[instance.ranks[last]] = Math.max(longestCausedNs[instance.ranks[last]], caused);
        instances++;
    }

    /** Member i's place (0: first) in {@code times}: how many came before it, a tie going to the lower member. */
    private static int place(long[] times, int n, int i) {
        int before = 0;
        for (int j = 0; j < n; j++) {
            before += times[j] < times[i] || times[j] == times[i] && j < i ? 1 : 0;
        }
        return before;
    }

    int pending() {
        return pending.size();
    }

    /** Rank r's sample in {@code samples}, made on its first value (a rank in no instance keeps none). */
    private static UniformSample sample(UniformSample[] samples, int r) {
        if (samples[r] == null) {
            samples[r] = new UniformSample(LATENESS_SAMPLE, 0x5EED + r);
        }
        return samples[r];
    }

    /** The median of rank r's sampled lateness per instance, µs; 0 before any. */
    double medianLatenessUs(int r) {
        return latenessSample[r] == null ? 0 : latenessSample[r].median();
    }

    /** The median time between rank r's consecutive instances, µs (its iteration); 0 before two. */
    double medianIntervalUs(int r) {
        return intervalSample[r] == null ? 0 : intervalSample[r].median();
    }

    /** The time from the first complete instance's earliest entry to the last one's latest, ns; 0 before two. */
    long spanNs() {
        return lastEntryNs > firstEntryNs ? lastEntryNs - firstEntryNs : 0;
    }

    /** Every rank's evidence for {@link SlowestRankRule}: last arrivals against chance, lateness, the instances' span. */
    List<SlowestRankRule.Evidence> evidence() {
        List<SlowestRankRule.Evidence> out = new ArrayList<>(worldSize);
        for (int r = 0; r < worldSize; r++) {
            // The typical lateness (the median per instance) against the typical iteration (the median time between
            // its instances), both times the instances: a few preempted instances decide neither.
            out.add(new SlowestRankRule.Evidence(r, lastArrivals[r], participations[r], expectedLast[r], varianceLast[r],
                    medianLatenessUs(r) * participations[r], medianIntervalUs(r) * participations[r],
                    "collective instances"));
        }
        return out;
    }

    /** The slowest rank as the one rule judges it. */
    Verdict.SlowestRank verdict() {
        return SlowestRankRule.judge(evidence());
    }

    private static final class Instance {
        int[] ranks = new int[4];
        long[] entries = new long[4];
        long[] exits = new long[4];
        int n;

        void add(int rank, long entry, long exit) {
            if (n == ranks.length) {
                ranks = Arrays.copyOf(ranks, n * 2);
                entries = Arrays.copyOf(entries, n * 2);
                exits = Arrays.copyOf(exits, n * 2);
            }
            ranks[n] = rank;
            entries[n] = entry;
            exits[n] = exit;
            n++;
        }
    }
}
