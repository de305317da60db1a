package org.eventspace.trace;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;

import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** Intra-rank compression is lossless: a random nested-loop program compresses and expands back to exactly its calls. */
class RankTraceProperties {
    @Property(tries = 300)
    void compressesAndExpandsBackToTheRecordedSequence(@ForAll long seed) {
        Random r = new Random(seed);
        List<Programs.Stmt> program = Programs.random(r, 3);
        for (TimeEncoding encoding : TimeEncoding.values()) {
            RankTrace trace = new RankTrace(0, TraceConfig.of(encoding));
            List<Trace.Call> calls = Programs.run(program, 0, trace, new Random(seed));
            assertThat(trace.lost()).isNull();
            assertThat(trace.recorded()).isEqualTo(calls.size());
            assertThat(Trace.of(trace, 1).expand(0)).isEqualTo(calls);
        }
    }

    /**
     * The node budget counts what the trace holds: after every call, the live-node counter equals a walk of the
     * top-level sequence and of the calls held for the loop iteration in progress (each will be a node if the
     * iteration does not complete), for every window from a tiny one up.
     */
    @Property(tries = 200)
    void theLiveNodeCounterIsTheNodesTheTraceHolds(@ForAll long seed) {
        Random r = new Random(seed);
        List<Programs.Stmt> program = Programs.random(r, 3);
        for (int window : new int[] {2, 8}) {
            RankTrace trace = new RankTrace(0, TraceConfig.of(TimeEncoding.STATS).withWindow(window));
            Programs.run(program, 0, trace, new Random(seed));
            assertThat(trace.liveNodes()).as("window %d", window).isEqualTo(trace.walkedNodes());
            int walked = trace.nodes().stream().mapToInt(Node::nodeCount).sum();
            assertThat(trace.liveNodes()).as("window %d, held calls put back", window).isEqualTo(walked);
        }
    }

    /** The program where MergeProperties saw 6 nodes held and the counter at 5 (seed -974, one rank's trace). */
    @Example
    void theCounterAgreesWhereItOnceUndercounted() {
        Random r = new Random(-974);
        List<Programs.Stmt> program = Programs.random(r, 3);
        RankTrace trace = new RankTrace(0, TraceConfig.of(TimeEncoding.STATS));
        Programs.run(MergeProperties.stripRankDependence(program), 0, trace, new Random(-974));
        int walked = trace.nodes().stream().mapToInt(Node::nodeCount).sum();
        assertThat(trace.liveNodes()).isEqualTo(walked);
    }

    @Property(tries = 100)
    void losslessEvenWithATinyWindow(@ForAll long seed) {
        Random r = new Random(seed);
        List<Programs.Stmt> program = Programs.random(r, 3);
        RankTrace trace = new RankTrace(0, TraceConfig.of(TimeEncoding.STATS).withWindow(2));
        List<Trace.Call> calls = Programs.run(program, 0, trace, new Random(seed));
        assertThat(Trace.of(trace, 1).expand(0)).isEqualTo(calls);
    }
}
