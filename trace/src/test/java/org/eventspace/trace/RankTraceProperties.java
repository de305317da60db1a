package org.eventspace.trace;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;

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

    @Property(tries = 100)
    void losslessEvenWithATinyWindow(@ForAll long seed) {
        Random r = new Random(seed);
        List<Programs.Stmt> program = Programs.random(r, 3);
        RankTrace trace = new RankTrace(0, TraceConfig.of(TimeEncoding.STATS).withWindow(2));
        List<Trace.Call> calls = Programs.run(program, 0, trace, new Random(seed));
        assertThat(Trace.of(trace, 1).expand(0)).isEqualTo(calls);
    }
}
