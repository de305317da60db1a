package org.eventspace.comm.transport.tcp;

import static org.eventspace.comm.transport.tcp.FrameLayout.BYTE_ORDER;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

import org.agrona.concurrent.UnsafeBuffer;
import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.transport.Hop;
import org.eventspace.comm.transport.Link;
import org.eventspace.comm.traffic.TrafficCounters;

/**
 * The client end of a TCP hop: {@link #exchange} sends the message as a request frame and waits for the
 * reply frame that the hop's service thread on the other host sends once the rest of the path ran.
 *
 * <p>One caller of {@link #exchange} at a time (see {@link Link}); {@link #close()} may be called from any
 * thread and makes a waiting exchange fail at once. A link that failed (connection lost, no reply in time)
 * stays failed: its stream may hold a late reply, so it can never be trusted again.
 */
final class TcpLink implements Link {
    private final String name;
    private final String peerName;
    private final String peer;
    private final long timeoutNanos;
    private final FrameChannel channel;
    /** Counts the requests this end writes to the socket and the replies it reads (ibprof: where the bytes leave). */
    private final TrafficCounters.Channel traffic;
    private volatile String brokenBecause;

    private TcpLink(String name, String peerName, String peer, long timeoutNanos, FrameChannel channel,
                    TrafficCounters.Channel traffic) {
        this.name = name;
        this.traffic = traffic;
        this.peerName = peerName;
        this.peer = peer;
        this.timeoutNanos = timeoutNanos;
        this.channel = channel;
    }

    /**
     * Connects to {@code address}, presents the handshake for {@code hop} and waits for the serving host to
     * accept it; the link is ready when this returns.
     *
     * @param name     what error messages call the hop, e.g. {@code h1->h0:t0.gred.h0.0[1]}.
     * @param peerName name of the serving host.
     */
    static TcpLink connect(String name, String peerName, Hop hop, InetSocketAddress address, JobSecret secret,
                           TcpOptions options, long timeoutNanos) {
        return connect(name, peerName, hop, address, secret, options, timeoutNanos, TrafficCounters.Channel.NONE);
    }

    /** As above, counting the hop's traffic through {@code traffic}. */
    static TcpLink connect(String name, String peerName, Hop hop, InetSocketAddress address, JobSecret secret,
                           TcpOptions options, long timeoutNanos, TrafficCounters.Channel traffic) {
        return new TcpLink(name, peerName, "host " + peerName + " at " + address, timeoutNanos,
                handshake(name, peerName, hop, address, secret, options), traffic);
    }

    /**
     * Connects to {@code address}, presents the handshake for {@code hop} and waits for the serving host to accept it:
     * the channel a hop's link or an exchange's end is built on.
     *
     * @throws CommException naming the hop and the peer if the connection or the handshake failed, or was refused.
     */
    static FrameChannel handshake(String name, String peerName, Hop hop, InetSocketAddress address, JobSecret secret,
                                  TcpOptions options) {
        String peer = "host " + peerName + " at " + address;
        SocketChannel socket = null;
        FrameChannel channel = null;
        try {
            socket = SocketChannel.open();
            configure(socket, options);
            socket.socket().connect(address, (int) Math.min(Integer.MAX_VALUE, options.connectTimeout().toMillis()));
            channel = new FrameChannel(socket, options);
            long deadline = System.nanoTime() + options.connectTimeout().toNanos();
            int length = encodeHandshake(channel, secret, hop);
            channel.send(length, deadline);
            channel.receiveExactly(HandshakeLayout.ACK_FIXED_LENGTH, true, deadline);
            UnsafeBuffer ack = channel.frame().buffer();
            if (ack.getInt(HandshakeLayout.ACK_MAGIC_OFFSET, BYTE_ORDER) != HandshakeLayout.MAGIC) {
                throw new IOException("the peer is not an EventSpace host (bad handshake answer)");
            }
            if (ack.getInt(HandshakeLayout.ACK_STATUS_OFFSET, BYTE_ORDER) != HandshakeLayout.ACK_ACCEPTED) {
                int reasonLength = ack.getInt(HandshakeLayout.ACK_REASON_LENGTH_OFFSET, BYTE_ORDER);
                if (reasonLength < 0 || reasonLength > HandshakeLayout.ACK_MAX_REASON_LENGTH) {
                    throw new IOException("refused, with a reason of " + reasonLength + " bytes");
                }
                channel.receiveExactly(HandshakeLayout.ACK_FIXED_LENGTH + reasonLength, false, deadline);
                throw new IOException("refused: " + ack.getStringWithoutLengthUtf8(HandshakeLayout.ACK_REASON_OFFSET, reasonLength));
            }
            return channel;
        } catch (IOException e) {
            if (channel != null) {
                channel.close();
            } else if (socket != null) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // Already failing; the connect error is what matters.
                }
            }
            String why = e instanceof SocketTimeoutException ? "no answer within " + options.connectTimeout().toMillis() + " ms"
                    : describe(e);
            throw new CommException("hop " + name + ": could not open to " + peer + ": " + why, e);
        }
    }

    static void configure(SocketChannel socket, TcpOptions options) throws IOException {
        socket.setOption(StandardSocketOptions.TCP_NODELAY, true);
        if (options.sendBufferBytes() > 0) {
            socket.setOption(StandardSocketOptions.SO_SNDBUF, options.sendBufferBytes());
        }
        if (options.receiveBufferBytes() > 0) {
            socket.setOption(StandardSocketOptions.SO_RCVBUF, options.receiveBufferBytes());
        }
    }

    private static int encodeHandshake(FrameChannel channel, JobSecret secret, Hop hop) {
        byte[] element = hop.element().getBytes(StandardCharsets.UTF_8);
        if (element.length > HandshakeLayout.MAX_ELEMENT_NAME_LENGTH) {
            throw new IllegalArgumentException("element name of " + element.length + " bytes exceeds "
                    + HandshakeLayout.MAX_ELEMENT_NAME_LENGTH + ": " + hop.element());
        }
        int length = HandshakeLayout.FIXED_LENGTH + element.length;
        UnsafeBuffer b = channel.frameFor(length).buffer();
        b.putInt(HandshakeLayout.MAGIC_OFFSET, HandshakeLayout.MAGIC, BYTE_ORDER);
        b.putInt(HandshakeLayout.VERSION_OFFSET, HandshakeLayout.VERSION, BYTE_ORDER);
        b.putInt(HandshakeLayout.LENGTH_OFFSET, length, BYTE_ORDER);
        secret.writeTo(b, HandshakeLayout.SECRET_OFFSET);
        b.putInt(HandshakeLayout.FROM_HOST_OFFSET, hop.fromHost(), BYTE_ORDER);
        b.putInt(HandshakeLayout.TO_HOST_OFFSET, hop.toHost(), BYTE_ORDER);
        b.putInt(HandshakeLayout.TARGET_NODE_OFFSET, hop.targetNode(), BYTE_ORDER);
        b.putInt(HandshakeLayout.TARGET_PORT_OFFSET, hop.targetPort(), BYTE_ORDER);
        b.putInt(HandshakeLayout.ELEMENT_LENGTH_OFFSET, element.length, BYTE_ORDER);
        b.putBytes(HandshakeLayout.ELEMENT_OFFSET, element);
        return length;
    }

    @Override
    public void exchange(Message message) {
        String broken = brokenBecause;
        if (broken != null) {
            throw new CommException("hop " + name + " to " + peer + " is unusable: " + broken);
        }
        if (message.length() > FrameLayout.MAX_WORDS) {
            throw new CommException("hop " + name + ": message of " + message.length() + " words exceeds the largest frame of "
                    + FrameLayout.MAX_WORDS + " words");
        }
        long deadline = System.nanoTime() + timeoutNanos;
        boolean received;
        try {
            int length = channel.frameFor(FrameLayout.frameLength(message.length())).encode(message);
            channel.send(length, deadline);
            traffic.request(message);
            received = channel.receiveFrame(deadline);
        } catch (SocketTimeoutException e) {
            throw fail("no reply within " + timeoutNanos / 1_000_000 + " ms", e);
        } catch (IOException e) {
            if (e instanceof ClosedChannelException || channel.isClosed()) {
                throw fail("closed on this host while exchanging", e);
            }
            throw fail("connection lost (" + describe(e) + ")", e);
        }
        if (!received) {
            throw fail("connection closed by the serving host (its process exited or closed the hop)", null);
        }
        Frame reply = channel.frame();
        if (reply.failed()) {
            throw new CommException("hop " + name + " failed on host " + peerName + ": " + reply.errorText());
        }
        reply.decodeResult(message);
        traffic.reply(message);
    }

    static String describe(IOException e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    private CommException fail(String why, Exception cause) {
        brokenBecause = why;
        channel.close();
        return new CommException("hop " + name + " to " + peer + ": " + why, cause);
    }

    @Override
    public void close() {
        if (brokenBecause == null) {
            brokenBecause = "closed";
        }
        channel.close();
    }

    @Override
    public String toString() {
        return "TcpLink{" + name + " to " + peer + '}';
    }
}
