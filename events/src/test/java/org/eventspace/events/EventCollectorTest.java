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

    @Test
    void aPutOffTupleIsWrittenWhenTheHostWaitsOrAtTheCollectorsNextCallAndNeverLost() {
        org.eventspace.comm.path.IdleWork idle = new org.eventspace.comm.path.IdleWork();
        EventCollector collector = new EventCollector(5, buffer, m -> m.sequence(m.sequence() + 1),
                EventCollector.ClockSharing.NONE, false, false, idle);
        Message message = new Message(1).op(ReduceOp.SUM).type(ValueType.LONG).length(1).word(0, 1).sequence(10);

        collector.call(message);
        assertThat(reader.readNext(tuple)).as("left for the host's wait").isFalse();
        idle.run();
        assertThat(onlyTuple().sequence()).isEqualTo(11);
        idle.run();
        assertThat(reader.readNext(tuple)).as("written once").isFalse();

        // No wait ran between two calls: the first tuple goes in when the second is recorded, in order.
        collector.call(message.sequence(20));
        collector.call(message.sequence(30));
        assertThat(onlyTuple().sequence()).isEqualTo(21);
        assertThat(reader.readNext(tuple)).isFalse();
        // A failed call writes the one left and its own at once.
        EventCollector failing = new EventCollector(6, buffer, m -> {
            throw new CommException("lost");
        }, EventCollector.ClockSharing.NONE, false, false, idle);
        assertThatThrownBy(() -> failing.call(message.sequence(40))).isInstanceOf(CommException.class);
        assertThat(onlyTuple().flags() & TraceOp.FLAG_FAILED).isNotZero();
        idle.run();
        assertThat(onlyTuple().sequence()).isEqualTo(31);
    }

    @Test
    void theCollectorBelowAGredOfOnePortTakesTheT1OfTheOneAboveAsItsT2() {
        TraceBuffer below = TraceBuffer.heap(16, 6);
        TraceBufferReader belowReader = below.newReader();
        EventCollector inner = new EventCollector(6, below, m -> insideNs = System.nanoTime(),
                EventCollector.ClockSharing.BELOW_GRED, false, true, null);
        // Stands for the gred of one port: the rank's thread and message pass straight through it.
        EventCollector outer = new EventCollector(5, buffer, inner::call, EventCollector.ClockSharing.ABOVE_GRED, true,
                false, null);
        Message message = new Message(1).op(ReduceOp.SUM).type(ValueType.LONG).length(1).word(0, 1);

        outer.call(message);

        TraceTupleFlyweight up = onlyTuple();
        long t1 = up.startNs();
        long t4 = up.endNs();
        TraceTupleFlyweight down = new TraceTupleFlyweight();
        assertThat(belowReader.readNext(down)).isTrue();
        assertThat(down.startNs()).as("t2 = t1: one read").isEqualTo(t1);
        assertThat(down.endNs()).as("t3 = t4: one read").isEqualTo(t4).isGreaterThanOrEqualTo(insideNs);
        assertThat(message.takeDownClock()).as("nothing left offered").isZero();
    }
}
