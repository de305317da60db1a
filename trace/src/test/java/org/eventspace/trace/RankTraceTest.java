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
    /**
     * A molecular-dynamics time step as LAMMPS makes them: every 20 steps the neighbour lists are rebuilt and the ghost
     * exchanges change size; in between, 19 steps of the same sizes. The periods differ only in their message sizes
     * and each holds a loop, so they fold into one loop of periods; the sizes are kept occurrence by occurrence, one
     * run per rebuild (not one node per period), and the trace expands back to exactly the calls made.
     */
    @Test
    void periodsThatDifferOnlyInMessageSizesFoldAndKeepEverySize() {
        RankTrace t = new RankTrace(0, TraceConfig.of(TimeEncoding.HIST));
        List<Trace.Call> calls = new java.util.ArrayList<>();
        int periods = 100;
        for (int p = 0; p < periods; p++) {
            long rebuild = 50_000 + 97L * ((p * 37) % 61); // the exchanged sizes, new at each rebuild
            long step = 30_000 + 13L * ((p * 11) % 17);
            call(t, calls, Op.ALLREDUCE_LONG, 4, 0, EventNode.NONE, 1);
            call(t, calls, Op.SEND, SEND, -1, 1, rebuild);
            call(t, calls, Op.RECV, RECV, -1, -1, rebuild);
            for (int s = 0; s < 19; s++) {
                call(t, calls, Op.SEND, 5, -1, 1, step);
                call(t, calls, Op.RECV, 6, -1, -1, step);
            }
        }
        Trace trace = Trace.of(t, 1);
        assertThat(trace.expand(0)).isEqualTo(calls);
        assertThat(trace.nodes()).as(TracePrinter.structure(trace)).hasSize(1);
        LoopNode loop = (LoopNode) trace.nodes().get(0);
        assertThat(loop.iterations()).isEqualTo(periods);
        EventNode rebuildSend = (EventNode) loop.body().get(1);
        assertThat(rebuildSend.countRuns()).hasSize(1);
        assertThat(rebuildSend.countRuns().get(0).runs().occurrences()).isEqualTo(periods);
        EventNode stepSend = (EventNode) ((LoopNode) loop.body().get(3)).body().get(0);
        assertThat(stepSend.countRuns().get(0).runs().runCount()).as("one run per period, 19 steps each")
                .isLessThanOrEqualTo(periods);
        assertThat(stepSend.countRuns().get(0).runs().runLength(0)).isGreaterThanOrEqualTo(19);
        assertThat(((EventNode) loop.body().get(0)).countRuns()).as("the allreduce's one word never varied").isNull();
    }

    /** Plain calls whose count alternates (1 word, then 100) stay two events of constant count, not one of many runs. */
    @Test
    void anAlternatingCountOfPlainCallsStaysTwoEvents() {
        RankTrace t = new RankTrace(0, TraceConfig.of(TimeEncoding.STATS));
        List<Trace.Call> calls = new java.util.ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            call(t, calls, Op.ALLREDUCE_LONGS, 7, 0, EventNode.NONE, 1);
            call(t, calls, Op.ALLREDUCE_LONGS, 7, 0, EventNode.NONE, 100);
        }
        Trace trace = Trace.of(t, 1);
        assertThat(trace.expand(0)).isEqualTo(calls);
        LoopNode loop = (LoopNode) trace.nodes().get(0);
        assertThat(loop.iterations()).isEqualTo(1000);
        assertThat(loop.body()).hasSize(2).allSatisfy(n -> assertThat(((EventNode) n).countRuns()).isNull());
    }

    private static void call(RankTrace t, List<Trace.Call> calls, Op op, int site, int reduce, long peer, long count) {
        t.record(op, site, reduce, peer, count, EventNode.NONE, 100, 50);
        calls.add(new Trace.Call(op, site, reduce, peer, count, EventNode.NONE));
    }

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
