package org.eventspace.job;

/**
 * Told by each rank when it starts and ends the part of its work that is timed, so what the event spaces recorded
 * in that window can be set against the calls made in it (bytes per call, EventSpace §6.1). Called once before and
 * once after the timed loop: nothing is added per call. Implementations may be called from every rank thread.
 */
public interface TimedWindow {
    /** A window nobody watches. */
    TimedWindow NONE = new TimedWindow() {
        @Override
        public void started(int rank) {
        }

        @Override
        public void ended(int rank) {
        }
    };

    /** Rank {@code rank} is about to start its timed iterations. */
    void started(int rank);

    /** Rank {@code rank} ended its timed iterations. */
    void ended(int rank);
}
