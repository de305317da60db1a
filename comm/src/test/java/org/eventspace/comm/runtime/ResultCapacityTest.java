package org.eventspace.comm.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.eventspace.comm.element.ElementRegistry;
import org.eventspace.comm.element.TupleSlotLayout;
import org.eventspace.comm.pathmap.PathmapConfig;
import org.junit.jupiter.api.Test;

/** Every documented result size runs: the result element's ring shrinks for large payloads instead of overflowing. */
class ResultCapacityTest {
    @Test
    void theRingShrinksForLargePayloadsAndStaysWithinItsBudget() {
        assertThat(WrapperKinds.resultCapacity(1)).isEqualTo(WrapperKinds.RESULT_CAPACITY);
        assertThat(WrapperKinds.resultCapacity(16_384)).isEqualTo(WrapperKinds.RESULT_CAPACITY);
        for (int words = 1; words <= PathmapConfig.MAX_RESULT_WORDS; words *= 2) {
            int capacity = WrapperKinds.resultCapacity(words);
            assertThat(Integer.bitCount(capacity)).as("power of two for %d words", words).isEqualTo(1);
            assertThat(capacity).isBetween(2, WrapperKinds.RESULT_CAPACITY);
            long bytes = (long) capacity * TupleSlotLayout.slotBytes(words);
            assertThat(bytes).as("%d words", words)
                    .isLessThanOrEqualTo(Math.max(WrapperKinds.RESULT_ELEMENT_BYTES, 2L * TupleSlotLayout.slotBytes(words)))
                    .isLessThan(Integer.MAX_VALUE);
        }
        assertThat(WrapperKinds.resultCapacity(PathmapConfig.MAX_RESULT_WORDS)).isEqualTo(2);
    }

    @Test
    void anElementTooLargeForOneBufferIsRefusedWithItsSize() {
        assertThatThrownBy(() -> new ElementRegistry("h0").allocate("huge", 64, PathmapConfig.MAX_RESULT_WORDS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("element huge: 64 slots of 16777216 words need");
    }
}
