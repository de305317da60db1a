package org.eventspace.comm.transport;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

    private static final Pattern MAILBOX = Pattern.compile("p2p\\.(0|[1-9][0-9]{0,8})\\.(0|[1-9][0-9]{0,8})");

    /** The source and destination rank of a point-to-point mailbox name {@code p2p.<source>.<dest>}, or null if it is not one. */
    public static int[] mailboxRanks(String name) {
        Matcher m = MAILBOX.matcher(name);
        return m.matches() ? new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))} : null;
    }
}
