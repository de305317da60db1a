package org.eventspace.run;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.zip.DataFormatException;

import org.HdrHistogram.Histogram;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What one rank measured: its wall time over the timed iterations, its per-operation latencies (ns), the
 * time it spent computing (and, for compute-gsum, how many ints each sort took), and whether every result it
 * got was the exact expected one. Travels from host processes to the launcher as one JSON object.
 */
public record RankResult(int rank, long wallNanos, int iterations, long computeNanos, boolean resultOk, String error,
                         Histogram latencies, int sortLength, long[] blocks) {
    /** A result without a sort (gsum, pingpong). */
    public RankResult(int rank, long wallNanos, int iterations, long computeNanos, boolean resultOk, String error,
                      Histogram latencies) {
        this(rank, wallNanos, iterations, computeNanos, resultOk, error, latencies, 0);
    }

    /** A result without interleaved blocks. */
    public RankResult(int rank, long wallNanos, int iterations, long computeNanos, boolean resultOk, String error,
                      Histogram latencies, int sortLength) {
        this(rank, wallNanos, iterations, computeNanos, resultOk, error, latencies, sortLength, new long[0]);
    }

    /**
     * Latencies up to 10 s at 2 significant digits: a few tens of KB per rank, no resizing while recording calls
     * shorter than that. A longer call (a collective may take up to its timeout: the first call of 31 500 ranks in one
     * JVM took 26 s) grows the histogram once instead of failing the rank with "value outside of histogram covered
     * range".
     */
    public static Histogram newHistogram() {
        Histogram histogram = new Histogram(10_000_000_000L, 2);
        histogram.setAutoResize(true);
        return histogram;
    }

    /** Heap one rank's histogram takes (29 184 B): most of what a benchmark rank keeps. */
    public static final long HISTOGRAM_BYTES = newHistogram().getEstimatedFootprintInBytes();

    public static RankResult failed(int rank, String error) {
        return new RankResult(rank, 0, 0, 0, false, error, newHistogram());
    }

    public ObjectNode toJson(ObjectMapper json) {
        ObjectNode node = json.createObjectNode();
        node.put("rank", rank);
        node.put("wall_ns", wallNanos);
        node.put("iterations", iterations);
        node.put("compute_ns", computeNanos);
        node.put("sort_length", sortLength);
        node.put("result_ok", resultOk);
        if (blocks.length > 0) {
            com.fasterxml.jackson.databind.node.ArrayNode b = node.putArray("blocks");
            for (long v : blocks) {
                b.add(v);
            }
        }
        if (error != null) {
            node.put("error", error);
        }
        ByteBuffer buffer = ByteBuffer.allocate(latencies.getNeededByteBufferCapacity());
        int length = latencies.encodeIntoCompressedByteBuffer(buffer);
        node.put("histogram", Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buffer.array(), length)));
        return node;
    }

    private static long[] longs(JsonNode array) {
        long[] values = new long[array.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = array.get(i).asLong();
        }
        return values;
    }

    public static RankResult fromJson(JsonNode node) {
        try {
            byte[] bytes = Base64.getDecoder().decode(node.get("histogram").asText());
            Histogram histogram = Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(bytes), 0);
            return new RankResult(node.get("rank").asInt(), node.get("wall_ns").asLong(), node.get("iterations").asInt(),
                    node.get("compute_ns").asLong(), node.get("result_ok").asBoolean(),
                    node.hasNonNull("error") ? node.get("error").asText() : null, histogram,
                    node.path("sort_length").asInt(0), longs(node.path("blocks")));
        } catch (DataFormatException | RuntimeException e) {
            throw new IllegalArgumentException("malformed rank result " + node, e);
        }
    }
}
