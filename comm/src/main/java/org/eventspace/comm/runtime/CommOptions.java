package org.eventspace.comm.runtime;

import java.time.Duration;

import org.eventspace.comm.path.Gred;
import org.eventspace.comm.path.WaitPolicy;

/**
 * Settings shared by every host of a job: the wrapper kinds it may instantiate, how threads wait for each
 * other (and for how long before a collective fails), and who hears about released greds.
 */
public record CommOptions(WrapperKinds kinds, WaitPolicy waitPolicy, Gred.ReleaseListener releaseListener) {
    /** Built-in kinds, a wait policy for {@code busyThreads} threads per process and the default timeout. */
    public static CommOptions defaults(int busyThreads) {
        return new CommOptions(WrapperKinds.builtIn(), WaitPolicy.forThreads(busyThreads, WaitPolicy.DEFAULT_TIMEOUT),
                Gred.ReleaseListener.NONE);
    }

    public CommOptions withTimeout(Duration timeout) {
        return new CommOptions(kinds, waitPolicy.withTimeout(timeout), releaseListener);
    }

    public CommOptions withKinds(WrapperKinds newKinds) {
        return new CommOptions(newKinds, waitPolicy, releaseListener);
    }

    public CommOptions withWaitPolicy(WaitPolicy policy) {
        return new CommOptions(kinds, policy, releaseListener);
    }

    /** With {@code listener} told of every gred's rounds (coscheduling). */
    public CommOptions withReleaseListener(Gred.ReleaseListener listener) {
        return new CommOptions(kinds, waitPolicy, listener);
    }
}
