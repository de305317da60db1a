package org.eventspace.trace;

import java.io.IOException;
import java.io.OutputStream;
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
 * the timeline is the replay's, not a measurement of one particular run. Times are µs from the rank's start. A
 * message is a flow from its send to the matching receive (the k-th send from s to d matches d's k-th receive from s,
 * MPI's non-overtaking order), drawn as an arrow; the n-th collective of a rank carries {@code args.instance} = n, the
 * same on every rank, so Perfetto's search finds one collective instance on every track. Layout of the file in
 * docs/TRACE-FORMAT.md. Not thread-safe; one export at a time per instance.
 */
public final class PerfettoExport {
    public static final String SCHEMA = "eventspace.trace-export/1";

    /** What was written: complete events, flows, and whether some rank's calls were cut at the limit. */
    public record Summary(long events, long flows, boolean truncated) {
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

    /** Writes the whole timeline to {@code out} (not closed). */
    public Summary write(OutputStream out) throws IOException {
        JsonGenerator g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8);
        g.writeStartObject();
        g.writeStringField("displayTimeUnit", "ns");
        g.writeObjectFieldStart("otherData");
        g.writeStringField("schema", SCHEMA);
        g.writeNumberField("ranks", trace.ranks());
        g.writeStringField("time_encoding", trace.encoding().fileName());
        g.writeNumberField("events_recorded", trace.eventsRecorded());
        g.writeNumberField("limit_per_rank", limitPerRank);
        g.writeEndObject();
        g.writeArrayFieldStart("traceEvents");
        g.writeStartObject();
        g.writeStringField("name", "process_name");
        g.writeStringField("ph", "M");
        g.writeNumberField("pid", 0);
        g.writeObjectFieldStart("args");
        g.writeStringField("name", "eventspace job, " + trace.ranks() + " ranks");
        g.writeEndObject();
        g.writeEndObject();
        long events = 0;
        long flows = 0;
        boolean truncated = false;
        for (int rank = 0; rank < trace.ranks(); rank++) {
            g.writeStartObject();
            g.writeStringField("name", "thread_name");
            g.writeStringField("ph", "M");
            g.writeNumberField("pid", 0);
            g.writeNumberField("tid", rank);
            g.writeObjectFieldStart("args");
            g.writeStringField("name", "rank " + rank);
            g.writeEndObject();
            g.writeEndObject();
            RankTimeline t = new RankTimeline(g, rank);
            t.walk(trace.nodes());
            events += t.events;
            flows += t.flows;
            truncated |= t.truncated;
        }
        g.writeEndArray();
        g.writeEndObject();
        g.flush();
        return new Summary(events, flows, truncated);
    }

    /** One rank's expansion: its clock, its samplers, its message and collective counters. */
    private final class RankTimeline {
        private final JsonGenerator g;
        private final int rank;
        private final DeltaSampler compute;
        private final DeltaSampler communicate;
        private final Map<Long, Long> sent = new HashMap<>();
        private final Map<Long, Long> received = new HashMap<>();
        private double nowUs;
        private int previousSite = CallSite.UNMARKED;
        private long collectives;
        long events;
        long flows;
        boolean truncated;

        RankTimeline(JsonGenerator g, int rank) {
            this.g = g;
            this.rank = rank;
            this.compute = new DeltaSampler(trace.encoding(), rank);
            this.communicate = new DeltaSampler(trace.encoding(), rank);
        }

        /** Returns false once the limit is reached. */
        boolean walk(List<Node> nodes) throws IOException {
            for (Node n : nodes) {
                if (!n.ranks().contains(rank)) {
                    continue;
                }
                if (n instanceof LoopNode l) {
                    for (long i = 0; i < l.iters; i++) {
                        if (!walk(l.body)) {
                            return false;
                        }
                    }
                } else {
                    if (events == limitPerRank) {
                        truncated = true;
                        return false;
                    }
                    event((EventNode) n);
                }
            }
            return true;
        }

        /** Per event whose counts vary, where this rank's expansion is in its runs. */
        private final Map<EventNode, CountRuns.Cursor> counts = new java.util.IdentityHashMap<>();

        private void event(EventNode e) throws IOException {
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
            long peer = value(e.peerParams);
            long words = value(e.countParams);
            if (e.countRunsParams != null) {
                CountRuns.Cursor c = counts.computeIfAbsent(e, x -> x.counts(rank));
                words = c == null ? EventNode.NONE : c.next();
            }
            long root = value(e.rootParams);
            if (peer != EventNode.NONE) {
                g.writeNumberField("peer", rank + peer);
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
            if (e.op.collective()) {
                g.writeNumberField("instance", collectives++);
            }
            g.writeEndObject();
            g.writeEndObject();
            events++;
            if (peer != EventNode.NONE && peer != 0 && e.op.pointToPoint()) {
                int other = (int) (rank + peer);
                if (other >= 0 && other < trace.ranks()) {
                    boolean send = e.op == Op.SEND;
                    long channel = send ? (long) rank * trace.ranks() + other : (long) other * trace.ranks() + rank;
                    Map<Long, Long> counts = send ? sent : received;
                    long k = counts.merge(channel, 1L, Long::sum) - 1;
                    flow(send, "m" + channel + "." + k, nowUs + durUs / 2);
                }
            }
            nowUs += durUs;
        }

        /** A flow's start or end, at the middle of the send's or receive's slice ("bp": "e": bound to the enclosing slice). */
        private void flow(boolean start, String id, double tsUs) throws IOException {
            g.writeStartObject();
            g.writeStringField("name", "message");
            g.writeStringField("cat", "p2p");
            g.writeStringField("ph", start ? "s" : "f");
            g.writeStringField("bp", "e");
            g.writeStringField("id", id);
            g.writeNumberField("pid", 0);
            g.writeNumberField("tid", rank);
            g.writeNumberField("ts", tsUs);
            g.writeEndObject();
            flows++;
        }

        private long value(Params p) {
            return p == null ? EventNode.NONE : p.valueFor(rank);
        }
    }
}
