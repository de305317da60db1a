package org.eventspace.comm.transport.tcp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.eventspace.comm.path.CommException;
import org.eventspace.comm.transport.AgentThreads;
import org.eventspace.comm.transport.HostEnd;

/**
 * The serving side of one host's TCP hops: listens on an ephemeral port, checks the handshake of every
 * connection ({@link HandshakeLayout}) and serves each accepted hop with one daemon thread of its own, named
 * {@code es-serve-<from>-><to>:<target>}, that runs {@code host.serve(hop)} for every request frame.
 *
 * <p>A connection with the wrong magic, version or job secret, or one asking for a hop this host does not
 * serve, is refused: the socket is closed and one line naming the remote address and the reason goes to
 * stderr. A served hop whose connection breaks while the job runs fails every gred of this host
 * ({@link HostEnd#failAll}), so that local ranks waiting for the lost host fail at once instead of
 * timing out; after {@link #expectDisconnects()} a closing connection is a peer that finished.
 *
 * <p>Its loops are Agrona agents ({@link org.eventspace.comm.transport.AgentThreads}): the accept agent (role
 * {@code es-accept-<host>}) and one {@link HopService} agent per accepted connection. The accept agent's duty
 * cycle blocks in {@code accept()}, by design: a connection is opened a handful of times per job, and polling
 * for one would cost wake-ups on every core for the whole run; closing the listener ends a blocked accept at
 * once with an {@link java.nio.channels.AsynchronousCloseException}, so its idle strategy is a no-op and
 * {@link #close()} ends it within its bound.
 *
 * <p>Threading: {@link #start}, {@link #expectDisconnects()} and {@link #close()} may be called from any
 * thread; the agents' threads belong to the server and end with {@link #close()}.
 */
public final class TcpServer implements AutoCloseable {
    /** How long {@link #close()} waits, in all, for the agents' threads to end. */
    private static final Duration JOIN_BOUND = Duration.ofSeconds(2);

    private final HostEnd host;
    private final JobSecret secret;
    private final TcpOptions options;
    private final ServerSocketChannel listener;
    private final InetSocketAddress address;
    private final Acceptor acceptor = new Acceptor();
    private final boolean startAgents;
    private volatile AgentRunner acceptorRunner;
    private final Set<HopService> services = ConcurrentHashMap.newKeySet();
    private final Set<Integer> lostHosts = ConcurrentHashMap.newKeySet();
    private volatile boolean disconnectsExpected;
    private volatile boolean closed;

    private TcpServer(HostEnd host, JobSecret secret, TcpOptions options, boolean startAgents) throws IOException {
        this.host = host;
        this.startAgents = startAgents;
        this.secret = secret;
        this.options = options;
        this.listener = ServerSocketChannel.open();
        listener.bind(new InetSocketAddress(options.bindAddress(), 0), 64);
        this.address = (InetSocketAddress) listener.getLocalAddress();
        if (address.getAddress().isAnyLocalAddress()) {
            listener.close();
            // The bound address is also the one other hosts are told to connect to, so it must name this host.
            throw new IllegalArgumentException("bindAddress must be an address other hosts can connect to, not the wildcard "
                    + options.bindAddress());
        }
    }

    /** Binds {@link TcpOptions#bindAddress()} on an ephemeral port and starts accepting. */
    public static TcpServer start(HostEnd host, JobSecret secret, TcpOptions options) {
        TcpServer server = open(host, secret, options, true);
        server.acceptorRunner = AgentThreads.start(server.acceptor, new NoOpIdleStrategy());
        return server;
    }

    /**
     * Binds as {@link #start} does but runs no agent: a test steps {@link #acceptor()} and the {@link HopService}s it
     * accepts ({@link #services()}) by hand.
     */
    static TcpServer unstarted(HostEnd host, JobSecret secret, TcpOptions options) {
        return open(host, secret, options, false);
    }

    private static TcpServer open(HostEnd host, JobSecret secret, TcpOptions options, boolean startAgents) {
        try {
            return new TcpServer(host, secret, options, startAgents);
        } catch (IOException e) {
            throw new CommException("host " + host.hostName() + ": cannot listen on " + options.bindAddress() + ": " + e, e);
        }
    }

    /** The accept agent. */
    Agent acceptor() {
        return acceptor;
    }

    /** The hops being served now. */
    List<HopService> services() {
        return List.copyOf(services);
    }

    /** Where other hosts connect: the bound address and port. */
    public InetSocketAddress address() {
        return address;
    }

    /** Number of hops being served now. */
    public int servedHops() {
        return services.size();
    }

    /** Called once this host's ranks finished: from now on a peer closing its hops is done, not dead. */
    public void expectDisconnects() {
        disconnectsExpected = true;
    }

    HostEnd host() {
        return host;
    }

    JobSecret secret() {
        return secret;
    }

    TcpOptions options() {
        return options;
    }

    boolean disconnectsExpected() {
        return disconnectsExpected || closed;
    }

    /** True the first time a hop from {@code fromHost} is lost, so each lost host is logged once, not once per hop. */
    boolean firstLoss(int fromHost) {
        return lostHosts.add(fromHost);
    }

    void ended(HopService service) {
        services.remove(service);
    }

    /** Accepts one connection per duty cycle and hands it to a {@link HopService} agent of its own. */
    private final class Acceptor implements Agent {
        @Override
        public String roleName() {
            return "es-accept-" + host.hostName();
        }

        @Override
        public int doWork() {
            if (closed) {
                throw new AgentTerminationException();
            }
            SocketChannel socket;
            try {
                socket = listener.accept();
            } catch (ClosedChannelException e) {
                throw new AgentTerminationException();
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("es-tcp " + host.hostName() + ": accept failed: " + e);
                }
                throw new AgentTerminationException();
            }
            SocketAddress remote = remoteOf(socket);
            try {
                TcpLink.configure(socket, options);
                HopService service = new HopService(TcpServer.this, new FrameChannel(socket, options), String.valueOf(remote));
                services.add(service);
                if (closed) {
                    service.close();
                    throw new AgentTerminationException();
                }
                if (startAgents) {
                    service.start();
                }
            } catch (IOException e) {
                System.err.println("es-tcp " + host.hostName() + ": refused connection from " + remote + ": " + e);
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // The refusal is logged; nothing else to do.
                }
            }
            return 1;
        }
    }

    private static SocketAddress remoteOf(SocketChannel socket) {
        try {
            return socket.getRemoteAddress();
        } catch (IOException e) {
            return null;
        }
    }

    /** Stops accepting, closes every served hop and waits (bounded) for their threads to end. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // The accept thread ends either way once closed is set.
        }
        List<HopService> all = new ArrayList<>(services);
        for (HopService service : all) {
            service.close();
        }
        long deadline = System.nanoTime() + JOIN_BOUND.toNanos();
        if (acceptorRunner != null) {
            AgentThreads.awaitEnd(acceptorRunner, left(deadline));
        }
        for (HopService service : all) {
            AgentRunner runner = service.runner();
            if (runner != null) {
                AgentThreads.awaitEnd(runner, left(deadline));
            } else {
                // Stepped by hand: no runner calls its onClose.
                service.onClose();
            }
        }
    }

    private static Duration left(long deadlineNanos) {
        return Duration.ofNanos(Math.max(1_000_000, deadlineNanos - System.nanoTime()));
    }

    @Override
    public String toString() {
        return "TcpServer{" + host.hostName() + " at " + address + '}';
    }
}
