package org.eventspace.job;

import java.util.Locale;

/** How a job's hosts come to life and talk: simulated hosts in this JVM, or one process per host over TCP. */
public enum JobTransport {
    /** Every host simulated in this JVM: its own elements, wrappers and service threads; hops are in-JVM links. */
    JVM("jvm"),
    /** One process per host, hops over TCP (loopback, or a cluster's network under mpirun/srun). */
    TCP("tcp");

    private final String label;

    JobTransport(String label) {
        this.label = label;
    }

    /** The command-line and JSON name. */
    public String label() {
        return label;
    }

    @Override
    public String toString() {
        return label;
    }

    /** @throws IllegalArgumentException naming the text and what was expected. */
    public static JobTransport parse(String text) {
        for (JobTransport t : values()) {
            if (t.label.equals(text.toLowerCase(Locale.ROOT))) {
                return t;
            }
        }
        throw new IllegalArgumentException("transport must be jvm or tcp, got '" + text + "'");
    }
}
