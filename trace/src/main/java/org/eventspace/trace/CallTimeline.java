package org.eventspace.trace;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A job's calls as events in time order per rank, with the definitions an event trace needs (hosts, ranks, regions,
 * communicators): the writer-neutral model between a trace source (a compressed trace: {@link Otf2Export}; an MPI
 * run's rank files: {@code mpi.MpiOtf2Export}) and an event-trace writer ({@link Otf2Writer}). Its events are the
 * OTF2 event records we use (OTF2's Enter/Leave, MpiSend/MpiRecv, MpiIsend/MpiIsendComplete, MpiIrecvRequest/MpiIrecv,
 * MpiCollectiveBegin/End), because those are the ones Vampir and Scalasca read; nothing here writes bytes.
 *
 * <p>Rank r is location r (its main thread); a rank's other threads, if a source has their calls apart, are locations
 * after the ranks' ({@link #thread}), in the same location group. Times are ns from the timeline's origin
 * ({@link #originNs}, on the source's clock), each location's events in non-decreasing time order, every Enter closed by the Leave of the same region: {@link #problems()}
 * says where that does not hold (the writer refuses such a timeline: it would be a bug of the source walk). A
 * point-to-point record's peer and a collective's root are ranks in the record's communicator. Not thread-safe.
 */
public final class CallTimeline {
    /** What a region is, as OTF2's region roles group MPI functions. */
    public enum Role {
        FUNCTION, POINT2POINT, BARRIER, ONE2ALL, ALL2ONE, ALL2ALL, OTHER
    }

    /** A code region (one per MPI function or operation); {@code mpi}: of the MPI paradigm. */
    public record Region(String name, Role role, boolean mpi) {
    }

    /** A communicator: its members' ranks (MPI_COMM_WORLD ranks), in the communicator's rank order. */
    public record Communicator(int id, String name, List<Integer> members) {
        public Communicator {
            members = List.copyOf(members);
        }
    }

    /** One event of one rank, at {@code timeNs} from the origin. */
    public sealed interface Event {
        long timeNs();
    }

    public record Enter(long timeNs, int region) implements Event {
    }

    public record Leave(long timeNs, int region) implements Event {
    }

    /** A blocking send's message (at the call's entry). */
    public record Send(long timeNs, int peer, int comm, int tag, long bytes) implements Event {
    }

    /** A blocking receive's message (at the call's exit, when it arrived). */
    public record Receive(long timeNs, int peer, int comm, int tag, long bytes) implements Event {
    }

    public record Isend(long timeNs, int peer, int comm, int tag, long bytes, long request) implements Event {
    }

    public record IsendComplete(long timeNs, long request) implements Event {
    }

    public record IrecvRequest(long timeNs, long request) implements Event {
    }

    /** A non-blocking receive's message, in the call that completed it. */
    public record Irecv(long timeNs, int peer, int comm, int tag, long bytes, long request) implements Event {
    }

    public record CollectiveBegin(long timeNs) implements Event {
    }

    /**
     * A collective's end: {@code kind} an OTF2 collective operation's name without its prefix ({@code ALLREDUCE},
     * {@code BCAST}, …, {@code CREATE_HANDLE}), {@code root} −1 for none.
     */
    public record CollectiveEnd(long timeNs, String kind, int comm, int root, long sentBytes, long receivedBytes)
            implements Event {
    }

    /** Events of each kind over all ranks. */
    public record Counts(long enters, long leaves, long sends, long receives, long isends, long isendCompletes,
                         long irecvRequests, long irecvs, long collectiveBegins, long collectiveEnds) {
    }

    private final String jobName;
    private final List<String> hosts = new ArrayList<>();
    private final int[] rankHost;
    private final List<Region> regions = new ArrayList<>();
    private final Map<Region, Integer> regionIds = new HashMap<>();
    private final Map<Integer, Communicator> communicators = new LinkedHashMap<>();
    private final List<List<Event>> events = new ArrayList<>();
    /** The rank of each location (the first {@code ranks} are the ranks themselves). */
    private final List<Integer> locationRank = new ArrayList<>();
    private long originNs;

    /** An empty timeline of {@code ranks} ranks, every one on host 0 until {@link #placeRank} says otherwise. */
    public CallTimeline(String jobName, int ranks) {
        if (ranks < 1) {
            throw new IllegalArgumentException("a timeline needs at least one rank, got " + ranks);
        }
        this.jobName = jobName;
        this.rankHost = new int[ranks];
        for (int r = 0; r < ranks; r++) {
            events.add(new ArrayList<>());
            locationRank.add(r);
        }
    }

    /** A new location for another thread of {@code rank}; returns its id (after every rank's). */
    public int thread(int rank) {
        if (rank < 0 || rank >= ranks()) {
            throw new IllegalArgumentException("rank " + rank + " is not one of the timeline's " + ranks());
        }
        events.add(new ArrayList<>());
        locationRank.add(rank);
        return events.size() - 1;
    }

    /** Locations: the ranks', then the other threads'. */
    public int locations() {
        return events.size();
    }

    /** The rank whose thread {@code location} is. */
    public int rankOf(int location) {
        return locationRank.get(location);
    }

    public String jobName() {
        return jobName;
    }

    public int ranks() {
        return rankHost.length;
    }

    /** The host's index, adding it if new. */
    public int host(String name) {
        int i = hosts.indexOf(name);
        if (i >= 0) {
            return i;
        }
        hosts.add(name);
        return hosts.size() - 1;
    }

    public void placeRank(int rank, String hostName) {
        rankHost[rank] = host(hostName);
    }

    public List<String> hosts() {
        return hosts.isEmpty() ? List.of("host") : Collections.unmodifiableList(hosts);
    }

    public int hostOf(int rank) {
        return rankHost[rank];
    }

    /** The region's id, defining it on first use. */
    public int region(String name, Role role, boolean mpi) {
        return regionIds.computeIfAbsent(new Region(name, role, mpi), r -> {
            regions.add(r);
            return regions.size() - 1;
        });
    }

    public List<Region> regions() {
        return Collections.unmodifiableList(regions);
    }

    public void communicator(Communicator c) {
        communicators.put(c.id(), c);
    }

    public Map<Integer, Communicator> communicators() {
        return Collections.unmodifiableMap(communicators);
    }

    /** Appends {@code e} to the events of {@code location} (a rank, or a thread's location). */
    public void add(int location, Event e) {
        events.get(location).add(e);
    }

    public List<Event> events(int location) {
        return Collections.unmodifiableList(events.get(location));
    }

    public long originNs() {
        return originNs;
    }

    public void originNs(long originNs) {
        this.originNs = originNs;
    }

    /** The time of the last event of any rank (the trace's length from the origin). */
    public long lengthNs() {
        long last = 0;
        for (List<Event> list : events) {
            if (!list.isEmpty()) {
                last = Math.max(last, list.get(list.size() - 1).timeNs());
            }
        }
        return last;
    }

    public Counts counts() {
        long[] c = new long[10];
        for (List<Event> list : events) {
            for (Event e : list) {
                c[kindIndex(e)]++;
            }
        }
        return new Counts(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9]);
    }

    private static int kindIndex(Event e) {
        if (e instanceof Enter) {
            return 0;
        } else if (e instanceof Leave) {
            return 1;
        } else if (e instanceof Send) {
            return 2;
        } else if (e instanceof Receive) {
            return 3;
        } else if (e instanceof Isend) {
            return 4;
        } else if (e instanceof IsendComplete) {
            return 5;
        } else if (e instanceof IrecvRequest) {
            return 6;
        } else if (e instanceof Irecv) {
            return 7;
        } else if (e instanceof CollectiveBegin) {
            return 8;
        }
        return 9;
    }

    /**
     * What makes this timeline no valid event trace, one line each (empty when it is one): an event earlier than its
     * rank's previous one, a Leave that does not close the innermost open Enter, an Enter never left, an MPI record
     * on an undefined communicator or with a peer or root outside it, a region id that is not defined.
     */
    public List<String> problems() {
        List<String> out = new ArrayList<>();
        for (int location = 0; location < events.size(); location++) {
            long last = Long.MIN_VALUE;
            Deque<Integer> open = new ArrayDeque<>();
            List<Event> list = events.get(location);
            String where = location < ranks() ? "rank " + location : "location " + location;
            for (int i = 0; i < list.size() && out.size() < 20; i++) {
                Event e = list.get(i);
                String at = where + " event " + i + " (" + e + ")";
                if (e.timeNs() < last) {
                    out.add(at + ": earlier than the rank's previous event at " + last + " ns");
                }
                if (e.timeNs() < 0) {
                    out.add(at + ": before the origin");
                }
                last = Math.max(last, e.timeNs());
                if (e instanceof Enter x) {
                    checkRegion(x.region(), at, out);
                    open.push(x.region());
                } else if (e instanceof Leave x) {
                    if (open.isEmpty() || open.peek() != x.region()) {
                        out.add(at + ": leaves region " + x.region() + " but the innermost open one is "
                                + (open.isEmpty() ? "none" : open.peek()));
                    } else {
                        open.pop();
                    }
                } else if (e instanceof Send x) {
                    checkPeer(x.comm(), x.peer(), at, out);
                } else if (e instanceof Receive x) {
                    checkPeer(x.comm(), x.peer(), at, out);
                } else if (e instanceof Isend x) {
                    checkPeer(x.comm(), x.peer(), at, out);
                } else if (e instanceof Irecv x) {
                    checkPeer(x.comm(), x.peer(), at, out);
                } else if (e instanceof CollectiveEnd x) {
                    checkPeer(x.comm(), Math.max(0, x.root()), at, out);
                }
            }
            if (!open.isEmpty()) {
                out.add(where + ": " + open.size() + " regions entered and never left");
            }
        }
        return out;
    }

    private void checkRegion(int region, String at, List<String> out) {
        if (region < 0 || region >= regions.size()) {
            out.add(at + ": region " + region + " is not defined");
        }
    }

    private void checkPeer(int comm, int peer, String at, List<String> out) {
        Communicator c = communicators.get(comm);
        if (c == null) {
            out.add(at + ": communicator " + comm + " is not defined");
        } else if (peer < 0 || peer >= c.members().size()) {
            out.add(at + ": rank " + peer + " is not in communicator " + c.name() + " of " + c.members().size());
        }
    }
}
