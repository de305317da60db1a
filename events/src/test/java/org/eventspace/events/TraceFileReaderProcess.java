package org.eventspace.events;

import java.nio.file.Path;

/**
 * The other process of {@link CrossProcessTraceTest}: opens a trace buffer file read-only and prints one line
 * per tuple ({@code collector op flags sequence value startNs endNs}), then {@code missed <n> position <p>}.
 */
public final class TraceFileReaderProcess {
    private TraceFileReaderProcess() {
    }

    public static void main(String[] args) throws Exception {
        try (TraceBufferReader reader = TraceBufferReader.open(Path.of(args[0]))) {
            TraceTupleFlyweight t = new TraceTupleFlyweight();
            while (reader.readNext(t)) {
                System.out.println(t.collectorId() + " " + t.opType() + " " + t.flags() + " " + t.sequence() + " "
                        + t.value() + " " + t.startNs() + " " + t.endNs());
            }
            System.out.println("missed " + reader.missed() + " position " + reader.position());
        }
    }
}
