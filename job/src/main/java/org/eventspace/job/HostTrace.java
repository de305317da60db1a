package org.eventspace.job;

import org.eventspace.events.TraceTupleLayout;

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
 */
public record HostTrace(int host, int collectors, long tuplesWritten, long timedTuples, long bufferBytes) {
    /** Trace bytes recorded per timed call ({@code timedTuples × 40 B / iterations}), or -1 if unknown. */
    public double bytesPerCall(int iterations) {
        return timedTuples < 0 ? -1 : (double) timedTuples * TraceTupleLayout.LENGTH / iterations;
    }

    public ObjectNode toJson(ObjectMapper json) {
        ObjectNode node = json.createObjectNode();
        node.put("host", host);
        node.put("collectors", collectors);
        node.put("tuples_written", tuplesWritten);
        node.put("timed_tuples", timedTuples);
        node.put("buffer_bytes", bufferBytes);
        return node;
    }

    public static HostTrace fromJson(JsonNode node) {
        if (node == null || !node.has("host") || !node.has("tuples_written")) {
            throw new IllegalArgumentException("malformed host trace " + node);
        }
        return new HostTrace(node.get("host").asInt(), node.get("collectors").asInt(), node.get("tuples_written").asLong(),
                node.get("timed_tuples").asLong(), node.get("buffer_bytes").asLong());
    }
}
