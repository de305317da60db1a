package org.eventspace.trace;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class RankTraceTest {
    private static final int SEND = 1, RECV = 2, BARRIER = 3;

    /**
     * Figure 1 of Ratn et al.: {@code for i<1000 { for k<100 { send; recv } barrier }} compresses to
     * {@code PRSD1 <1000, RSD1, barrier>} with {@code RSD1 <100, send, recv>}: two loops, three events.
     */
    @Test
    void figureOneBecomesAPowerRsd() {
        RankTrace t = new RankTrace(3, TraceConfig.of(TimeEncoding.STATS));
        for (int i = 0; i < 1000; i++) {
            for (int k = 0; k < 100; k++) {
                t.record(Op.SEND, SEND, -1, 1, 4, EventNode.NONE, 10, 5);
                t.record(Op.RECV, RECV, -1, -1, 4, EventNode.NONE, 10, 5);
            }
            t.record(Op.BARRIER, BARRIER, -1, EventNode.NONE, EventNode.NONE, EventNode.NONE, 30, 5);
        }
        assertThat(t.nodes()).hasSize(1);
        LoopNode prsd = (LoopNode) t.nodes().get(0);
        assertThat(prsd.iterations()).isEqualTo(1000);
        assertThat(prsd.body()).hasSize(2);
        LoopNode rsd = (LoopNode) prsd.body().get(0);
        assertThat(rsd.iterations()).isEqualTo(100);
        assertThat(rsd.body()).extracting(n -> ((EventNode) n).op()).containsExactly(Op.SEND, Op.RECV);
        assertThat(((EventNode) prsd.body().get(1)).op()).isEqualTo(Op.BARRIER);
        assertThat(t.liveNodes()).isEqualTo(5);
        assertThat(t.recorded()).isEqualTo(201_000);
        EventNode send = (EventNode) rsd.body().get(0);
        send.seal(TraceConfig.of(TimeEncoding.STATS));
        assertThat(send.computeDelta().stats().count()).isEqualTo(100_000);
    }

    /** A peer of rank + 1 is the offset +1 on every rank: the same event, so a halo exchange merges into one. */
    @Test
    void peersAreRelativeToTheRank() {
        RankTrace a = new RankTrace(4, TraceConfig.of(TimeEncoding.STATS));
        RankTrace b = new RankTrace(5, TraceConfig.of(TimeEncoding.STATS));
        for (int i = 0; i < 10; i++) {
            a.record(Op.SEND, SEND, -1, (4 + 1) - 4, 8, EventNode.NONE, 1, 1);
            b.record(Op.SEND, SEND, -1, (5 + 1) - 5, 8, EventNode.NONE, 1, 1);
        }
        Trace merged = Trace.merge(Trace.of(a, 8), Trace.of(b, 8));
        assertThat(merged.nodes()).hasSize(1);
        EventNode e = (EventNode) ((LoopNode) merged.nodes().get(0)).body().get(0);
        assertThat(e.peer().uniform()).isTrue();
        assertThat(e.ranks().toString()).isEqualTo("4..5");
    }

    /** Past its node budget a rank keeps counting what it could not record: from which event, how many, which ops. */
    @Test
    void saysExactlyWhatItLostPastItsBudget() {
        RankTrace t = new RankTrace(2, TraceConfig.of(TimeEncoding.STATS).withMaxNodes(16));
        for (int i = 0; i < 100; i++) {
            t.record(Op.BROADCAST, SEND, -1, EventNode.NONE, i, 0, 1, 1); // every count new: nothing folds
        }
        RankTrace.Lost lost = t.lost();
        assertThat(lost).isNotNull();
        assertThat(lost.firstLost()).isEqualTo(16);
        assertThat(lost.count()).isEqualTo(84);
        assertThat(lost.byOp()[Op.BROADCAST.ordinal()]).isEqualTo(84);
        assertThat(t.recorded()).isEqualTo(16);
        List<Trace.Call> kept = Trace.of(t, 4).expand(2);
        assertThat(kept).hasSize(16);
        assertThat(kept.get(15).count()).isEqualTo(15);
    }
}
