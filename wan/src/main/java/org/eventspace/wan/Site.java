package org.eventspace.wan;

/**
 * An emulated site: a sub-cluster behind one gateway (dissertation §8.1 §III: "A cluster is split into several
 * sub-clusters. For each sub-cluster we select one node to act as a gateway").
 *
 * @param name    the site's name in the link file.
 * @param cluster the topology cluster it stands for, or null for "the cluster at the site's place in the file".
 * @param gateway the host that runs the site's Longcut wrappers, or null for the cluster's first host.
 * @param line    the link file's line that declared it.
 */
public record Site(String name, String cluster, String gateway, int line) {
}
