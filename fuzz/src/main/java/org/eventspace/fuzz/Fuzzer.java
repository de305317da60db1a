package org.eventspace.fuzz;

import java.time.Duration;

/**
 * The fuzzer of one input format: from a case's seed it builds a damaged input out of a valid one, feeds it to the
 * code that reads that format and checks what happened. {@link FuzzRunner} runs its cases one at a time, each on a
 * daemon thread with {@link #caseTimeout()}, and counts anything that escapes {@link #run} (an exception, an
 * {@link OutOfMemoryError}) as a failure of that case.
 *
 * <p>Contract of {@link #run}: note every mutation with {@link FuzzCase#note} before the target sees it; end with
 * {@link FuzzCase#accepted()} or {@link FuzzCase#refused()}; catch only the exceptions the format documents, and check
 * them ({@link FuzzCase#checkRefusal}); throw {@link FuzzCase.CheckFailed} for anything else that is wrong. Only the
 * runner's thread calls {@link #run}, one case at a time; a case that timed out may still be running when the next
 * starts, so a fuzzer keeps no state between cases that such a case could spoil, beyond what it checks.
 */
interface Fuzzer extends AutoCloseable {
    /** The format's name on the command line: {@code pathmap}, {@code tcp}, … */
    String format();

    /** Runs case {@code c}: mutate, feed, check. */
    void run(FuzzCase c) throws Exception;

    /** How long one case may take before it counts as a hang. */
    default Duration caseTimeout() {
        return Duration.ofSeconds(60);
    }

    /** Checks that hold after a batch of cases (a server still serves a valid client); throws if one does not. */
    default void afterBatch() throws Exception {
    }

    /** Releases what the fuzzer holds (servers, files); not called while a case runs. */
    @Override
    default void close() throws Exception {
    }
}
