package org.eventspace.comm.launch;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;

import org.eventspace.comm.Comm;
import org.eventspace.comm.path.CommException;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.runtime.HostRuntime;
import org.eventspace.comm.runtime.PathComm;
import org.eventspace.comm.transport.tcp.TcpOptions;
import org.eventspace.comm.transport.tcp.TcpServer;
import org.eventspace.comm.transport.tcp.TcpTransport;

/**
 * One host of a job whose hosts are processes joined by TCP: the one-process counterpart of
 * {@link org.eventspace.comm.runtime.InJvmCluster}.
 *
 * <p>{@link #start} starts this host's {@link TcpServer}, registers it with the {@link Rendezvous} (starting
 * the rendezvous first if the environment says this process runs it), builds the {@link HostRuntime} (phase 1),
 * waits at barrier {@code "built"} until every host built its wrappers — so no hop is ever opened to a host
 * that could not yet serve it — and then opens this host's hops (phase 2). {@link #comm(int)} gives each
 * rank mapped here its {@link Comm}; run each in its own thread.
 *
 * <p>End a job with {@link #finish(String)} on every host (reports the result line and waits until every host
 * finished, so that no host closes a hop another still needs), then {@link #close()}. Closing without
 * finishing is an abort: the other hosts' ranks fail with a {@link CommException} naming this host.
 *
 * <p>Threading: {@code start}, {@code finish} and {@code close} from one controlling thread; {@code comm}
 * from any thread. An abort from the rendezvous fails this host's greds from the rendezvous reader thread.
 */
public final class TcpHost implements AutoCloseable {
    public static final String BUILT_BARRIER = "built";
    /**
     * Every host has attached every one of its proxies. Without it a host that connected first could send a message
     * (a rank's first allreduce, the scope's INIT) to a host whose service thread then calls one of its own proxies
     * before that host attached it ("proxy … was called before its hop … was connected"): seen under load with the
     * scope's inner gathers on a host of their own.
     */
    public static final String CONNECTED_BARRIER = "connected";

    private final JobEnvironment env;
    private final HostRuntime runtime;
    private final TcpServer server;
    private final Rendezvous rendezvous;
    private final RendezvousClient client;
    private final TcpTransport transport;
    private boolean finished;
    private boolean closed;

    private TcpHost(JobEnvironment env, HostRuntime runtime, TcpServer server, Rendezvous rendezvous,
                    RendezvousClient client, TcpTransport transport) {
        this.env = env;
        this.runtime = runtime;
        this.server = server;
        this.rendezvous = rendezvous;
        this.client = client;
        this.transport = transport;
    }

    /** As {@link #start(Pathmap, JobEnvironment, CommOptions, TcpOptions)} with {@link TcpOptions#defaults()}. */
    public static TcpHost start(Pathmap pathmap, JobEnvironment env, CommOptions options) {
        return start(pathmap, env, options, TcpOptions.defaults());
    }

    /**
     * Starts host {@code env.host()} of {@code pathmap} and connects it to the other hosts.
     *
     * @throws CommException if the rendezvous fails or aborts, or a hop cannot be opened; everything started is
     *                       closed again.
     */
    public static TcpHost start(Pathmap pathmap, JobEnvironment env, CommOptions options, TcpOptions tcpOptions) {
        int hosts = pathmap.spec().topology().size();
        if (env.hosts() != hosts) {
            throw new IllegalArgumentException("the pathmap has " + hosts + " hosts but the job runs " + env.hosts()
                    + " host processes (" + env.source() + ")");
        }
        HostRuntime runtime = new HostRuntime(pathmap, env.host(), options);
        TcpServer server = null;
        Rendezvous rendezvous = null;
        RendezvousClient client = null;
        TcpTransport transport = null;
        try {
            server = TcpServer.start(runtime, env.secret(), tcpOptions);
            if (env.startsRendezvous()) {
                rendezvous = Rendezvous.start(env.rendezvous().getHostString(), env.rendezvous().getPort(), env.secret(),
                        hosts, env.rendezvousTimeout());
            }
            client = RendezvousClient.register(env.rendezvous(), env.secret(), env.host(), hosts, server.address(),
                    env.rendezvousTimeout(), env.rendezvousMayStartLate());
            runtime.build();
            client.barrier(BUILT_BARRIER);
            List<InetSocketAddress> table = client.addresses();
            transport = new TcpTransport(table, env.secret(), tcpOptions);
            TcpHost host = new TcpHost(env, runtime, server, rendezvous, client, transport);
            client.onAbort(host::aborted);
            runtime.connect(transport);
            client.barrier(CONNECTED_BARRIER);
            if (client.abortReason() != null) {
                throw new CommException("host " + runtime.hostName() + ": job aborted: " + client.abortReason());
            }
            return host;
        } catch (RuntimeException e) {
            if (client != null) {
                client.abort("host " + env.host() + " failed to start: " + e.getMessage());
            }
            closeQuietly(runtime, transport, server, client, rendezvous);
            throw e;
        }
    }

    public int host() {
        return env.host();
    }

    public JobEnvironment environment() {
        return env;
    }

    public HostRuntime runtime() {
        return runtime;
    }

    public InetSocketAddress serverAddress() {
        return server.address();
    }

    /** Ranks whose threads run on this host. */
    public List<Integer> ranks() {
        return runtime.pathmap().spec().ranksOn(env.host());
    }

    public Comm comm(int rank) {
        int size = runtime.pathmap().spec().ranks();
        if (rank < 0 || rank >= size || runtime.pathmap().spec().hostOf(rank) != env.host()) {
            throw new IllegalArgumentException("rank " + rank + " does not run on host " + env.host() + "; its ranks are " + ranks());
        }
        return new PathComm(rank, runtime);
    }

    /** The rendezvous this process runs, if it runs one (process 0 under mpirun/srun with ES_RENDEZVOUS_PORT). */
    public Optional<Rendezvous> rendezvous() {
        return Optional.ofNullable(rendezvous);
    }

    /**
     * Reports this host's result line (one JSON line, or "" if none) and waits until every host did. Call once
     * every rank of this host returned from its last collective.
     *
     * @throws CommException if the job was aborted or a host did not finish in time.
     */
    public void finish(String resultLine) {
        finish(resultLine, null);
    }

    /**
     * As {@link #finish(String)}, waiting for the other hosts at most {@code wait} (null: the rendezvous' own bound).
     * A host whose ranks failed uses a short wait: its job has failed already, and a peer that stopped answering
     * (frozen, or stuck in a collective of its own) must not hold it, and so the whole job, for the full bound.
     */
    public void finish(String resultLine, java.time.Duration wait) {
        if (finished) {
            throw new IllegalStateException("host " + env.host() + " already finished");
        }
        finished = true;
        // This host's ranks are done: a peer closing its hops from now on is a peer that finished too.
        server.expectDisconnects();
        if (wait == null) {
            client.done(resultLine);
        } else {
            client.done(resultLine, wait.toMillis());
        }
    }

    private void aborted(String reason) {
        runtime.failAll(new CommException("job aborted: " + reason));
    }

    /** Ends every thread and socket of this host within a bounded time. An abort if {@link #finish} was not called. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (!finished) {
            // Ranks of this host still waiting in a gred must not wait for hops that are about to close.
            runtime.failAll(new CommException("host " + runtime.hostName() + " was closed before the job finished"));
        }
        closeQuietly(runtime, transport, server, client, rendezvous);
    }

    private static void closeQuietly(AutoCloseable... all) {
        for (AutoCloseable c : all) {
            if (c == null) {
                continue;
            }
            try {
                c.close();
            } catch (Exception e) {
                System.err.println("es-tcp: closing " + c + " failed: " + e);
            }
        }
    }
}
