package org.eventspace.comm.transport.tcp;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

import org.eventspace.comm.path.SpinYieldPark;

/** How every TCP end waits for bytes: the shared wait strategy, with a non-blocking read as its condition. */
final class SocketReads {
    /** The park phase: blocks until the socket may have bytes (its selector) or throws once the deadline passed. */
    @FunctionalInterface
    interface Block {
        void await(long deadlineNanos) throws IOException;
    }

    private SocketReads() {
    }

    /**
     * Reads what is there into {@code into}, polling then blocking until at least one byte came; -1 at end of stream:
     * busy reads (the spin phase), reads with a yield before each (stopping at the deadline), then {@code block}.
     * Allocates nothing.
     */
    static int readSome(SocketChannel socket, ByteBuffer into, SpinYieldPark wait, long deadlineNanos, Block block)
            throws IOException {
        int n = socket.read(into);
        if (n != 0) {
            return n;
        }
        for (int i = 0; wait.spin(i); i++) {
            if ((n = socket.read(into)) != 0) {
                return n;
            }
        }
        for (int i = 0; wait.yield(i, deadlineNanos); i++) {
            if ((n = socket.read(into)) != 0) {
                return n;
            }
        }
        while (true) {
            block.await(deadlineNanos);
            if ((n = socket.read(into)) != 0) {
                return n;
            }
        }
    }
}
