package org.eventspace.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.path.ValueType;
import org.eventspace.comm.path.Wrapper;
import org.junit.jupiter.api.Test;

/** An event collector alone, with a fake next wrapper (STYLE: each wrapper testable alone). */
class EventCollectorTest {
    private final TraceBuffer buffer = TraceBuffer.heap(16, 5);
    private final TraceBufferReader reader = buffer.newReader();
    private final TraceTupleFlyweight tuple = new TraceTupleFlyweight();

    /** What the fake next wrapper saw: the clock while it ran. */
    private long insideNs;

    private TraceTupleFlyweight onlyTuple() {
        assertThat(reader.readNext(tuple)).isTrue();
        return tuple;
    }

    @Test
    void timesTheCallBelowAndRecordsTheResultAsItComesBackUp() {
        Wrapper core = m -> {
            insideNs = System.nanoTime();
            m.sequence(77).word(0, m.word(0) + 100);   // the core assigns the sequence; the result comes back up
        };
        EventCollector collector = new EventCollector(5, buffer, core);
        Message message = new Message(1).op(ReduceOp.SUM).type(ValueType.LONG).length(1).word(0, 1).sequence(3);

        collector.call(message);

        assertThat(message.word(0)).isEqualTo(101);
        TraceTupleFlyweight t = onlyTuple();
        assertThat(t.collectorId()).isEqualTo(5);
        assertThat(t.opType()).isEqualTo(TraceOp.ALLREDUCE_SUM);
        assertThat(t.flags()).isZero();
        assertThat(t.sequence()).isEqualTo(77);
        assertThat(t.value()).isEqualTo(101);
        assertThat(t.startNs()).isLessThanOrEqualTo(insideNs);
        assertThat(t.endNs()).isGreaterThanOrEqualTo(insideNs);
        assertThat(reader.readNext(tuple)).isFalse();
    }

    @Test
    void opTypeAndValueFollowTheMessage() {
        EventCollector collector = new EventCollector(5, buffer, m -> { });
        Message message = new Message(8);

        collector.call(message.op(ReduceOp.SUM).type(ValueType.LONG).length(0));
        assertThat(onlyTuple().opType()).isEqualTo(TraceOp.BARRIER);
        assertThat(tuple.value()).isZero();
        assertThat(tuple.flags()).isEqualTo(TraceOp.FLAG_VALUE_IS_SIZE);

        collector.call(message.op(ReduceOp.MAX).type(ValueType.DOUBLE).length(1).word(0, Double.doubleToRawLongBits(2.5)));
        assertThat(onlyTuple().opType()).isEqualTo(TraceOp.ALLREDUCE_MAX);
        assertThat(Double.longBitsToDouble(tuple.value())).isEqualTo(2.5);
        assertThat(tuple.flags()).isEqualTo(TraceOp.FLAG_DOUBLE);

        collector.call(message.op(ReduceOp.MIN).type(ValueType.LONG).length(3));
        assertThat(onlyTuple().opType()).isEqualTo(TraceOp.ALLREDUCE_MIN);
        assertThat(tuple.value()).isEqualTo(3);
        assertThat(tuple.flags()).isEqualTo(TraceOp.FLAG_VALUE_IS_SIZE);

        collector.call(message.op(ReduceOp.SLOT).length(6));
        assertThat(onlyTuple().opType()).isEqualTo(TraceOp.PLACEMENT);
        assertThat(tuple.value()).isEqualTo(6);

        collector.call(message.op(ReduceOp.SLOT).element("p2p.0.1").length(2));
        assertThat(onlyTuple().opType()).isEqualTo(TraceOp.SEND);
        assertThat(tuple.value()).isEqualTo(2);
    }

    @Test
    void failureBelowIsRecordedAsFailedAndRethrown() {
        CommException failure = new CommException("gred t0.gred.h0.0: 1 of 2 contributors arrived");
        EventCollector collector = new EventCollector(5, buffer, m -> {
            throw failure;
        });
        Message message = new Message(1).op(ReduceOp.SUM).length(1).sequence(9);

        assertThatThrownBy(() -> collector.call(message)).isSameAs(failure);

        TraceTupleFlyweight t = onlyTuple();
        assertThat(t.failed()).isTrue();
        assertThat(t.sequence()).isEqualTo(9);
        assertThat(t.endNs()).isGreaterThanOrEqualTo(t.startNs());
    }

    @Test
    void constructorRejectsWhatItCannotUse() {
        assertThatThrownBy(() -> new EventCollector(-1, buffer, m -> { })).hasMessageContaining("collectorId=-1");
        assertThatThrownBy(() -> new EventCollector(1, null, m -> { })).hasMessageContaining("buffer=null");
    }
}
