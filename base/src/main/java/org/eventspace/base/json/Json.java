package org.eventspace.base.json;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * The one Jackson configuration of the project: every report, codec, API and file we read or write as JSON goes
 * through these. May be used from any thread: Jackson's mapper, readers and writers are thread-safe once configured,
 * and this one is configured here, once, before it is published.
 *
 * <p>The settings are Jackson's defaults, which is what every site used when each made its own mapper: compact
 * output for what machines read (the host processes' report lines, the run configuration passed on a command line,
 * the dashboard's API), {@link #pretty()} — Jackson's default pretty printer, two-space indent, {@code " : "} — for the
 * files people open too (reports, traffic matrices, the dump's latencies); records are written in their
 * {@code @JsonPropertyOrder}. The JSON is a documented, versioned interface, so the bytes are part of the contract:
 * change a setting here and every {@code eventspace.*} schema changes with it.
 *
 * <p>Why one: a mapper is costly to make (its serializer caches start empty), and forty private copies left forty
 * places where a setting could drift. Contract: callers never reconfigure {@link #mapper()} (no {@code enable},
 * {@code configure}, {@code registerModule}); a site that needs another setting derives an {@link ObjectWriter} or
 * {@link ObjectReader} from it, which leaves the shared one as it is.
 */
public final class Json {
    private static final ObjectMapper MAPPER = JsonMapper.builder().build();
    private static final ObjectWriter PRETTY = MAPPER.writerWithDefaultPrettyPrinter();

    private Json() {
    }

    /** The shared mapper: trees, records, reading and writing. Never reconfigure it (see the class comment). */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** A writer of indented JSON (Jackson's default pretty printer), for the files people read too. */
    public static ObjectWriter pretty() {
        return PRETTY;
    }
}
