package org.eventspace.comm.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.ReduceOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** How a hop's end reads a frame: its buffer follows the bytes that arrive, not the length a peer announces. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FrameChannelTest {
    /**
     * Found by the fuzz suite (tcp, e.g. seed 81 from seed 1): a frame header announcing MAX_FRAME_LENGTH made the
     * serving host allocate 256 MiB of direct memory before a byte of the payload came.
     */
    @Test
    void aFrameAnnouncedButNotSentDoesNotGrowTheBuffer() throws Exception {
        try (ServerSocketChannel listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
             SocketChannel peer = SocketChannel.open(listener.getLocalAddress());
             FrameChannel channel = new FrameChannel(listener.accept(), TcpOptions.defaults())) {
            int initial = channel.frame().capacity();
            ByteBuffer header = ByteBuffer.allocate(FrameLayout.HEADER_LENGTH + 100).order(FrameLayout.BYTE_ORDER);
            header.putInt(FrameLayout.FRAME_LENGTH_OFFSET, FrameLayout.MAX_FRAME_LENGTH);
            header.putInt(FrameLayout.WORD_COUNT_OFFSET, FrameLayout.MAX_WORDS);
            peer.write(header);

            assertThatThrownBy(() -> channel.receiveFrame(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200)))
                    .isInstanceOf(SocketTimeoutException.class);
            assertThat(channel.frame().capacity()).as("buffer after 124 bytes of a 256 MiB frame").isEqualTo(initial);
        }
    }

    @Test
    void aLargeFrameGrowsTheBufferAsItsBytesArriveAndIsReadWhole() throws Exception {
        try (ServerSocketChannel listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
             SocketChannel socket = SocketChannel.open(listener.getLocalAddress());
             FrameChannel sender = new FrameChannel(socket, TcpOptions.defaults());
             FrameChannel receiver = new FrameChannel(listener.accept(), TcpOptions.defaults())) {
            int words = 100_000;
            Message m = new Message(words).op(ReduceOp.SLOT).length(words);
            for (int i = 0; i < words; i++) {
                m.word(i, i * 7L);
            }
            Thread send = new Thread(() -> {
                try {
                    int length = sender.frameFor(FrameLayout.frameLength(words)).encode(m);
                    sender.send(length, FrameChannel.NO_DEADLINE);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            send.start();

            assertThat(receiver.receiveFrame(System.nanoTime() + TimeUnit.SECONDS.toNanos(20))).isTrue();
            Message back = new Message(1);
            receiver.frame().decodeRequest(back);
            assertThat(back.length()).isEqualTo(words);
            assertThat(back.word(words - 1)).isEqualTo((words - 1) * 7L);
            assertThat(receiver.frame().capacity()).isLessThanOrEqualTo(2 * FrameLayout.frameLength(words));
            send.join(10_000);
        }
    }
}
