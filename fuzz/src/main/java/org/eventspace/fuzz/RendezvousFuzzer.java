package org.eventspace.fuzz;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.eventspace.comm.launch.Rendezvous;
import org.eventspace.comm.launch.RendezvousProtocol;
import org.eventspace.comm.transport.tcp.JobSecret;

/**
 * The rendezvous ({@link RendezvousProtocol}), black box, over sockets and its public API only: every case starts a
 * real {@link Rendezvous} on 127.0.0.1 and connects one raw socket to it. A hello case sends a damaged HELLO (type,
 * magic, version, secret, host id, host count, the server host's string length and bytes, its port; cut short, bytes
 * after it, bits flipped, or nothing at all), then keeps the socket open or half-closes it. A member case sends a
 * valid HELLO for a one-host job, reads the table, then one to three messages, valid (BARRIER, DONE with or without
 * PART pieces before it, ABORT) or not
 * (an unknown type, a string length negative or past {@link RendezvousProtocol#MAX_STRING_BYTES}, a message cut short
 * and the socket closed, or kept open: silent).
 *
 * <p>Checks: the rendezvous answers only with well-formed messages, and ends or answers every connection within
 * its bounds (the hello's, the job's timeout, {@link RendezvousProtocol#SILENCE_MILLIS}) plus a slack; a HELLO with a
 * host name longer than {@link RendezvousProtocol#MAX_HOST_NAME_BYTES} is not registered; a malformed message from a
 * registered member aborts the job with a reason that names the host ({@link Rendezvous#failure()}); every reason it
 * sends or keeps, and every line it logs, is at most {@link FuzzCase#MAX_MESSAGE_CHARS} characters; no exception
 * escapes its threads ({@link ServerWatch}); it closes within its bound.
 *
 * <p>Not thread-safe; owns {@code System.err} and the default uncaught-exception handler until closed.
 */
final class RendezvousFuzzer implements Fuzzer {
    /** The job's timeout in hello cases: it bounds the hello ({@code min(timeout, 10 s)}) and the registration. */
    static final Duration HELLO_CASE_TIMEOUT = Duration.ofMillis(250);
    /** The job's timeout in member cases: longer than any answer the case waits for, so it never aborts first. */
    static final Duration MEMBER_CASE_TIMEOUT = Duration.ofSeconds(30);
    /** What a loaded machine may add to the rendezvous's own bounds. */
    static final long SLACK_MILLIS = 10_000;
    /** A member case that goes silent in the middle of a message: 1 in this many (each waits for the silence bound). */
    static final int SILENT_ONE_IN = 256;
    /** Longest a close may take: its own bound of 2 s, and a slack. */
    static final long CLOSE_MILLIS = 5_000;
    private static final int HOST = 0;
    /** The TCP server port a HELLO names: nobody connects to it, the rendezvous only hands it on. */
    private static final int SERVER_PORT = 10_000;

    private final JobSecret secret = JobSecret.fromHex("5e" + "0".repeat(62));
    private final ServerWatch watch = new ServerWatch(FuzzCase.MAX_MESSAGE_CHARS).install();

    @Override
    public String format() {
        return "rendezvous";
    }

    @Override
    public Duration caseTimeout() {
        return Duration.ofMillis(RendezvousProtocol.SILENCE_MILLIS + 4 * SLACK_MILLIS);
    }

    @Override
    public void run(FuzzCase c) throws Exception {
        boolean hello = c.random().nextInt(100) < 50;
        int hosts = hello ? 1 + c.random().nextInt(3) : 1;
        Duration timeout = hello ? HELLO_CASE_TIMEOUT : MEMBER_CASE_TIMEOUT;
        c.note(hosts + " host(s), timeout " + timeout.toMillis() + " ms");
        Rendezvous rendezvous = Rendezvous.start("127.0.0.1", 0, secret, hosts, timeout);
        try (Socket socket = new Socket()) {
            socket.connect(rendezvous.address(), (int) SLACK_MILLIS);
            if (hello) {
                helloCase(c, socket, rendezvous, hosts);
            } else {
                memberCase(c, socket, rendezvous);
            }
        } finally {
            long start = System.nanoTime();
            rendezvous.close();
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            FuzzCase.check(ms <= CLOSE_MILLIS, "closing the rendezvous took " + ms + " ms");
        }
        Optional<String> failure = rendezvous.failure();
        if (failure.isPresent()) {
            FuzzCase.checkMessage("Rendezvous.failure()", failure.get(), FuzzCase.MAX_MESSAGE_CHARS);
        }
        watch.check();
    }

    private void helloCase(FuzzCase c, Socket socket, Rendezvous rendezvous, int hosts) throws IOException {
        SplittableRandom r = c.random();
        Hello h = new Hello(secret.bytes(), r.nextInt(hosts), hosts, SERVER_PORT);
        int edits = 1 + r.nextInt(3);
        for (int e = 0; e < edits; e++) {
            h.mutate(c);
        }
        byte[] bytes = h.bytes();
        int kind = r.nextInt(10);
        if (kind == 0) {
            int cut = r.nextInt(bytes.length);
            bytes = Arrays.copyOf(bytes, cut);
            c.note("cut at byte " + cut);
        } else if (kind == 1) {
            int at = r.nextInt(bytes.length);
            int bit = r.nextInt(8);
            bytes[at] ^= (byte) (1 << bit);
            c.note("flipped bit " + bit + " of byte " + at);
        } else if (kind == 2) {
            bytes = new byte[0];
            c.note("sent nothing");
        }
        boolean halfClose = r.nextInt(3) == 0;
        c.note(halfClose ? "then half-closed" : "then kept open");
        socket.getOutputStream().write(bytes);
        socket.getOutputStream().flush();
        if (halfClose) {
            socket.shutdownOutput();
        }
        // Refused: an ABORT or just the close. Registered: the table (all hosts here), or the registration's abort.
        long bound = HELLO_CASE_TIMEOUT.toMillis() + SLACK_MILLIS;
        Heard heard = listen(socket, bound, hosts);
        FuzzCase.check(heard != Heard.NOTHING, "the rendezvous neither answered nor closed a connection within " + bound
                + " ms of its hello");
        boolean registered = rendezvous.unregistered().size() < hosts;
        if (registered && h.serverHost.length > RendezvousProtocol.MAX_HOST_NAME_BYTES) {
            throw new FuzzCase.CheckFailed("the rendezvous registered a host name of " + h.serverHost.length
                    + " bytes, more than MAX_HOST_NAME_BYTES = " + RendezvousProtocol.MAX_HOST_NAME_BYTES);
        }
        if (registered) {
            c.accepted();
        } else {
            c.refused();
        }
    }

    private void memberCase(FuzzCase c, Socket socket, Rendezvous rendezvous) throws IOException, InterruptedException {
        SplittableRandom r = c.random();
        socket.getOutputStream().write(new Hello(secret.bytes(), HOST, 1, SERVER_PORT).bytes());
        socket.getOutputStream().flush();
        FuzzCase.check(listen(socket, SLACK_MILLIS, 1) == Heard.TABLE, "a valid hello did not get the table");
        int messages = 1 + r.nextInt(3);
        for (int m = 0; m < messages; m++) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            int kind = r.nextInt(100);
            if (kind < 30) {
                int type = new int[] {RendezvousProtocol.BARRIER, RendezvousProtocol.DONE, RendezvousProtocol.ABORT}[r.nextInt(3)];
                int[] sizes = {0, 1, 8, 100, 1000, 100_000};
                String text = "m".repeat(sizes[r.nextInt(sizes.length)]);
                if (type == RendezvousProtocol.DONE && r.nextBoolean()) {
                    // A result line in pieces: PARTs, then the DONE that completes it.
                    int pieces = 1 + r.nextInt(3);
                    for (int p = 0; p < pieces; p++) {
                        out.writeInt(RendezvousProtocol.PART);
                        out.writeInt(text.length());
                        out.writeBytes(text);
                    }
                    c.note(pieces + " PART pieces of " + text.length() + " bytes first");
                }
                out.writeInt(type);
                out.writeInt(text.length());
                out.writeBytes(text);
                c.note("valid message type " + type + " with a string of " + text.length() + " bytes");
                socket.getOutputStream().write(bytes.toByteArray());
                socket.getOutputStream().flush();
                if (type == RendezvousProtocol.ABORT) {
                    awaitFailure(rendezvous, "an ABORT from host " + HOST);
                    c.refused();
                    return;
                }
                // PASSED or ALL_DONE come back; after ALL_DONE the job is over and the rendezvous may close.
                Heard heard = listen(socket, SLACK_MILLIS, 1);
                FuzzCase.check(heard == Heard.MESSAGE || heard == Heard.CLOSED, "a valid message type " + type
                        + " got " + heard);
                if (heard == Heard.CLOSED) {
                    break;
                }
                continue;
            }
            boolean silent = r.nextInt(SILENT_ONE_IN) == 0;
            if (kind < 55) {
                int[] types = {0, 7, 8, RendezvousProtocol.HELLO, RendezvousProtocol.TABLE, RendezvousProtocol.PASSED,
                        RendezvousProtocol.ALL_DONE, -1, Integer.MAX_VALUE, Integer.MIN_VALUE};
                int type = types[r.nextInt(types.length)];
                out.writeInt(type);
                c.note("unknown message type " + type);
            } else if (kind < 80) {
                int type = new int[] {RendezvousProtocol.BARRIER, RendezvousProtocol.DONE, RendezvousProtocol.ABORT,
                        RendezvousProtocol.PART}[r.nextInt(4)];
                int[] lengths = {-1, Integer.MIN_VALUE, RendezvousProtocol.MAX_STRING_BYTES + 1, Integer.MAX_VALUE};
                int length = lengths[r.nextInt(lengths.length)];
                out.writeInt(type);
                out.writeInt(length);
                out.writeBytes("abc");
                c.note("message type " + type + " with string length " + length);
            } else {
                int type = new int[] {RendezvousProtocol.BARRIER, RendezvousProtocol.DONE, RendezvousProtocol.ABORT}[r.nextInt(3)];
                int length = 1 + r.nextInt(RendezvousProtocol.MAX_STRING_BYTES);
                out.writeInt(type);
                out.writeInt(length);
                out.writeBytes("a".repeat(Math.min(length - 1, r.nextInt(64))));
                byte[] whole = bytes.toByteArray();
                int cut = 1 + r.nextInt(whole.length - 1);
                bytes.reset();
                bytes.write(whole, 0, cut);
                c.note("message type " + type + " announcing " + length + " bytes, cut after " + cut + " bytes");
            }
            socket.getOutputStream().write(bytes.toByteArray());
            socket.getOutputStream().flush();
            if (!silent) {
                socket.shutdownOutput();
                c.note("then closed");
            } else {
                c.note("then silent");
            }
            long bound = (silent ? RendezvousProtocol.SILENCE_MILLIS : 0) + SLACK_MILLIS;
            awaitFailure(rendezvous, "a malformed message from host " + HOST + (silent ? " that then fell silent" : ""),
                    bound);
            c.refused();
            return;
        }
        c.accepted();
    }

    private static void awaitFailure(Rendezvous rendezvous, String after) throws InterruptedException {
        awaitFailure(rendezvous, after, SLACK_MILLIS);
    }

    /** The job must end, aborted naming the host, unless every host had already finished. */
    private static void awaitFailure(Rendezvous rendezvous, String after, long boundMillis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMillis);
        while (rendezvous.failure().isEmpty() && !rendezvous.allDone() && System.nanoTime() < deadline) {
            Thread.sleep(2);
        }
        if (rendezvous.allDone()) {
            return;
        }
        Optional<String> failure = rendezvous.failure();
        FuzzCase.check(failure.isPresent(), "the job was not aborted within " + boundMillis + " ms of " + after);
        FuzzCase.check(failure.get().contains("host " + HOST), "the abort after " + after + " does not name host "
                + HOST + ": " + FuzzCase.cut(failure.get(), 300));
    }

    private enum Heard { TABLE, MESSAGE, CLOSED, NOTHING }

    /**
     * Reads what the rendezvous sends until one whole message or the end of the connection, checking its layout:
     * TABLE, ABORT (its reason bounded), PASSED or ALL_DONE.
     */
    private static Heard listen(Socket socket, long boundMillis, int hosts) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMillis);
        byte[] type = read(socket, Integer.BYTES, deadline);
        if (type == null) {
            return Heard.NOTHING;
        }
        if (type.length < Integer.BYTES) {
            FuzzCase.check(type.length == 0, "the rendezvous sent " + type.length + " bytes of a message and closed");
            return Heard.CLOSED;
        }
        int t = ByteBuffer.wrap(type).getInt();
        switch (t) {
            case RendezvousProtocol.TABLE -> {
                byte[] count = read(socket, Integer.BYTES, deadline);
                FuzzCase.check(count != null && count.length == Integer.BYTES, "a table cut short");
                int n = ByteBuffer.wrap(count).getInt();
                FuzzCase.check(n == hosts, "a table of " + n + " hosts for a job of " + hosts);
                for (int h = 0; h < n; h++) {
                    readString(socket, deadline, RendezvousProtocol.MAX_STRING_BYTES, "a table's host name");
                    FuzzCase.check(read(socket, Integer.BYTES, deadline).length == Integer.BYTES, "a table cut short");
                }
                return Heard.TABLE;
            }
            case RendezvousProtocol.ABORT -> {
                readString(socket, deadline, FuzzCase.MAX_MESSAGE_CHARS, "an ABORT's reason");
                return Heard.MESSAGE;
            }
            case RendezvousProtocol.PASSED -> {
                readString(socket, deadline, RendezvousProtocol.MAX_STRING_BYTES, "a PASSED's barrier name");
                return Heard.MESSAGE;
            }
            case RendezvousProtocol.ALL_DONE -> {
                return Heard.MESSAGE;
            }
            default -> throw new FuzzCase.CheckFailed("the rendezvous sent message type " + t);
        }
    }

    private static void readString(Socket socket, long deadline, int max, String what) throws IOException {
        byte[] length = read(socket, Integer.BYTES, deadline);
        FuzzCase.check(length != null && length.length == Integer.BYTES, what + " cut short");
        int n = ByteBuffer.wrap(length).getInt();
        FuzzCase.check(n >= 0 && n <= max, what + " of " + n + " bytes, expected 0.." + max);
        byte[] text = read(socket, n, deadline);
        FuzzCase.check(text != null && text.length == n, what + " cut short");
    }

    /** {@code n} bytes, fewer if the connection ends first (a reset too), or null if the deadline passed first. */
    private static byte[] read(Socket socket, int n, long deadlineNanos) throws IOException {
        try {
            return SocketReads.upTo(socket, n, deadlineNanos);
        } catch (SocketTimeoutException e) {
            return null;
        }
    }

    @Override
    public void close() {
        watch.close();
    }

    /** A HELLO's fields, valid until mutated. */
    private static final class Hello {
        int type = RendezvousProtocol.HELLO;
        int magic = RendezvousProtocol.MAGIC;
        int version = RendezvousProtocol.VERSION;
        byte[] secret;
        int host;
        int hosts;
        byte[] serverHost = "127.0.0.1".getBytes(StandardCharsets.UTF_8);
        Integer serverHostLength;
        int serverPort;

        Hello(byte[] secret, int host, int hosts, int serverPort) {
            this.secret = secret;
            this.host = host;
            this.hosts = hosts;
            this.serverPort = serverPort;
        }

        void mutate(FuzzCase c) {
            SplittableRandom r = c.random();
            int[] ints = {-1, 0, 1, 2, 3, 4, Integer.MAX_VALUE, Integer.MIN_VALUE, 1 << 16, r.nextInt()};
            switch (r.nextInt(10)) {
                case 0 -> {
                    type = new int[] {0, RendezvousProtocol.BARRIER, RendezvousProtocol.HEARTBEAT, -1, r.nextInt()}[r.nextInt(5)];
                    c.note("first int (type) " + type);
                }
                case 1 -> {
                    magic = r.nextBoolean() ? r.nextInt() : Integer.reverseBytes(RendezvousProtocol.MAGIC);
                    c.note("magic 0x" + Integer.toHexString(magic));
                }
                case 2 -> {
                    version = ints[r.nextInt(ints.length)];
                    c.note("version " + version);
                }
                case 3 -> {
                    secret = secret.clone();
                    int at = r.nextInt(secret.length);
                    secret[at] ^= (byte) (1 << r.nextInt(8));
                    c.note("secret byte " + at + " flipped");
                }
                case 4 -> {
                    host = ints[r.nextInt(ints.length)];
                    c.note("host id " + host);
                }
                case 5 -> {
                    hosts = ints[r.nextInt(ints.length)];
                    c.note("host count " + hosts);
                }
                case 6 -> {
                    int[] lengths = {-1, Integer.MIN_VALUE, RendezvousProtocol.MAX_STRING_BYTES + 1, Integer.MAX_VALUE,
                            serverHost.length + 1, RendezvousProtocol.MAX_STRING_BYTES};
                    serverHostLength = lengths[r.nextInt(lengths.length)];
                    c.note("server host string length " + serverHostLength + " (" + serverHost.length + " bytes sent)");
                }
                case 7 -> {
                    int[] sizes = {0, RendezvousProtocol.MAX_HOST_NAME_BYTES, RendezvousProtocol.MAX_HOST_NAME_BYTES + 1,
                            100_000};
                    int size = sizes[r.nextInt(sizes.length)];
                    serverHost = "h".repeat(size).getBytes(StandardCharsets.UTF_8);
                    if (size > 0 && r.nextBoolean()) {
                        serverHost[r.nextInt(size)] = (byte) 0xC0; // not UTF-8
                    }
                    c.note("server host name of " + size + " bytes");
                }
                case 8 -> {
                    int[] ports = {-1, 0, 65_535, 65_536, Integer.MAX_VALUE, Integer.MIN_VALUE};
                    serverPort = ports[r.nextInt(ports.length)];
                    c.note("server port " + serverPort);
                }
                default -> {
                    type = RendezvousProtocol.HELLO;
                    magic = RendezvousProtocol.MAGIC;
                    version = RendezvousProtocol.VERSION;
                    c.note("type, magic and version valid again");
                }
            }
        }

        byte[] bytes() {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeInt(type);
                out.writeInt(magic);
                out.writeInt(version);
                out.write(secret);
                out.writeInt(host);
                out.writeInt(hosts);
                out.writeInt(serverHostLength != null ? serverHostLength : serverHost.length);
                out.write(serverHost);
                out.writeInt(serverPort);
            } catch (IOException e) {
                throw new IllegalStateException("a byte array stream does not fail", e);
            }
            return bytes.toByteArray();
        }
    }
}
