package org.eventspace.comm.transport.tcp;

import static org.eventspace.comm.transport.tcp.FrameLayout.BYTE_ORDER;

import java.io.IOException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.charset.StandardCharsets;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.Wrapper;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.transport.AgentThreads;
import org.eventspace.comm.transport.Hop;
import org.eventspace.comm.transport.HostEnd;
import org.eventspace.comm.traffic.TrafficCounters;

/**
 * The agent that serves one authenticated TCP hop: its first duty cycle resolves the hop its handshake names (the
 * {@link TcpServer} read and checked the handshake's magic, version and secret before it gave the connection a
 * thread) and acknowledges it; every later one reads one request frame, runs the rest of the path
 * ({@code wrapper.call}) and sends back the result, or the failure's text as a FAILED frame. Role
 * {@code es-handshake-<host>-<remote>}, then {@code es-serve-<hop>} once the hop is known (the thread is renamed
 * with it).
 *
 * <p>The duty cycle blocks, by design: it waits for the next frame in {@link FrameChannel} (busy reads, yielding
 * reads, then a block in the selector, as {@link TcpOptions} says), which is the thread PATHS puts behind every
 * connection, and the peer's frame is what wakes it. Its idle strategy is therefore a no-op: a duty cycle returns
 * only after it served a frame, or throws {@link AgentTerminationException} when the connection ended. Closing
 * ({@link #close()}) closes the channel, which wakes a blocked select or read with an
 * {@link AsynchronousCloseException}, so the thread ends within the server's bounded close.
 *
 * <p>Owned by its {@link TcpServer}: {@link #start()} once, or step {@link #doWork()} by hand in a test;
 * {@link #close()} from any thread.
 */
final class HopService implements Agent {
    private final TcpServer server;
    private final FrameChannel channel;
    private final String remote;
    /** The whole handshake, checked up to its secret and lengths by the server. */
    private final UnsafeBuffer handshake;
    private final Message message = new Message(1);
    private volatile String role;
    private volatile AgentRunner runner;
    private Wrapper target;
    /** Set once the connection went to an exchange wrapper ({@link #adopt}): ending this service leaves it open. */
    private volatile boolean handedOver;
    private String hopName;
    private int fromHost;
    /** Whether the hop serves an event scope's wrappers, not the application's. */
    private boolean scopeHop;
    /** Counts the requests this end reads off the socket and the replies it writes (ibprof: where the bytes leave). */
    private TrafficCounters.Channel traffic = TrafficCounters.Channel.NONE;

    HopService(TcpServer server, FrameChannel channel, String remote, UnsafeBuffer handshake) {
        this.server = server;
        this.channel = channel;
        this.remote = remote;
        this.handshake = handshake;
        this.role = "es-handshake-" + server.host().hostName() + "-" + remote;
    }

    void start() {
        // Known before the first duty cycle, which renames the runner's thread once the handshake named the hop.
        runner = AgentThreads.runner(this, new NoOpIdleStrategy());
        AgentThreads.start(runner);
    }

    /** The runner of a started service, null if it is stepped by hand. */
    AgentRunner runner() {
        return runner;
    }

    void close() {
        if (!handedOver) {
            channel.close();
        }
    }

    @Override
    public String roleName() {
        return role;
    }

    @Override
    public int doWork() {
        try {
            if (target == null) {
                target = resolve();
                if (target == null) {
                    throw new AgentTerminationException();
                }
                return 1;
            }
            return serveOne();
        } catch (AgentTerminationException e) {
            throw e;
        } catch (RuntimeException e) {
            // A bug below the frame layer leaves the stream at an unknown place: end the hop rather than read on
            // from the middle of a frame (the runner would call doWork again).
            System.err.println("es-tcp " + server.host().hostName() + ": " + role + " failed: " + e);
            throw new AgentTerminationException(e);
        }
    }

    /** Runs on the agent's thread when its runner ends it, or on the closer's for a service stepped by hand. */
    @Override
    public void onClose() {
        if (!handedOver) {
            channel.close();
        }
        server.ended(this);
    }

    /** Resolves the hop the handshake names and acknowledges it; returns the wrapper to serve, or null after refusing. */
    private Wrapper resolve() {
        HostEnd host = server.host();
        long deadline = System.nanoTime() + server.options().connectTimeout().toNanos();
        UnsafeBuffer b = handshake;
        Hop hop = new Hop(b.getInt(HandshakeLayout.FROM_HOST_OFFSET, BYTE_ORDER), b.getInt(HandshakeLayout.TO_HOST_OFFSET, BYTE_ORDER),
                b.getInt(HandshakeLayout.TARGET_NODE_OFFSET, BYTE_ORDER), b.getInt(HandshakeLayout.TARGET_PORT_OFFSET, BYTE_ORDER),
                b.getStringWithoutLengthUtf8(HandshakeLayout.ELEMENT_OFFSET, b.getInt(HandshakeLayout.ELEMENT_LENGTH_OFFSET, BYTE_ORDER)));
        Pathmap pathmap = host.pathmap();
        int hosts = pathmap.spec().topology().size();
        if (hop.toHost() != host.host()) {
            return refuse("hop to host " + hop.toHost() + " arrived at host " + host.host() + " (" + host.hostName() + ")", true);
        }
        if (hop.fromHost() < 0 || hop.fromHost() >= hosts || hop.fromHost() == hop.toHost()) {
            return refuse("hop from host " + hop.fromHost() + ", but the job has hosts 0.." + (hosts - 1)
                    + " and a hop crosses hosts", true);
        }
        if (!hop.isPointToPoint() && hop.targetNode() >= pathmap.nodes().size()) {
            return refuse("hop to node " + hop.targetNode() + ", but the pathmap has nodes 0.." + (pathmap.nodes().size() - 1), true);
        }
        if (host.isPeerHop(hop)) {
            adopt(hop, deadline);
            return null;
        }
        Wrapper target;
        try {
            target = host.serve(hop);
        } catch (RuntimeException e) {
            return refuse("cannot serve " + hop + ": " + e.getMessage(), true);
        }
        hopName = TcpTransport.hopName(pathmap, hop);
        fromHost = hop.fromHost();
        scopeHop = !hop.isPointToPoint() && pathmap.node(hop.targetNode()).ofScope();
        traffic = host.trafficChannel(hop, false);
        role = "es-serve-" + hopName;
        if (runner != null && runner.thread() == Thread.currentThread()) {
            Thread.currentThread().setName(role);
        }
        try {
            acknowledge(HandshakeLayout.ACK_ACCEPTED, "", deadline);
        } catch (IOException e) {
            return refuse("could not acknowledge " + hopName + ": " + TcpLink.describe(e), false);
        }
        return target;
    }

    /**
     * An exchange link (a butterfly's partner opened it): acknowledged, then its socket goes to this host's exchange
     * wrapper, whose calling thread reads it from then on; this service ends without closing it.
     */
    private void adopt(Hop hop, long deadline) {
        HostEnd host = server.host();
        String name = TcpTransport.hopName(host.pathmap(), hop);
        TcpPeerLink link = null;
        try {
            acknowledge(HandshakeLayout.ACK_ACCEPTED, "", deadline);
            handedOver = true;
            link = new TcpPeerLink(name, channel.detach(), server.options(), host.waitPolicy().timeoutNanos(),
                    host.trafficChannel(hop, false));
            host.adoptPeer(hop, link);
        } catch (IOException | RuntimeException e) {
            System.err.println("es-tcp " + host.hostName() + ": could not take exchange " + name + " from " + remote + ": "
                    + (e instanceof IOException io ? TcpLink.describe(io) : e.getMessage()));
            if (link != null) {
                link.close();
            } else {
                channel.close();
            }
        }
    }

    /** Logs one line, answers an authenticated peer with the reason, and leaves {@link #run()} to close the socket. */
    private Wrapper refuse(String reason, boolean answer) {
        if (!channel.isClosed()) {
            System.err.println("es-tcp " + server.host().hostName() + ": refused connection from " + remote + ": " + reason);
        }
        if (answer) {
            try {
                acknowledge(HandshakeLayout.ACK_REFUSED, reason, System.nanoTime() + server.options().connectTimeout().toNanos());
            } catch (IOException ignored) {
                // The peer learns of the refusal from the closed socket instead.
            }
        }
        return null;
    }

    private void acknowledge(int status, String reason, long deadline) throws IOException {
        byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        int reasonLength = Math.min(text.length, HandshakeLayout.ACK_MAX_REASON_LENGTH);
        int length = HandshakeLayout.ACK_FIXED_LENGTH + reasonLength;
        UnsafeBuffer b = channel.frameFor(length).buffer();
        b.putInt(HandshakeLayout.ACK_MAGIC_OFFSET, HandshakeLayout.MAGIC, BYTE_ORDER);
        b.putInt(HandshakeLayout.ACK_STATUS_OFFSET, status, BYTE_ORDER);
        b.putInt(HandshakeLayout.ACK_REASON_LENGTH_OFFSET, reasonLength, BYTE_ORDER);
        b.putBytes(HandshakeLayout.ACK_REASON_OFFSET, text, 0, reasonLength);
        channel.send(length, deadline);
    }

    /** One duty cycle of a served hop: request frame in, path run, reply frame out; or the end of the connection. */
    private int serveOne() {
        String why;
        try {
            if (channel.receiveFrame(FrameChannel.NO_DEADLINE)) {
                channel.frame().decodeRequest(message);
                traffic.request(message);
                int length;
                boolean ok = false;
                try {
                    target.call(message);
                    if (message.length() > FrameLayout.MAX_WORDS) {
                        throw new CommException("result of " + message.length() + " words exceeds the largest frame of "
                                + FrameLayout.MAX_WORDS + " words");
                    }
                    length = channel.frameFor(FrameLayout.frameLength(message.length())).encode(message);
                    ok = true;
                } catch (RuntimeException e) {
                    // The path failed below this hop: the caller on the other host gets the reason, the hop lives on.
                    String text = e.getMessage() == null ? e.toString() : e.getMessage();
                    length = channel.frameFor(FrameLayout.HEADER_LENGTH + FrameLayout.MAX_ERROR_LENGTH).encodeFailure(message, text);
                }
                channel.send(length, FrameChannel.NO_DEADLINE);
                if (ok) {
                    traffic.reply(message);
                }
                return 1;
            }
            why = "connection closed";
        } catch (AsynchronousCloseException e) {
            throw new AgentTerminationException();
        } catch (IOException e) {
            why = TcpLink.describe(e);
        }
        lost(why);
        throw new AgentTerminationException();
    }

    /** The connection ended: while the job runs that means the peer host is gone, and this host's greds fail. */
    private void lost(String why) {
        if (server.disconnectsExpected() || channel.isClosed()) {
            return;
        }
        HostEnd host = server.host();
        String from = host.pathmap().spec().topology().host(fromHost).name();
        if (scopeHop) {
            // The scope's caller gave up on this hop (its gather timed out on a loaded machine) or went away: the
            // monitoring loses this subtree's gathers, the application goes on. A host that really died closes its
            // application hops too, and those fail the greds.
            System.err.println("es-tcp " + host.hostName() + ": the event scope's hop " + hopName + " closed (peer " + remote
                    + ": " + why + "); its gathers through it end, the job goes on");
            return;
        }
        String text = "host " + from + " disconnected from host " + host.hostName() + " while the job was running (hop "
                + hopName + ", peer " + remote + ": " + why + ")";
        if (server.firstLoss(fromHost)) {
            System.err.println("es-tcp " + host.hostName() + ": " + text + "; failing every gred of " + host.hostName());
        }
        host.failAll(new CommException(text));
    }
}
