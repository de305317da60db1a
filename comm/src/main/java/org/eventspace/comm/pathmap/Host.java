package org.eventspace.comm.pathmap;

/** One host of the topology: an id (its index), a name, the cluster it belongs to and its CPU count. */
public record Host(int id, String name, String cluster, int cpus) {
    public Host {
        if (cpus < 1) {
            throw new IllegalArgumentException("host " + name + " must have at least one CPU, cpus=" + cpus);
        }
    }
}
