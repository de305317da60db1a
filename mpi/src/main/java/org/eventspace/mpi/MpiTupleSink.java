package org.eventspace.mpi;

import org.eventspace.events.TraceTupleFlyweight;

/** What a {@link NodeAgent} hands its tuples to; called from the agent's thread only. */
interface MpiTupleSink {
    /** A rank's files were mapped; called before any of its tuples. */
    void onRank(int host, MpiRankFiles rank);

    /** A communicator some rank joined, with its size; called before a tuple of that rank that uses it. */
    void onCommunicator(int id, int size);

    /** Whether every rank of the job has been mapped (agents then stop looking for new files). */
    boolean everyRankSeen();

    /**
     * Whether {@code rank}'s reader should read other ranks first: its calls already read wait for partners the other
     * readers have not reached (bounded memory without dropping; an agent reads it anyway once no rank can move).
     */
    default boolean holdBack(int rank) {
        return false;
    }

    /** One tuple of {@code rank}; the flyweight is valid only during the call. */
    void onTuple(int host, int rank, TraceTupleFlyweight tuple);
}
