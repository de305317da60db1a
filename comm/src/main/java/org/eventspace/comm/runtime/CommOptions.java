package org.eventspace.comm.runtime;

import java.time.Duration;

import org.eventspace.comm.path.Gred;
import org.eventspace.comm.path.WaitPolicy;
import org.eventspace.comm.traffic.TrafficScope;

/**
 * Settings shared by every host of a job: the wrapper kinds it may instantiate, how threads wait for each
 * other (and for how long before a collective fails), who hears about released greds, and which messages the
 * transports count per destination ({@code traffic}, null: none; one {@link TrafficScope} for every host of the
 * process, so that they number the ranks' phases alike).
 */
public record CommOptions(WrapperKinds kinds, WaitPolicy waitPolicy, Gred.ReleaseListener releaseListener,
                          TrafficScope traffic) {
    public CommOptions(WrapperKinds kinds, WaitPolicy waitPolicy, Gred.ReleaseListener releaseListener) {
        this(kinds, waitPolicy, releaseListener, null);
    }

    /** Built-in kinds, a wait policy for {@code busyThreads} threads per process and the default timeout. */
    public static CommOptions defaults(int busyThreads) {
        return new CommOptions(WrapperKinds.builtIn(), WaitPolicy.forThreads(busyThreads, WaitPolicy.DEFAULT_TIMEOUT),
                Gred.ReleaseListener.NONE);
    }

    public CommOptions withTimeout(Duration timeout) {
        return new CommOptions(kinds, waitPolicy.withTimeout(timeout), releaseListener, traffic);
    }

    public CommOptions withKinds(WrapperKinds newKinds) {
        return new CommOptions(newKinds, waitPolicy, releaseListener, traffic);
    }

    public CommOptions withWaitPolicy(WaitPolicy policy) {
        return new CommOptions(kinds, policy, releaseListener, traffic);
    }

    /** With {@code listener} told of every gred's rounds (coscheduling). */
    public CommOptions withReleaseListener(Gred.ReleaseListener listener) {
        return new CommOptions(kinds, waitPolicy, listener, traffic);
    }

    /** With the transports counting the messages {@code scope} chooses (null: none). */
    public CommOptions withTraffic(TrafficScope scope) {
        return new CommOptions(kinds, waitPolicy, releaseListener, scope);
    }
}
