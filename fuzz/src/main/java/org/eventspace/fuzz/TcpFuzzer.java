package org.eventspace.fuzz;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.path.ValueType;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.runtime.HostRuntime;
import org.eventspace.comm.runtime.PathComm;
import org.eventspace.comm.element.Element;
import org.eventspace.comm.transport.Hop;
import org.eventspace.comm.transport.Link;
import org.eventspace.comm.transport.tcp.FrameLayout;
import org.eventspace.comm.transport.tcp.HandshakeLayout;
import org.eventspace.comm.transport.tcp.JobSecret;
import org.eventspace.comm.transport.tcp.TcpOptions;
import org.eventspace.comm.transport.tcp.TcpServer;
import org.eventspace.comm.transport.tcp.TcpTransport;

/**
 * TCP hops: one real {@link TcpServer} on 127.0.0.1 serves host 0 of a 2-host job (2 ranks, hier:2: host 1's rank
 * reaches the gred on host 0 through a hop, and rank 1 writes its mailbox {@code p2p.1.0} on host 0); raw sockets send
 * it damaged handshakes ({@link HandshakeLayout}: magic, version, length, secret, hosts, node, port, element name and
 * its length, cut short, trailing bytes, bits flipped; then the socket is kept open or half-closed) and, after a valid
 * handshake, damaged frames ({@link FrameLayout}: length, op code, value type, status, word count, error length, cut
 * short, pipelined, bits flipped, a large length announced and never sent).
 *
 * <p>Each case checks: the server answers only with a well-formed acknowledgement (a refusal's reason at most
 * {@link HandshakeLayout#ACK_MAX_REASON_LENGTH} bytes) or reply frame (an error text at most
 * {@link FrameLayout#MAX_ERROR_LENGTH} bytes), or closes the connection, within {@value #ANSWER_MILLIS} ms of the
 * client's last byte; a valid frame gets a reply; once the client closed, the connection's thread ends within
 * {@value #SETTLE_MILLIS} ms; the JVM's threads do not grow; nothing escapes a server thread and every line the
 * server logs is bounded ({@link ServerWatch}); an authenticated peer makes host 0 hold no element beyond the
 * pathmap's and the mailboxes ranks of host 1 write on host 0; a frame announced but not sent does not make the
 * server reserve its length. Every {@value #LIVENESS_EVERY}th case, and after the batch, a real client
 * ({@link TcpTransport}) still exchanges a message through the server.
 *
 * <p>Not thread-safe; owns the server, {@code System.err} and the default uncaught-exception handler until closed.
 */
final class TcpFuzzer implements Fuzzer {
    /** The server's bound on a handshake ({@link TcpOptions#connectTimeout()}). */
    static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(2);
    /** The job's collective timeout: how long the gred waits for host 0's own rank, which never comes. */
    static final Duration COLLECTIVE_TIMEOUT = Duration.ofSeconds(2);
    /** How long the server may take to answer or close, after the client's last byte: its bounds plus a loaded machine. */
    static final long ANSWER_MILLIS = 15_000;
    /** How long a connection's thread may take to end once its client closed. */
    static final long SETTLE_MILLIS = 15_000;
    static final int LIVENESS_EVERY = 64;
    /** The longest line the server may log: a refusal names the remote address and gives its reason. */
    static final int LOG_LINE_CHARS = HandshakeLayout.ACK_MAX_REASON_LENGTH + 200;
    /** The most direct memory a frame announced but not yet sent may cost the server. */
    static final long ANNOUNCED_BYTES_ALLOWED = 32L << 20;
    /** Threads the JVM may have beyond those at the start: stragglers of connections that are ending. */
    static final int THREADS_ALLOWED = 16;
    private static final ByteOrder LE = FrameLayout.BYTE_ORDER;
    private static final int P2P_WORDS = HostRuntime.P2P_WORDS;

    private final Pathmap pathmap = PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, 2, 2), 2, 1, TreeShape.hier(2)));
    private final JobSecret secret = JobSecret.fromHex("e5f00d" + "0".repeat(58));
    private final ServerWatch watch = new ServerWatch(LOG_LINE_CHARS);
    private final HostRuntime h0;
    private final HostRuntime h1;
    private final TcpServer server;
    /** The hop host 1's proxy opens to host 0. */
    private final Hop treeHop;
    private final String mailbox;
    private final Set<String> elementsAllowed = new HashSet<>();
    private final Set<String> elementsReported = new HashSet<>();
    private final int baselineThreads;
    private final BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
            .filter(b -> b.getName().equals("direct")).findFirst().orElseThrow();

    TcpFuzzer() {
        watch.install();
        try {
            CommOptions options = CommOptions.defaults(2).withTimeout(COLLECTIVE_TIMEOUT);
            h0 = new HostRuntime(pathmap, 0, options);
            h0.build();
            h1 = new HostRuntime(pathmap, 1, options);
            Hop hop = null;
            for (Node n : pathmap.nodes()) {
                if (n.kind().equals(PathmapBuilder.PROXY) && n.host() == 1) {
                    hop = Hop.toNode(1, 0, n.parent(), n.parentPort());
                }
            }
            treeHop = hop;
            for (Element e : h0.elements().all()) {
                elementsAllowed.add(e.name());
            }
            for (int from = 0; from < pathmap.spec().ranks(); from++) {
                for (int to = 0; to < pathmap.spec().ranks(); to++) {
                    if (pathmap.spec().hostOf(from) == 1 && pathmap.spec().hostOf(to) == 0) {
                        elementsAllowed.add(PathComm.mailbox(from, to));
                    }
                }
            }
            mailbox = PathComm.mailbox(1, 0);
            server = TcpServer.start(h0, secret, TcpOptions.defaults().withConnectTimeout(HANDSHAKE_TIMEOUT));
            baselineThreads = ManagementFactory.getThreadMXBean().getThreadCount();
        } catch (RuntimeException e) {
            watch.close();
            throw e;
        }
    }

    @Override
    public String format() {
        return "tcp";
    }

    @Override
    public void run(FuzzCase c) throws Exception {
        try (Socket socket = new Socket()) {
            socket.connect(server.address(), (int) ANSWER_MILLIS);
            socket.setTcpNoDelay(true);
            if (c.random().nextInt(100) < 45) {
                handshakeCase(c, socket);
            } else {
                framesCase(c, socket);
            }
        }
        awaitSettled();
        watch.check();
        for (Element e : h0.elements().all()) {
            // Each element is reported once, by the case that made it.
            FuzzCase.check(elementsAllowed.contains(e.name()) || !elementsReported.add(e.name()), "host 0 now holds element \""
                    + FuzzCase.cut(e.name(), 80) + "\", which no rank of host 1 writes (an authenticated peer made it "
                    + "allocate " + e.capacity() + " tuples of " + e.maxWords() + " words)");
        }
        int threads = ManagementFactory.getThreadMXBean().getThreadCount();
        FuzzCase.check(threads <= baselineThreads + THREADS_ALLOWED, "the JVM has " + threads + " threads, "
                + baselineThreads + " when fuzzing started");
        if (c.seed() % LIVENESS_EVERY == 0) {
            validClientExchanges();
        }
    }

    private void handshakeCase(FuzzCase c, Socket socket) throws IOException, InterruptedException {
        SplittableRandom r = c.random();
        Hop hop = r.nextInt(10) < 7 ? Hop.toElement(1, 0, mailbox) : treeHop;
        HandshakeBytes h = new HandshakeBytes(secret.bytes(), hop);
        int edits = 1 + r.nextInt(3);
        for (int e = 0; e < edits; e++) {
            h.mutate(c);
        }
        byte[] bytes = h.bytes();
        byte[] sent = tail(c, bytes);
        boolean cut = sent.length < bytes.length;
        boolean halfClose = cut ? r.nextBoolean() : r.nextInt(5) == 0;
        c.note(halfClose ? "then half-closed" : "then kept open");
        socket.getOutputStream().write(sent);
        socket.getOutputStream().flush();
        if (halfClose) {
            socket.shutdownOutput();
        }
        Ack ack = readAck(socket);
        if (ack == Ack.ACCEPTED) {
            c.accepted();
        } else {
            c.refused();
        }
    }

    private void framesCase(FuzzCase c, Socket socket) throws IOException, InterruptedException {
        SplittableRandom r = c.random();
        Hop hop = r.nextInt(100) < 85 ? Hop.toElement(1, 0, mailbox) : treeHop;
        c.note("valid handshake for " + (hop.isPointToPoint() ? hop.element() : "the tree hop"));
        socket.getOutputStream().write(new HandshakeBytes(secret.bytes(), hop).bytes());
        socket.getOutputStream().flush();
        Ack ack = readAck(socket);
        FuzzCase.check(ack == Ack.ACCEPTED, "a valid handshake was not accepted: " + ack);
        int frames = 1 + r.nextInt(4);
        for (int f = 0; f < frames; f++) {
            FrameBytes frame = new FrameBytes(r);
            boolean mutated = r.nextInt(10) < 6;
            if (mutated) {
                int edits = 1 + r.nextInt(2);
                for (int e = 0; e < edits; e++) {
                    frame.mutate(c);
                }
            } else {
                c.note("a valid frame of " + frame.words + " words");
            }
            if (frame.announced) {
                announceOnly(c, socket, frame);
                c.refused();
                return;
            }
            byte[] bytes = frame.bytes();
            byte[] sent = mutated ? tail(c, bytes) : bytes;
            socket.getOutputStream().write(sent);
            socket.getOutputStream().flush();
            int announced = sent.length >= Integer.BYTES ? ByteBuffer.wrap(sent).order(LE).getInt(FrameLayout.FRAME_LENGTH_OFFSET) : -1;
            if (sent.length < FrameLayout.HEADER_LENGTH || announced > sent.length && announced >= FrameLayout.HEADER_LENGTH
                    && announced <= FrameLayout.MAX_FRAME_LENGTH) {
                // A hop waits for the rest of a frame without a deadline (its peer is an authenticated host, and a large
                // frame may take long): the client leaves, and the server must see it and end the connection's thread.
                if (r.nextBoolean()) {
                    socket.shutdownOutput();
                    c.note("then half-closed");
                    FuzzCase.check(readReply(socket, frame, false) == Reply.CLOSED, "the server answered a frame cut short");
                }
                c.refused();
                return;
            }
            Reply reply = readReply(socket, frame, !mutated);
            if (reply == Reply.CLOSED) {
                FuzzCase.check(mutated, "the server closed the hop after a valid frame");
                c.refused();
                return;
            }
            if (announced != sent.length) {
                // Bytes after the frame: the server takes them for the start of the next one, which no frame of ours follows.
                break;
            }
        }
        c.accepted();
    }

    /** Sends a header announcing a large frame and none of its payload; the server must not reserve what it was promised. */
    private void announceOnly(FuzzCase c, Socket socket, FrameBytes frame) throws IOException, InterruptedException {
        long before = direct.getMemoryUsed();
        socket.getOutputStream().write(frame.bytes(), 0, FrameLayout.HEADER_LENGTH);
        socket.getOutputStream().flush();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        long grown = 0;
        while (System.nanoTime() < deadline) {
            grown = Math.max(grown, direct.getMemoryUsed() - before);
            Thread.sleep(5);
        }
        FuzzCase.check(grown <= ANNOUNCED_BYTES_ALLOWED, "direct memory grew by " + (grown >> 20) + " MiB while a peer "
                + "had sent only the " + FrameLayout.HEADER_LENGTH + "-byte header of a frame announcing " + frame.length
                + " bytes");
    }

    /** Up to {@code bytes.length}: sometimes cut short, sometimes with bytes after it, sometimes a bit flipped. */
    private static byte[] tail(FuzzCase c, byte[] bytes) {
        SplittableRandom r = c.random();
        int kind = r.nextInt(10);
        if (kind == 0) {
            int cut = r.nextInt(bytes.length);
            c.note("cut at byte " + cut + " of " + bytes.length);
            return Arrays.copyOf(bytes, cut);
        }
        if (kind == 1) {
            int extra = 1 + r.nextInt(64);
            byte[] longer = Arrays.copyOf(bytes, bytes.length + extra);
            for (int i = bytes.length; i < longer.length; i++) {
                longer[i] = (byte) r.nextInt(256);
            }
            c.note(extra + " bytes more after it");
            return longer;
        }
        if (kind == 2) {
            byte[] flipped = bytes.clone();
            int at = r.nextInt(flipped.length);
            int bit = r.nextInt(8);
            flipped[at] ^= (byte) (1 << bit);
            c.note("flipped bit " + bit + " of byte " + at);
            return flipped;
        }
        return bytes;
    }

    private enum Ack { ACCEPTED, REFUSED, CLOSED }

    /** Reads the server's acknowledgement, checking its layout; or sees the connection close. */
    private Ack readAck(Socket socket) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ANSWER_MILLIS);
        byte[] fixed = read(socket, HandshakeLayout.ACK_FIXED_LENGTH, deadline);
        if (fixed.length == 0) {
            return Ack.CLOSED;
        }
        FuzzCase.check(fixed.length == HandshakeLayout.ACK_FIXED_LENGTH, "the server sent " + fixed.length
                + " bytes of an acknowledgement and closed");
        ByteBuffer b = ByteBuffer.wrap(fixed).order(LE);
        int magic = b.getInt(HandshakeLayout.ACK_MAGIC_OFFSET);
        int status = b.getInt(HandshakeLayout.ACK_STATUS_OFFSET);
        int reasonLength = b.getInt(HandshakeLayout.ACK_REASON_LENGTH_OFFSET);
        FuzzCase.check(magic == HandshakeLayout.MAGIC, "acknowledgement magic 0x" + Integer.toHexString(magic));
        FuzzCase.check(status == HandshakeLayout.ACK_ACCEPTED && reasonLength == 0
                        || status == HandshakeLayout.ACK_REFUSED && reasonLength > 0
                        && reasonLength <= HandshakeLayout.ACK_MAX_REASON_LENGTH,
                "acknowledgement status=" + status + ", reasonLength=" + reasonLength);
        byte[] reason = read(socket, reasonLength, deadline);
        FuzzCase.check(reason.length == reasonLength, "the server sent " + reason.length + " of the " + reasonLength
                + " bytes of its refusal's reason");
        if (status == HandshakeLayout.ACK_REFUSED) {
            FuzzCase.check(read(socket, 1, deadline).length == 0, "the server did not close the connection it refused");
            return Ack.REFUSED;
        }
        return Ack.ACCEPTED;
    }

    private enum Reply { ANSWERED, CLOSED }

    /** Reads the reply to {@code request}, checking its layout; or sees the connection close. */
    private Reply readReply(Socket socket, FrameBytes request, boolean valid) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ANSWER_MILLIS);
        byte[] header = read(socket, FrameLayout.HEADER_LENGTH, deadline);
        if (header.length == 0) {
            return Reply.CLOSED;
        }
        FuzzCase.check(header.length == FrameLayout.HEADER_LENGTH, "the server sent " + header.length
                + " bytes of a reply header and closed");
        ByteBuffer b = ByteBuffer.wrap(header).order(LE);
        int length = b.getInt(FrameLayout.FRAME_LENGTH_OFFSET);
        byte status = b.get(FrameLayout.STATUS_OFFSET);
        int words = b.getInt(FrameLayout.WORD_COUNT_OFFSET);
        int errorLength = b.getInt(FrameLayout.ERROR_LENGTH_OFFSET);
        boolean ok = status == FrameLayout.STATUS_OK && words >= 0 && words <= FrameLayout.MAX_WORDS && errorLength == 0
                && length == FrameLayout.frameLength(words)
                || status == FrameLayout.STATUS_FAILED && words == 0 && errorLength > 0
                && errorLength <= FrameLayout.MAX_ERROR_LENGTH && length == FrameLayout.HEADER_LENGTH + errorLength;
        FuzzCase.check(ok, "reply header length=" + length + ", status=" + status + ", words=" + words + ", errorLength="
                + errorLength);
        if (valid) {
            FuzzCase.check(b.get(FrameLayout.OP_CODE_OFFSET) == request.op && b.get(FrameLayout.VALUE_TYPE_OFFSET) == request.type,
                    "the reply does not repeat the request's op and type");
        }
        byte[] rest = read(socket, length - FrameLayout.HEADER_LENGTH, deadline);
        FuzzCase.check(rest.length == length - FrameLayout.HEADER_LENGTH, "the server sent " + rest.length + " of the "
                + (length - FrameLayout.HEADER_LENGTH) + " bytes after a reply header");
        return Reply.ANSWERED;
    }

    /**
     * Reads {@code n} bytes, fewer if the connection ends first (a reset is an end too).
     *
     * @throws FuzzCase.CheckFailed if neither happened by the deadline.
     */
    private static byte[] read(Socket socket, int n, long deadlineNanos) throws IOException {
        try {
            return SocketReads.upTo(socket, n, deadlineNanos);
        } catch (SocketTimeoutException e) {
            FuzzCase.check(false, "the server neither answered nor closed the connection within " + ANSWER_MILLIS + " ms ("
                    + e.getMessage() + ")");
            throw e;
        }
    }

    /** Waits until the server serves no connection: every case's connection ended with its client. */
    private void awaitSettled() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SETTLE_MILLIS);
        while (server.servedHops() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        FuzzCase.check(server.servedHops() == 0, server.servedHops() + " connections still served " + SETTLE_MILLIS
                + " ms after their clients closed");
    }

    /** A real client connects and exchanges a message: the server still works. */
    private void validClientExchanges() {
        try (TcpTransport client = new TcpTransport(List.of(server.address(), new InetSocketAddress("127.0.0.1", 1)), secret,
                TcpOptions.defaults().withConnectTimeout(Duration.ofMillis(ANSWER_MILLIS)))) {
            Link link = client.connect(h1, Hop.toElement(1, 0, mailbox));
            Message m = new Message(4).op(ReduceOp.SLOT).length(3).word(0, 1).word(1, 2).word(2, 3);
            link.exchange(m);
            link.close();
        } catch (RuntimeException e) {
            throw new FuzzCase.CheckFailed("a valid client could no longer exchange a message through the server: " + e);
        }
    }

    @Override
    public void afterBatch() throws Exception {
        awaitSettled();
        validClientExchanges();
        awaitSettled();
        watch.check();
    }

    @Override
    public void close() {
        try {
            server.close();
        } finally {
            watch.close();
        }
    }

    /** A handshake's fields, valid until mutated. */
    private static final class HandshakeBytes {
        int magic = HandshakeLayout.MAGIC;
        int version = HandshakeLayout.VERSION;
        byte[] secret;
        int from;
        int to;
        int node;
        int port;
        byte[] element;
        Integer length;
        Integer elementLength;

        HandshakeBytes(byte[] secret, Hop hop) {
            this.secret = secret;
            from = hop.fromHost();
            to = hop.toHost();
            node = hop.targetNode();
            port = hop.targetPort();
            element = hop.element().getBytes(StandardCharsets.UTF_8);
        }

        void mutate(FuzzCase c) {
            SplittableRandom r = c.random();
            int[] ints = {-1, 0, 1, 2, 3, Integer.MAX_VALUE, Integer.MIN_VALUE, 1 << 16, r.nextInt()};
            switch (r.nextInt(12)) {
                case 0 -> {
                    magic = r.nextBoolean() ? r.nextInt() : Integer.reverseBytes(HandshakeLayout.MAGIC);
                    c.note("magic 0x" + Integer.toHexString(magic));
                }
                case 1 -> {
                    version = ints[r.nextInt(ints.length)];
                    c.note("version " + version);
                }
                case 2 -> {
                    secret = secret.clone();
                    if (r.nextBoolean()) {
                        int at = r.nextInt(secret.length);
                        secret[at] ^= (byte) (1 << r.nextInt(8));
                        c.note("secret byte " + at + " flipped");
                    } else {
                        Arrays.fill(secret, (byte) 0);
                        c.note("secret all zero");
                    }
                }
                case 3 -> {
                    from = ints[r.nextInt(ints.length)];
                    c.note("from host " + from);
                }
                case 4 -> {
                    to = ints[r.nextInt(ints.length)];
                    c.note("to host " + to);
                }
                case 5 -> {
                    int[] nodes = {-1, -2, Integer.MIN_VALUE, 0, 1, 2, 3, 4, 5, 6, 100, Integer.MAX_VALUE};
                    node = nodes[r.nextInt(nodes.length)];
                    c.note("target node " + node);
                }
                case 6 -> {
                    port = ints[r.nextInt(ints.length)];
                    c.note("target port " + port);
                }
                case 7 -> {
                    String[] names = {"", "p2p.0.1", "p2p.1.1", "p2p.0.0", "p2p.9.0", "p2p.1.0", "t0.result", "x",
                            "p2p." + r.nextInt(1000) + "." + r.nextInt(1000), "e".repeat(HandshakeLayout.MAX_ELEMENT_NAME_LENGTH),
                            "e".repeat(HandshakeLayout.MAX_ELEMENT_NAME_LENGTH + 1)};
                    if (r.nextInt(4) == 0) {
                        element = new byte[r.nextInt(64)];
                        for (int i = 0; i < element.length; i++) {
                            element[i] = (byte) r.nextInt(256);
                        }
                        c.note("element name of " + element.length + " random bytes");
                    } else {
                        String name = names[r.nextInt(names.length)];
                        element = name.getBytes(StandardCharsets.UTF_8);
                        c.note("element \"" + FuzzCase.cut(name, 40) + "\"");
                    }
                }
                case 8 -> {
                    int actual = HandshakeLayout.FIXED_LENGTH + element.length;
                    int[] lengths = {0, -1, HandshakeLayout.FIXED_LENGTH - 1, HandshakeLayout.FIXED_LENGTH,
                            HandshakeLayout.MAX_LENGTH, HandshakeLayout.MAX_LENGTH + 1, Integer.MAX_VALUE,
                            Integer.MIN_VALUE, actual + 1, actual - 1};
                    length = lengths[r.nextInt(lengths.length)];
                    c.note("length field " + length);
                }
                case 9 -> {
                    int[] lengths = {-1, 0, Integer.MAX_VALUE, element.length + 1, element.length - 1,
                            HandshakeLayout.MAX_ELEMENT_NAME_LENGTH, HandshakeLayout.MAX_ELEMENT_NAME_LENGTH + 1};
                    elementLength = lengths[r.nextInt(lengths.length)];
                    c.note("element length field " + elementLength);
                }
                case 10 -> {
                    magic = HandshakeLayout.MAGIC;
                    version = HandshakeLayout.VERSION;
                    c.note("magic and version valid again");
                }
                default -> {
                    from = 1;
                    to = 0;
                    c.note("hosts 1 -> 0 again");
                }
            }
        }

        byte[] bytes() {
            ByteBuffer b = ByteBuffer.allocate(HandshakeLayout.FIXED_LENGTH + element.length).order(LE);
            b.putInt(HandshakeLayout.MAGIC_OFFSET, magic);
            b.putInt(HandshakeLayout.VERSION_OFFSET, version);
            b.putInt(HandshakeLayout.LENGTH_OFFSET, length != null ? length : b.capacity());
            b.put(HandshakeLayout.SECRET_OFFSET, secret);
            b.putInt(HandshakeLayout.FROM_HOST_OFFSET, from);
            b.putInt(HandshakeLayout.TO_HOST_OFFSET, to);
            b.putInt(HandshakeLayout.TARGET_NODE_OFFSET, node);
            b.putInt(HandshakeLayout.TARGET_PORT_OFFSET, port);
            b.putInt(HandshakeLayout.ELEMENT_LENGTH_OFFSET, elementLength != null ? elementLength : element.length);
            b.put(HandshakeLayout.ELEMENT_OFFSET, element);
            return b.array();
        }
    }

    /** A request frame's fields, valid until mutated. */
    private static final class FrameBytes {
        int length;
        byte op;
        byte type;
        byte status = FrameLayout.STATUS_OK;
        byte reserved;
        long sequence;
        int words;
        int wordCount;
        int errorLength;
        /** Sent as its header only: a length announced and never delivered. */
        boolean announced;
        private final long[] payload;

        FrameBytes(SplittableRandom r) {
            op = (byte) r.nextInt(ReduceOp.values().length);
            type = (byte) r.nextInt(ValueType.values().length);
            sequence = r.nextInt(4) == 0 ? r.nextLong() : r.nextInt(100);
            int[] counts = {0, 1, 2, 3, 16, P2P_WORDS, P2P_WORDS + 1, r.nextInt(64)};
            words = counts[r.nextInt(counts.length)];
            wordCount = words;
            length = FrameLayout.frameLength(words);
            payload = new long[words];
            for (int i = 0; i < words; i++) {
                payload[i] = r.nextLong();
            }
        }

        void mutate(FuzzCase c) {
            SplittableRandom r = c.random();
            switch (r.nextInt(11)) {
                case 0 -> {
                    int[] lengths = {0, -1, FrameLayout.HEADER_LENGTH - 1, FrameLayout.HEADER_LENGTH, length + 1, length - 1,
                            length + 8, length - 8, FrameLayout.MAX_FRAME_LENGTH + 1, Integer.MAX_VALUE, Integer.MIN_VALUE};
                    length = lengths[r.nextInt(lengths.length)];
                    c.note("frame length " + length);
                }
                case 1 -> {
                    byte[] ops = {(byte) ReduceOp.values().length, 127, -1, -128};
                    op = ops[r.nextInt(ops.length)];
                    c.note("op code " + op);
                }
                case 2 -> {
                    byte[] types = {(byte) ValueType.values().length, 127, -1};
                    type = types[r.nextInt(types.length)];
                    c.note("value type " + type);
                }
                case 3 -> {
                    byte[] statuses = {FrameLayout.STATUS_FAILED, 2, -1};
                    status = statuses[r.nextInt(statuses.length)];
                    c.note("status " + status);
                }
                case 4 -> {
                    reserved = (byte) (1 + r.nextInt(255));
                    c.note("reserved byte " + reserved);
                }
                case 5 -> {
                    int[] counts = {-1, words + 1, words - 1, Integer.MAX_VALUE, Integer.MIN_VALUE, FrameLayout.MAX_WORDS + 1};
                    wordCount = counts[r.nextInt(counts.length)];
                    c.note("word count " + wordCount + " (" + words + " words sent)");
                }
                case 6 -> {
                    int[] lengths = {-1, 1, FrameLayout.MAX_ERROR_LENGTH, FrameLayout.MAX_ERROR_LENGTH + 1, Integer.MAX_VALUE};
                    errorLength = lengths[r.nextInt(lengths.length)];
                    c.note("error length " + errorLength);
                }
                case 7 -> {
                    sequence = r.nextLong();
                    c.note("sequence " + sequence);
                }
                case 8 -> {
                    int[] lengths = {1 << 20, 1 << 24, FrameLayout.MAX_FRAME_LENGTH};
                    length = lengths[r.nextInt(lengths.length)];
                    wordCount = (length - FrameLayout.HEADER_LENGTH) / Long.BYTES;
                    status = FrameLayout.STATUS_OK;
                    errorLength = 0;
                    announced = true;
                    c.note("announced a frame of " + length + " bytes and sent only its header");
                }
                default -> {
                    op = (byte) ReduceOp.SLOT.ordinal();
                    c.note("op SLOT");
                }
            }
        }

        byte[] bytes() {
            ByteBuffer b = ByteBuffer.allocate(FrameLayout.frameLength(words)).order(LE);
            b.putInt(FrameLayout.FRAME_LENGTH_OFFSET, length);
            b.put(FrameLayout.OP_CODE_OFFSET, op);
            b.put(FrameLayout.VALUE_TYPE_OFFSET, type);
            b.put(FrameLayout.STATUS_OFFSET, status);
            b.put(FrameLayout.TRAFFIC_TAG_OFFSET, reserved);
            b.putLong(FrameLayout.SEQUENCE_OFFSET, sequence);
            b.putInt(FrameLayout.WORD_COUNT_OFFSET, wordCount);
            b.putInt(FrameLayout.ERROR_LENGTH_OFFSET, errorLength);
            for (int i = 0; i < words; i++) {
                b.putLong(FrameLayout.PAYLOAD_OFFSET + i * Long.BYTES, payload[i]);
            }
            return b.array();
        }
    }
}
