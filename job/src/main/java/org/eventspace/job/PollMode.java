package org.eventspace.job;

import org.eventspace.comm.transport.tcp.TcpOptions;

/** How a TCP hop waits for a frame. Chosen once, at the edge, and turned into {@link TcpOptions} here only. */
public enum PollMode implements Labelled {
    /**
     * Spin if every rank and service thread of the job has a core of its own, {@link #BLOCK} beyond 64 busy threads a
     * core, else {@link #YIELD}, also in a process bound to one CPU (a yield there hands the CPU to the service thread
     * that has the frame); a butterfly's exchange links spin while the job's ranks fit the machine's CPUs, bound or not
     * (their ranks drive them: no thread of theirs needs the CPU).
     */
    AUTO,
    /** Busy-poll the socket, then yield, then block. */
    SPIN,
    /** Poll with a yield between reads, then block. */
    YIELD,
    /** Block in the read from the start. */
    BLOCK;

    @Override
    public String toString() {
        return label();
    }

    /** @throws IllegalArgumentException naming the text and every label expected. */
    public static PollMode parse(String text) {
        return Labelled.parse(PollMode.class, text, "poll");
    }

    /** The TCP options of a host process whose job has {@code busyThreads} threads that may wait on each other. */
    public TcpOptions tcpOptions(int busyThreads, int socketBufferBytes) {
        return tcpOptions(busyThreads, busyThreads, socketBufferBytes);
    }

    /**
     * As above, with {@code hopBusy} threads for the hops (ranks, tree hops' and point-to-point links' service threads)
     * and {@code exchangeBusy} for a butterfly's exchange links ({@link TcpOptions#forThreads(int, int)}).
     */
    public TcpOptions tcpOptions(int hopBusy, int exchangeBusy, int socketBufferBytes) {
        TcpOptions tcp = switch (this) {
            case SPIN -> TcpOptions.defaults().withPolling(TcpOptions.DEFAULT_SPIN_READS, TcpOptions.DEFAULT_YIELD_READS);
            case YIELD -> TcpOptions.defaults();
            case BLOCK -> TcpOptions.blocking();
            case AUTO -> TcpOptions.forThreads(hopBusy, exchangeBusy);
        };
        return tcp.withSocketBuffers(socketBufferBytes, socketBufferBytes);
    }
}
