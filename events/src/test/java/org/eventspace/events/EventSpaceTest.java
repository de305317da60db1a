package org.eventspace.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A host's event space: buffers per collector, the memory budget, and mapped files other processes can read. */
class EventSpaceTest {
    @TempDir
    Path dir;

    @Test
    void defaultsKeepAHostWithinAFewMegabytes() {
        try (EventSpace space = EventSpace.direct("h0")) {
            assertThat(space.budgetBytes()).isEqualTo(4L << 20);
            assertThat(space.defaultCapacity()).isEqualTo(4096);
            // 21 default buffers fit; the 22nd does not.
            for (int id = 0; id < 21; id++) {
                space.allocate(id, "c" + id);
            }
            assertThat(space.bytesAllocated()).isEqualTo(21 * TraceBufferLayout.bufferLength(4096));
            assertThatThrownBy(() -> space.allocate(21, "c21")).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void allocationPastTheBudgetIsRefusedWithWhatItNeedsAndWhatIsLeft() {
        long one = TraceBufferLayout.bufferLength(64);
        try (EventSpace space = EventSpace.direct("h3", 2 * one + 10, 64)) {
            space.allocate(0, "t0.gred.h3.0.in0");
            space.allocate(1, "t0.gred.h3.0.in1");
            assertThatThrownBy(() -> space.allocate(2, "t0.gred.h3.0.out"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("host h3").hasMessageContaining("t0.gred.h3.0.out")
                    .hasMessageContaining("needs " + one + " bytes").hasMessageContaining("capacity=64")
                    .hasMessageContaining("budgetBytes=" + (2 * one + 10)).hasMessageContaining("(10 left)");
            // The refusal allocated nothing.
            assertThat(space.bytesAllocated()).isEqualTo(2 * one);
            assertThat(space.entries()).hasSize(2);
        }
    }

    @Test
    void buffersAreNamedByCollectorAndIdsAndNamesAreUnique() {
        try (EventSpace space = EventSpace.direct("h1", 1 << 20, 16)) {
            TraceBuffer buffer = space.allocate(7, "t0.collector.a", 32);
            assertThat(buffer.capacity()).isEqualTo(32);
            assertThat(buffer.collectorId()).isEqualTo(7);
            assertThat(space.buffer(7)).isSameAs(buffer);
            assertThat(space.entries()).extracting(EventSpace.Entry::collectorName).containsExactly("t0.collector.a");
            assertThatThrownBy(() -> space.allocate(7, "other")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("collector id 7").hasMessageContaining("t0.collector.a");
            assertThatThrownBy(() -> space.allocate(8, "t0.collector.a")).hasMessageContaining("collector id 7");
            assertThatThrownBy(() -> space.allocate(9, "odd", 100)).hasMessageContaining("capacity=100");
            assertThatThrownBy(() -> space.buffer(99)).hasMessageContaining("collectorId=99");

            buffer.write(7, TraceOp.BARRIER, 0, 0, 1, 2);
            space.allocate(8, "t0.collector.b").write(8, TraceOp.BARRIER, 0, 0, 1, 2);
            assertThat(space.tuplesWritten()).isEqualTo(2);
        }
        assertThatThrownBy(() -> EventSpace.direct("h2", 100, 16)).hasMessageContaining("budgetBytes=100");
        assertThatThrownBy(() -> EventSpace.direct("h2", 1 << 20, 3)).hasMessageContaining("capacity=3");
    }

    @Test
    void mappedSpaceKeepsEachBufferInAFileNamedAfterItsCollector() throws IOException {
        Path traces = dir.resolve("traces");
        try (EventSpace space = EventSpace.mapped("h0", traces, 1 << 20, 16)) {
            TraceBuffer buffer = space.allocate(3, "t1.gred.h0.0/in 2");
            buffer.write(3, TraceOp.ALLREDUCE_SUM, 5, 42, 100, 250);
            Path file = traces.resolve("3.t1.gred.h0.0_in_2.trace");
            assertThat(buffer.file()).isEqualTo(file);
            assertThat(Files.exists(file)).isTrue();
            try (TraceBufferReader reader = TraceBufferReader.open(file)) {
                TraceTupleFlyweight tuple = new TraceTupleFlyweight();
                assertThat(reader.readNext(tuple)).isTrue();
                assertThat(tuple.collectorId()).isEqualTo(3);
                assertThat(tuple.value()).isEqualTo(42);
                assertThat(tuple.durationNs()).isEqualTo(150);
            }
        }
    }
}
