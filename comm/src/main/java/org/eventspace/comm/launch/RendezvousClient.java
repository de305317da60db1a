package org.eventspace.comm.launch;

import static org.eventspace.comm.launch.RendezvousProtocol.ABORT;
import static org.eventspace.comm.launch.RendezvousProtocol.ALL_DONE;
import static org.eventspace.comm.launch.RendezvousProtocol.BARRIER;
import static org.eventspace.comm.launch.RendezvousProtocol.DONE;
import static org.eventspace.comm.launch.RendezvousProtocol.HELLO;
import static org.eventspace.comm.launch.RendezvousProtocol.MAGIC;
import static org.eventspace.comm.launch.RendezvousProtocol.PASSED;
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
 * <p>Thread-safe. A daemon reader thread ({@code es-rendezvous-client-<host>}) receives what the rendezvous
 * sends and runs the abort listener; {@link #close()} ends it. Every wait is bounded: the rendezvous's own
 * timeout plus {@link #GRACE}, so that its abort message, which names the missing hosts, arrives first.
 */
public final class RendezvousClient implements AutoCloseable {
    /** How much longer than the rendezvous a client waits, so the rendezvous's better message wins. */
    public static final Duration GRACE = Duration.ofSeconds(5);
    private static final long RETRY_MILLIS = 50;

    private final int host;
    private final InetSocketAddress rendezvous;
    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private final long waitMillis;
    private final List<InetSocketAddress> addresses;
    private final Set<String> passed = new HashSet<>();
    private final Thread reader;
    private volatile Consumer<String> abortListener = reason -> { };
    private boolean allDone;
    private String abortReason;
    private volatile boolean closed;

    private RendezvousClient(int host, InetSocketAddress rendezvous, Socket socket, DataInputStream in,
                             DataOutputStream out, long waitMillis, List<InetSocketAddress> addresses) {
        this.host = host;
        this.rendezvous = rendezvous;
        this.socket = socket;
        this.in = in;
        this.out = out;
        this.waitMillis = waitMillis;
        this.addresses = addresses;
        this.reader = new Thread(this::readLoop, "es-rendezvous-client-" + host);
        reader.setDaemon(true);
    }

    /**
     * Connects to the rendezvous (retrying while it is not yet listening), registers {@code host} with the
     * address of its TCP server, and waits until every host registered.
     *
     * @param timeout the rendezvous's timeout; this waits at most that plus {@link #GRACE}.
     * @throws CommException if the rendezvous cannot be reached, refuses, or aborts the job.
     */
    public static RendezvousClient register(InetSocketAddress rendezvous, JobSecret secret, int host, int hosts,
                                            InetSocketAddress server, Duration timeout) {
        long waitMillis = timeout.plus(GRACE).toMillis();
        long deadline = System.currentTimeMillis() + waitMillis;
        InetSocketAddress target = new InetSocketAddress(rendezvous.getHostString(), rendezvous.getPort());
        Socket socket = connect(target, host, deadline);
        try {
            socket.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            out.writeInt(HELLO);
            out.writeInt(MAGIC);
            out.writeInt(VERSION);
            out.write(secret.bytes());
            out.writeInt(host);
            out.writeInt(hosts);
            RendezvousProtocol.writeString(out, server.getHostString());
            out.writeInt(server.getPort());
            out.flush();
            socket.setSoTimeout((int) Math.max(1, deadline - System.currentTimeMillis()));
            int type = in.readInt();
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
            socket.setSoTimeout(0);
            RendezvousClient client = new RendezvousClient(host, target, socket, in, out, waitMillis, List.copyOf(table));
            client.reader.start();
            return client;
        } catch (IOException | RuntimeException e) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // Already failing.
            }
            if (e instanceof CommException c) {
                throw c;
            }
            String why = e instanceof SocketTimeoutException ? "no address table within " + waitMillis
                    + " ms (other hosts did not register?)"
                    : e instanceof EOFException ? "the rendezvous closed the connection (wrong job secret? see its stderr)"
                    : e.toString();
            throw new CommException("host " + host + ": registering at the rendezvous " + target + " failed: " + why, e);
        }
    }

    private static Socket connect(InetSocketAddress target, int host, long deadline) {
        IOException last = null;
        while (System.currentTimeMillis() < deadline) {
            Socket socket = new Socket();
            try {
                socket.connect(target, (int) Math.max(1, Math.min(5_000, deadline - System.currentTimeMillis())));
                return socket;
            } catch (ConnectException e) {
                // Not listening yet (process 0 may still be starting it): try again shortly.
                last = e;
            } catch (IOException e) {
                last = e;
            }
            try {
                socket.close();
                Thread.sleep(RETRY_MILLIS);
            } catch (IOException ignored) {
                // A socket that never connected.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new CommException("host " + host + ": cannot reach the rendezvous at " + target + ": " + last);
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

    /** As {@link #done(String)}, waiting at most {@code maxWaitMillis} (and never longer than the client's own bound). */
    public void done(String resultLine, long maxWaitMillis) {
        send(DONE, resultLine);
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

    private void send(int type, String text) {
        synchronized (out) {
            try {
                out.writeInt(type);
                RendezvousProtocol.writeString(out, text);
                out.flush();
            } catch (IOException e) {
                throw new CommException("host " + host + ": lost the rendezvous at " + rendezvous + ": " + e, e);
            }
        }
    }

    private void readLoop() {
        String lost;
        try {
            while (true) {
                int type = in.readInt();
                switch (type) {
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
        try {
            socket.close();
        } catch (IOException ignored) {
            // Nothing more to do.
        }
        try {
            reader.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
