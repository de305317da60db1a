package org.eventspace.run;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.zip.DataFormatException;

import org.HdrHistogram.Histogram;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
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

    /**
     * The rank result as it travels from a host process to the launcher: this record's fields in this order, with
     * {@code blocks} only for the interleaved runs, {@code error} only for a failed rank, and the latencies as the
     * histogram's compressed encoding in Base64.
     */
    @JsonPropertyOrder({"rank", "wall_ns", "iterations", "compute_ns", "sort_length", "result_ok", "blocks", "error",
            "histogram"})
    @JsonInclude(JsonInclude.Include.NON_NULL)
    private record Wire(int rank, @JsonProperty("wall_ns") long wallNs, int iterations,
                        @JsonProperty("compute_ns") long computeNs, @JsonProperty("sort_length") int sortLength,
                        @JsonProperty("result_ok") boolean resultOk, long[] blocks, String error, String histogram) {
    }

    public ObjectNode toJson(ObjectMapper json) {
        ByteBuffer buffer = ByteBuffer.allocate(latencies.getNeededByteBufferCapacity());
        int length = latencies.encodeIntoCompressedByteBuffer(buffer);
        String histogram = Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
        return json.valueToTree(new Wire(rank, wallNanos, iterations, computeNanos, sortLength, resultOk,
                blocks.length > 0 ? blocks : null, error, histogram));
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
