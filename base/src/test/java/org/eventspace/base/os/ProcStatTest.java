package org.eventspace.base.os;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Fields after a command name that holds spaces and parentheses are counted from its last ')'. */
class ProcStatTest {
    @Test
    void fieldsAreCountedFromTheLastParenthesisAsProcNumbersThem() {
        String stat = "4242 (es (serve) x) S 1 4242 4242 0 -1 4194560 10 0 0 0 5 3 0 0 20 19 30 0";
        assertThat(ProcStat.field(stat, 3)).isEqualTo("S");
        assertThat(ProcStat.field(stat, 4)).isEqualTo("1");
        assertThat(ProcStat.field(stat, 19)).isEqualTo("19");
    }

    @Test
    void aLineWithoutTheFieldIsRefusedNamingIt() {
        assertThatThrownBy(() -> ProcStat.field("1 (x) S 1", 19)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not 19");
        assertThatThrownBy(() -> ProcStat.field("garbage", 3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("field 3");
    }
}
