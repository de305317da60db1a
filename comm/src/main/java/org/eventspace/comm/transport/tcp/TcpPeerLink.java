package org.eventspace.comm.transport.tcp;

import static org.eventspace.comm.transport.tcp.FrameLayout.HEADER_LENGTH;
import static org.eventspace.comm.transport.tcp.FrameLayout.MAX_FRAME_LENGTH;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.function.Consumer;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.SpinYieldPark;
import org.eventspace.comm.transport.PeerLink;
import org.eventspace.comm.traffic.TrafficCounters;

/**
 * One end of a butterfly's exchange over TCP: a connection whose two ends are driven by the hosts' calling threads,
 * each sending one frame ({@link FrameLayout}, a request frame) and reading the partner's. No service thread runs
 * behind it, so a host process bound to one CPU serves its exchanges as fast as an unbound one.
 *
 * <p>Unlike a hop, the partner may send its next call's frame before this end read the last one (it finished the
 * call with every other partner first), so received bytes beyond a frame are kept for the next {@link #receive}; and
 * since both ends may send a large frame at once, a send that finds the socket full reads what the partner sent
 * meanwhile instead of waiting on it (two full send buffers would otherwise wait on each other for ever).
 *
 * <p>Waiting for bytes polls the socket (the spins and yields of {@link TcpOptions#peerReadWaitPolicy}) before it blocks in
 * its own selector. Allocates nothing while frames fit its buffers. One calling thread; {@link #close()} from any.
 */
final class TcpPeerLink implements PeerLink {
    private static final Consumer<SelectionKey> IGNORE_KEY = key -> { };

    private final String name;
    private final SocketChannel socket;
    private final Selector selector;
    private final SelectionKey key;
    private final SpinYieldPark wait;
    private final long timeoutNanos;
    /** Counts what this end writes and reads. */
    private final TrafficCounters.Channel traffic;
    private ByteBuffer in;
    private ByteBuffer out;
    private final Frame inFrame = new Frame();
    private final Frame outFrame = new Frame();
    /** Bytes at the start of {@link #in} that the last receive decoded, dropped before the next one. */
    private int consumed;
    private volatile String brokenBecause;
    /** The park phase of a read: made once, so waiting allocates nothing. */
    private final SocketReads.Block blockRead = deadline -> select(SelectionKey.OP_READ, deadline);

    /**
     * @param socket  a connected socket whose handshake is done, with nothing of the exchange read from it yet.
     */
    TcpPeerLink(String name, SocketChannel socket, TcpOptions options, long timeoutNanos, TrafficCounters.Channel traffic)
            throws IOException {
        this.name = name;
        this.socket = socket;
        this.timeoutNanos = timeoutNanos;
        this.traffic = traffic;
        this.wait = new SpinYieldPark(options.peerReadWaitPolicy());
        socket.configureBlocking(false);
        this.selector = Selector.open();
        this.key = socket.register(selector, SelectionKey.OP_READ);
        this.in = ByteBuffer.allocateDirect(options.initialFrameBytes());
        this.out = ByteBuffer.allocateDirect(options.initialFrameBytes());
        inFrame.wrap(in);
        outFrame.wrap(out);
    }

    @Override
    public void send(Message message) {
        checkUsable();
        if (message.length() > FrameLayout.MAX_WORDS) {
            throw new CommException("exchange " + name + ": message of " + message.length()
                    + " words exceeds the largest frame of " + FrameLayout.MAX_WORDS + " words");
        }
        int length = FrameLayout.frameLength(message.length());
        if (length > out.capacity()) {
            out = ByteBuffer.allocateDirect(length);
            outFrame.wrap(out);
        }
        outFrame.encode(message);
        long deadline = System.nanoTime() + timeoutNanos;
        out.clear().limit(length);
        try {
            while (out.hasRemaining()) {
                if (socket.write(out) == 0) {
                    readWhileFull(deadline);
                }
            }
        } catch (SocketTimeoutException e) {
            throw fail("the partner took no bytes within " + timeoutNanos / 1_000_000 + " ms", e);
        } catch (IOException e) {
            throw fail(socket.isOpen() ? "connection lost (" + TcpLink.describe(e) + ")" : closedHere(), e);
        }
        traffic.sent(message);
    }

    @Override
    public void receive(Message into) {
        checkUsable();
        long deadline = System.nanoTime() + timeoutNanos;
        try {
            if (consumed > 0) {
                in.flip().position(consumed);
                in.compact();
                consumed = 0;
            }
            while (!frameComplete()) {
                if (readSome(deadline) < 0) {
                    throw fail("connection closed by the partner (its process exited or closed the exchange)", null);
                }
            }
            int length = inFrame.frameLength();
            inFrame.checkWellFormed(length);
            if (inFrame.failed()) {
                throw fail("the partner failed: " + inFrame.errorText(), null);
            }
            inFrame.decodeRequest(into);
            consumed = length;
        } catch (SocketTimeoutException e) {
            throw fail("no message from the partner within " + timeoutNanos / 1_000_000 + " ms", e);
        } catch (IOException e) {
            throw fail(socket.isOpen() ? "connection lost (" + TcpLink.describe(e) + ")" : closedHere(), e);
        }
        traffic.received(into);
    }

    /** Whether {@link #in} holds a whole frame from its start; grows it for a frame announced larger than it. */
    private boolean frameComplete() throws IOException {
        int have = in.position();
        if (have < HEADER_LENGTH) {
            return false;
        }
        int length = inFrame.frameLength();
        if (length < HEADER_LENGTH || length > MAX_FRAME_LENGTH) {
            throw new IOException("partner announced a frame of " + length + " bytes; expected " + HEADER_LENGTH + ".."
                    + MAX_FRAME_LENGTH);
        }
        if (have >= length) {
            return true;
        }
        if (!in.hasRemaining()) {
            // Grown with the bytes that came, never to the length a partner only announced (as FrameChannel does).
            grow((int) Math.min((long) MAX_FRAME_LENGTH + HEADER_LENGTH, 2L * in.capacity()));
        }
        return false;
    }

    private void grow(int capacity) {
        ByteBuffer bigger = ByteBuffer.allocateDirect(capacity);
        in.flip();
        bigger.put(in);
        in = bigger;
        inFrame.wrap(in);
    }

    private int readSome(long deadlineNanos) throws IOException {
        return SocketReads.readSome(socket, in, wait, deadlineNanos, blockRead);
    }

    /** The socket took nothing: takes what the partner sent meanwhile, then waits until either side can move. */
    private void readWhileFull(long deadlineNanos) throws IOException {
        if (!in.hasRemaining()) {
            grow((int) Math.min(Integer.MAX_VALUE - 8L, 2L * in.capacity()));
        }
        if (socket.read(in) < 0) {
            throw new IOException("the partner closed the connection while this end was sending");
        }
        select(SelectionKey.OP_READ | SelectionKey.OP_WRITE, deadlineNanos);
    }

    private void select(int ops, long deadlineNanos) throws IOException {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            throw new SocketTimeoutException("deadline passed");
        }
        key.interestOps(ops);
        try {
            selector.select(IGNORE_KEY, Math.max(1, (left + 999_999) / 1_000_000));
        } catch (ClosedSelectorException e) {
            throw new IOException("closed on this host");
        } finally {
            if (key.isValid()) {
                key.interestOps(SelectionKey.OP_READ);
            }
        }
        if (brokenBecause != null) {
            throw new IOException("closed on this host");
        }
    }

    private void checkUsable() {
        String broken = brokenBecause;
        if (broken != null) {
            throw new CommException("exchange " + name + " is unusable: " + broken);
        }
    }

    private CommException fail(String why, Exception cause) {
        brokenBecause = why;
        closeQuietly();
        return new CommException("exchange " + name + ": " + why, cause);
    }

    @Override
    public void close() {
        close("closed");
    }

    @Override
    public void close(String why) {
        if (brokenBecause == null) {
            brokenBecause = why;
        }
        closeQuietly();
    }

    /** Why this end was closed on this host, for the call that was waiting on it. */
    private String closedHere() {
        String why = brokenBecause;
        return why == null || why.equals("closed") ? "closed on this host" : "closed on this host: " + why;
    }

    private void closeQuietly() {
        try {
            selector.close();
        } catch (IOException | RuntimeException ignored) {
            // Best effort: closing the socket below is what the partner sees.
        }
        try {
            socket.close();
        } catch (IOException ignored) {
            // Nothing left to do with a socket that fails to close.
        }
    }

    @Override
    public String toString() {
        return "TcpPeerLink{" + name + '}';
    }
}
