package org.eventspace.comm.transport.tcp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.eventspace.comm.path.CommException;
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
 * <p>Threading: {@link #start}, {@link #expectDisconnects()} and {@link #close()} may be called from any
 * thread; the accept thread and the service threads belong to the server and end with {@link #close()}.
 */
public final class TcpServer implements AutoCloseable {
    private static final long JOIN_MILLIS = 2_000;

    private final HostEnd host;
    private final JobSecret secret;
    private final TcpOptions options;
    private final ServerSocketChannel listener;
    private final InetSocketAddress address;
    private final Thread acceptor;
    private final Set<HopService> services = ConcurrentHashMap.newKeySet();
    private final Set<Integer> lostHosts = ConcurrentHashMap.newKeySet();
    private volatile boolean disconnectsExpected;
    private volatile boolean closed;

    private TcpServer(HostEnd host, JobSecret secret, TcpOptions options) throws IOException {
        this.host = host;
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
        this.acceptor = new Thread(this::acceptLoop, "es-accept-" + host.hostName());
        acceptor.setDaemon(true);
    }

    /** Binds {@link TcpOptions#bindAddress()} on an ephemeral port and starts accepting. */
    public static TcpServer start(HostEnd host, JobSecret secret, TcpOptions options) {
        TcpServer server;
        try {
            server = new TcpServer(host, secret, options);
        } catch (IOException e) {
            throw new CommException("host " + host.hostName() + ": cannot listen on " + options.bindAddress() + ": " + e, e);
        }
        server.acceptor.start();
        return server;
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

    private void acceptLoop() {
        while (!closed) {
            SocketChannel socket;
            try {
                socket = listener.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("es-tcp " + host.hostName() + ": accept failed: " + e);
                }
                return;
            }
            SocketAddress remote = remoteOf(socket);
            try {
                TcpLink.configure(socket, options);
                HopService service = new HopService(this, new FrameChannel(socket, options), String.valueOf(remote));
                services.add(service);
                if (closed) {
                    service.close();
                    return;
                }
                service.start();
            } catch (IOException e) {
                System.err.println("es-tcp " + host.hostName() + ": refused connection from " + remote + ": " + e);
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // The refusal is logged; nothing else to do.
                }
            }
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
        long deadline = System.currentTimeMillis() + JOIN_MILLIS;
        join(acceptor, deadline);
        for (HopService service : all) {
            join(service.thread(), deadline);
        }
    }

    private static void join(Thread thread, long deadlineMillis) {
        long left = deadlineMillis - System.currentTimeMillis();
        if (left <= 0 || thread == null) {
            return;
        }
        try {
            thread.join(left);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "TcpServer{" + host.hostName() + " at " + address + '}';
    }
}
