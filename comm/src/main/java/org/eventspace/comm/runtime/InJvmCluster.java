package org.eventspace.comm.runtime;

import java.util.ArrayList;
import java.util.List;

import org.eventspace.comm.Comm;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.transport.jvm.InJvmTransport;

/**
 * A whole simulated cluster in one process: one {@link HostRuntime} per host of the pathmap, joined by an
 * {@link InJvmTransport}. {@link #comm(int)} gives each rank its {@link Comm}; run each rank in its own thread.
 */
public final class InJvmCluster implements AutoCloseable {
    private final Pathmap pathmap;
    private final List<HostRuntime> hosts = new ArrayList<>();
    private final InJvmTransport transport = new InJvmTransport();

    private InJvmCluster(Pathmap pathmap) {
        this.pathmap = pathmap;
    }

    public static InJvmCluster start(Pathmap pathmap, CommOptions options) {
        InJvmCluster cluster = new InJvmCluster(pathmap);
        for (int h = 0; h < pathmap.spec().topology().size(); h++) {
            HostRuntime host = new HostRuntime(pathmap, h, options);
            cluster.hosts.add(host);
            cluster.transport.register(host);
            host.build();
        }
        for (HostRuntime host : cluster.hosts) {
            host.connect(cluster.transport);
        }
        return cluster;
    }

    public Pathmap pathmap() {
        return pathmap;
    }

    public HostRuntime host(int id) {
        return hosts.get(id);
    }

    public List<HostRuntime> hosts() {
        return List.copyOf(hosts);
    }

    public Comm comm(int rank) {
        return new PathComm(rank, hosts.get(pathmap.spec().hostOf(rank)));
    }

    @Override
    public void close() {
        for (HostRuntime host : hosts) {
            host.close();
        }
        transport.close();
    }
}
