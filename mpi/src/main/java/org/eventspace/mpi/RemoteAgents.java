package org.eventspace.mpi;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import org.eventspace.events.TraceBuffer;
import org.eventspace.events.TraceTupleLayout;

/**
 * The front-end's side of the node-agent processes ({@link NodeAgentProcess}): it listens, accepts one connection per
 * host (the job secret checked), and pulls every host's new meta files and tuples round by round, sequentially (the
 * EventSpace paper's sequential gathering, §4.2: one command out to every agent, then each answer in turn). What
 * arrives is written into a copy of each host's folder under {@code mirror} — the same files, the same layout — so
 * the in-JVM {@link NodeAgent}s, {@link MpiAnalysis} and {@link MpiCallListener} read a remote host exactly as they
 * read a local one, and the analysis's second pass ({@link MpiAnalysis#reread}) reads the copies' rings again.
 *
 * <p>A host whose agent dies, closes its connection, sends a malformed batch or does not answer within the pull
 * timeout is dropped with a line in {@link #errors()} naming it and the round; what it sent before stays and the
 * other hosts go on. Not thread-safe: one thread (the run's agent thread, then the run's own after it stopped).
 */
final class RemoteAgents implements AutoCloseable {
    private final Path mirror;
    private final ServerSocket server;
    private final byte[] secret = new byte[AgentFrameLayout.SECRET_LENGTH];
    private final int readTimeoutMs;
    private final List<Connection> connections = new ArrayList<>();
    private final List<String> errors = new ArrayList<>();
    private long round;
    private final byte[] command = new byte[AgentFrameLayout.COMMAND_LENGTH];
    private final ByteBuffer commandBuffer = ByteBuffer.wrap(command).order(ByteOrder.LITTLE_ENDIAN);
    private final byte[] header = new byte[AgentFrameLayout.BATCH_HEADER_LENGTH];
    private byte[] payload = new byte[1 << 16];
    private long bytesReceived;
    private long tuplesReceived;
    private long metaBlocks;

    /**
     * Listens on {@code bind} (port 0: any free port) for the agents, which write into folders under {@code mirror}.
     *
     * @param readTimeoutMs how long a pull waits for a host's answer before it drops that host.
     */
    RemoteAgents(Path mirror, InetAddress bind, int port, int readTimeoutMs) throws IOException {
        this(mirror, bind, port, readTimeoutMs, null);
    }

    /** As above, with the agents' secret given ({@code secretHex}: 64 hex digits), or a fresh one if null. */
    RemoteAgents(Path mirror, InetAddress bind, int port, int readTimeoutMs, String secretHex) throws IOException {
        this.mirror = mirror;
        this.readTimeoutMs = readTimeoutMs;
        if (secretHex == null) {
            new SecureRandom().nextBytes(secret);
        } else {
            System.arraycopy(HexFormat.of().parseHex(secretHex), 0, secret, 0, AgentFrameLayout.SECRET_LENGTH);
        }
        Files.createDirectories(mirror);
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(bind, port));
    }

    /** Where the agents connect: {@code host:port}. */
    String address() {
        InetAddress a = server.getInetAddress();
        String host = a.isAnyLocalAddress() ? loopbackOr(a) : a.getHostAddress();
        return host + ":" + server.getLocalPort();
    }

    private static String loopbackOr(InetAddress any) {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return any.getHostAddress();
        }
    }

    /** The secret the agents must present, as the 64 hex digits of {@code ES_MPI_AGENT_SECRET}. */
    String secretHex() {
        return HexFormat.of().formatHex(secret);
    }

    /** The environment an agent process needs, besides its folder. */
    Map<String, String> agentEnvironment() {
        return Map.of("ES_MPI_AGENT_FRONT_END", address(), "ES_MPI_AGENT_SECRET", secretHex());
    }

    /**
     * Accepts connections until {@code expected} agents introduced themselves or {@code limitMs} passed; a connection
     * with a wrong secret, version or name is refused and named in {@link #errors()}.
     *
     * @return how many agents joined.
     */
    int accept(int expected, long limitMs) {
        long deadline = System.nanoTime() + limitMs * 1_000_000L;
        while (connections.size() < expected) {
            long leftMs = (deadline - System.nanoTime()) / 1_000_000L;
            if (leftMs <= 0) {
                errors.add("only " + connections.size() + " of " + expected + " node agents connected to " + address()
                        + " within " + limitMs + " ms");
                break;
            }
            Socket s = null;
            try {
                server.setSoTimeout((int) Math.max(1, leftMs));
                s = server.accept();
                s.setTcpNoDelay(true);
                s.setSoTimeout((int) Math.min(leftMs, 10_000));
                connections.add(hello(s));
            } catch (SocketTimeoutException e) {
                // the loop's deadline decides
            } catch (IOException | IllegalArgumentException e) {
                errors.add("refused a node agent connection from " + (s == null ? "?" : s.getRemoteSocketAddress()) + ": "
                        + e.getMessage());
                closeQuietly(s);
            }
        }
        return connections.size();
    }

    private Connection hello(Socket s) throws IOException {
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] fixed = new byte[AgentFrameLayout.HELLO_NAME_OFFSET];
        in.readFully(fixed);
        ByteBuffer b = ByteBuffer.wrap(fixed).order(ByteOrder.LITTLE_ENDIAN);
        int magic = b.getInt(AgentFrameLayout.HELLO_MAGIC_OFFSET);
        short version = b.getShort(AgentFrameLayout.HELLO_VERSION_OFFSET);
        if (magic != AgentFrameLayout.HELLO_MAGIC || version != AgentFrameLayout.VERSION) {
            throw new IllegalArgumentException("hello has magic=0x" + Integer.toHexString(magic) + ", version=" + version
                    + "; expected magic 0x" + Integer.toHexString(AgentFrameLayout.HELLO_MAGIC) + " version "
                    + AgentFrameLayout.VERSION);
        }
        byte[] theirs = new byte[AgentFrameLayout.SECRET_LENGTH];
        b.get(AgentFrameLayout.HELLO_SECRET_OFFSET, theirs);
        if (!MessageDigest.isEqual(theirs, secret)) {
            throw new IllegalArgumentException("wrong job secret");
        }
        int nameLength = b.getInt(AgentFrameLayout.HELLO_NAME_LENGTH_OFFSET);
        if (nameLength < 1 || nameLength > AgentFrameLayout.NAME_MAX) {
            throw new IllegalArgumentException("host folder name of " + nameLength + " bytes; expected 1.."
                    + AgentFrameLayout.NAME_MAX);
        }
        byte[] name = new byte[nameLength];
        in.readFully(name);
        String folder = new String(name, StandardCharsets.UTF_8);
        if (!folder.matches("host-[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("host folder name '" + folder + "'; expected host-<name or index>");
        }
        for (Connection c : connections) {
            if (c.folder.equals(folder)) {
                throw new IllegalArgumentException("a second agent for " + folder);
            }
        }
        Files.createDirectories(mirror.resolve(folder));
        s.setSoTimeout(readTimeoutMs);
        return new Connection(s, folder, b.getInt(AgentFrameLayout.HELLO_PID_OFFSET));
    }

    /**
     * One round: a PULL to every live agent, then each one's batch into its mirror folder.
     *
     * @return the tuples that arrived.
     */
    long pull() {
        return round(AgentFrameLayout.PULL);
    }

    /** The last round: FIN to every live agent, its last batch (everything its ranks' rings still hold), and close. */
    long finish() {
        long n = round(AgentFrameLayout.FIN);
        for (Connection c : connections) {
            if (c.alive) {
                c.alive = false;
                closeQuietly(c.socket);
            }
        }
        return n;
    }

    private long round(int control) {
        round++;
        commandBuffer.putInt(AgentFrameLayout.COMMAND_CONTROL_OFFSET, control).putInt(Integer.BYTES, 0)
                .putLong(AgentFrameLayout.COMMAND_ROUND_OFFSET, round);
        for (Connection c : connections) {
            if (c.alive) {
                try {
                    c.out.write(command);
                    c.out.flush();
                } catch (IOException e) {
                    drop(c, "cannot send it round " + round + ": " + e.getMessage());
                }
            }
        }
        long tuples = 0;
        for (Connection c : connections) {
            if (c.alive) {
                try {
                    tuples += receive(c);
                } catch (SocketTimeoutException e) {
                    drop(c, "no answer to round " + round + " within " + readTimeoutMs + " ms");
                } catch (IOException | IllegalArgumentException e) {
                    drop(c, "its answer to round " + round + " failed: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
                }
            }
        }
        return tuples;
    }

    private void drop(Connection c, String why) {
        c.alive = false;
        closeQuietly(c.socket);
        errors.add("node agent of " + c.folder + " (pid " + c.pid + ") lost: " + why
                + "; what it sent before is kept, the other hosts go on");
    }

    private long receive(Connection c) throws IOException {
        c.in.readFully(header);
        ByteBuffer h = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
        int magic = h.getInt(AgentFrameLayout.BATCH_MAGIC_OFFSET);
        long theirRound = h.getLong(AgentFrameLayout.BATCH_ROUND_OFFSET);
        int ranks = h.getInt(AgentFrameLayout.BATCH_RANKS_OFFSET);
        int length = h.getInt(AgentFrameLayout.BATCH_PAYLOAD_OFFSET);
        if (magic != AgentFrameLayout.BATCH_MAGIC || theirRound != round || ranks < 0 || length < 0
                || length > AgentFrameLayout.MAX_PAYLOAD) {
            throw new IllegalArgumentException("batch header has magic=0x" + Integer.toHexString(magic) + ", round="
                    + theirRound + ", ranks=" + ranks + ", payload=" + length + " bytes; expected magic 0x"
                    + Integer.toHexString(AgentFrameLayout.BATCH_MAGIC) + ", round " + round + ", a payload of at most "
                    + AgentFrameLayout.MAX_PAYLOAD + " bytes");
        }
        if (payload.length < length) {
            payload = new byte[Math.max(length, payload.length * 2)];
        }
        c.in.readFully(payload, 0, length);
        bytesReceived += AgentFrameLayout.BATCH_HEADER_LENGTH + length;
        return apply(c, ByteBuffer.wrap(payload, 0, length).order(ByteOrder.LITTLE_ENDIAN), ranks);
    }

    /** Writes one batch into the host's mirror folder: the trace copy first, so its meta never names a missing ring. */
    private long apply(Connection c, ByteBuffer b, int ranks) throws IOException {
        long tuples = 0;
        int at = 0;
        for (int i = 0; i < ranks; i++) {
            need(b, at, AgentFrameLayout.RANK_HEADER_LENGTH, c, i);
            int rank = b.getInt(at + AgentFrameLayout.RANK_RANK_OFFSET);
            int capacity = b.getInt(at + AgentFrameLayout.RANK_CAPACITY_OFFSET);
            int collector = b.getInt(at + AgentFrameLayout.RANK_COLLECTOR_OFFSET);
            int n = b.getInt(at + AgentFrameLayout.RANK_TUPLES_OFFSET);
            long blocks = b.getLong(at + AgentFrameLayout.RANK_META_BLOCKS_OFFSET);
            int comms = b.getInt(at + AgentFrameLayout.RANK_COMMS_OFFSET);
            if (comms < 0) {
                throw new IllegalArgumentException("rank entry " + i + " has " + comms
                        + " communicators; expected >= 0");
            }
            if (rank < 0 || n < 0 || capacity < TraceBuffer.MIN_CAPACITY || capacity > TraceBuffer.MAX_CAPACITY
                    || Integer.bitCount(capacity) != 1) {
                throw new IllegalArgumentException("rank entry " + i + " has rank=" + rank + ", capacity=" + capacity
                        + ", tuples=" + n + "; expected a rank >= 0 and a power-of-two capacity");
            }
            MirroredRank m = c.ranks.get(rank);
            if (m == null) {
                Path trace = mirror.resolve(c.folder).resolve("rank-" + rank + ".trace");
                Files.deleteIfExists(trace);
                Files.deleteIfExists(mirror.resolve(c.folder).resolve("rank-" + rank + ".comms"));
                m = new MirroredRank(TraceBuffer.mapped(trace, capacity, collector),
                        mirror.resolve(c.folder).resolve("rank-" + rank + ".meta"));
                c.ranks.put(rank, m);
            }
            m.written = b.getLong(at + AgentFrameLayout.RANK_WRITTEN_OFFSET);
            m.missed = b.getLong(at + AgentFrameLayout.RANK_MISSED_OFFSET);
            at += AgentFrameLayout.RANK_HEADER_LENGTH;
            for (long left = blocks; left != 0; left &= left - 1) {
                need(b, at, AgentFrameLayout.META_BLOCK, c, i);
                b.get(at, m.metaBytes, Long.numberOfTrailingZeros(left) * AgentFrameLayout.META_BLOCK,
                        AgentFrameLayout.META_BLOCK);
                at += AgentFrameLayout.META_BLOCK;
                metaBlocks++;
            }
            // the rank's thread rings arrive merged into its one ring: the copy of its meta file counts none
            ByteBuffer.wrap(m.metaBytes).putInt(MpiRankMetaLayout.THREAD_RINGS_OFFSET, 0);
            if (comms > 0) {
                // appended before the meta file that counts them is written, as the library does
                need(b, at, (long) comms * MpiRankMetaLayout.COMM_LENGTH, c, i);
                ByteBuffer entries = ByteBuffer.allocate(comms * MpiRankMetaLayout.COMM_LENGTH)
                        .order(m.metaBytes[MpiRankMetaLayout.BYTE_ORDER_OFFSET] == 1 ? ByteOrder.BIG_ENDIAN
                                : ByteOrder.LITTLE_ENDIAN);
                for (int k = 0; k < 2 * comms; k++, at += Integer.BYTES) {
                    entries.putInt(b.getInt(at));
                }
                entries.flip();
                try (FileChannel ch = FileChannel.open(m.meta.resolveSibling("rank-" + rank + ".comms"),
                        StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
                    while (entries.hasRemaining()) {
                        ch.write(entries);
                    }
                }
            }
            need(b, at, (long) n * AgentFrameLayout.TUPLE_LENGTH, c, i);
            for (int t = 0; t < n; t++, at += AgentFrameLayout.TUPLE_LENGTH) {
                m.trace.write(b.getInt(at + TraceTupleLayout.COLLECTOR_ID_OFFSET),
                        b.getShort(at + TraceTupleLayout.OP_TYPE_OFFSET),
                        b.getShort(at + TraceTupleLayout.FLAGS_OFFSET) & 0xFFFF,
                        b.getLong(at + TraceTupleLayout.SEQUENCE_OFFSET), b.getLong(at + TraceTupleLayout.VALUE_OFFSET),
                        b.getLong(at + TraceTupleLayout.START_NS_OFFSET), b.getLong(at + TraceTupleLayout.END_NS_OFFSET));
            }
            tuples += n;
            tuplesReceived += n;
            if (blocks != 0) {
                // the whole file, after the tuples: a reader that sees the new meta (a communicator, MPI_Finalize)
                // sees the calls before it
                try (FileChannel ch = FileChannel.open(m.meta, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                    ch.write(ByteBuffer.wrap(m.metaBytes), 0);
                }
            }
        }
        if (at != b.limit()) {
            throw new IllegalArgumentException("batch payload of " + b.limit() + " bytes holds " + ranks
                    + " rank entries of " + at + " bytes");
        }
        return tuples;
    }

    private static void need(ByteBuffer b, int at, long bytes, Connection c, int entry) {
        if (at + bytes > b.limit()) {
            throw new IllegalArgumentException("rank entry " + entry + " of " + c.folder + " needs " + bytes
                    + " bytes at " + at + " but the payload has " + b.limit());
        }
    }

    /** Errors so far: agents refused or lost, a line each. */
    List<String> errors() {
        return List.copyOf(errors);
    }

    /** How many agents connected. */
    int connected() {
        return connections.size();
    }

    /** Tuples the hosts' rings hold in total (their write positions, as the agents last reported them). */
    long written() {
        long w = 0;
        for (Connection c : connections) {
            for (MirroredRank m : c.ranks.values()) {
                w += m.written;
            }
        }
        return w;
    }

    /** Tuples the agents' readers missed (their rings overwrote them first), as the agents last reported them. */
    long missed() {
        long w = 0;
        for (Connection c : connections) {
            for (MirroredRank m : c.ranks.values()) {
                w += m.missed;
            }
        }
        return w;
    }

    /** Rounds pulled so far (FIN included). */
    long rounds() {
        return round;
    }

    /** What travelled so far: rounds, batch bytes, tuples and meta-file blocks received, and the agents connected. */
    Traffic traffic() {
        return new Traffic(connections.size(), round, bytesReceived, tuplesReceived, metaBlocks);
    }

    /** What the agents sent the front-end over a run ({@code mpi.agents} in the report). */
    record Traffic(int agents, long rounds, long bytes, long tuples, long metaBlocks) {
    }

    private boolean closed;

    /** Closes the connections and the copies' writers (once: a second close does nothing). */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Connection c : connections) {
            closeQuietly(c.socket);
            // the ranks' figures (written, missed) stay: the report reads them after the close
            for (MirroredRank m : c.ranks.values()) {
                m.trace.close();
            }
        }
        try {
            server.close();
        } catch (IOException e) {
            // closing: nothing left to do
        }
    }

    private static void closeQuietly(Socket s) {
        if (s != null) {
            try {
                s.close();
            } catch (IOException e) {
                // closing: nothing left to do
            }
        }
    }

    private static final class Connection {
        final Socket socket;
        final String folder;
        final int pid;
        final DataInputStream in;
        final OutputStream out;
        final Map<Integer, MirroredRank> ranks = new HashMap<>();
        boolean alive = true;

        Connection(Socket socket, String folder, int pid) throws IOException {
            this.socket = socket;
            this.folder = folder;
            this.pid = pid;
            this.in = new DataInputStream(new java.io.BufferedInputStream(socket.getInputStream(), 1 << 16));
            this.out = socket.getOutputStream();
        }
    }

    private static final class MirroredRank {
        final TraceBuffer trace;
        final Path meta;
        /** The meta file as the blocks received so far make it. */
        final byte[] metaBytes = new byte[MpiRankMetaLayout.LENGTH];
        long written;
        long missed;

        MirroredRank(TraceBuffer trace, Path meta) {
            this.trace = trace;
            this.meta = meta;
        }
    }
}
