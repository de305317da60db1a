package org.eventspace.comm.launch;

import static org.eventspace.comm.launch.RendezvousProtocol.ABORT;
import static org.eventspace.comm.launch.RendezvousProtocol.ALL_DONE;
import static org.eventspace.comm.launch.RendezvousProtocol.BARRIER;
import static org.eventspace.comm.launch.RendezvousProtocol.DONE;
import static org.eventspace.comm.launch.RendezvousProtocol.HEARTBEAT;
import static org.eventspace.comm.launch.RendezvousProtocol.HEARTBEAT_MILLIS;
import static org.eventspace.comm.launch.RendezvousProtocol.HELLO;
import static org.eventspace.comm.launch.RendezvousProtocol.MAGIC;
import static org.eventspace.comm.launch.RendezvousProtocol.MAX_HOST_NAME_BYTES;
import static org.eventspace.comm.launch.RendezvousProtocol.MAX_RESULT_BYTES;
import static org.eventspace.comm.launch.RendezvousProtocol.MAX_STRING_BYTES;
import static org.eventspace.comm.launch.RendezvousProtocol.PART;
import static org.eventspace.comm.launch.RendezvousProtocol.PASSED;
import static org.eventspace.comm.launch.RendezvousProtocol.SILENCE_MILLIS;
import static org.eventspace.comm.launch.RendezvousProtocol.TABLE;
import static org.eventspace.comm.launch.RendezvousProtocol.VERSION;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntPredicate;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.eventspace.comm.path.CommException;
import org.eventspace.comm.transport.AgentThreads;
import org.eventspace.comm.transport.tcp.JobSecret;

/**
 * Where the host processes of one job find each other ({@link RendezvousProtocol}): each registers its host id
 * and the address of its {@link org.eventspace.comm.transport.tcp.TcpServer}; once all {@code hosts} did,
 * every process gets the address table. Later it serves named barriers, collects one result line per process
 * when it reports "done", and broadcasts "abort" when the job fails.
 *
 * <p>Every wait is bounded. Hosts that never register, never reach a barrier, or do not finish within
 * {@code timeout} of the first one make the rendezvous abort the job with a message naming them. A registered
 * process that stays silent for {@link RendezvousProtocol#SILENCE_MILLIS} (no heartbeat: frozen, or its machine
 * unreachable) or disconnects before it reported "done" aborts the job, named. A connection that does not send a
 * whole, valid hello within {@link #HELLO_MILLIS} (or the timeout, if shorter) is refused and logged to stderr, as
 * is a wrong secret.
 *
 * <p>Thread-safe. One Agrona agent ({@link AgentThreads}, role {@code es-rendezvous}) serves every connection
 * with one {@link Selector}: its duty cycle waits up to {@value #WATCH_MILLIS} ms for sockets to become ready,
 * reads and writes what they allow without blocking, sends heartbeats and runs the watchdog. A connection costs a
 * socket and a buffer of at most {@link #HELLO_BUFFER_BYTES} bytes until its hello proves it knows the job's
 * secret, never a thread; at most {@link #MAX_UNREGISTERED} such connections are held at once. The silence clock
 * is forgiven when the rendezvous itself was not running (its duty cycles more than a second apart: the whole job
 * was stopped with Ctrl-Z, or the machine paused), so a pause of everyone is not blamed on anyone.
 * {@link #close()} flushes what was queued (an ABORT, ALL_DONE), closes every socket and waits, bounded, for
 * the thread.
 */
public final class Rendezvous implements AutoCloseable {
    private static final int WATCH_MILLIS = 50;
    /** Duty cycles further apart than this mean the rendezvous was not running; silence is then not the members'. */
    private static final long SUSPENDED_GAP_MILLIS = 1_000;
    /** How long {@link #close()} waits, in all, for the agent's thread to end. */
    private static final Duration CLOSE_BOUND = Duration.ofSeconds(2);
    /** How long a refused connection may take to receive its reason before it is closed regardless. */
    private static final long REFUSAL_FLUSH_MILLIS = 1_000;
    /**
     * Connections the kernel completes before the agent accepts them. Every host of a job connects at once; with a short
     * queue the kernel drops the SYNs beyond it and their hosts retry a second later (seen with 64: 300 connections
     * took 2.1 s instead of a few ms). Linux caps it at {@code net.core.somaxconn} (4096 by default).
     */
    static final int ACCEPT_BACKLOG = 4096;
    /** The longest a hello may take. */
    static final long HELLO_MILLIS = 10_000;
    /** Connections that have not yet said a whole hello, held at once; more are refused at accept. */
    static final int MAX_UNREGISTERED = 1_024;
    /** A connection's read buffer until its hello is accepted: the longest hello fits. */
    static final int HELLO_BUFFER_BYTES = 512;
    /** Queued output per connection; a process that reads none of it for this long is dropped. */
    static final int MAX_QUEUED_BYTES = 8 << 20;
    /** The longest reason quoted in a log line. */
    private static final int MAX_LOGGED_CHARS = 300;

    private static final int HELLO_FIXED_BYTES = 4 * 3 + JobSecret.LENGTH + 4 * 2;

    private final JobSecret secret;
    private final int hosts;
    private final long timeoutMillis;
    private final Selector selector;
    private final ServerSocketChannel listener;
    private final InetSocketAddress address;
    private final Server server = new Server();
    private volatile AgentRunner runner;
    private final Connection[] members;
    private final List<Connection> connections = new ArrayList<>();
    private final long registrationDeadline;
    private final Map<String, long[]> barrierDeadlines = new HashMap<>();
    private long doneDeadline;
    /** When each host said hello, reached each barrier (in the order the barriers were first reached) and reported
     * done, on the {@link System#nanoTime} clock; {@link LaunchPhases#NEVER} where it has not. A barrier's times are
     * also which hosts reached it. */
    private final long[] helloNanos;
    private final Map<String, long[]> barrierNanos = new LinkedHashMap<>();
    private final long[] doneNanos;
    private long resultBytes;
    private long nextHeartbeat;
    private long lastCycle;
    private boolean tableSent;
    private boolean allDone;
    private String failure;
    private int blamed = -1;
    private volatile boolean closed;

    /** One accepted socket: a process once its hello was accepted ({@code host >= 0}), a stranger before. */
    private static final class Connection {
        final SocketChannel channel;
        final String remote;
        final long helloDeadline;
        final ArrayDeque<ByteBuffer> out = new ArrayDeque<>();
        ByteBuffer in = ByteBuffer.allocate(HELLO_BUFFER_BYTES);
        long queuedBytes;
        long received;
        long lastHeard;
        int host = -1;
        InetSocketAddress server;
        boolean done;
        String result;
        /** The pieces of a result line that a DONE completes (PART), or null. */
        java.io.ByteArrayOutputStream pieces;
        /** When set, the connection is closed once its output is flushed, or at this time regardless. */
        long closeBy;

        Connection(SocketChannel channel, String remote, long helloDeadline) {
            this.channel = channel;
            this.remote = remote;
            this.helloDeadline = helloDeadline;
        }
    }

    private Rendezvous(JobSecret secret, int hosts, Duration timeout, String bindAddress, int port) throws IOException {
        this.secret = secret;
        this.hosts = hosts;
        this.timeoutMillis = timeout.toMillis();
        this.members = new Connection[hosts];
        this.helloNanos = LaunchPhases.never(hosts);
        this.doneNanos = LaunchPhases.never(hosts);
        this.selector = Selector.open();
        this.listener = ServerSocketChannel.open();
        try {
            listener.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            listener.bind(new InetSocketAddress(bindAddress, port), ACCEPT_BACKLOG);
            listener.configureBlocking(false);
            listener.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException | RuntimeException e) {
            listener.close();
            selector.close();
            throw e;
        }
        InetSocketAddress bound = (InetSocketAddress) listener.getLocalAddress();
        this.address = new InetSocketAddress(bound.getAddress(), bound.getPort());
        this.registrationDeadline = now() + timeoutMillis;
    }

    /**
     * Listens on {@code bindAddress:port} ({@code port} 0 = ephemeral) for {@code hosts} processes.
     *
     * @param timeout bound on registration (from now), on each barrier and on finishing (from the first arrival).
     */
    public static Rendezvous start(String bindAddress, int port, JobSecret secret, int hosts, Duration timeout) {
        Rendezvous r = open(bindAddress, port, secret, hosts, timeout);
        r.runner = AgentThreads.start(r.server, new NoOpIdleStrategy());
        return r;
    }

    /** Listens as {@link #start} does but runs no thread: a test steps {@link #agent()} by hand. */
    static Rendezvous unstarted(String bindAddress, int port, JobSecret secret, int hosts, Duration timeout) {
        return open(bindAddress, port, secret, hosts, timeout);
    }

    private static Rendezvous open(String bindAddress, int port, JobSecret secret, int hosts, Duration timeout) {
        if (hosts < 1) {
            throw new IllegalArgumentException("a job needs at least one host, hosts=" + hosts);
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port must be 0..65535, port=" + port);
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be > 0, timeout=" + timeout);
        }
        try {
            return new Rendezvous(secret, hosts, timeout, bindAddress, port);
        } catch (IOException e) {
            throw new CommException("rendezvous cannot listen on " + bindAddress + ":" + port + ": " + e, e);
        }
    }

    /** The agent that serves every connection. */
    Agent agent() {
        return server;
    }

    public InetSocketAddress address() {
        return address;
    }

    /** The result line each host reported with "done", by host id; null where a host has not reported. */
    public synchronized List<String> results() {
        List<String> list = new ArrayList<>(hosts);
        for (Connection m : members) {
            list.add(m == null ? null : m.result);
        }
        return list;
    }

    /**
     * What the rendezvous saw of each host so far, on the {@link System#nanoTime} clock ({@link LaunchPhases#NEVER}
     * where a host has not got there): its hello, its arrival at each barrier (in the order the barriers were first reached), its result.
     */
    record Milestones(long[] hello, Map<String, long[]> barriers, long[] done, long resultBytes) {
    }

    synchronized Milestones milestones() {
        Map<String, long[]> barriers = new LinkedHashMap<>();
        barrierNanos.forEach((name, at) -> barriers.put(name, at.clone()));
        return new Milestones(helloNanos.clone(), barriers, doneNanos.clone(), resultBytes);
    }

    /** The hosts that have not registered (yet): a process that never started, or froze or died before it did. */
    public synchronized List<Integer> unregistered() {
        return missing(h -> members[h] != null);
    }

    /** Connections open now, registered or not (for tests of the bounds). */
    synchronized int openConnections() {
        return connections.size();
    }

    public synchronized boolean allDone() {
        return allDone;
    }

    /** Why the job was aborted, if it was. */
    public synchronized Optional<String> failure() {
        return Optional.ofNullable(failure);
    }

    /** The one host the rendezvous blamed for the abort (it went silent, disconnected, broke the protocol or asked). */
    public synchronized java.util.OptionalInt blamed() {
        return blamed < 0 ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(blamed);
    }

    /** Tells every registered process that the job failed, and refuses later registrations. */
    public void abort(String reason) {
        abort(reason, -1);
    }

    private void abort(String reason, int culprit) {
        synchronized (this) {
            if (failure != null || allDone) {
                return;
            }
            failure = reason;
            blamed = culprit;
            notifyAll();
            for (Connection m : members) {
                if (m != null) {
                    queue(m, ABORT, reason);
                }
            }
        }
        selector.wakeup();
    }

    /** Waits until every host reported "done", the job was aborted, or {@code timeout} passed; true if all are done. */
    public synchronized boolean awaitAllDone(Duration timeout) throws InterruptedException {
        long deadline = now() + timeout.toMillis();
        while (!allDone && failure == null) {
            long left = deadline - now();
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return allDone;
    }

    /**
     * How long a connection may take to send its whole hello: a process sends it as soon as it connects, so a
     * connection that stays silent (an idle or hostile client) is refused after this, not after the job's timeout.
     */
    long helloMillis() {
        return Math.min(timeoutMillis, HELLO_MILLIS);
    }

    /** One duty cycle: wait for ready sockets (at most {@value #WATCH_MILLIS} ms), serve them, heartbeat, watch. */
    private final class Server implements Agent {
        @Override
        public String roleName() {
            return "es-rendezvous";
        }

        @Override
        public int doWork() throws IOException {
            if (closed) {
                throw new AgentTerminationException();
            }
            long start = now();
            if (lastCycle != 0 && start - lastCycle > SUSPENDED_GAP_MILLIS) {
                forgiveSilence(start);
            }
            int ready = selector.select(WATCH_MILLIS);
            if (closed) {
                throw new AgentTerminationException();
            }
            int work = 0;
            synchronized (Rendezvous.this) {
                Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
                while (keys.hasNext()) {
                    SelectionKey key = keys.next();
                    keys.remove();
                    work += serve(key);
                }
                long now = now();
                work += heartbeat(now);
                work += watch(now) ? 1 : 0;
                flushAll(now);
            }
            lastCycle = now();
            return work + ready;
        }

        @Override
        public void onClose() {
            shutdown();
        }
    }

    private static long now() {
        return System.currentTimeMillis();
    }

    private synchronized void forgiveSilence(long now) {
        for (Connection c : connections) {
            c.lastHeard = now;
        }
    }

    private int serve(SelectionKey key) {
        if (!key.isValid()) {
            return 0;
        }
        if (key.isAcceptable()) {
            return acceptAll();
        }
        Connection c = (Connection) key.attachment();
        if (key.isReadable()) {
            read(c);
        }
        if (key.isValid() && key.isWritable()) {
            flush(c, now());
        }
        return 1;
    }

    private int acceptAll() {
        int accepted = 0;
        while (true) {
            SocketChannel channel;
            try {
                channel = listener.accept();
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("es-rendezvous: accept failed: " + e);
                }
                return accepted;
            }
            if (channel == null) {
                return accepted;
            }
            accepted++;
            String remote = remoteOf(channel);
            long unregistered = connections.stream().filter(c -> c.host < 0).count();
            if (unregistered >= MAX_UNREGISTERED) {
                log(remote, MAX_UNREGISTERED + " connections are already waiting to say hello");
                closeQuietly(channel);
                continue;
            }
            try {
                channel.configureBlocking(false);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                long now = now();
                Connection c = new Connection(channel, remote, now + helloMillis());
                c.lastHeard = now;
                channel.register(selector, SelectionKey.OP_READ, c);
                connections.add(c);
            } catch (IOException e) {
                closeQuietly(channel);
            }
        }
    }

    private static String remoteOf(SocketChannel channel) {
        try {
            return String.valueOf(channel.getRemoteAddress());
        } catch (IOException e) {
            return "an unknown peer";
        }
    }

    private void read(Connection c) {
        int n;
        try {
            if (!c.in.hasRemaining()) {
                // Only a registered member's buffer grows (to fit a whole message); a stranger's is never full here.
                protocolError(c, "a message longer than its buffer");
                return;
            }
            n = c.channel.read(c.in);
        } catch (IOException e) {
            ended(c, e.getClass().getSimpleName() + ": " + e.getMessage());
            return;
        }
        if (n < 0) {
            ended(c, "the connection closed");
            return;
        }
        if (n > 0) {
            c.received += n;
            c.lastHeard = now();
        }
        c.in.flip();
        try {
            while (c.closeBy == 0 && (c.host < 0 ? hello(c) : message(c))) {
                // Each call consumed one whole message.
            }
        } finally {
            if (c.closeBy == 0) {
                c.in.compact();
            }
        }
    }

    /** The peer closed or reset its connection. */
    private void ended(Connection c, String how) {
        if (c.host < 0) {
            if (c.closeBy == 0) {
                refuse(c, c.received == 0 ? "closed without a hello" : "truncated hello: the connection closed before the hello was whole", false);
            }
        } else if (!closed && !allDone && failure == null) {
            abort("host " + c.host + " disconnected from the rendezvous "
                    + (c.done ? "after it reported done but before every host did" : "before it finished")
                    + " (its process died or closed: " + how + ")", c.host);
        }
        close(c);
    }

    /** Reads a hello from {@code c.in} (flipped) once it is whole; refuses as soon as a prefix is wrong. */
    private boolean hello(Connection c) {
        ByteBuffer in = c.in;
        int at = in.position();
        int have = in.remaining();
        if (have >= 4 && in.getInt(at) != HELLO || have >= 8 && in.getInt(at + 4) != MAGIC) {
            refuse(c, "not an EventSpace rendezvous hello", false);
            return false;
        }
        if (have >= 12 && in.getInt(at + 8) != VERSION) {
            refuse(c, "protocol version " + in.getInt(at + 8) + ", this rendezvous speaks " + VERSION, false);
            return false;
        }
        if (have >= 12 + JobSecret.LENGTH) {
            byte[] presented = new byte[JobSecret.LENGTH];
            in.get(at + 12, presented);
            if (!secret.matches(presented)) {
                refuse(c, "wrong job secret", false);
                return false;
            }
        }
        if (have < HELLO_FIXED_BYTES + 4) {
            return false;
        }
        int nameBytes = in.getInt(at + HELLO_FIXED_BYTES);
        if (nameBytes < 0 || nameBytes > MAX_HOST_NAME_BYTES) {
            refuse(c, "a server host name of " + nameBytes + " bytes; expected 0.." + MAX_HOST_NAME_BYTES, true);
            return false;
        }
        if (have < HELLO_FIXED_BYTES + 4 + nameBytes + 4) {
            return false;
        }
        in.position(at + 12 + JobSecret.LENGTH);
        int host = in.getInt();
        int claimedHosts = in.getInt();
        in.getInt();
        byte[] name = new byte[nameBytes];
        in.get(name);
        int serverPort = in.getInt();
        register(c, host, claimedHosts, InetSocketAddress.createUnresolved(new String(name, StandardCharsets.UTF_8),
                Math.max(0, Math.min(65_535, serverPort))), serverPort);
        return c.closeBy == 0;
    }

    private void register(Connection c, int host, int claimedHosts, InetSocketAddress serverAddress, int serverPort) {
        if (claimedHosts != hosts) {
            refuse(c, "host " + host + " thinks the job has " + claimedHosts + " hosts, the rendezvous expects " + hosts, true);
            return;
        }
        if (host < 0 || host >= hosts) {
            refuse(c, "host id " + host + " is not in 0.." + (hosts - 1), true);
            return;
        }
        if (serverPort < 0 || serverPort > 65_535) {
            refuse(c, "host " + host + " gave server port " + serverPort + ", expected 0..65535", true);
            return;
        }
        if (members[host] != null) {
            refuse(c, "host " + host + " registered twice (first from " + members[host].remote + ")", true);
            return;
        }
        if (failure != null) {
            refuse(c, failure, true);
            return;
        }
        c.host = host;
        c.server = serverAddress;
        c.lastHeard = now();
        members[host] = c;
        helloNanos[host] = System.nanoTime();
        if (missing(h -> members[h] != null).isEmpty()) {
            tableSent = true;
            ByteBuffer table = table();
            for (Connection each : members) {
                enqueue(each, table.duplicate());
            }
        }
    }

    /** Reads one message of a registered process from {@code c.in} (flipped) once it is whole. */
    private boolean message(Connection c) {
        ByteBuffer in = c.in;
        int at = in.position();
        int have = in.remaining();
        if (have < 4) {
            return false;
        }
        int type = in.getInt(at);
        if (type == HEARTBEAT) {
            in.position(at + 4);
            return true;
        }
        if (type != BARRIER && type != DONE && type != ABORT && type != PART) {
            protocolError(c, "unknown message type " + type);
            return false;
        }
        if (have < 8) {
            return false;
        }
        int length = in.getInt(at + 4);
        if (length < 0 || length > MAX_STRING_BYTES) {
            protocolError(c, "a string of " + length + " bytes; expected 0.." + MAX_STRING_BYTES);
            return false;
        }
        if (have < 8 + length) {
            if (in.capacity() < 8 + length) {
                ByteBuffer bigger = ByteBuffer.allocate(8 + length);
                bigger.put(in);
                bigger.flip();
                c.in = bigger;
            }
            return false;
        }
        byte[] text = new byte[length];
        in.get(at + 8, text);
        in.position(at + 8 + length);
        if (type == PART || (type == DONE && c.pieces != null)) {
            if (c.done) {
                protocolError(c, "a piece of a result after its DONE");
                return false;
            }
            if (c.pieces == null) {
                c.pieces = new java.io.ByteArrayOutputStream(2 * MAX_STRING_BYTES);
            }
            if ((long) c.pieces.size() + length > MAX_RESULT_BYTES) {
                protocolError(c, "a result line of more than " + MAX_RESULT_BYTES + " bytes");
                return false;
            }
            c.pieces.write(text, 0, length);
            if (type == PART) {
                return true;
            }
            text = c.pieces.toByteArray();
            c.pieces = null;
        }
        String s = new String(text, StandardCharsets.UTF_8);
        if (type == DONE) {
            resultBytes += text.length;
        }
        switch (type) {
            case BARRIER -> arrive(c, s);
            case DONE -> done(c, s);
            default -> abort("host " + c.host + " aborted the job: " + clip(s), c.host);
        }
        return true;
    }

    /** A registered process sent something the protocol does not allow: the job cannot trust that host any more. */
    private void protocolError(Connection c, String what) {
        abort("host " + c.host + " broke the rendezvous protocol: " + what, c.host);
        close(c);
    }

    /** Logs the refusal and closes {@code c}; with {@code answer}, sends the reason first (the peer proved the secret). */
    private void refuse(Connection c, String reason, boolean answer) {
        log(c.remote, reason);
        if (answer) {
            queue(c, ABORT, reason);
            c.closeBy = now() + REFUSAL_FLUSH_MILLIS;
            flush(c, now());
        } else {
            close(c);
        }
    }

    private static void log(String remote, String reason) {
        System.err.println("es-rendezvous: refused connection from " + remote + ": " + clip(reason));
    }

    /** {@code text} cut to {@link #MAX_LOGGED_CHARS} characters, saying how long it was: a reason or name a process sent. */
    static String clip(String text) {
        return text.length() <= MAX_LOGGED_CHARS ? text
                : text.substring(0, MAX_LOGGED_CHARS) + "… (" + text.length() + " characters)";
    }

    private void arrive(Connection member, String name) {
        long[] arrived = barrierNanos.computeIfAbsent(name, n -> LaunchPhases.never(hosts));
        barrierDeadlines.putIfAbsent(name, new long[] {now() + timeoutMillis});
        arrived[member.host] = System.nanoTime();
        if (missing(h -> arrived[h] != LaunchPhases.NEVER).isEmpty()) {
            barrierDeadlines.remove(name);
            for (Connection m : members) {
                queue(m, PASSED, name);
            }
        }
    }

    private void done(Connection member, String result) {
        member.done = true;
        member.result = result;
        doneNanos[member.host] = System.nanoTime();
        if (doneDeadline == 0) {
            doneDeadline = now() + timeoutMillis;
        }
        if (missing(h -> members[h] != null && members[h].done).isEmpty()) {
            allDone = true;
            doneDeadline = 0;
            for (Connection m : members) {
                queue(m, ALL_DONE, null);
            }
            notifyAll();
        }
    }

    /** Sends a heartbeat to every registered process every {@link RendezvousProtocol#HEARTBEAT_MILLIS}. */
    private int heartbeat(long now) {
        if (now < nextHeartbeat) {
            return 0;
        }
        nextHeartbeat = now + HEARTBEAT_MILLIS;
        int sent = 0;
        for (Connection m : members) {
            if (m != null && m.closeBy == 0 && m.channel.isOpen()) {
                queue(m, HEARTBEAT, null);
                sent++;
            }
        }
        return sent;
    }

    /** Aborts the job if a bounded wait ran out or a process went silent; refuses strangers past their hello time. */
    private boolean watch(long now) {
        for (Connection c : List.copyOf(connections)) {
            if (c.host < 0 && c.closeBy == 0 && now > c.helloDeadline) {
                refuse(c, c.received == 0 ? "no hello within " + helloMillis() + " ms"
                        : "no whole hello within " + helloMillis() + " ms (" + c.received + " bytes)", false);
            } else if (c.closeBy != 0 && now > c.closeBy) {
                close(c);
            }
        }
        if (failure != null || allDone) {
            return false;
        }
        if (!tableSent && now > registrationDeadline) {
            abort("hosts " + missing(h -> members[h] != null) + " of " + hosts + " did not register with the rendezvous at "
                    + address + " within " + timeoutMillis + " ms");
            return true;
        }
        for (Connection m : members) {
            if (m != null && now - m.lastHeard > SILENCE_MILLIS) {
                abort("host " + m.host + " stopped answering the rendezvous: nothing heard from it for " + (now - m.lastHeard)
                        + " ms (its process is frozen, or its machine unreachable)", m.host);
                return true;
            }
        }
        for (Map.Entry<String, long[]> e : barrierDeadlines.entrySet()) {
            if (now > e.getValue()[0]) {
                long[] arrived = barrierNanos.get(e.getKey());
                abort("hosts " + missing(h -> arrived[h] != LaunchPhases.NEVER) + " did not reach barrier '" + clip(e.getKey()) + "' within "
                        + timeoutMillis + " ms of the first host");
                return true;
            }
        }
        if (doneDeadline != 0 && now > doneDeadline) {
            abort("hosts " + missing(h -> members[h] != null && members[h].done) + " did not finish within " + timeoutMillis
                    + " ms of the first host that finished");
            return true;
        }
        return false;
    }

    private List<Integer> missing(IntPredicate present) {
        List<Integer> list = new ArrayList<>();
        for (int h = 0; h < hosts; h++) {
            if (!present.test(h)) {
                list.add(h);
            }
        }
        return list;
    }

    private ByteBuffer table() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(TABLE);
            out.writeInt(hosts);
            for (Connection each : members) {
                RendezvousProtocol.writeString(out, each.server.getHostString());
                out.writeInt(each.server.getPort());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return ByteBuffer.wrap(bytes.toByteArray());
    }

    /** Queues one message (type, and a string unless null) to {@code m}; the duty cycle writes it. */
    private void queue(Connection m, int type, String text) {
        if (m == null) {
            return;
        }
        byte[] b = text == null ? null : text.getBytes(StandardCharsets.UTF_8);
        if (b != null && b.length > MAX_STRING_BYTES) {
            b = java.util.Arrays.copyOf(b, MAX_STRING_BYTES);
        }
        ByteBuffer message = ByteBuffer.allocate(4 + (b == null ? 0 : 4 + b.length));
        message.putInt(type);
        if (b != null) {
            message.putInt(b.length).put(b);
        }
        enqueue(m, message.flip());
    }

    private void enqueue(Connection m, ByteBuffer message) {
        if (!m.channel.isOpen()) {
            return;
        }
        if (m.queuedBytes + message.remaining() > MAX_QUEUED_BYTES) {
            // It reads nothing we send: it is gone, whatever its socket says. Closed first, so the abort skips it.
            long unread = m.queuedBytes;
            close(m);
            if (m.host >= 0 && !closed) {
                abort("host " + m.host + " stopped reading from the rendezvous (" + unread + " bytes unread)", m.host);
            }
            return;
        }
        m.out.addLast(message);
        m.queuedBytes += message.remaining();
    }

    private void flushAll(long now) {
        for (Connection c : List.copyOf(connections)) {
            flush(c, now);
        }
    }

    /** Writes what the socket takes without blocking; asks the selector for writability while some is left. */
    private void flush(Connection c, long now) {
        if (!c.channel.isOpen()) {
            return;
        }
        try {
            while (!c.out.isEmpty()) {
                ByteBuffer head = c.out.peekFirst();
                int n = c.channel.write(head);
                c.queuedBytes -= n;
                if (head.hasRemaining()) {
                    break;
                }
                c.out.removeFirst();
            }
        } catch (IOException e) {
            ended(c, e.getClass().getSimpleName() + ": " + e.getMessage());
            return;
        }
        if (c.out.isEmpty() && c.closeBy != 0) {
            close(c);
            return;
        }
        SelectionKey key = c.channel.keyFor(selector);
        if (key != null && key.isValid()) {
            key.interestOps(c.out.isEmpty() ? SelectionKey.OP_READ : SelectionKey.OP_READ | SelectionKey.OP_WRITE);
        }
    }

    private void close(Connection c) {
        connections.remove(c);
        c.out.clear();
        c.queuedBytes = 0;
        closeQuietly(c.channel);
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // Closed either way.
        }
    }

    /** Flushes what is queued (bounded), then closes every socket, the listener and the selector. */
    private void shutdown() {
        List<Connection> all;
        synchronized (this) {
            all = List.copyOf(connections);
        }
        long deadline = now() + 500;
        for (Connection c : all) {
            synchronized (this) {
                try {
                    c.channel.configureBlocking(false);
                    while (!c.out.isEmpty() && now() < deadline) {
                        ByteBuffer head = c.out.peekFirst();
                        c.channel.write(head);
                        if (head.hasRemaining()) {
                            Thread.onSpinWait();
                        } else {
                            c.out.removeFirst();
                        }
                    }
                    // Output first: what was sent (ALL_DONE, ABORT) reaches the peer before the close.
                    c.channel.shutdownOutput();
                } catch (IOException | RuntimeException ignored) {
                    // Already closed by the peer.
                }
                close(c);
            }
        }
        try {
            listener.close();
        } catch (IOException ignored) {
            // Closed either way.
        }
        try {
            selector.close();
        } catch (IOException ignored) {
            // Closed either way.
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            notifyAll();
        }
        selector.wakeup();
        AgentRunner r = runner;
        if (r == null || !AgentThreads.awaitEnd(r, CLOSE_BOUND)) {
            shutdown();
        }
    }

    @Override
    public synchronized String toString() {
        long registered = 0;
        for (Connection m : members) {
            registered += m == null ? 0 : 1;
        }
        return "Rendezvous{" + address + ", hosts=" + hosts + ", registered=" + registered + '}';
    }
}
