package org.eventspace.comm.pathmap;

/** Where rank {@code rank}'s path into tree {@code tree} starts: port {@code port} of node {@code node}. */
public record Entry(int tree, int rank, int node, int port) {
}
