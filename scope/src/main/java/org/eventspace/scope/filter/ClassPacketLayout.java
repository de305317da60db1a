package org.eventspace.scope.filter;

/**
 * Layout of the longs and doubles of a {@link ClassFilter} packet sent up (tag {@link ClassFilter#CLASSES},
 * round r): Phase C's classes of the round b = r−1 whose bounds the command carried, then Phase A's classes of
 * round r (ToM §4.3 over §4.2's three phases). Classes are sorted by id (signed), a class's events by name; the
 * packet's name records list the events in the same order, round b's first. Indexes count longs (or doubles) from
 * the start of the array, offsets from the start of the part they are in.
 *
 * <pre>
 *   longs
 *        +--------------------------------------------------------------------------------------------+
 *     0  | b: the round the binned classes describe; -1 while the pipeline fills (then C = 0)         |
 *     1  | raw record words of round b below this node (ConcatFilter's size, for the reduction factor)|
 *     2  | C: binned classes (round b)                                                                |
 *     3  | A: Phase A classes (round r)                                                               |
 *        +--------------------------------------------------------------------------------------------+
 *        | C binned classes, each:                                                                   ...
 *        |   +0  class id      +1  R: rank runs      +2  E: events                                    |
 *        |   +3  R runs of RankList.RUN_LONGS longs: first, last, stride                             ...
 *        |   +3+3R  E counts, one per event                                                          ...
 *        +--------------------------------------------------------------------------------------------+
 *        | A Phase A classes, each:                                                                  ...
 *        |   +0  class id      +1  E: events                                                          |
 *        +--------------------------------------------------------------------------------------------+
 *        | the bin counts of every binned (class, event) in the order above, BINS each, packed as    ...
 *        | PackedCounts varints to the end of the longs                                               |
 *        +--------------------------------------------------------------------------------------------+
 *
 *   doubles
 *        +--------------------------------------------------------------------------------------------+
 *        | per event of each binned class: StatisticsLayout (mean, M2, min, max); min and max are   ...
 *        | the bounds its bins used                                                                   |
 *        +--------------------------------------------------------------------------------------------+
 *        | per event of each Phase A class: +0 minimum, +1 maximum                                   ...
 *        +--------------------------------------------------------------------------------------------+
 * </pre>
 */
final class ClassPacketLayout {
    /** The round b whose classes the packet carries binned, −1 for none. */
    static final int BINNED_ROUND_INDEX = 0;
    /** Raw record words of round b below the node. */
    static final int RAW_WORDS_INDEX = BINNED_ROUND_INDEX + 1;
    /** C, the binned classes. */
    static final int BINNED_CLASSES_INDEX = RAW_WORDS_INDEX + 1;
    /** A, the Phase A classes. */
    static final int PHASE_A_CLASSES_INDEX = BINNED_CLASSES_INDEX + 1;
    /** Longs of the header; the first binned class starts here. */
    static final int HEADER_LONGS = PHASE_A_CLASSES_INDEX + 1;

    /** Offsets in a binned class, from its first long. */
    static final int BINNED_CLASS_ID_OFFSET = 0;
    static final int BINNED_CLASS_RUNS_OFFSET = BINNED_CLASS_ID_OFFSET + 1;
    static final int BINNED_CLASS_EVENTS_OFFSET = BINNED_CLASS_RUNS_OFFSET + 1;
    /** Longs of a binned class before its runs; the runs, then the event counts, follow. */
    static final int BINNED_CLASS_HEADER_LONGS = BINNED_CLASS_EVENTS_OFFSET + 1;

    /** Offsets in a Phase A class, from its first long. */
    static final int PHASE_A_CLASS_ID_OFFSET = 0;
    static final int PHASE_A_CLASS_EVENTS_OFFSET = PHASE_A_CLASS_ID_OFFSET + 1;
    /** Longs of a Phase A class. */
    static final int PHASE_A_CLASS_LONGS = PHASE_A_CLASS_EVENTS_OFFSET + 1;

    /** Doubles per event of a binned class. */
    static final int BINNED_EVENT_DOUBLES = StatisticsLayout.DOUBLES;
    /** Offsets in a Phase A event's doubles. */
    static final int PHASE_A_MIN_OFFSET = 0;
    static final int PHASE_A_MAX_OFFSET = PHASE_A_MIN_OFFSET + 1;
    /** Doubles per event of a Phase A class. */
    static final int PHASE_A_EVENT_DOUBLES = PHASE_A_MAX_OFFSET + 1;

    private ClassPacketLayout() {
    }
}
