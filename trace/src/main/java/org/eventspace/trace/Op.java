package org.eventspace.trace;

/**
 * The communication calls a trace records: one per {@link org.eventspace.comm.Comm} method (the long and double,
 * scalar and array allreduces apart, since a replay must issue the same one). The lower-case name is the one the
 * trace file uses.
 */
public enum Op {
    ALLREDUCE_LONG(true, false, false),
    ALLREDUCE_DOUBLE(true, false, false),
    ALLREDUCE_LONGS(true, false, false),
    ALLREDUCE_DOUBLES(true, false, false),
    BARRIER(true, false, false),
    BROADCAST(true, false, true),
    GATHER(true, false, true),
    ALLGATHER(true, false, false),
    SCATTER(true, false, true),
    ALLTOALL(true, false, false),
    SEND(false, true, false),
    RECV(false, true, false);

    private static final Op[] VALUES = values();

    private final boolean collective;
    private final boolean pointToPoint;
    private final boolean rooted;
    private final String fileName;

    Op(boolean collective, boolean pointToPoint, boolean rooted) {
        this.collective = collective;
        this.pointToPoint = pointToPoint;
        this.rooted = rooted;
        this.fileName = name().toLowerCase(java.util.Locale.ROOT);
    }

    public boolean collective() {
        return collective;
    }

    /** Has a peer (recorded relative to the caller's rank). */
    public boolean pointToPoint() {
        return pointToPoint;
    }

    /** Has a root rank (recorded as is). */
    public boolean rooted() {
        return rooted;
    }

    /** Carries a reduce operator. */
    public boolean reduces() {
        return ordinal() <= ALLREDUCE_DOUBLES.ordinal();
    }

    public String fileName() {
        return fileName;
    }

    /** The op of a trace file's name, or null. */
    public static Op ofFileName(String name) {
        for (Op op : VALUES) {
            if (op.fileName.equals(name)) {
                return op;
            }
        }
        return null;
    }
}
