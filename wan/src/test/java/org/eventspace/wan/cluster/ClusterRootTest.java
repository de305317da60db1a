package org.eventspace.wan.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Condition;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.path.SpinYieldPark;
import org.eventspace.comm.path.ValueType;
import org.eventspace.comm.path.WaitPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The cluster root of cluster 0 of three, its caches filled by hand as scripted arrivals from clusters 1 and 2
 * (dissertation appendix 7.3 §IV): decided on the local result, on a cache read, by the sequence-number rule (both
 * answers), by the full exchange, and a plain call's exact sum. Every call here finds what it needs already cached, so
 * none waits.
 */
@Timeout(10)
class ClusterRootTest {
    private static final double EPSILON = 10.0;
    private final ClusterState state = new ClusterState(0, 3, 16);
    private final ClusterRoot root = new ClusterRoot("t0.clusterroot.h0.mc0", m -> { }, state, Condition.GREATER, EPSILON,
            new SpinYieldPark(new WaitPolicy(100, 1_000, 1_000_000_000L)), 16, () -> { });

    private static Message conditional(double value) {
        return new Message(1).op(ReduceOp.SUM).type(ValueType.DOUBLE).length(1)
                .word(0, Double.doubleToRawLongBits(value)).until(Condition.GREATER.code());
    }

    /** A partialfetch reply: sequence number, lastFalse, one payload word. */
    private static Message tuple(long seq, long lastFalse, double value) {
        return new Message(3).length(3).word(0, seq).word(1, lastFalse).word(2, Double.doubleToRawLongBits(value));
    }

    private boolean decide(double local) {
        Message m = conditional(local);
        root.call(m);
        assertThat(m.length()).isEqualTo(1);
        return m.word(0) == 1L;
    }

    @Test
    void aLocalResultPastTheConstantDecidesWithoutAnyRemoteTuple() {
        assertThat(decide(11.0)).isTrue();
        assertThat(root.decided).containsExactly(1, 0, 0, 0);
        assertThat(state.done).isZero();
    }

    @Test
    void oneCachedRemotePartialCanDecideTrue() {
        state.caches[2].put(tuple(0, -1, 20.0));
        assertThat(decide(1.0)).isTrue();
        assertThat(root.decided).containsExactly(0, 1, 0, 0);
    }

    @Test
    void aNewerRemoteTupleMeansThatClusterFoundTheConditionTrue() {
        state.caches[1].put(tuple(5, -1, 0.0));
        assertThat(decide(1.0)).isTrue();
        assertThat(root.decided).containsExactly(0, 0, 1, 0);
    }

    @Test
    void aNewerRemoteTupleThatDecidedThisCallFalseMeansFalse() {
        state.caches[1].put(tuple(1, 0, 0.0));
        assertThat(decide(1.0)).isFalse();
        assertThat(root.decided).containsExactly(0, 0, 1, 0);
    }

    @Test
    void everyPartialBelowTheConstantIsTheFullExchangeAndIsPublishedAsFalse() throws Exception {
        state.caches[1].put(tuple(0, -1, 2.0));
        state.caches[2].put(tuple(0, -1, 3.0));
        assertThat(decide(1.0)).isFalse();
        assertThat(root.decided).containsExactly(0, 0, 0, 1);
        assertThat(state.lastFalse).isZero();
        // The next call's published tuple tells the others that call 0 was false.
        assertThat(decide(12.0)).isTrue();
        Message reply = new Message(3);
        state.fetch(1, reply);
        assertThat(reply.word(0)).isEqualTo(1);
        assertThat(reply.word(1)).isZero();
        assertThat(Double.longBitsToDouble(reply.word(2))).isEqualTo(12.0);
    }

    @Test
    void aPlainCallCombinesEveryClusterInClusterOrder() {
        state.caches[1].put(new Message(4).length(4).word(0, 0).word(1, -1).word(2, 20).word(3, 200));
        state.caches[2].put(new Message(4).length(4).word(0, 0).word(1, -1).word(2, 300).word(3, 3000));
        Message m = new Message(2).op(ReduceOp.SUM).type(ValueType.LONG).length(2).word(0, 1).word(1, 10);
        root.call(m);
        assertThat(m.length()).isEqualTo(2);
        assertThat(m.word(0)).isEqualTo(321);
        assertThat(m.word(1)).isEqualTo(3210);
    }

    @Test
    void aCallWithAnotherConditionIsRefused() {
        Message m = conditional(1.0).until(Condition.LESS.code());
        assertThatThrownBy(() -> root.call(m)).isInstanceOf(CommException.class)
                .hasMessageContaining("asks LESS but this tree decides GREATER");
    }

    @Test
    void aFetchOfANewerCallThanPublishedAnswersNoneYetAfterItsSlice() throws Exception {
        Message reply = new Message(3);
        state.fetch(0, reply);
        assertThat(reply.word(0)).isEqualTo(-1);
    }

    /**
     * A remote root still waiting at plain call 0 gets this cluster's exact partial of it, although this cluster ran
     * past the ring's depth of conditional calls decided on local values (each needs no remote partial): a fetch for
     * call 0 must not answer with the newest tuple, which would make the waiting root fail "past call 0".
     */
    @Test
    void theNewestPlainCallsPartialStaysFetchableAfterManyLocallyDecidedCalls() throws Exception {
        Message plain = new Message(1).op(ReduceOp.SUM).type(ValueType.LONG).length(1).word(0, 42L);
        state.publish(0, plain, true);
        for (long s = 1; s <= ClusterState.RING * 3; s++) {
            state.publish(s, conditional(11.0), false);
        }
        Message reply = new Message(3);
        state.fetch(0, reply);
        assertThat(reply.word(0)).as("sequence number").isZero();
        assertThat(reply.word(2)).as("the plain call's partial").isEqualTo(42L);
        // A conditional call the ring no longer holds is answered by a newer tuple: the sequence-number rule decides it.
        state.fetch(1, reply);
        assertThat(reply.word(0)).isEqualTo(ClusterState.RING * 3L);
    }
}
