package org.eventspace.mpi;

import java.util.List;

/**
 * Where an MPI run's ranks were: each rank's host (its node agent's index, 0 .. hosts-1) and the hosts' names by
 * index.
 */
public record MpiHostLayout(int[] rankHosts, List<String> hostNames) {
    public MpiHostLayout {
        rankHosts = rankHosts.clone();
        hostNames = List.copyOf(hostNames);
    }
}
