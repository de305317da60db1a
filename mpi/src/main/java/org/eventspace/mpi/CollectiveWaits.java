package org.eventspace.mpi;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import org.eventspace.base.stats.RunningStatistics;

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
    /** Σ 1/P and Σ (1/P)(1 − 1/P) over each rank's instances: the mean and variance of its last arrivals by chance. */
    final double[] expectedLast;
    final double[] varianceLast;
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
        this.expectedLast = new double[worldSize];
        this.varianceLast = new double[worldSize];
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

    void communicator(int id, int size) {
        commSizes.put(id, size);
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
        long key = ((long) comm << 32) | (seq & 0xFFFFFFFFL);
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

    /**
     * The end of the run: instances of communicators whose size was never learnt complete with what arrived;
     * instances still missing a member (a rank that died before reaching them) are counted incomplete.
     */
    void finish(boolean sizesKnown) {
        for (Instance instance : pending.values()) {
            if (!sizesKnown && instance.n > 1) {
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
        for (int i = 0; i < instance.n; i++) {
            int r = instance.ranks[i];
            participations[r]++;
            waitNs[r] += lastEntry - instance.entries[i];
            waitUs[r].add((lastEntry - instance.entries[i]) / 1000.0);
            departureWaitUs[r].add((instance.exits[i] - firstExit) / 1000.0);
            caused += lastEntry - instance.entries[i];
            expectedLast[r] += p;
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

    /** The rank that arrived last most often (a tie: the one that caused the larger wait), or −1 if none did. */
    int slowestRank() {
        int best = -1;
        for (int r = 0; r < worldSize; r++) {
            if (lastArrivals[r] == 0) {
                continue;
            }
            if (best < 0 || lastArrivals[r] > lastArrivals[best]
                    || lastArrivals[r] == lastArrivals[best] && waitCausedNs[r] > waitCausedNs[best]) {
                best = r;
            }
        }
        return best;
    }

    /** z of rank r's last arrivals against chance (each instance of P members: last with probability 1/P). */
    double lastArrivalZ(int r) {
        double var = varianceLast[r];
        return var <= 0 ? 0 : (lastArrivals[r] - expectedLast[r]) / Math.sqrt(var);
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
