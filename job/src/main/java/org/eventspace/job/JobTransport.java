package org.eventspace.job;

/** How a job's hosts come to life and talk: simulated hosts in this JVM, or one process per host over TCP. */
public enum JobTransport implements Labelled {
    /** Every host simulated in this JVM: its own elements, wrappers and service threads; hops are in-JVM links. */
    JVM,
    /** One process per host, hops over TCP (loopback, or a cluster's network under mpirun/srun). */
    TCP;

    @Override
    public String toString() {
        return label();
    }

    /** @throws IllegalArgumentException naming the text and every label expected. */
    public static JobTransport parse(String text) {
        return Labelled.parse(JobTransport.class, text, "transport");
    }
}
