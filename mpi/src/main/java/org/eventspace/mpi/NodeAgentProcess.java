package org.eventspace.mpi;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.eventspace.events.TraceBufferReader;
import org.eventspace.events.TraceTupleFlyweight;
import org.eventspace.events.TraceTupleLayout;
import org.eventspace.base.os.LowestPriority;

/**
 * The node agent as a process of its own, one per host (SPEC §8): it maps every rank file of its host's folder, as
 * the in-JVM {@link NodeAgent} does, and answers the front-end's pulls over TCP with one batch per pull
 * ({@link AgentFrameLayout}): per rank that changed, its meta file and its new tuples. It never writes to the ranks'
 * files and the ranks never wait for it.
 *
 * <p>Started by {@code eventspace mpirun --agents processes} (one per simulated host, on this machine), or on a
 * cluster once per node ({@code mpirun --map-by ppr:1:node}, {@code srun --ntasks-per-node=1}), with:
 * <pre>
 *   ES_MPI_AGENT_FRONT_END  host:port the front-end listens on
 *   ES_MPI_AGENT_SECRET     the job secret, 64 hex digits
 *   ES_MPI_AGENT_DIR        the host's folder; default ES_MPI_DIR/host-&lt;host name&gt;, as the library names it
 * </pre>
 * Its one working thread runs at nice 19 ({@link org.eventspace.base.os.LowestPriority}). It ends after the
 * front-end's FIN (exit 0), or with exit 1 if the front-end is gone or silent for
 * {@link #SILENCE_MS} ms. Not thread-safe: one thread.
 */
public final class NodeAgentProcess {
    /** How long the agent waits for the front-end's next command before it gives up on it. */
    static final int SILENCE_MS = 60_000;
    /** How long it tries to connect (the front-end listens before it starts the agents, but a cluster may lag). */
    static final long CONNECT_MS = 30_000;

    private final Path dir;
    private final String name;
    private final List<Rank> ranks = new ArrayList<>();
    private final Set<Path> opened = new HashSet<>();
    private final TraceTupleFlyweight tuple = new TraceTupleFlyweight();
    private ByteBuffer out = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);

    NodeAgentProcess(Path dir) {
        this.dir = dir;
        this.name = dir.getFileName().toString();
        if (name.getBytes(StandardCharsets.UTF_8).length > AgentFrameLayout.NAME_MAX) {
            throw new IllegalArgumentException("host folder name '" + name + "' is longer than "
                    + AgentFrameLayout.NAME_MAX + " bytes");
        }
    }

    public static void main(String[] args) {
        try {
            System.exit(run(System.getenv()));
        } catch (IllegalArgumentException e) {
            System.err.println("eventspace node agent: " + e.getMessage());
            System.exit(2);
        }
    }

    /** Runs the agent the environment describes; returns its exit code. */
    static int run(Map<String, String> env) {
        String frontEnd = require(env, "ES_MPI_AGENT_FRONT_END");
        String secretHex = require(env, "ES_MPI_AGENT_SECRET");
        byte[] secret;
        try {
            secret = HexFormat.of().parseHex(secretHex);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("ES_MPI_AGENT_SECRET: expected 64 hex digits, got " + secretHex.length()
                    + " characters that are not all hex digits");
        }
        if (secret.length != AgentFrameLayout.SECRET_LENGTH) {
            throw new IllegalArgumentException("ES_MPI_AGENT_SECRET: expected 64 hex digits, got " + secretHex.length());
        }
        int colon = frontEnd.lastIndexOf(':');
        int port;
        try {
            port = colon < 1 ? -1 : Integer.parseInt(frontEnd.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("ES_MPI_AGENT_FRONT_END: expected host:port, got '" + frontEnd + "'");
        }
        Path dir = env.containsKey("ES_MPI_AGENT_DIR") ? Path.of(env.get("ES_MPI_AGENT_DIR"))
                : Path.of(require(env, "ES_MPI_DIR")).resolve("host-" + hostName());
        NodeAgentProcess agent = new NodeAgentProcess(dir);
        String at = "eventspace node agent " + agent.name;
        // the ranks come first (EventSpace paper §4.3's order: communication, application, analysis): at nice 19 the
        // agent runs in the time the host's ranks leave, and its rings (and exact missed counts) cover the rest
        String notLowered = LowestPriority.enter();
        if (notLowered != null) {
            System.err.println(at + ": runs at normal priority: " + notLowered);
        }
        try (Socket socket = connect(frontEnd.substring(0, colon), port)) {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(SILENCE_MS);
            return agent.serve(socket, secret) ? 0 : 1;
        } catch (SocketTimeoutException e) {
            System.err.println(at + ": the front-end sent nothing for " + SILENCE_MS + " ms; ending");
            return 1;
        } catch (IOException e) {
            System.err.println(at + ": " + e.getMessage());
            return 1;
        } finally {
            agent.close();
        }
    }

    private static String require(Map<String, String> env, String key) {
        String v = env.get(key);
        if (v == null || v.isEmpty()) {
            throw new IllegalArgumentException(key + " is not set; a node agent needs ES_MPI_AGENT_FRONT_END (host:port),"
                    + " ES_MPI_AGENT_SECRET (64 hex digits) and ES_MPI_AGENT_DIR or ES_MPI_DIR");
        }
        return v;
    }

    /** The kernel's node name, which the library's gethostname() returns, else Java's idea of the host's name. */
    private static String hostName() {
        try {
            String n = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
            if (!n.isEmpty()) {
                return n;
            }
        } catch (IOException e) {
            // not Linux: ask Java
        }
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }

    private static Socket connect(String host, int port) throws IOException {
        long deadline = System.nanoTime() + CONNECT_MS * 1_000_000L;
        while (true) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(host, port), 5_000);
                return s;
            } catch (IOException e) {
                s.close();
                if (System.nanoTime() > deadline) {
                    throw new IOException("cannot reach the front-end at " + host + ":" + port + " within " + CONNECT_MS
                            + " ms: " + e.getMessage(), e);
                }
                try {
                    Thread.sleep(200);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while connecting to the front-end", ie);
                }
            }
        }
    }

    /** Introduces itself, then answers commands until FIN; true if it ended on FIN. */
    boolean serve(Socket socket, byte[] secret) throws IOException {
        OutputStream os = socket.getOutputStream();
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
        ByteBuffer hello = ByteBuffer.allocate(AgentFrameLayout.HELLO_NAME_OFFSET + nameBytes.length).order(ByteOrder.LITTLE_ENDIAN);
        hello.putInt(AgentFrameLayout.HELLO_MAGIC_OFFSET, AgentFrameLayout.HELLO_MAGIC)
                .putShort(AgentFrameLayout.HELLO_VERSION_OFFSET, AgentFrameLayout.VERSION)
                .putInt(AgentFrameLayout.HELLO_NAME_LENGTH_OFFSET, nameBytes.length)
                .putInt(AgentFrameLayout.HELLO_PID_OFFSET, (int) ProcessHandle.current().pid());
        hello.put(AgentFrameLayout.HELLO_SECRET_OFFSET, secret).put(AgentFrameLayout.HELLO_NAME_OFFSET, nameBytes);
        os.write(hello.array());
        os.flush();
        byte[] command = new byte[AgentFrameLayout.COMMAND_LENGTH];
        ByteBuffer c = ByteBuffer.wrap(command).order(ByteOrder.LITTLE_ENDIAN);
        while (true) {
            in.readFully(command);
            int control = c.getInt(AgentFrameLayout.COMMAND_CONTROL_OFFSET);
            long round = c.getLong(AgentFrameLayout.COMMAND_ROUND_OFFSET);
            if (control != AgentFrameLayout.PULL && control != AgentFrameLayout.FIN) {
                throw new IOException("the front-end sent control " + control + " in round " + round
                        + "; expected PULL (1) or FIN (2)");
            }
            boolean fin = control == AgentFrameLayout.FIN;
            batch(round, fin);
            os.write(out.array(), 0, out.position());
            os.flush();
            if (fin) {
                return true;
            }
        }
    }

    /**
     * Builds the answer to round {@code round} in {@link #out}: every rank whose meta bytes changed or that wrote new
     * tuples. A pull takes at most half a ring per rank (the front-end's copy of the ring then never laps its own
     * reader); FIN takes everything.
     */
    void batch(long round, boolean fin) throws IOException {
        scan();
        out.clear();
        out.position(AgentFrameLayout.BATCH_HEADER_LENGTH);
        int count = 0;
        for (Rank r : ranks) {
            r.files.copyMeta(r.scratch);
            long blocks = changedBlocks(r.scratch, r.lastMeta);
            boolean news = blocks != 0;
            for (TraceBufferReader ring : r.files.rings()) {
                news |= ring.position() < ring.writePosition();
            }
            int listed = r.files.communicators() - MpiRankMetaLayout.COMMS_MAX;
            if (!news && listed <= r.commsSent) {
                continue;
            }
            int limit = fin ? Integer.MAX_VALUE : Math.max(1, r.files.trace().capacity() / 2);
            int at = out.position();
            ensure(AgentFrameLayout.RANK_HEADER_LENGTH + MpiRankMetaLayout.LENGTH);
            out.position(at + AgentFrameLayout.RANK_HEADER_LENGTH);
            for (long left = blocks; left != 0; left &= left - 1) {
                int from = Long.numberOfTrailingZeros(left) * AgentFrameLayout.META_BLOCK;
                out.put(r.scratch, from, AgentFrameLayout.META_BLOCK);
                System.arraycopy(r.scratch, from, r.lastMeta, from, AgentFrameLayout.META_BLOCK);
            }
            int comms = 0;
            for (; r.commsSent < listed; r.commsSent++, comms++) {
                ensure(2 * Integer.BYTES);
                int i = MpiRankMetaLayout.COMMS_MAX + r.commsSent;
                out.putInt(r.files.communicatorId(i)).putInt(r.files.communicatorSize(i));
            }
            int tuples = 0;
            for (TraceBufferReader ring : r.files.rings()) {
                long head = ring.writePosition();
                while (tuples < limit && ring.position() < head && ring.readNext(tuple)) {
                    ensure(AgentFrameLayout.TUPLE_LENGTH);
                    int t = out.position();
                    out.putInt(t + TraceTupleLayout.COLLECTOR_ID_OFFSET, tuple.collectorId())
                            .putShort(t + TraceTupleLayout.OP_TYPE_OFFSET, (short) tuple.opType())
                            .putShort(t + TraceTupleLayout.FLAGS_OFFSET, (short) tuple.flags())
                            .putLong(t + TraceTupleLayout.SEQUENCE_OFFSET, tuple.sequence())
                            .putLong(t + TraceTupleLayout.VALUE_OFFSET, tuple.value())
                            .putLong(t + TraceTupleLayout.START_NS_OFFSET, tuple.startNs())
                            .putLong(t + TraceTupleLayout.END_NS_OFFSET, tuple.endNs());
                    out.position(t + AgentFrameLayout.TUPLE_LENGTH);
                    tuples++;
                }
            }
            out.putInt(at + AgentFrameLayout.RANK_RANK_OFFSET, r.files.rank())
                    .putInt(at + AgentFrameLayout.RANK_CAPACITY_OFFSET, r.files.trace().capacity())
                    .putInt(at + AgentFrameLayout.RANK_COLLECTOR_OFFSET, r.files.trace().collectorId())
                    .putInt(at + AgentFrameLayout.RANK_TUPLES_OFFSET, tuples)
                    .putLong(at + AgentFrameLayout.RANK_WRITTEN_OFFSET, r.files.written())
                    .putLong(at + AgentFrameLayout.RANK_MISSED_OFFSET, r.files.missed())
                    .putLong(at + AgentFrameLayout.RANK_META_BLOCKS_OFFSET, blocks)
                    .putInt(at + AgentFrameLayout.RANK_COMMS_OFFSET, comms);
            count++;
        }
        int payload = out.position() - AgentFrameLayout.BATCH_HEADER_LENGTH;
        out.putInt(AgentFrameLayout.BATCH_MAGIC_OFFSET, AgentFrameLayout.BATCH_MAGIC)
                .putInt(AgentFrameLayout.BATCH_RANKS_OFFSET, count)
                .putLong(AgentFrameLayout.BATCH_ROUND_OFFSET, round)
                .putInt(AgentFrameLayout.BATCH_FLAGS_OFFSET, fin ? AgentFrameLayout.LAST : 0)
                .putInt(AgentFrameLayout.BATCH_PAYLOAD_OFFSET, payload);
    }

    /** Bit i set: block i of {@code now} differs from {@code before} (the first batch of a rank: its non-zero blocks). */
    static long changedBlocks(byte[] now, byte[] before) {
        long blocks = 0;
        for (int b = 0; b < MpiRankMetaLayout.LENGTH / AgentFrameLayout.META_BLOCK; b++) {
            int from = b * AgentFrameLayout.META_BLOCK;
            if (Arrays.mismatch(now, from, from + AgentFrameLayout.META_BLOCK,
                    before, from, from + AgentFrameLayout.META_BLOCK) >= 0) {
                blocks |= 1L << b;
            }
        }
        return blocks;
    }

    /** The batch as it would go on the wire (tests). */
    ByteBuffer lastBatch() {
        return ByteBuffer.wrap(out.array(), 0, out.position()).order(ByteOrder.LITTLE_ENDIAN);
    }

    private void ensure(int more) {
        if (out.remaining() < more) {
            ByteBuffer bigger = ByteBuffer.allocate(Math.max(out.capacity() * 2, out.position() + more))
                    .order(ByteOrder.LITTLE_ENDIAN);
            out.flip();
            bigger.put(out);
            out = bigger;
        }
    }

    private void scan() throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "rank-*.meta")) {
            for (Path meta : files) {
                if (!opened.contains(meta)) {
                    MpiRankFiles f = MpiRankFiles.open(meta, 0);
                    if (f != null) {
                        opened.add(meta);
                        ranks.add(new Rank(f));
                    }
                }
            }
        }
    }

    void close() {
        for (Rank r : ranks) {
            r.files.close();
        }
        ranks.clear();
    }

    /** One rank's files and the meta bytes last sent. */
    private static final class Rank {
        final MpiRankFiles files;
        final byte[] lastMeta = new byte[MpiRankMetaLayout.LENGTH];
        final byte[] scratch = new byte[MpiRankMetaLayout.LENGTH];
        /** Entries of rank-R.comms sent so far. */
        int commsSent;

        Rank(MpiRankFiles files) {
            this.files = files;
        }
    }
}
