package org.eventspace.job;

import org.eventspace.events.TraceTupleLayout;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What one host's event space recorded in a run with collectors on. Travels from TCP host processes to the
 * launcher as one JSON object, next to the host's rank results.
 *
 * @param host          host id.
 * @param collectors    collector nodes (trace buffers) on the host.
 * @param tuplesWritten tuples written into all its buffers over the whole run (warm-up included).
 * @param timedTuples   tuples written during the timed iterations: from the moment every rank of the run
 *                      (in a TCP host process: every rank of the host) started them to the moment every one
 *                      ended them; -1 if some rank never got there. A collector writes on the way up, so no
 *                      tuple of the first timed call can precede the first snapshot; the tuples of the barrier
 *                      before it and of the last timed call that a hop's service thread writes after the ranks
 *                      returned may straddle a snapshot — at most one per serving collector, at either end.
 * @param bufferBytes   bytes the host's trace buffers take ({@code EventSpace.bytesAllocated()}).
 * @param overwritten   tuples the bounded buffers overwrote (EventSpace §4.2: the oldest goes): written but no longer
 *                      held, so a post-mortem dump cannot see them; a scope that read them in time still did.
 *
 * <p>Jackson writes it as {@code {"host", "collectors", "tuples_written", "timed_tuples", "buffer_bytes",
 * "tuples_overwritten"}}, in that order: the {@code collectors.hosts[]} objects of {@code eventspace.run/2}.
 */
@JsonPropertyOrder({"host", "collectors", "tuples_written", "timed_tuples", "buffer_bytes", "tuples_overwritten"})
public record HostTrace(int host, int collectors, @JsonProperty("tuples_written") long tuplesWritten,
                        @JsonProperty("timed_tuples") long timedTuples, @JsonProperty("buffer_bytes") long bufferBytes,
                        @JsonProperty("tuples_overwritten") long overwritten) {
    /** Before overwritten tuples were counted, and where none were. */
    public HostTrace(int host, int collectors, long tuplesWritten, long timedTuples, long bufferBytes) {
        this(host, collectors, tuplesWritten, timedTuples, bufferBytes, 0);
    }

    /** Trace bytes recorded per timed call ({@code timedTuples × 40 B / iterations}), or -1 if unknown. */
    public double bytesPerCall(int iterations) {
        return timedTuples < 0 ? -1 : (double) timedTuples * TraceTupleLayout.LENGTH / iterations;
    }

    public ObjectNode toJson(ObjectMapper json) {
        return json.valueToTree(this);
    }

    public static HostTrace fromJson(JsonNode node) {
        if (node == null || !node.has("host") || !node.has("tuples_written")) {
            throw new IllegalArgumentException("malformed host trace " + node);
        }
        return new HostTrace(node.get("host").asInt(), node.get("collectors").asInt(), node.get("tuples_written").asLong(),
                node.get("timed_tuples").asLong(), node.get("buffer_bytes").asLong(), node.path("tuples_overwritten").asLong(0));
    }
}
