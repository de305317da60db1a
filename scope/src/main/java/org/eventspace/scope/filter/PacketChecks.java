package org.eventspace.scope.filter;

/**
 * Checks a filter makes on packets it receives, so that a scope that mixes rounds, streams or filters fails
 * loudly with the values that were wrong instead of merging unrelated data.
 */
final class PacketChecks {
    private PacketChecks() {
    }

    static void requirePull(String filter, Packet command) {
        if (command.tag() != Packet.PULL) {
            throw new IllegalArgumentException(filter + ": expected a PULL command (tag " + Packet.PULL
                    + "), tag=" + command.tag() + ", round=" + command.round());
        }
    }

    static void requireChild(String filter, Packet command, int child, Packet packet, int tag) {
        if (packet.tag() != tag || packet.round() != command.round()) {
            throw new IllegalArgumentException(filter + ": child " + child + " sent tag " + packet.tag()
                    + " for round " + packet.round() + ", expected tag " + tag + " for round " + command.round());
        }
    }

    static IllegalArgumentException malformed(String filter, int child, String expected, String found) {
        return new IllegalArgumentException(filter + ": malformed packet from child " + child + ": expected "
                + expected + ", found " + found);
    }
}
