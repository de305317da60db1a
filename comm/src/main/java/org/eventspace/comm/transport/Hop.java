package org.eventspace.comm.transport;

/**
 * What one inter-host connection serves: calls from {@code fromHost} into port {@code targetPort} of node
 * {@code targetNode} on {@code toHost}, or, for point-to-point traffic ({@code targetNode == -1}), writes into
 * element {@code element} on {@code toHost}.
 */
public record Hop(int fromHost, int toHost, int targetNode, int targetPort, String element) {
    public static Hop toNode(int fromHost, int toHost, int node, int port) {
        return new Hop(fromHost, toHost, node, port, "");
    }

    public static Hop toElement(int fromHost, int toHost, String element) {
        return new Hop(fromHost, toHost, -1, 0, element);
    }

    public boolean isPointToPoint() {
        return targetNode < 0;
    }
}
