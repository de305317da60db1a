package org.eventspace.sim;

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

/**
 * What each operation of the communication system and its monitoring costs on one machine: the model's only
 * input besides the configuration it predicts. {@code simulate --calibrate} measures them on the machine it runs
 * on and writes them as a cost file ({@value #SCHEMA}); a user of a real cluster runs it there.
 *
 * <p>Two kinds of cost. <b>CPU costs</b> ({@code *_ns} but {@code wire_ns} and {@code quantum_ns}) are time a thread
 * holds a core; the model queues them on the machine's cores, so they add up when threads outnumber cores.
 * <b>Latencies</b> ({@code wire_ns}) pass without a core. How a thread waits (spin, yield, park) is the product's
 * own {@code WaitPolicy}; the costs say what each step of it takes.
 *
 * @param machine       what the costs were measured on (free text, shown with every prediction).
 * @param date          when (ISO date).
 * @param cores         the cores of that machine (a host of the model has this many unless told otherwise).
 * @param spinNs        one spin of a waiting thread ({@code Thread.onSpinWait()}).
 * @param yieldNs       one {@code Thread.yield()} that hands the core to another ready thread (a context switch).
 * @param yieldAloneNs  one {@code Thread.yield()} with no other thread ready (a system call only).
 * @param unparkNs      the waker's CPU to unpark a parked thread.
 * @param switchNs      a parked thread's CPU to resume on a core (the switch in and the return from park).
 * @param joinNs        one arrival at a gred (and the release of its port) when the arriver does not wait.
 * @param coreNs        the core wrapper's store of a result.
 * @param hopNs         handing a message to a hop's service thread and the reply back, in one process, each side.
 * @param sendNs        CPU of sending one small message over the network transport (TCP: a write).
 * @param receiveNs     CPU of receiving one (TCP: a read).
 * @param wireNs        one-way latency of a small message beyond the CPU of both ends.
 * @param collectorNs   one event collector's work on one call: its two clock reads and its tuple.
 * @param quantumNs     the scheduler's time slice (Linux 6.6+: 0.75 ms × (1 + log₂ min(cores, 8))): a ready thread's
 *                      deadline is a slice beyond its start, a yield pushes it a slice on, and a spinning thread keeps
 *                      a core others wait for that long.
 * @param gatherNs      an event scope's gather of one host's records, beyond the messages: reading the buffers.
 * @param recordNs      one trace record read and carried by a gather (per record, at each level it passes).
 * @param recordBytes   bytes of one record as it reaches the front-end.
 * @param threadNs      what each thread ready to run on a machine adds to a context switch (a yield to another
 *                      thread, a resume from park): with hundreds of them their stacks no longer fit the caches
 *                      (measured: a yield costs 1.1 µs among 4 yielding threads, 6.3 µs among 1 024 on the 2-vCPU
 *                      VM).
 */
public record Costs(String machine, String date, int cores, double spinNs, double yieldNs, double yieldAloneNs,
                    double unparkNs, double switchNs, double joinNs, double coreNs, double hopNs, double sendNs,
                    double receiveNs, double wireNs, double collectorNs, double quantumNs, double gatherNs,
                    double recordNs, double recordBytes, double threadNs) {
    public static final String SCHEMA = "eventspace.costs/1";

    /** The numeric fields in file order, with what each holds (for errors and the written file). */
    private static final Map<String, String> FIELDS = fields();

    public Costs {
        if (machine == null || machine.isBlank()) {
            throw new IllegalArgumentException("machine must name what the costs were measured on");
        }
        if (cores < 1) {
            throw new IllegalArgumentException("cores must be >= 1, cores=" + cores);
        }
        double[] values = {spinNs, yieldNs, yieldAloneNs, unparkNs, switchNs, joinNs, coreNs, hopNs, sendNs, receiveNs,
                wireNs, collectorNs, quantumNs, gatherNs, recordNs, recordBytes, threadNs};
        int i = 0;
        for (String name : FIELDS.keySet()) {
            if (!(values[i] >= 0) || Double.isInfinite(values[i])) {
                throw new IllegalArgumentException(name + " must be a finite number >= 0, got " + values[i]);
            }
            i++;
        }
        if (quantumNs <= 0) {
            throw new IllegalArgumentException("quantum_ns must be > 0, got " + quantumNs);
        }
    }

    /** The same costs for a machine of {@code n} cores (a cluster node the calibration machine stands for). */
    public Costs withCores(int n) {
        return new Costs(machine, date, n, spinNs, yieldNs, yieldAloneNs, unparkNs, switchNs, joinNs, coreNs, hopNs,
                sendNs, receiveNs, wireNs, collectorNs, quantumNs, gatherNs, recordNs, recordBytes, threadNs);
    }

    /** A context switch among {@code threads} threads ready to run: {@code base} plus their cache pressure. */
    public double switchAmong(double base, int threads) {
        return base + threadNs * threads;
    }

    /** The same costs with another network: {@code send/receive} CPU and one-way latency of a real interconnect. */
    public Costs withNetwork(double send, double receive, double wire) {
        return new Costs(machine, date, cores, spinNs, yieldNs, yieldAloneNs, unparkNs, switchNs, joinNs, coreNs, hopNs,
                send, receive, wire, collectorNs, quantumNs, gatherNs, recordNs, recordBytes, threadNs);
    }

    private static Map<String, String> fields() {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("spin_ns", "one spin of a waiting thread");
        f.put("yield_ns", "one yield that switches to another ready thread");
        f.put("yield_alone_ns", "one yield with no other thread ready");
        f.put("unpark_ns", "the waker's CPU to unpark a parked thread");
        f.put("switch_ns", "a parked thread's CPU to resume on a core");
        f.put("join_ns", "one arrival at a gred that does not wait");
        f.put("core_ns", "the core wrapper's store of a result");
        f.put("hop_ns", "one side of a hop between hosts of one process");
        f.put("send_ns", "CPU to send one small message over the network");
        f.put("receive_ns", "CPU to receive one small message");
        f.put("wire_ns", "one-way latency of a small message beyond both ends' CPU");
        f.put("collector_ns", "one event collector's work on one call");
        f.put("quantum_ns", "the scheduler's time slice");
        f.put("gather_ns", "an event scope's gather of one host, beyond its messages");
        f.put("record_ns", "one record read and carried by a gather");
        f.put("record_bytes", "bytes of one record at the front-end");
        f.put("thread_ns", "what each thread ready to run adds to a context switch");
        return f;
    }

    private double[] values() {
        return new double[] {spinNs, yieldNs, yieldAloneNs, unparkNs, switchNs, joinNs, coreNs, hopNs, sendNs,
                receiveNs, wireNs, collectorNs, quantumNs, gatherNs, recordNs, recordBytes, threadNs};
    }

    /** The same costs with the one named as in the file ({@code join_ns}, …) set to {@code value}. */
    public Costs with(String field, double value) {
        double[] v = values();
        v[index(field)] = value;
        return of(machine, date, cores, v);
    }

    /** The position of cost {@code field} in file order. */
    private static int index(String field) {
        int i = 0;
        for (String name : FIELDS.keySet()) {
            if (name.equals(field)) {
                return i;
            }
            i++;
        }
        throw new IllegalArgumentException("no cost named " + field + "; costs are " + FIELDS.keySet());
    }

    /** Costs from their values in file order. */
    private static Costs of(String machine, String date, int cores, double[] v) {
        return new Costs(machine, date, cores, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11],
                v[12], v[13], v[14], v[15], v[16]);
    }

    /**
     * Costs of {@code cores} cores that are all 0 but the time slice (3 ms), then {@code given} by file name: for
     * tests and what-if questions that depend on a few costs only.
     */
    public static Costs of(String machine, int cores, Map<String, Double> given) {
        Costs c = new Costs(machine, "", cores, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3_000_000, 0, 0, 0, 0);
        for (Map.Entry<String, Double> e : given.entrySet()) {
            c = c.with(e.getKey(), e.getValue());
        }
        return c;
    }

    /** Every cost by its file name, in file order. */
    public Map<String, Double> asMap() {
        Map<String, Double> m = new LinkedHashMap<>();
        double[] v = values();
        int i = 0;
        for (String name : FIELDS.keySet()) {
            m.put(name, v[i++]);
        }
        return m;
    }

    /** The costs measured on the reference machine of docs/SIMULATION.md, shipped with the model. */
    public static Costs reference() {
        try (Reader r = new InputStreamReader(Costs.class.getResourceAsStream("reference-costs.json"),
                StandardCharsets.UTF_8)) {
            return read(r, "reference-costs.json");
        } catch (IOException e) {
            throw new UncheckedIOException("the model's reference costs cannot be read", e);
        }
    }

    public void write(Path file) throws IOException {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            write(w);
        }
    }

    public void write(Writer out) throws IOException {
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeStringField("schema", SCHEMA);
            g.writeStringField("machine", machine);
            g.writeStringField("date", date == null ? "" : date);
            g.writeNumberField("cores", cores);
            for (Map.Entry<String, Double> e : asMap().entrySet()) {
                g.writeNumberField(e.getKey(), Math.round(e.getValue() * 100) / 100.0);
            }
            g.writeEndObject();
        }
    }

    /**
     * Reads a cost file. Strict: the schema first, every field present once, no unknown field, numbers finite and
     * not negative; an error names the file, the line and column, the field and what was expected.
     */
    public static Costs read(Path file) throws IOException {
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(r, file.toString());
        }
    }

    public static Costs read(Reader in, String source) throws IOException {
        Map<String, Object> seen = new LinkedHashMap<>();
        try (JsonParser p = new JsonFactory().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION).createParser(in)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw error(source, p.currentLocation(), "(document)", "an object");
            }
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonLocation at = p.currentLocation();
                JsonToken value = p.nextToken();
                switch (name) {
                    case "schema" -> {
                        if (value != JsonToken.VALUE_STRING || !SCHEMA.equals(p.getText())) {
                            throw error(source, at, name, "\"" + SCHEMA + "\" (the only version this build reads), got "
                                    + p.getText());
                        }
                        seen.put(name, p.getText());
                    }
                    case "machine", "date" -> {
                        if (value != JsonToken.VALUE_STRING) {
                            throw error(source, at, name, "a string, got " + p.getText());
                        }
                        seen.put(name, p.getText());
                    }
                    case "cores" -> {
                        if (value != JsonToken.VALUE_NUMBER_INT || p.getLongValue() < 1 || p.getLongValue() > 1_000_000) {
                            throw error(source, at, name, "an integer 1..1000000, got " + p.getText());
                        }
                        seen.put(name, p.getIntValue());
                    }
                    default -> {
                        if (!FIELDS.containsKey(name)) {
                            throw error(source, at, name, "one of schema, machine, date, cores, "
                                    + String.join(", ", FIELDS.keySet()) + " (unknown field)");
                        }
                        if (!value.isNumeric() || !(p.getDoubleValue() >= 0) || Double.isInfinite(p.getDoubleValue())) {
                            throw error(source, at, name, "a number >= 0 (" + FIELDS.get(name) + "), got " + p.getText());
                        }
                        if (name.equals("quantum_ns") && p.getDoubleValue() <= 0) {
                            throw error(source, at, name, "a number > 0 (" + FIELDS.get(name) + "), got " + p.getText());
                        }
                        seen.put(name, p.getDoubleValue());
                    }
                }
            }
            if (t != JsonToken.END_OBJECT) {
                throw error(source, p.currentLocation(), "(document)", "a field name or the end of the object");
            }
            if (p.nextToken() != null) {
                throw error(source, p.currentLocation(), "(document)", "nothing after the object");
            }
            JsonLocation end = p.currentLocation();
            for (String required : requiredFields()) {
                if (!seen.containsKey(required)) {
                    throw error(source, end, required, "present (" + FIELDS.getOrDefault(required, required)
                            + "); the file lacks it");
                }
            }
        } catch (JsonParseException e) {
            throw new CostFileException(source + ":" + e.getLocation().getLineNr() + ":" + e.getLocation().getColumnNr()
                    + ": invalid JSON: " + e.getOriginalMessage());
        }
        double[] v = FIELDS.keySet().stream().mapToDouble(k -> (Double) seen.get(k)).toArray();
        return of((String) seen.get("machine"), (String) seen.getOrDefault("date", ""), (Integer) seen.get("cores"), v);
    }

    private static Iterable<String> requiredFields() {
        List<String> all = new ArrayList<>(List.of("schema", "machine", "cores"));
        all.addAll(FIELDS.keySet());
        return all;
    }

    private static CostFileException error(String source, JsonLocation at, String field, String expected) {
        return new CostFileException(source + ":" + at.getLineNr() + ":" + at.getColumnNr() + ": " + field + ": expected "
                + expected);
    }

    /** A cost file that cannot be read: the message names the file, the line and column, the field. */
    public static final class CostFileException extends IOException {
        public CostFileException(String message) {
            super(message);
        }
    }
}
