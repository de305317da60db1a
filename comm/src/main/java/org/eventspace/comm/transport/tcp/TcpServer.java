package org.eventspace.comm.transport.tcp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
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
 * {@code es-accept-<host>}) and one {@link HopService} agent per authenticated connection. The accept agent serves
 * every connection that has not yet proved the job secret with one {@link Selector}: it reads each one's handshake
 * without blocking into a buffer of at most {@link HandshakeLayout#MAX_LENGTH} bytes, refuses a wrong magic, version,
 * secret or length, or a handshake not whole within {@link TcpOptions#connectTimeout()}, and only then gives the
 * connection a thread. At most {@link #MAX_HANDSHAKING} connections are in their handshake at once; more are refused
 * at accept. Its duty cycle blocks in the selector, by design, until a connection arrives, bytes come, or the nearest
 * handshake deadline passes: a connection is opened a handful of times per job, and polling for one would cost
 * wake-ups on every core for the whole run. Closing the selector ends a blocked select at once, so its idle strategy
 * is a no-op and {@link #close()} ends it within its bound.
 *
 * <p>Threading: {@link #start}, {@link #expectDisconnects()} and {@link #close()} may be called from any
 * thread; the agents' threads belong to the server and end with {@link #close()}.
 */
public final class TcpServer implements AutoCloseable {
    /** How long {@link #close()} waits, in all, for the agents' threads to end. */
    private static final Duration JOIN_BOUND = Duration.ofSeconds(2);
    /** Connections in their handshake at once; more are refused at accept. */
    static final int MAX_HANDSHAKING = 1_024;

    private final HostEnd host;
    private final JobSecret secret;
    private final TcpOptions options;
    private final ServerSocketChannel listener;
    private final Selector selector;
    private final Set<Handshaking> handshaking = ConcurrentHashMap.newKeySet();
    /** Handshakes completed in the current round, to be served after it ({@link #handOver}); the accept agent's only. */
    private final List<Handshaking> complete = new ArrayList<>();
    private final InetSocketAddress address;
    private final Acceptor acceptor = new Acceptor();
    private final boolean startAgents;
    private volatile AgentRunner acceptorRunner;
    private final Set<HopService> services = ConcurrentHashMap.newKeySet();
    private final Set<Integer> lostHosts = ConcurrentHashMap.newKeySet();
    private volatile boolean disconnectsExpected;
    private volatile boolean closed;

    /**
     * Hops the kernel completes before the acceptor takes them: a root host is called by every other host at once, and
     * beyond the queue the kernel drops SYNs, which their hosts resend a second later (as the rendezvous's did with 64).
     */
    static final int ACCEPT_BACKLOG = 4096;

    private TcpServer(HostEnd host, JobSecret secret, TcpOptions options, boolean startAgents) throws IOException {
        this.host = host;
        this.startAgents = startAgents;
        this.secret = secret;
        this.options = options;
        this.listener = ServerSocketChannel.open();
        listener.bind(new InetSocketAddress(options.bindAddress(), 0), ACCEPT_BACKLOG);
        this.address = (InetSocketAddress) listener.getLocalAddress();
        this.selector = Selector.open();
        listener.configureBlocking(false);
        listener.register(selector, SelectionKey.OP_ACCEPT);
        if (address.getAddress().isAnyLocalAddress()) {
            listener.close();
            selector.close();
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

    /** A connection whose handshake is being read: a buffer for it and a deadline, no thread. */
    private static final class Handshaking {
        final SocketChannel socket;
        final String remote;
        final long deadlineNanos;
        ByteBuffer bytes = ByteBuffer.allocate(HandshakeLayout.FIXED_LENGTH).order(FrameLayout.BYTE_ORDER);
        boolean checked;

        Handshaking(SocketChannel socket, String remote, long deadlineNanos) {
            this.socket = socket;
            this.remote = remote;
            this.deadlineNanos = deadlineNanos;
        }
    }

    /**
     * Accepts connections and reads their handshakes, all on one thread; hands each authenticated connection to a
     * {@link HopService} agent of its own. Blocks in the selector until something is ready or a deadline passes.
     */
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
            int work = 0;
            try {
                long now = System.nanoTime();
                long wait = 0;
                for (Handshaking h : handshaking) {
                    long left = Math.max(1, (h.deadlineNanos - now) / 1_000_000 + 1);
                    wait = wait == 0 ? left : Math.min(wait, left);
                }
                selector.select(wait);
                if (closed) {
                    throw new AgentTerminationException();
                }
                Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
                while (keys.hasNext()) {
                    SelectionKey key = keys.next();
                    keys.remove();
                    if (!key.isValid()) {
                        continue;
                    }
                    if (key.isAcceptable()) {
                        work += acceptAll();
                    } else if (key.isReadable()) {
                        read((Handshaking) key.attachment(), key);
                        work++;
                    }
                }
                handOver();
            } catch (ClosedSelectorException e) {
                throw new AgentTerminationException();
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("es-tcp " + host.hostName() + ": accept failed: " + e);
                }
                throw new AgentTerminationException();
            }
            long now = System.nanoTime();
            for (Handshaking h : List.copyOf(handshaking)) {
                if (now - h.deadlineNanos > 0) {
                    refuse(h, h.bytes.position() == 0 && !h.checked
                            ? "no handshake within " + options.connectTimeout().toMillis() + " ms"
                            : "no whole handshake within " + options.connectTimeout().toMillis() + " ms");
                    work++;
                }
            }
            return work;
        }

        @Override
        public void onClose() {
            closeHandshaking();
        }
    }

    private int acceptAll() throws IOException {
        int accepted = 0;
        SocketChannel socket;
        while ((socket = listener.accept()) != null) {
            accepted++;
            String remote = String.valueOf(remoteOf(socket));
            if (handshaking.size() >= MAX_HANDSHAKING) {
                System.err.println("es-tcp " + host.hostName() + ": refused connection from " + remote + ": "
                        + MAX_HANDSHAKING + " connections are already in their handshake");
                closeQuietly(socket);
                continue;
            }
            try {
                TcpLink.configure(socket, options);
                socket.configureBlocking(false);
                Handshaking h = new Handshaking(socket, remote, System.nanoTime() + options.connectTimeout().toNanos());
                SelectionKey key = socket.register(selector, SelectionKey.OP_READ, h);
                handshaking.add(h);
                read(h, key); // the handshake usually came with the connection
            } catch (IOException e) {
                System.err.println("es-tcp " + host.hostName() + ": refused connection from " + remote + ": " + e);
                closeQuietly(socket);
            }
        }
        return accepted;
    }

    /** Reads what the socket has of its handshake; checks the fixed part, then hands the whole one to a hop service. */
    private void read(Handshaking h, SelectionKey key) {
        int n;
        try {
            n = h.socket.read(h.bytes);
        } catch (IOException e) {
            refuse(h, "handshake failed: " + TcpLink.describe(e));
            return;
        }
        if (n < 0) {
            refuse(h, "closed before the end of its handshake");
            return;
        }
        if (h.bytes.hasRemaining()) {
            return;
        }
        UnsafeBuffer b = new UnsafeBuffer(h.bytes.array());
        if (!h.checked) {
            int magic = b.getInt(HandshakeLayout.MAGIC_OFFSET, FrameLayout.BYTE_ORDER);
            if (magic != HandshakeLayout.MAGIC) {
                refuse(h, "not an EventSpace handshake (magic 0x" + Integer.toHexString(magic) + ")");
                return;
            }
            int version = b.getInt(HandshakeLayout.VERSION_OFFSET, FrameLayout.BYTE_ORDER);
            if (version != HandshakeLayout.VERSION) {
                refuse(h, "protocol version " + version + ", this host speaks " + HandshakeLayout.VERSION);
                return;
            }
            if (!secret.matches(b, HandshakeLayout.SECRET_OFFSET)) {
                refuse(h, "wrong job secret");
                return;
            }
            int length = b.getInt(HandshakeLayout.LENGTH_OFFSET, FrameLayout.BYTE_ORDER);
            int elementLength = b.getInt(HandshakeLayout.ELEMENT_LENGTH_OFFSET, FrameLayout.BYTE_ORDER);
            if (length < HandshakeLayout.FIXED_LENGTH || length > HandshakeLayout.MAX_LENGTH
                    || elementLength != length - HandshakeLayout.FIXED_LENGTH) {
                refuse(h, "malformed handshake: length=" + length + ", elementLength=" + elementLength);
                return;
            }
            h.checked = true;
            if (length > HandshakeLayout.FIXED_LENGTH) {
                ByteBuffer whole = ByteBuffer.allocate(length).order(FrameLayout.BYTE_ORDER);
                whole.put(h.bytes.flip());
                h.bytes = whole;
                read(h, key);
                return;
            }
        }
        handshaking.remove(h);
        key.cancel();
        // Served once the round's selected keys have all been handled (handOver): deregistering the key here, while
        // doWork still iterates the selected keys, would change that set under its iterator.
        complete.add(h);
    }

    /**
     * Gives each connection whose handshake completed this round its hop service: its cancelled key deregistered
     * first (one selectNow for all), so its channel can go to a selector of its own.
     */
    private int handOver() {
        if (complete.isEmpty()) {
            return 0;
        }
        int n = complete.size();
        try {
            selector.selectNow();
        } catch (IOException e) {
            for (Handshaking h : complete) {
                System.err.println("es-tcp " + host.hostName() + ": refused connection from " + h.remote + ": " + e);
                closeQuietly(h.socket);
            }
            complete.clear();
            return n;
        }
        for (Handshaking h : complete) {
            try {
                HopService service = new HopService(this, new FrameChannel(h.socket, options), h.remote,
                        new UnsafeBuffer(h.bytes.array()));
                services.add(service);
                if (closed) {
                    service.close();
                } else if (startAgents) {
                    service.start();
                }
            } catch (IOException e) {
                System.err.println("es-tcp " + host.hostName() + ": refused connection from " + h.remote + ": " + e);
                closeQuietly(h.socket);
            }
        }
        complete.clear();
        return n;
    }

    private void refuse(Handshaking h, String reason) {
        handshaking.remove(h);
        if (!closed) {
            System.err.println("es-tcp " + host.hostName() + ": refused connection from " + h.remote + ": " + reason);
        }
        closeQuietly(h.socket);
    }

    private void closeHandshaking() {
        for (Handshaking h : List.copyOf(handshaking)) {
            closeQuietly(h.socket);
        }
        handshaking.clear();
        for (Handshaking h : complete) {
            closeQuietly(h.socket); // completed in a round that failed before they were handed over
        }
        complete.clear();
    }

    /** Connections in their handshake now (for tests of the bound). */
    int handshaking() {
        return handshaking.size();
    }

    private static void closeQuietly(SocketChannel socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Closed either way.
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
        try {
            selector.close(); // ends a blocked select at once
        } catch (IOException ignored) {
            // Closed either way.
        }
        if (acceptorRunner == null) {
            closeHandshaking(); // stepped by hand: no runner calls the acceptor's onClose
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
