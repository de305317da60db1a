package org.eventspace.trace;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

/**
 * A compressed trace as a timeline in the Chrome JSON trace-event format, which Perfetto (ui.perfetto.dev) and
 * {@code chrome://tracing} open: ScalaTrace's point that its traces serve "timeline-based trace analysis tools" (Ratn et
 * al. §1, §3.4) without a flat trace on disk — the timeline is made from the compressed trace when asked for.
 *
 * <p>One process (the job), one thread track per rank. Each rank's calls are expanded in order (up to
 * {@code limitPerRank}); a call is a complete event ({@code "ph": "X"}) starting after its compute delta and lasting
 * its communicate delta, both chosen as the timed replay chooses them ({@link DeltaSampler}: the mean with statistics,
 * bin averages in proportion to their frequencies with histograms, per previous call site with path histograms), so
 * the timeline is the replay's, not a measurement of one particular run. Times are µs from the rank's start.
 *
 * <p>Each rank draws from its own rank group's timing ({@link DeltaTiming#byRanks}): where the ranks of an event timed
 * differently the merge kept a timing per group of ranks that agree, so a rank that computed 3× longer does so on its
 * track. Within a group the ranks draw from the group's samples together: a rank's own call-to-call variation, and a
 * difference too small or too uncertain for the merge to keep apart, are not here. {@code trace export} of an MPI run's
 * rank files ({@code mpi.MpiTimeline}) is the exact timeline of every call.
 *
 * <p>A message is a flow from the send's slice to the matching receive's (the k-th send from s to d matches d's k-th
 * receive from s, MPI's non-overtaking order): {@code ph: s} inside the send's slice, {@code ph: f} with {@code bp: e}
 * inside the receive's, the same numeric id (Perfetto reads a string id as hex). A sendrecv is both halves; its source
 * is not in the trace, so it is taken as the rank whose same call sends to this one. Only messages both of whose ends
 * are exported are drawn; the rest are counted. The n-th collective of a rank carries {@code args.instance} = n, the
 * same on every rank, and a chain of flows through the ranks that made it, so one click follows one instance over
 * every track. Layout of the file in docs/TRACE-FORMAT.md. Not thread-safe; one export at a time per instance.
 */
public final class PerfettoExport {
    public static final String SCHEMA = "eventspace.trace-export/2";

    /**
     * What was written.
     *
     * @param events            complete events (calls)
     * @param messageFlows      messages drawn from send to receive (each one {@code s} and one {@code f})
     * @param collectiveFlows   links of collective instances' chains (member to next member)
     * @param unmatched         send or receive halves whose other end is not in the export (not drawn)
     * @param truncated         some rank's calls were cut at the limit
     */
    public record Summary(long events, long messageFlows, long collectiveFlows, long unmatched, boolean truncated) {
    }

    private final Trace trace;
    private final long limitPerRank;

    public PerfettoExport(Trace trace, long limitPerRank) {
        if (limitPerRank < 1) {
            throw new IllegalArgumentException("the limit of events per rank must be >= 1, got " + limitPerRank);
        }
        this.trace = trace;
        this.limitPerRank = limitPerRank;
    }

    /** The metadata event that names the one process (the job) of a timeline in this format. */
    public static void processName(JsonGenerator g, String name) throws IOException {
        g.writeStartObject();
        g.writeStringField("name", "process_name");
        g.writeStringField("ph", "M");
        g.writeNumberField("pid", 0);
        g.writeObjectFieldStart("args");
        g.writeStringField("name", name);
        g.writeEndObject();
        g.writeEndObject();
    }

    /** The metadata event that names rank {@code rank}'s track ({@code tid} = the rank): "rank N". */
    public static void rankTrack(JsonGenerator g, int rank) throws IOException {
        g.writeStartObject();
        g.writeStringField("name", "thread_name");
        g.writeStringField("ph", "M");
        g.writeNumberField("pid", 0);
        g.writeNumberField("tid", rank);
        g.writeObjectFieldStart("args");
        g.writeStringField("name", "rank " + rank);
        g.writeEndObject();
        g.writeEndObject();
    }

    /**
     * Writes the whole timeline to {@code out} (not closed). Two walks over every rank: the first counts the messages
     * on each channel and each rank's collectives, so that the second draws only flows both of whose ends it writes.
     */
    public Summary write(OutputStream out) throws IOException {
        Matching matching = new Matching(trace.ranks());
        collectSendrecvs(trace.nodes(), matching.sendrecvsBySite);
        for (int rank = 0; rank < trace.ranks(); rank++) {
            RankTimeline t = new RankTimeline(null, rank, matching);
            t.walk(trace.nodes());
            matching.collectives[rank] = t.collectives;
        }
        matching.number();
        JsonGenerator g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8);
        g.writeStartObject();
        g.writeStringField("displayTimeUnit", "ns");
        g.writeObjectFieldStart("otherData");
        g.writeStringField("schema", SCHEMA);
        g.writeNumberField("ranks", trace.ranks());
        g.writeStringField("time_encoding", trace.encoding().fileName());
        g.writeNumberField("events_recorded", trace.eventsRecorded());
        g.writeNumberField("limit_per_rank", limitPerRank);
        g.writeStringField("rank_timing", "merged over ranks: every rank draws from the same statistics");
        g.writeEndObject();
        g.writeArrayFieldStart("traceEvents");
        processName(g, "eventspace job, " + trace.ranks() + " ranks");
        long events = 0;
        long links = 0;
        boolean truncated = false;
        for (int rank = 0; rank < trace.ranks(); rank++) {
            rankTrack(g, rank);
            RankTimeline t = new RankTimeline(g, rank, matching);
            t.walk(trace.nodes());
            events += t.events;
            links += t.collectiveStarts;
            truncated |= t.truncated;
        }
        g.writeEndArray();
        g.writeEndObject();
        g.flush();
        return new Summary(events, matching.messages, links, matching.unmatched, truncated);
    }

    /**
     * The first walk's counts, the second walk's flow ids. A message's id is {@code 1 + offset(channel) + k}: channels
     * (sender × ranks + receiver) numbered in order, k the k-th message on the channel (MPI's non-overtaking order);
     * only the first {@code min(sends, receives)} of a channel are drawn. A collective link's id follows all messages':
     * instance n's link from member r to the next member. Perfetto reads a flow id as a number (a string as hex), so
     * ids are integers.
     */
    private static final class Matching {
        final int ranks;
        final Map<Long, long[]> channels = new HashMap<>();
        final long[] collectives;
        final Map<Long, Long> offsets = new HashMap<>();
        /** The sendrecv events of each call site: where a sendrecv's source is looked for. */
        final Map<Integer, List<EventNode>> sendrecvsBySite = new HashMap<>();
        long messages;
        long unmatched;
        long collectiveBase;

        Matching(int ranks) {
            this.ranks = ranks;
            this.collectives = new long[ranks];
        }

        void number() {
            long next = 1;
            for (var e : new java.util.TreeMap<>(channels).entrySet()) {
                long[] c = e.getValue();
                long n = Math.min(c[0], c[1]);
                offsets.put(e.getKey(), next);
                next += n;
                messages += n;
                unmatched += c[0] + c[1] - 2 * n;
            }
            collectiveBase = next;
        }

        /** The id of the k-th message on {@code channel}, or −1 if it is not drawn (its other end is not exported). */
        long messageId(long channel, long k) {
            long[] c = channels.get(channel);
            return c == null || k >= Math.min(c[0], c[1]) ? -1 : offsets.get(channel) + k;
        }

        /** The member of instance {@code n} after {@code rank}, or −1. */
        int nextMember(int rank, long n) {
            for (int r = rank + 1; r < ranks; r++) {
                if (collectives[r] > n) {
                    return r;
                }
            }
            return -1;
        }

        int previousMember(int rank, long n) {
            for (int r = rank - 1; r >= 0; r--) {
                if (collectives[r] > n) {
                    return r;
                }
            }
            return -1;
        }

        long collectiveId(long n, int fromRank) {
            return collectiveBase + n * ranks + fromRank;
        }
    }

    /**
     * One rank's expansion: its clock, its samplers, its message and collective counters. Without a generator it only
     * counts (the first walk).
     */
    private final class RankTimeline {
        private final JsonGenerator g;
        private final int rank;
        private final Matching matching;
        private final DeltaSampler compute;
        private final DeltaSampler communicate;
        private final Map<Long, Long> sent = new HashMap<>();
        private final Map<Long, Long> received = new HashMap<>();
        private double nowUs;
        private int previousSite = CallSite.UNMARKED;
        private long collectives;
        long events;
        long collectiveStarts;
        boolean truncated;

        RankTimeline(JsonGenerator g, int rank, Matching matching) {
            this.g = g;
            this.rank = rank;
            this.matching = matching;
            this.compute = new DeltaSampler(trace.encoding(), rank);
            this.communicate = new DeltaSampler(trace.encoding(), rank);
        }

        /** Returns false once the limit is reached. */
        boolean walk(List<Node> nodes) throws IOException {
            return RankCalls.forEach(nodes, rank, e -> {
                if (events == limitPerRank) {
                    truncated = true;
                    return false;
                }
                event(e);
                return true;
            });
        }

        /** Per event whose counts vary, where this rank's expansion is in its runs. */
        private final Map<EventNode, CountRuns.Cursor> counts = new java.util.IdentityHashMap<>();

        private void event(EventNode e) throws IOException {
            long peer = value(e.peerParams);
            long words = value(e.countParams);
            if (e.countRunsParams != null) {
                CountRuns.Cursor c = counts.computeIfAbsent(e, x -> x.counts(rank));
                words = c == null ? EventNode.NONE : c.next();
            }
            long instance = e.op.collective() ? collectives++ : -1;
            events++;
            // The message halves this call is: a send to rank + peer, a receive from rank + peer, or both (sendrecv,
            // whose source the trace does not hold: the rank whose same call sends here).
            int sendTo = -1;
            int receiveFrom = -1;
            if (e.op.pointToPoint() && peer != EventNode.NONE && peer != EventNode.PROC_NULL && peer != 0) {
                int other = (int) (rank + peer);
                if (other >= 0 && other < trace.ranks()) {
                    if (sends(e.op)) {
                        sendTo = other;
                    } else if (receives(e.op)) {
                        receiveFrom = other;
                    }
                }
                if (e.op == Op.MPI_SENDRECV || e.op == Op.MPI_SENDRECV_REPLACE) {
                    receiveFrom = sendrecvSource(e);
                }
            }
            long sendK = sendTo < 0 ? -1 : sent.merge(channel(rank, sendTo), 1L, Long::sum) - 1;
            long receiveK = receiveFrom < 0 ? -1 : received.merge(channel(receiveFrom, rank), 1L, Long::sum) - 1;
            if (g == null) {
                if (sendTo >= 0) {
                    matching.channels.computeIfAbsent(channel(rank, sendTo), k -> new long[2])[0]++;
                }
                if (receiveFrom >= 0) {
                    matching.channels.computeIfAbsent(channel(receiveFrom, rank), k -> new long[2])[1]++;
                }
                return;
            }
            nowUs += Math.max(0, compute.next(e, e.compute, previousSite)) / 1000.0;
            double durUs = Math.max(0, communicate.next(e, e.comm, previousSite)) / 1000.0;
            previousSite = e.site;
            g.writeStartObject();
            g.writeStringField("name", e.op.fileName());
            g.writeStringField("cat", e.op.pointToPoint() ? "p2p" : e.op.collective() ? "collective" : "other");
            g.writeStringField("ph", "X");
            g.writeNumberField("pid", 0);
            g.writeNumberField("tid", rank);
            g.writeNumberField("ts", nowUs);
            g.writeNumberField("dur", durUs);
            g.writeObjectFieldStart("args");
            if (e.site != CallSite.UNMARKED) {
                g.writeStringField("site", trace.sites().getOrDefault(e.site, Integer.toString(e.site)));
            }
            long root = value(e.rootParams);
            if (peer == EventNode.PROC_NULL) {
                g.writeStringField("peer", "MPI_PROC_NULL");
            } else if (peer != EventNode.NONE) {
                g.writeNumberField("peer", rank + peer);
            }
            if (receiveFrom >= 0 && sendTo >= 0) {
                g.writeNumberField("source", receiveFrom);
            }
            if (words != EventNode.NONE) {
                g.writeNumberField(e.op.mpi() ? "bytes" : "words", words);
            }
            if (root != EventNode.NONE) {
                g.writeNumberField("root", root);
            }
            if (e.reduce >= 0) {
                g.writeStringField("reduce", e.reduceOp().name().toLowerCase(java.util.Locale.ROOT));
            }
            if (instance >= 0) {
                g.writeNumberField("instance", instance);
            }
            g.writeEndObject();
            g.writeEndObject();
            // Flow events at the middle of the slice: Perfetto binds each to the slice that encloses it on its track.
            double mid = nowUs + durUs / 2;
            if (sendTo >= 0) {
                long id = matching.messageId(channel(rank, sendTo), sendK);
                if (id >= 0) {
                    flow("message", "p2p", true, id, mid);
                }
            }
            if (receiveFrom >= 0) {
                long id = matching.messageId(channel(receiveFrom, rank), receiveK);
                if (id >= 0) {
                    flow("message", "p2p", false, id, mid);
                }
            }
            if (instance >= 0) {
                int previous = matching.previousMember(rank, instance);
                if (previous >= 0) {
                    flow("collective", "collective", false, matching.collectiveId(instance, previous), mid);
                }
                if (matching.nextMember(rank, instance) >= 0) {
                    flow("collective", "collective", true, matching.collectiveId(instance, rank), mid);
                    collectiveStarts++;
                }
            }
            nowUs += durUs;
        }

        private long channel(int from, int to) {
            return (long) from * trace.ranks() + to;
        }

        /**
         * The source of a sendrecv's receive half, which the compressed trace does not hold (the recorder keeps one
         * peer per call, the destination): the one rank whose sendrecv at the same call site sends to this rank — a
         * ring shift's or a pairwise exchange's partner; −1 (no flow) if none or several do.
         */
        private int sendrecvSource(EventNode e) {
            return RankCalls.sendrecvSource(matching.sendrecvsBySite.getOrDefault(e.site, List.of()), rank, trace.ranks());
        }

        /** A flow's start ({@code s}) or end ({@code f}, {@code "bp": "e"}: bound to the enclosing slice). */
        private void flow(String name, String cat, boolean start, long id, double tsUs) throws IOException {
            g.writeStartObject();
            g.writeStringField("name", name);
            g.writeStringField("cat", cat);
            g.writeStringField("ph", start ? "s" : "f");
            if (!start) {
                g.writeStringField("bp", "e");
            }
            g.writeNumberField("id", id);
            g.writeNumberField("pid", 0);
            g.writeNumberField("tid", rank);
            g.writeNumberField("ts", tsUs);
            g.writeEndObject();
        }

        private long value(Params p) {
            return p == null ? EventNode.NONE : p.valueFor(rank);
        }
    }

    private static void collectSendrecvs(List<Node> nodes, Map<Integer, List<EventNode>> bySite) {
        for (Node n : nodes) {
            if (n instanceof LoopNode l) {
                collectSendrecvs(l.body, bySite);
            } else if (n instanceof EventNode e && (e.op == Op.MPI_SENDRECV || e.op == Op.MPI_SENDRECV_REPLACE)) {
                bySite.computeIfAbsent(e.site, k -> new ArrayList<>()).add(e);
            }
        }
    }

    /** Calls that send a message to their peer (a sendrecv's send half too). */
    static boolean sends(Op op) {
        return switch (op) {
            case SEND, MPI_SEND, MPI_BSEND, MPI_SSEND, MPI_RSEND, MPI_ISEND, MPI_IBSEND, MPI_ISSEND, MPI_IRSEND,
                    MPI_SENDRECV, MPI_SENDRECV_REPLACE -> true;
            default -> false;
        };
    }

    /**
     * Calls that receive from their peer. An MPI_Irecv's message arrives in a later wait or test, which the compressed
     * trace does not tie to it: its flow ends on the MPI_Irecv's slice.
     */
    static boolean receives(Op op) {
        return op == Op.RECV || op == Op.MPI_RECV || op == Op.MPI_IRECV;
    }
}
