package org.eventspace.monitor;

import org.eventspace.job.Labelled;

/**
 * When the communication system lets a host's analysis thread run (EventSpace paper §4.3; the paper measured the
 * statistics monitor's overhead fall from 9 % with none to 3 % with (i) and 1 % with (ii)).
 */
public enum Coschedule implements Labelled {
    /** The analysis thread runs whenever the scheduler gives it a core, and sleeps briefly when it finds nothing. */
    NONE,
    /** Released when all of a host's contributors arrived at its topmost gred and the message left for the root. */
    I,
    /** Released when the broadcast released the host's application threads (after them). */
    II
}
