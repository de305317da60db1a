package org.eventspace.mpi;

import org.eventspace.events.TraceTupleFlyweight;

/**
 * Something that wants every MPI call the node agents read, besides the run's own analysis (a trace recorder:
 * {@code mpirun --trace}). Set with {@link MpiRun#listen} before the run.
 */
public interface MpiCallListener {
    /**
     * One call of MPI_COMM_WORLD rank {@code rank}, in the order the rank made them (decode it with {@link MpiTuple} and
     * {@link MpiOp}; timestamps on the rank's own clock). Called on the agent thread only; the tuple is valid only
     * during the call.
     */
    void onCall(int rank, TraceTupleFlyweight tuple);
}
