package org.eventspace.comm.launch;

import static org.eventspace.comm.launch.RendezvousProtocol.ABORT;
import static org.eventspace.comm.launch.RendezvousProtocol.ALL_DONE;
import static org.eventspace.comm.launch.RendezvousProtocol.BARRIER;
import static org.eventspace.comm.launch.RendezvousProtocol.DONE;
import static org.eventspace.comm.launch.RendezvousProtocol.HEARTBEAT;
import static org.eventspace.comm.launch.RendezvousProtocol.HEARTBEAT_MILLIS;
import static org.eventspace.comm.launch.RendezvousProtocol.HELLO;
import static org.eventspace.comm.launch.RendezvousProtocol.MAGIC;
import static org.eventspace.comm.launch.RendezvousProtocol.MAX_RESULT_BYTES;
import static org.eventspace.comm.launch.RendezvousProtocol.MAX_STRING_BYTES;
import static org.eventspace.comm.launch.RendezvousProtocol.PART;
import static org.eventspace.comm.launch.RendezvousProtocol.PASSED;
import static org.eventspace.comm.launch.RendezvousProtocol.SILENCE_MILLIS;
import static org.eventspace.comm.launch.RendezvousProtocol.TABLE;
import static org.eventspace.comm.launch.RendezvousProtocol.VERSION;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.transport.tcp.JobSecret;

/**
 * One host process's connection to the {@link Rendezvous}: registers, learns the address table, then waits at
 * barriers, reports "done" with its result line, and hears "abort".
 *
 * <p>From its hello on, the client says every {@link RendezvousProtocol#HEARTBEAT_MILLIS} that this process runs,
 * and hears the rendezvous say the same: if it hears nothing for {@link RendezvousProtocol#SILENCE_MILLIS}, the
 * rendezvous (or the process that runs it) is frozen or unreachable, and the job is aborted here naming it. A
 * silence during which this process itself was not running (its heartbeat thread woke more than a second late:
 * Ctrl-Z, a paused machine) is forgiven.
 *
 * <p>Thread-safe. A daemon reader thread ({@code es-rendezvous-client-<host>}) receives what the rendezvous
 * sends and runs the abort listener; a daemon heartbeat thread ({@code es-rendezvous-heartbeat-<host>}) sends
 * heartbeats and watches the silence; {@link #close()} ends both. Every wait is bounded: the rendezvous's own
 * timeout plus {@link #GRACE}, so that its abort message, which names the missing hosts, arrives first.
 */
public final class RendezvousClient implements AutoCloseable {
    /** How much longer than the rendezvous a client waits, so the rendezvous's better message wins. */
    public static final Duration GRACE = Duration.ofSeconds(5);
    private static final long RETRY_MILLIS = 50;
    /** Heartbeat wake-ups further apart than this mean this process was not running; the silence is then not the rendezvous's. */
    private static final long SUSPENDED_GAP_MILLIS = 3 * HEARTBEAT_MILLIS;

    private final int host;
    /** The rendezvous as {@code host:port}, for messages. */
    private final String rendezvous;
    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private final long waitMillis;
    private volatile List<InetSocketAddress> addresses = List.of();
    private final Set<String> passed = new HashSet<>();
    private final Thread reader;
    private final Thread heartbeat;
    private volatile Consumer<String> abortListener = reason -> { };
    private volatile long lastHeard = System.currentTimeMillis();
    private boolean allDone;
    private String abortReason;
    private volatile boolean closed;

    private RendezvousClient(int host, String rendezvous, Socket socket, DataInputStream in,
                             DataOutputStream out, long waitMillis) {
        this.host = host;
        this.rendezvous = rendezvous;
        this.socket = socket;
        this.in = in;
        this.out = out;
        this.waitMillis = waitMillis;
        this.reader = new Thread(this::readLoop, "es-rendezvous-client-" + host);
        reader.setDaemon(true);
        this.heartbeat = new Thread(this::heartbeatLoop, "es-rendezvous-heartbeat-" + host);
        heartbeat.setDaemon(true);
    }

    /**
     * Connects to the rendezvous (retrying while it is not yet listening), registers {@code host} with the
     * address of its TCP server, and waits until every host registered.
     *
     * @param timeout the rendezvous's timeout; this waits at most that plus {@link #GRACE}.
     * @throws CommException if the rendezvous cannot be reached, refuses, stops answering, or aborts the job.
     */
    public static RendezvousClient register(InetSocketAddress rendezvous, JobSecret secret, int host, int hosts,
                                            InetSocketAddress server, Duration timeout) {
        return register(rendezvous, secret, host, hosts, server, timeout, true);
    }

    /**
     * As {@link #register(InetSocketAddress, JobSecret, int, int, InetSocketAddress, Duration)}; with {@code retryRefused}
     * false, a refused connection fails at once: the rendezvous listened before this process started (our launcher runs
     * it), so nobody listening means it has ended.
     */
    public static RendezvousClient register(InetSocketAddress rendezvous, JobSecret secret, int host, int hosts,
                                            InetSocketAddress server, Duration timeout, boolean retryRefused) {
        long waitMillis = timeout.plus(GRACE).toMillis();
        long deadline = System.currentTimeMillis() + waitMillis;
        InetSocketAddress target = new InetSocketAddress(rendezvous.getHostString(), rendezvous.getPort());
        String named = rendezvous.getHostString() + ":" + rendezvous.getPort();
        Socket socket = connect(target, named, host, deadline, retryRefused);
        RendezvousClient client = null;
        try {
            socket.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            client = new RendezvousClient(host, named, socket, in, out, waitMillis);
            synchronized (out) {
                out.writeInt(HELLO);
                out.writeInt(MAGIC);
                out.writeInt(VERSION);
                out.write(secret.bytes());
                out.writeInt(host);
                out.writeInt(hosts);
                RendezvousProtocol.writeString(out, server.getHostString());
                out.writeInt(server.getPort());
                out.flush();
            }
            client.heartbeat.start();
            socket.setSoTimeout((int) Math.max(1, deadline - System.currentTimeMillis()));
            client.addresses = readTable(in, named, host, hosts, client);
            socket.setSoTimeout(0);
            client.reader.start();
            return client;
        } catch (IOException | RuntimeException e) {
            String silenced = client == null ? null : client.abortReason();
            if (client != null) {
                client.close();
            } else {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // Already failing.
                }
            }
            if (silenced != null) {
                throw new CommException("host " + host + ": registering at the rendezvous " + named + " failed: " + silenced, e);
            }
            if (e instanceof CommException c) {
                throw c;
            }
            String why = e instanceof SocketTimeoutException ? "no address table within " + waitMillis
                    + " ms (other hosts did not register?)"
                    : e instanceof EOFException ? "the rendezvous closed the connection (wrong job secret? see its stderr)"
                    : e.toString();
            throw new CommException("host " + host + ": registering at the rendezvous " + named + " failed: " + why, e);
        }
    }

    /** Reads up to the address table, skipping heartbeats. */
    private static List<InetSocketAddress> readTable(DataInputStream in, String target, int host, int hosts,
                                                     RendezvousClient client) throws IOException {
        while (true) {
            int type = in.readInt();
            client.lastHeard = System.currentTimeMillis();
            if (type == HEARTBEAT) {
                continue;
            }
            if (type == ABORT) {
                throw new CommException("host " + host + ": the rendezvous at " + target + " refused: "
                        + RendezvousProtocol.readString(in));
            }
            if (type != TABLE) {
                throw new IOException("expected the address table, got message type " + type);
            }
            int count = in.readInt();
            if (count != hosts) {
                throw new IOException("address table has " + count + " hosts, expected " + hosts);
            }
            List<InetSocketAddress> table = new ArrayList<>(count);
            for (int h = 0; h < count; h++) {
                String address = RendezvousProtocol.readString(in);
                table.add(new InetSocketAddress(address, in.readInt()));
            }
            return List.copyOf(table);
        }
    }

    private static Socket connect(InetSocketAddress target, String named, int host, long deadline, boolean retryRefused) {
        IOException last = null;
        while (System.currentTimeMillis() < deadline) {
            Socket socket = new Socket();
            try {
                socket.connect(target, (int) Math.max(1, Math.min(5_000, deadline - System.currentTimeMillis())));
                return socket;
            } catch (ConnectException e) {
                if (!retryRefused) {
                    closeQuietly(socket);
                    throw new CommException("host " + host + ": cannot reach the rendezvous at " + named + ": " + e.getMessage()
                            + " (it listened before this process started, so the launcher that runs it has ended)", e);
                }
                // Not listening yet (process 0 may still be starting it): try again shortly.
                last = e;
            } catch (IOException e) {
                last = e;
            }
            closeQuietly(socket);
            try {
                Thread.sleep(RETRY_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new CommException("host " + host + ": cannot reach the rendezvous at " + named + ": " + last);
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // A socket that never connected.
        }
    }

    /** The TCP server address of every host, by host id. */
    public List<InetSocketAddress> addresses() {
        return addresses;
    }

    /** Runs {@code listener} (on the reader thread) with the reason when the job is aborted or the rendezvous is lost. */
    public void onAbort(Consumer<String> listener) {
        this.abortListener = listener;
    }

    /** Waits until every host reached the barrier {@code name}. */
    public void barrier(String name) {
        send(BARRIER, name);
        synchronized (this) {
            awaitLocked(() -> passed.contains(name), "barrier '" + name + "'");
        }
    }

    /** Reports this host's result line and waits until every host reported: after that no host needs another. */
    public void done(String resultLine) {
        done(resultLine, waitMillis);
    }

    /**
     * As {@link #done(String)}, waiting at most {@code maxWaitMillis} (and never longer than the client's own bound).
     *
     * @throws IllegalArgumentException if the line is longer than {@link RendezvousProtocol#MAX_RESULT_BYTES} in UTF-8:
     *                                  nothing was sent, so the caller can report a smaller one.
     */
    public void done(String resultLine, long maxWaitMillis) {
        byte[] line = resultLine.getBytes(StandardCharsets.UTF_8);
        if (line.length > MAX_RESULT_BYTES) {
            throw new IllegalArgumentException("host " + host + ": a result line of " + line.length
                    + " bytes exceeds the rendezvous limit of " + MAX_RESULT_BYTES);
        }
        sendPieces(line);
        synchronized (this) {
            awaitLocked(() -> allDone, "the end of the job", Math.min(waitMillis, Math.max(1, maxWaitMillis)));
        }
    }

    /** Asks the rendezvous to abort the job, e.g. because this host's application failed. */
    public void abort(String reason) {
        try {
            send(ABORT, reason);
        } catch (CommException ignored) {
            // The rendezvous is gone; it aborts the job on its own when this connection closes.
        }
    }

    public synchronized String abortReason() {
        return abortReason;
    }

    private void awaitLocked(BooleanSupplier condition, String what) {
        awaitLocked(condition, what, waitMillis);
    }

    private void awaitLocked(BooleanSupplier condition, String what, long waitMillis) {
        long deadline = System.currentTimeMillis() + waitMillis;
        while (!condition.getAsBoolean()) {
            if (abortReason != null) {
                throw new CommException("host " + host + " waiting for " + what + ": job aborted: " + abortReason);
            }
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                throw new CommException("host " + host + " waiting for " + what + ": not every host got there within "
                        + waitMillis + " ms, and the rendezvous at " + rendezvous + " did not say which");
            }
            try {
                wait(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CommException("host " + host + " was interrupted waiting for " + what, e);
            }
        }
    }

    /** Sends {@code line} as PART pieces and a DONE with the last one, in one go (heartbeats wait between messages). */
    private void sendPieces(byte[] line) {
        synchronized (out) {
            try {
                int at = 0;
                while (line.length - at > MAX_STRING_BYTES) {
                    out.writeInt(PART);
                    RendezvousProtocol.writeBytes(out, line, at, MAX_STRING_BYTES);
                    at += MAX_STRING_BYTES;
                }
                out.writeInt(DONE);
                RendezvousProtocol.writeBytes(out, line, at, line.length - at);
                out.flush();
            } catch (IOException e) {
                throw lost(e);
            }
        }
    }

    private CommException lost(IOException e) {
        String aborted = abortReason();
        if (aborted != null) {
            // The connection was closed because the job was aborted: that is the news, not the closed socket.
            return new CommException("host " + host + ": job aborted: " + aborted, e);
        }
        return new CommException("host " + host + ": lost the rendezvous at " + rendezvous + ": " + e, e);
    }

    private void send(int type, String text) {
        synchronized (out) {
            try {
                out.writeInt(type);
                if (text != null) {
                    RendezvousProtocol.writeString(out, text);
                }
                out.flush();
            } catch (IOException e) {
                throw lost(e);
            }
        }
    }

    private void readLoop() {
        String lost;
        try {
            while (true) {
                int type = in.readInt();
                lastHeard = System.currentTimeMillis();
                switch (type) {
                    case HEARTBEAT -> {
                        // The rendezvous runs; lastHeard says so.
                    }
                    case PASSED -> {
                        String name = RendezvousProtocol.readString(in);
                        synchronized (this) {
                            passed.add(name);
                            notifyAll();
                        }
                    }
                    case ALL_DONE -> {
                        synchronized (this) {
                            allDone = true;
                            notifyAll();
                        }
                    }
                    case ABORT -> {
                        aborted(RendezvousProtocol.readString(in));
                        return;
                    }
                    default -> throw new IOException("unknown message type " + type);
                }
            }
        } catch (IOException e) {
            lost = e.toString();
        }
        synchronized (this) {
            if (closed || allDone) {
                return;
            }
        }
        aborted("lost the rendezvous at " + rendezvous + " (" + lost + ")");
    }

    /**
     * Every {@link RendezvousProtocol#HEARTBEAT_MILLIS}: says this process runs, and aborts the job if the rendezvous
     * said nothing for {@link RendezvousProtocol#SILENCE_MILLIS} while this process ran.
     */
    private void heartbeatLoop() {
        long last = System.currentTimeMillis();
        while (!closed) {
            try {
                Thread.sleep(HEARTBEAT_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.currentTimeMillis();
            if (now - last > SUSPENDED_GAP_MILLIS) {
                lastHeard = now;
            }
            last = now;
            synchronized (out) {
                try {
                    out.writeInt(HEARTBEAT);
                    out.flush();
                } catch (IOException e) {
                    return; // The reader sees the broken connection.
                }
            }
            long silent = now - lastHeard;
            synchronized (this) {
                if (closed || allDone || abortReason != null || silent <= SILENCE_MILLIS) {
                    continue;
                }
            }
            aborted("the rendezvous at " + rendezvous + " stopped answering: nothing heard from it for " + silent
                    + " ms (its process is frozen, or its machine unreachable)");
            try {
                socket.close(); // Ends a read blocked on the silent rendezvous.
            } catch (IOException ignored) {
                // Closed either way.
            }
            return;
        }
    }

    private void aborted(String reason) {
        synchronized (this) {
            if (abortReason != null) {
                return;
            }
            abortReason = reason;
            notifyAll();
        }
        abortListener.accept(reason);
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        heartbeat.interrupt();
        try {
            socket.close();
        } catch (IOException ignored) {
            // Nothing more to do.
        }
        try {
            reader.join(2_000);
            heartbeat.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
