package org.eventspace.events.dump;

import java.io.PrintWriter;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.eventspace.base.json.Json;
import org.eventspace.events.TraceOp;

/**
 * Prints the tuples of a {@link TraceDump}: for people, one line per tuple with its collector's name and host,
 * times relative to the earliest timestamp on that host (clocks of different hosts are not comparable, so there
 * is no common zero); for machines, JSON lines ({@value #TUPLE_SCHEMA}) with the raw monotonic timestamps.
 * Collectors in the dump's order (host, then collector id), tuples in the order each collector wrote them.
 * Stateless and thread-safe.
 */
public final class TraceDumpPrinter {
    public static final String TUPLE_SCHEMA = "eventspace.trace-tuple/1";
    private static final ObjectMapper JSON = Json.mapper();

    private TraceDumpPrinter() {
    }

    /**
     * {@code t0.collector.rank0  @h0  allreduce-sum  seq=10  value=3  t_down=+0 ns  t_up=+900 ns  duration=0.900 µs},
     * preceded by a header line per collector and followed by the dump's errors.
     */
    public static void printText(TraceDump dump, PrintWriter out) {
        Map<String, Long> zero = earliestPerHost(dump);
        out.printf(Locale.ROOT, "Trace dump %s: %d collectors, %d tuples, %d unreadable files%s%n", dump.directory(),
                dump.collectors().size(), dump.tuples(), dump.unreadable(), dump.missing().isEmpty() ? ""
                        : ", " + dump.missing().size() + " collectors in " + TraceDump.PATHMAP_FILE + " without a trace file");
        for (CollectorTrace c : dump.collectors()) {
            out.printf(Locale.ROOT, "%n%s  @%s  collector %d: %d tuples%s%n", c.name(), c.host(), c.collectorId(),
                    c.size(), c.overwritten() > 0 ? ", " + c.overwritten() + " older tuples overwritten" : "");
            long base = zero.getOrDefault(c.host(), 0L);
            for (int i = 0; i < c.size(); i++) {
                out.println(textLine(c, i, base));
            }
        }
        for (String error : dump.errors()) {
            out.println("error: " + error);
        }
        out.flush();
    }

    /** One tuple as a text line, times relative to {@code baseNs}. */
    static String textLine(CollectorTrace c, int i, long baseNs) {
        return String.format(Locale.ROOT, "%s  @%s  %s  seq=%d  value=%d%s  t_down=+%d ns  t_up=+%d ns  duration=%s",
                c.name(), c.host(), TraceOp.name(c.opType(i)), c.sequence(i), c.value(i), c.failed(i) ? "  FAILED" : "",
                c.startNs(i) - baseNs, c.endNs(i) - baseNs, micros(c.endNs(i) - c.startNs(i)));
    }

    /** One JSON object per line, {@value #TUPLE_SCHEMA}. Errors are not tuples: they go to the caller's stderr. */
    public static void printJsonLines(TraceDump dump, PrintWriter out) {
        for (CollectorTrace c : dump.collectors()) {
            for (int i = 0; i < c.size(); i++) {
                out.println(jsonLine(c, i));
            }
        }
        out.flush();
    }

    static String jsonLine(CollectorTrace c, int i) {
        TupleLine o = new TupleLine(TUPLE_SCHEMA, c.name(), c.host(), TraceOp.name(c.opType(i)), c.sequence(i),
                c.value(i), c.startNs(i), c.endNs(i), c.flags(i) != 0 ? c.flags(i) : null);
        try {
            return JSON.writeValueAsString(o);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a tuple of " + c.name() + " as JSON", e);
        }
    }

    /** One tuple of a dump as a JSON line; {@code flags} only where a flag is set. */
    @JsonPropertyOrder({"schema", "collector", "host", "op", "seq", "value", "start_ns", "end_ns", "flags"})
    record TupleLine(String schema, String collector, String host, String op, long seq, long value,
                     @JsonProperty("start_ns") long startNs, @JsonProperty("end_ns") long endNs,
                     @JsonInclude(JsonInclude.Include.NON_NULL) Integer flags) {
    }

    /** The earliest timestamp of each host: the zero of that host's relative times. */
    static Map<String, Long> earliestPerHost(TraceDump dump) {
        Map<String, Long> zero = new HashMap<>();
        for (CollectorTrace c : dump.collectors()) {
            long min = Long.MAX_VALUE;
            for (int i = 0; i < c.size(); i++) {
                min = Math.min(min, Math.min(c.startNs(i), c.endNs(i)));
            }
            if (min != Long.MAX_VALUE) {
                zero.merge(c.host(), min, Math::min);
            }
        }
        return zero;
    }

    /** {@code 1.250 µs}: ns shown as µs with ns precision. */
    static String micros(long ns) {
        return String.format(Locale.ROOT, "%.3f µs", ns / 1000.0);
    }

    static String micros(double ns) {
        return String.format(Locale.ROOT, "%.3f µs", ns / 1000.0);
    }
}
