package org.eventspace.fuzz;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/** The one bounded read the fuzzers' clients make of what a server sends back. */
final class SocketReads {
    private SocketReads() {
    }

    /**
     * {@code n} bytes from {@code socket}, fewer if the connection ends first (a reset is an end too).
     *
     * @throws SocketTimeoutException if neither happened by {@code deadlineNanos}; its message says how many bytes came.
     */
    static byte[] upTo(Socket socket, int n, long deadlineNanos) throws IOException {
        byte[] bytes = new byte[n];
        int got = 0;
        InputStream in = socket.getInputStream();
        while (got < n) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
            if (left <= 0) {
                throw new SocketTimeoutException(got + " of " + n + " bytes read");
            }
            socket.setSoTimeout((int) left);
            int k;
            try {
                k = in.read(bytes, got, n - got);
            } catch (SocketTimeoutException e) {
                continue;
            } catch (SocketException e) {
                k = -1;
            }
            if (k < 0) {
                return Arrays.copyOf(bytes, got);
            }
            got += k;
        }
        return bytes;
    }
}
