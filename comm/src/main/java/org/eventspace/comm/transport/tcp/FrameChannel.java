package org.eventspace.comm.transport.tcp;

import static org.eventspace.comm.transport.tcp.FrameLayout.HEADER_LENGTH;
import static org.eventspace.comm.transport.tcp.FrameLayout.MAX_FRAME_LENGTH;

import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.function.Consumer;

import org.eventspace.comm.path.SpinYieldPark;

/**
 * One end of a TCP hop: a non-blocking socket channel, its own selector, and a growable direct buffer that
 * holds one frame at a time, with a {@link Frame} flyweight over it.
 *
 * <p>Waiting for bytes polls the channel (see {@link TcpOptions}) before blocking in the selector. Sending and
 * receiving allocate nothing while frames fit the buffer; a larger frame to send replaces the buffer once, a larger
 * frame received doubles it as its bytes arrive (so the buffer is at most twice what a peer actually sent).
 *
 * <p>Not thread-safe: one thread sends and receives. {@link #close()} may be called from any thread and makes
 * a blocked send or receive throw {@link AsynchronousCloseException}.
 */
final class FrameChannel implements AutoCloseable {
    /** Deadline meaning "wait until bytes come or the channel closes". */
    static final long NO_DEADLINE = SpinYieldPark.NO_DEADLINE;

    private static final Consumer<SelectionKey> IGNORE_KEY = key -> { };

    private final SocketChannel channel;
    private final Selector selector;
    private final SelectionKey key;
    private final SpinYieldPark wait;
    private final Frame frame = new Frame();
    private ByteBuffer buffer;
    private volatile boolean closed;
    /** The park phase of a read: made once, so waiting allocates nothing. */
    private final SocketReads.Block blockRead = this::select;

    FrameChannel(SocketChannel channel, TcpOptions options) throws IOException {
        this.channel = channel;
        this.wait = new SpinYieldPark(options.readWaitPolicy());
        channel.configureBlocking(false);
        this.selector = Selector.open();
        this.key = channel.register(selector, SelectionKey.OP_READ);
        this.buffer = ByteBuffer.allocateDirect(options.initialFrameBytes());
        frame.wrap(buffer);
    }

    SocketChannel channel() {
        return channel;
    }

    /** The flyweight over the buffer, large enough for {@code bytes}; grows the buffer (dropping its content) if not. */
    Frame frameFor(int bytes) {
        if (bytes > buffer.capacity()) {
            grow(bytes, 0);
        }
        return frame;
    }

    Frame frame() {
        return frame;
    }

    /** Sends bytes {@code [0, length)} of the buffer. */
    void send(int length, long deadlineNanos) throws IOException {
        buffer.clear().limit(length);
        while (buffer.hasRemaining()) {
            if (channel.write(buffer) == 0) {
                awaitWritable(deadlineNanos);
            }
        }
    }

    /**
     * Reads one frame into the buffer and checks its header.
     *
     * @return false if the peer closed the connection cleanly before the first byte of the frame.
     * @throws SocketTimeoutException if the deadline passed first.
     * @throws EOFException if the peer closed the connection in the middle of the frame.
     */
    boolean receiveFrame(long deadlineNanos) throws IOException {
        buffer.clear();
        while (buffer.position() < HEADER_LENGTH) {
            if (readSome(deadlineNanos) < 0) {
                if (buffer.position() == 0) {
                    return false;
                }
                throw new EOFException("connection closed after " + buffer.position() + " bytes of a frame header");
            }
        }
        int length = frame.frameLength();
        if (length < HEADER_LENGTH || length > MAX_FRAME_LENGTH) {
            throw new IOException("peer announced a frame of " + length + " bytes; expected " + HEADER_LENGTH + ".."
                    + MAX_FRAME_LENGTH);
        }
        while (buffer.position() < length) {
            if (!buffer.hasRemaining()) {
                // Grown with the bytes that came, never to the length a peer only announced: a frame header announcing
                // 256 MiB, then silence, would otherwise reserve 256 MiB of direct memory per connection.
                grow((int) Math.min(length, 2L * buffer.capacity()), buffer.position());
            }
            if (readSome(deadlineNanos) < 0) {
                throw new EOFException("connection closed after " + buffer.position() + " of " + length + " bytes of a frame");
            }
        }
        if (buffer.position() != length) {
            throw new IOException("peer sent " + (buffer.position() - length) + " bytes beyond a " + length
                    + "-byte frame; a hop carries one frame at a time in each direction");
        }
        frame.checkWellFormed(length);
        return true;
    }

    /**
     * Reads until the buffer holds exactly {@code [0, length)}, keeping what an earlier call read; for the
     * handshake, whose length is learned from its own fixed part. Call with {@code fromStart} on the first read.
     */
    void receiveExactly(int length, boolean fromStart, long deadlineNanos) throws IOException {
        if (fromStart) {
            buffer.clear();
        }
        if (length > buffer.capacity()) {
            grow(length, buffer.position());
        }
        buffer.limit(length);
        while (buffer.hasRemaining()) {
            if (readSome(deadlineNanos) < 0) {
                throw new EOFException("connection closed after " + buffer.position() + " of " + length + " bytes");
            }
        }
    }

    /**
     * Reads what is there, polling then blocking until at least one byte came; -1 at end of stream. The shared
     * wait strategy with a read as its condition: busy reads, then reads with a yield before each (stopping at
     * the deadline), then the park phase is a block in the selector, which the peer's bytes end.
     */
    private int readSome(long deadlineNanos) throws IOException {
        return SocketReads.readSome(channel, buffer, wait, deadlineNanos, blockRead);
    }

    private void awaitWritable(long deadlineNanos) throws IOException {
        key.interestOps(SelectionKey.OP_WRITE);
        try {
            select(deadlineNanos);
        } finally {
            key.interestOps(SelectionKey.OP_READ);
        }
    }

    private void select(long deadlineNanos) throws IOException {
        long waitMillis = 0;
        if (deadlineNanos != NO_DEADLINE) {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                throw new SocketTimeoutException("deadline passed");
            }
            waitMillis = Math.max(1, (left + 999_999) / 1_000_000);
        }
        try {
            // The consumer form does not add the key to the selected-key set, so selecting allocates nothing.
            selector.select(IGNORE_KEY, waitMillis);
        } catch (ClosedSelectorException e) {
            throw new AsynchronousCloseException();
        }
        if (closed) {
            throw new AsynchronousCloseException();
        }
    }

    private void grow(int needed, int keep) {
        int capacity = (int) Math.min(MAX_FRAME_LENGTH, Math.max(needed, 2L * buffer.capacity()));
        ByteBuffer bigger = ByteBuffer.allocateDirect(capacity);
        buffer.flip().limit(keep);
        bigger.put(buffer);
        buffer = bigger;
        frame.wrap(buffer);
    }

    /**
     * Hands the socket over to another reader ({@link TcpPeerLink}): closes this channel's selector, not the socket.
     * Call only when this end has read nothing beyond the last frame or handshake.
     */
    SocketChannel detach() {
        closed = true;
        try {
            selector.close();
        } catch (IOException | RuntimeException ignored) {
            // The key is cancelled with the selector either way; the socket stays open for its new reader.
        }
        return channel;
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
        try {
            selector.close();
        } catch (IOException | RuntimeException ignored) {
            // Closing is best effort: the channel close below is what the peer sees.
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // Nothing left to do with a socket that fails to close.
        }
    }
}
