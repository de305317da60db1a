package org.eventspace.mpi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.agrona.concurrent.Agent;
import org.eventspace.events.TraceBufferReader;
import org.eventspace.events.TraceTupleFlyweight;

/**
 * The node agent of one host: maps the trace buffer and meta file of every rank on its host as the rank
 * creates them, and drains each rank's new tuples into a {@link MpiTupleSink}, through a
 * {@link org.eventspace.events.TraceBufferReader} of its own, so what the ring overwrote before it was read is
 * counted exactly ({@link #missed()}). The ranks never wait for it: if it is slow, late or absent they run on and
 * the files remain.
 *
 * <p>Not thread-safe: run it on one thread (an {@link org.agrona.concurrent.AgentRunner}, alone or in a
 * {@link org.agrona.concurrent.CompositeAgent} with the other hosts' agents of this process, so one sink sees every
 * host's tuples without a lock), or step {@link #doWork()} by hand.
 */
public final class NodeAgent implements Agent {
    /** Tuples read from one rank per duty cycle, so one busy rank does not starve the others. */
    static final int BATCH = 4096;
    private static final long RESCAN_NS = 100_000_000L;

    private final Path hostDir;
    private final int host;
    private final MpiTupleSink sink;
    private final List<MpiRankFiles> ranks = new ArrayList<>();
    private final Set<Path> opened = new HashSet<>();
    private final List<int[]> commsSeenPerRank = new ArrayList<>();
    private final TraceTupleFlyweight tuple = new TraceTupleFlyweight();
    private long lastScanNs;
    private boolean scanNow = true;

    /**
     * @param hostDir the host's folder ({@code ES_MPI_DIR/host-<host>}); it may not exist yet.
     * @param host    the host's index in this run's report.
     */
    NodeAgent(Path hostDir, int host, MpiTupleSink sink) {
        this.hostDir = hostDir;
        this.host = host;
        this.sink = sink;
    }

    @Override
    public String roleName() {
        return "es-mpi-agent-" + host;
    }

    @Override
    public int doWork() {
        return read(false);
    }

    /**
     * One duty cycle: up to {@link #BATCH} tuples of each rank, skipping the ranks the sink holds back unless
     * {@code force}.
     */
    int read(boolean force) {
        int work = 0;
        long now = System.nanoTime();
        if (scanNow || now - lastScanNs >= RESCAN_NS && !sink.everyRankSeen()) {
            scanNow = false;
            lastScanNs = now;
            work += scan();
        }
        for (int i = 0; i < ranks.size(); i++) {
            MpiRankFiles r = ranks.get(i);
            work += learnCommunicators(r, commsSeenPerRank.get(i));
            int rank = r.rank();
            if (!force && sink.holdBack(rank)) {
                continue;
            }
            for (TraceBufferReader ring : r.rings()) {
                for (int n = 0; n < BATCH && ring.readNext(tuple); n++) {
                    sink.onTuple(host, rank, tuple);
                    work++;
                }
            }
        }
        return work;
    }

    /** Reads until every rank's buffer is at its write position (after the ranks ended: everything left). */
    public void drain() {
        drain(List.of(this));
    }

    /**
     * Reads the agents' ranks until every buffer is at its write position, one batch per rank in turn across the
     * agents, so no host's reader runs a whole ring ahead of another's; held-back ranks are read once no other can be.
     */
    static void drain(List<NodeAgent> agents) {
        for (NodeAgent a : agents) {
            a.scanNow = true;
        }
        while (true) {
            int work = 0;
            for (NodeAgent a : agents) {
                work += a.read(false);
            }
            if (work == 0) {
                for (NodeAgent a : agents) {
                    work += a.read(true);
                }
            }
            if (work == 0) {
                return;
            }
        }
    }

    /** Per rank of this host (its MPI_COMM_WORLD rank, below {@code worldSize}): tuples its ring overwrote unread. */
    void missedByRank(long[] into) {
        for (MpiRankFiles r : ranks) {
            if (r.rank() >= 0 && r.rank() < into.length) {
                into[r.rank()] += r.missed();
            }
        }
    }

    private int learnCommunicators(MpiRankFiles r, int[] seen) {
        int n = r.communicators();
        int learnt = 0;
        for (; seen[0] < n; seen[0]++, learnt++) {
            sink.onCommunicator(r.communicatorId(seen[0]), r.communicatorSize(seen[0]));
        }
        return learnt;
    }

    private int scan() {
        if (!Files.isDirectory(hostDir)) {
            return 0;
        }
        int found = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(hostDir, "rank-*.meta")) {
            for (Path meta : files) {
                if (opened.contains(meta)) {
                    continue;
                }
                MpiRankFiles r = MpiRankFiles.open(meta, host);
                if (r != null) {
                    opened.add(meta);
                    ranks.add(r);
                    commsSeenPerRank.add(new int[1]);
                    sink.onRank(host, r);
                    found++;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("node agent of host " + host + " cannot read " + hostDir + ": " + e.getMessage(), e);
        }
        return found;
    }

    /** A new agent of the same host folder feeding {@code other}, which reads every rank's ring from its start. */
    NodeAgent rereading(MpiTupleSink other) {
        return new NodeAgent(hostDir, host, other);
    }

    /** The ranks this agent has mapped so far. */
    List<MpiRankFiles> ranks() {
        return ranks;
    }

    /** Tuples the rings overwrote before this agent read them, over every rank. */
    public long missed() {
        long m = 0;
        for (MpiRankFiles r : ranks) {
            m += r.missed();
        }
        return m;
    }

    /** Tuples written, over every rank (the buffers' write positions). */
    public long written() {
        long w = 0;
        for (MpiRankFiles r : ranks) {
            w += r.written();
        }
        return w;
    }

    @Override
    public void onClose() {
        for (MpiRankFiles r : ranks) {
            r.close();
        }
        ranks.clear();
    }
}
