package org.eventspace.comm.launch;

import static org.eventspace.comm.launch.RendezvousProtocol.ABORT;
import static org.eventspace.comm.launch.RendezvousProtocol.ALL_DONE;
import static org.eventspace.comm.launch.RendezvousProtocol.BARRIER;
import static org.eventspace.comm.launch.RendezvousProtocol.DONE;
import static org.eventspace.comm.launch.RendezvousProtocol.HELLO;
import static org.eventspace.comm.launch.RendezvousProtocol.MAGIC;
import static org.eventspace.comm.launch.RendezvousProtocol.PASSED;
import static org.eventspace.comm.launch.RendezvousProtocol.TABLE;
import static org.eventspace.comm.launch.RendezvousProtocol.VERSION;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
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
 * <p>Every wait is bounded by {@code timeout}: hosts that never register, never reach a barrier, or do not
 * finish within {@code timeout} of the first one make the rendezvous abort the job with a message naming
 * them. A process that disconnects before it reported "done" aborts the job too. A connection with a wrong
 * secret is refused and logged to stderr.
 *
 * <p>Thread-safe. Its loops are Agrona agents ({@link AgentThreads}): the accept agent (role
 * {@code es-rendezvous}), whose duty cycle waits up to {@value #WATCH_MILLIS} ms in {@code accept()} and then
 * runs the watchdog that aborts a job whose bounded waits ran out, and one member agent per connected process
 * (role {@code es-rendezvous-<remote>}), whose first duty cycle reads its registration and every later one reads
 * one message. Both block in a socket by design: the accept timeout is the watchdog's period, and a member's
 * messages come a few times per job, so polling would only burn a core; their idle strategy is a no-op, and
 * {@link #close()} closes the sockets, which ends every blocked accept or read at once, then waits (bounded) for
 * the threads.
 */
public final class Rendezvous implements AutoCloseable {
    private static final int WATCH_MILLIS = 50;
    /** How long {@link #close()} waits, in all, for the agents' threads to end. */
    private static final Duration CLOSE_BOUND = Duration.ofSeconds(2);

    private final JobSecret secret;
    private final int hosts;
    private final long timeoutMillis;
    private final ServerSocket listener;
    private final InetSocketAddress address;
    private final Acceptor acceptor = new Acceptor();
    private final boolean startAgents;
    private final List<MemberAgent> memberAgents = new ArrayList<>();
    private volatile AgentRunner acceptorRunner;
    private final Member[] members;
    private final List<Socket> sockets = new ArrayList<>();
    private final long registrationDeadline;
    private final Map<String, long[]> barrierDeadlines = new HashMap<>();
    private final Map<String, boolean[]> barrierArrivals = new HashMap<>();
    private long doneDeadline;
    private boolean tableSent;
    private boolean allDone;
    private String failure;
    private volatile boolean closed;

    private static final class Member {
        final int host;
        final Socket socket;
        final DataOutputStream out;
        final InetSocketAddress server;
        boolean done;
        String result;

        Member(int host, Socket socket, DataOutputStream out, InetSocketAddress server) {
            this.host = host;
            this.socket = socket;
            this.out = out;
            this.server = server;
        }
    }

    private Rendezvous(JobSecret secret, int hosts, Duration timeout, String bindAddress, int port, boolean startAgents)
            throws IOException {
        this.secret = secret;
        this.startAgents = startAgents;
        this.hosts = hosts;
        this.timeoutMillis = timeout.toMillis();
        this.members = new Member[hosts];
        this.listener = new ServerSocket();
        listener.setReuseAddress(true);
        listener.bind(new InetSocketAddress(bindAddress, port), 64);
        listener.setSoTimeout(WATCH_MILLIS);
        this.address = new InetSocketAddress(listener.getInetAddress(), listener.getLocalPort());
        this.registrationDeadline = System.currentTimeMillis() + timeoutMillis;
    }

    /**
     * Listens on {@code bindAddress:port} ({@code port} 0 = ephemeral) for {@code hosts} processes.
     *
     * @param timeout bound on registration (from now), on each barrier and on finishing (from the first arrival).
     */
    public static Rendezvous start(String bindAddress, int port, JobSecret secret, int hosts, Duration timeout) {
        Rendezvous r = open(bindAddress, port, secret, hosts, timeout, true);
        r.acceptorRunner = AgentThreads.start(r.acceptor, new NoOpIdleStrategy());
        return r;
    }

    /**
     * Listens as {@link #start} does but runs no agent: a test steps {@link #acceptor()} and the member agents it
     * accepts ({@link #memberAgents()}) by hand.
     */
    static Rendezvous unstarted(String bindAddress, int port, JobSecret secret, int hosts, Duration timeout) {
        return open(bindAddress, port, secret, hosts, timeout, false);
    }

    private static Rendezvous open(String bindAddress, int port, JobSecret secret, int hosts, Duration timeout,
                                   boolean startAgents) {
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
            return new Rendezvous(secret, hosts, timeout, bindAddress, port, startAgents);
        } catch (IOException e) {
            throw new CommException("rendezvous cannot listen on " + bindAddress + ":" + port + ": " + e, e);
        }
    }

    /** The accept agent. */
    Agent acceptor() {
        return acceptor;
    }

    /** The member agents accepted so far. */
    synchronized List<Agent> memberAgents() {
        return List.copyOf(memberAgents);
    }

    public InetSocketAddress address() {
        return address;
    }

    /** The result line each host reported with "done", by host id; null where a host has not reported. */
    public synchronized List<String> results() {
        List<String> list = new ArrayList<>(hosts);
        for (Member m : members) {
            list.add(m == null ? null : m.result);
        }
        return list;
    }

    /** The hosts that have not registered (yet): a process that never started, or froze or died before it did. */
    public synchronized List<Integer> unregistered() {
        List<Integer> list = new ArrayList<>();
        for (int h = 0; h < members.length; h++) {
            if (members[h] == null) {
                list.add(h);
            }
        }
        return list;
    }

    public synchronized boolean allDone() {
        return allDone;
    }

    /** Why the job was aborted, if it was. */
    public synchronized Optional<String> failure() {
        return Optional.ofNullable(failure);
    }

    /** Tells every registered process that the job failed, and refuses later registrations. */
    public synchronized void abort(String reason) {
        if (failure != null || allDone) {
            return;
        }
        failure = reason;
        for (Member m : members) {
            if (m != null) {
                send(m, ABORT, reason);
            }
        }
    }

    /** Accepts one process per duty cycle; when none came within {@value #WATCH_MILLIS} ms, runs the watchdog. */
    private final class Acceptor implements Agent {
        @Override
        public String roleName() {
            return "es-rendezvous";
        }

        @Override
        public int doWork() {
            if (closed) {
                throw new AgentTerminationException();
            }
            try {
                Socket socket = listener.accept();
                MemberAgent member = new MemberAgent(socket);
                synchronized (Rendezvous.this) {
                    if (closed) {
                        socket.close();
                        throw new AgentTerminationException();
                    }
                    sockets.add(socket);
                    memberAgents.add(member);
                }
                if (startAgents) {
                    member.runner = AgentThreads.start(member, new NoOpIdleStrategy());
                }
                return 1;
            } catch (SocketTimeoutException e) {
                return watch() ? 1 : 0;
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("es-rendezvous: accept failed: " + e);
                }
                throw new AgentTerminationException();
            }
        }
    }

    /** One connected process: registers it in the first duty cycle, then handles one message per cycle. */
    private final class MemberAgent implements Agent {
        private final Socket socket;
        private final String remote;
        private volatile AgentRunner runner;
        private DataInputStream in;
        private Member member;

        MemberAgent(Socket socket) {
            this.socket = socket;
            this.remote = String.valueOf(socket.getRemoteSocketAddress());
        }

        @Override
        public String roleName() {
            return "es-rendezvous-" + remote;
        }

        @Override
        public int doWork() {
            try {
                if (member == null) {
                    socket.setTcpNoDelay(true);
                    socket.setSoTimeout((int) helloMillis());
                    in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
                    DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
                    member = register(socket, in, out, remote);
                    if (member == null) {
                        throw new AgentTerminationException();
                    }
                    socket.setSoTimeout(0);
                    return 1;
                }
                int type = in.readInt();
                switch (type) {
                    case BARRIER -> arrive(member, RendezvousProtocol.readString(in));
                    case DONE -> done(member, RendezvousProtocol.readString(in));
                    case ABORT -> abort("host " + member.host + " aborted the job: " + RendezvousProtocol.readString(in));
                    default -> throw new IOException("unknown message type " + type);
                }
                return 1;
            } catch (IOException e) {
                if (member != null) {
                    lost(member, e);
                }
                throw new AgentTerminationException();
            }
        }

        @Override
        public void onClose() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // The member is gone either way.
            }
        }
    }

    /** Aborts the job if a bounded wait ran out; called by the accept agent between accepts. True if it aborted. */
    private synchronized boolean watch() {
        if (failure != null || allDone) {
            return false;
        }
        long now = System.currentTimeMillis();
        if (!tableSent && now > registrationDeadline) {
            abort("hosts " + missing(h -> members[h] != null) + " of " + hosts + " did not register with the rendezvous at "
                    + address + " within " + timeoutMillis + " ms");
            return true;
        }
        for (Map.Entry<String, long[]> e : barrierDeadlines.entrySet()) {
            if (now > e.getValue()[0]) {
                boolean[] arrived = barrierArrivals.get(e.getKey());
                abort("hosts " + missing(h -> arrived[h]) + " did not reach barrier '" + e.getKey() + "' within "
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

    /**
     * How long a connection may take to send its whole hello: a process sends it as soon as it connects, so a
     * connection that stays silent (an idle or hostile client) is refused after this, not after the job's timeout.
     */
    long helloMillis() {
        return Math.min(timeoutMillis, HELLO_MILLIS);
    }

    /** The longest a hello may take. */
    static final long HELLO_MILLIS = 10_000;

    /** Reads and checks a HELLO; returns the registered member, or null after refusing the connection. */
    private Member register(Socket socket, DataInputStream in, DataOutputStream out, String remote) throws IOException {
        int host;
        int claimedHosts;
        InetSocketAddress server;
        try {
            if (in.readInt() != HELLO || in.readInt() != MAGIC) {
                return refuse(remote, "not an EventSpace rendezvous hello", null);
            }
            int version = in.readInt();
            if (version != VERSION) {
                return refuse(remote, "protocol version " + version + ", this rendezvous speaks " + VERSION, null);
            }
            byte[] presented = new byte[JobSecret.LENGTH];
            in.readFully(presented);
            if (!secret.matches(presented)) {
                return refuse(remote, "wrong job secret", null);
            }
            host = in.readInt();
            claimedHosts = in.readInt();
            String serverHost = RendezvousProtocol.readString(in);
            int serverPort = in.readInt();
            server = InetSocketAddress.createUnresolved(serverHost, serverPort);
        } catch (SocketTimeoutException e) {
            return refuse(remote, "no hello within " + helloMillis() + " ms", null);
        } catch (java.io.EOFException e) {
            return refuse(remote, "truncated hello: the connection closed before the hello was whole", null);
        }
        synchronized (this) {
            if (claimedHosts != hosts) {
                return refuse(remote, "host " + host + " thinks the job has " + claimedHosts + " hosts, the rendezvous expects " + hosts, out);
            }
            if (host < 0 || host >= hosts) {
                return refuse(remote, "host id " + host + " is not in 0.." + (hosts - 1), out);
            }
            if (members[host] != null) {
                return refuse(remote, "host " + host + " registered twice (first from " + members[host].socket.getRemoteSocketAddress() + ")", out);
            }
            if (failure != null) {
                return refuse(remote, failure, out);
            }
            Member m = new Member(host, socket, out, server);
            members[host] = m;
            if (missing(h -> members[h] != null).isEmpty()) {
                tableSent = true;
                for (Member each : members) {
                    sendTable(each);
                }
            }
            return m;
        }
    }

    private Member refuse(String remote, String reason, DataOutputStream out) {
        System.err.println("es-rendezvous: refused connection from " + remote + ": " + reason);
        if (out != null) {
            try {
                out.writeInt(ABORT);
                RendezvousProtocol.writeString(out, reason);
                out.flush();
            } catch (IOException ignored) {
                // The refused process sees the closed socket instead.
            }
        }
        return null;
    }

    private synchronized void arrive(Member member, String name) {
        boolean[] arrived = barrierArrivals.computeIfAbsent(name, n -> new boolean[hosts]);
        barrierDeadlines.putIfAbsent(name, new long[] {System.currentTimeMillis() + timeoutMillis});
        arrived[member.host] = true;
        if (missing(h -> arrived[h]).isEmpty()) {
            barrierDeadlines.remove(name);
            for (Member m : members) {
                send(m, PASSED, name);
            }
        }
    }

    private synchronized void done(Member member, String result) {
        member.done = true;
        member.result = result;
        if (doneDeadline == 0) {
            doneDeadline = System.currentTimeMillis() + timeoutMillis;
        }
        if (missing(h -> members[h] != null && members[h].done).isEmpty()) {
            allDone = true;
            doneDeadline = 0;
            for (Member m : members) {
                send(m, ALL_DONE, null);
            }
            notifyAll();
        }
    }

    private synchronized void lost(Member member, IOException e) {
        if (!closed && !allDone && failure == null) {
            abort("host " + member.host + " disconnected from the rendezvous "
                    + (member.done ? "after it reported done but before every host did" : "before it finished")
                    + " (its process died or closed: " + e.getClass().getSimpleName() + ")");
        }
    }

    /** Waits until every host reported "done", the job was aborted, or {@code timeout} passed; true if all are done. */
    public synchronized boolean awaitAllDone(Duration timeout) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeout.toMillis();
        while (!allDone && failure == null) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return allDone;
    }

    private void sendTable(Member m) {
        synchronized (m.out) {
            try {
                m.out.writeInt(TABLE);
                m.out.writeInt(hosts);
                for (Member each : members) {
                    RendezvousProtocol.writeString(m.out, each.server.getHostString());
                    m.out.writeInt(each.server.getPort());
                }
                m.out.flush();
            } catch (IOException e) {
                // Its reader thread sees the broken connection and aborts the job.
            }
        }
    }

    private static void send(Member m, int type, String text) {
        if (m == null) {
            return;
        }
        synchronized (m.out) {
            try {
                m.out.writeInt(type);
                if (text != null) {
                    RendezvousProtocol.writeString(m.out, text);
                }
                m.out.flush();
            } catch (IOException e) {
                // Its reader thread sees the broken connection and aborts the job.
            }
        }
    }

    @Override
    public void close() {
        List<Socket> all;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            notifyAll();
            all = new ArrayList<>(sockets);
        }
        try {
            listener.close();
        } catch (IOException ignored) {
            // The accept thread ends on closed either way.
        }
        for (Socket s : all) {
            try {
                // Output first: what was sent (ALL_DONE, ABORT) reaches the peer before the close.
                s.shutdownOutput();
            } catch (IOException ignored) {
                // Already closed by the peer.
            }
            try {
                s.close();
            } catch (IOException ignored) {
                // Nothing more to do.
            }
        }
        long deadline = System.nanoTime() + CLOSE_BOUND.toNanos();
        AgentRunner runner = acceptorRunner;
        if (runner != null) {
            AgentThreads.awaitEnd(runner, left(deadline));
        }
        List<MemberAgent> accepted;
        synchronized (this) {
            accepted = new ArrayList<>(memberAgents);
        }
        for (MemberAgent member : accepted) {
            AgentRunner memberRunner = member.runner;
            if (memberRunner != null) {
                AgentThreads.awaitEnd(memberRunner, left(deadline));
            }
        }
    }

    private static Duration left(long deadlineNanos) {
        return Duration.ofNanos(Math.max(1_000_000, deadlineNanos - System.nanoTime()));
    }

    @Override
    public String toString() {
        return "Rendezvous{" + address + ", hosts=" + hosts + ", registered=" + Arrays.stream(members).filter(m -> m != null).count() + '}';
    }
}
