package org.eventspace.events;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.eventspace.comm.path.Wrapper;
import org.eventspace.comm.runtime.HostRuntime;
import org.eventspace.comm.runtime.PointToPointWrappers;

/**
 * Event collectors on point-to-point paths, which hosts build on demand outside the pathmap, so that
 * {@link CollectorPlacement} never sees them (EventSpace paper §4.1: every hop of the communication system is instrumented). A
 * send gets a collector on the sender's path ({@code p2p.<src>.<dst>.send}: t1/t4 around the hop's stub, or around
 * the store on the same host) and one on the receiving host, the first wrapper the hop's service thread runs
 * ({@code p2p.<src>.<dst>.serve}: t2/t3), so the two-way latency {@code (t4 − t1) − (t3 − t2)} of a send needs no
 * clock synchronisation, as for a collective's hop. Registered with
 * {@code WrapperKinds.withPointToPoint(new PointToPointCollectors(eventSpaceOfHost))}. Thread-safe.
 *
 * <p>Ids: from {@value #FIRST_ID} up, so they never meet the ids {@link CollectorPlacement} gives the pathmap's
 * collectors (0, 1, …). Buffers hold {@value #CAPACITY} tuples and are taken from the host's budget when the path
 * is built; a host whose budget is spent keeps sending untraced (one warning on stderr per host) rather than fail
 * the send.
 */
public final class PointToPointCollectors implements PointToPointWrappers {
    /** The first collector id of a point-to-point collector. */
    public static final int FIRST_ID = 1 << 20;
    /** Tuples per point-to-point buffer: a few hundred sends of a pair, 12 KiB. */
    public static final int CAPACITY = 256;
    /** The name prefix every point-to-point collector has (the mailbox's). */
    public static final String PREFIX = "p2p.";

    private final Function<HostRuntime, EventSpace> eventSpaceOfHost;
    private final AtomicInteger nextId = new AtomicInteger(FIRST_ID);
    private final AtomicBoolean warned = new AtomicBoolean();

    public PointToPointCollectors(Function<HostRuntime, EventSpace> eventSpaceOfHost) {
        this.eventSpaceOfHost = eventSpaceOfHost;
    }

    /** The collector's name for {@code mailbox} on {@code side}: {@code p2p.<src>.<dst>.send} or {@code .serve}. */
    public static String name(String mailbox, Side side) {
        return mailbox + (side == Side.SEND ? ".send" : ".serve");
    }

    @Override
    public Wrapper wrap(HostRuntime host, String mailbox, Side side, Wrapper wrapper) {
        if (side == Side.RELAY) {
            // A host that passes a send on (a WAN gateway) is neither end of it: the send's two collectors already
            // give its two-way latency, which the relay's time is part of.
            return wrapper;
        }
        EventSpace space = eventSpaceOfHost.apply(host);
        if (space == null) {
            return wrapper;
        }
        int id = nextId.getAndIncrement();
        try {
            return new EventCollector(id, space.allocate(id, name(mailbox, side), CAPACITY), wrapper);
        } catch (IllegalStateException | IllegalArgumentException e) {
            if (warned.compareAndSet(false, true)) {
                System.err.println("eventspace: point-to-point path " + name(mailbox, side) + " on host " + host.hostName()
                        + " is not traced: " + e.getMessage());
            }
            return wrapper;
        }
    }
}
