package org.eventspace.scope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;

import org.eventspace.comm.pathmap.TreeShape;
import org.junit.jupiter.api.Test;

class ScopeSpecTest {
    @Test
    void defaultsAreAFlatSequentialConcatScopeOnHostZero() {
        ScopeSpec spec = ScopeSpec.builder().build();
        assertThat(spec.name()).isEqualTo("scope");
        assertThat(spec.shape()).isEqualTo(TreeShape.FLAT);
        assertThat(spec.gather()).isEqualTo(GatherMode.SEQUENTIAL);
        assertThat(spec.filterText()).isEqualTo("concat");
        assertThat(spec.frontEnd()).isZero();
        assertThat(spec.leafHosts()).isEmpty();
        assertThat(spec.extraHosts()).isEmpty();
        assertThat(spec.timeout()).isEmpty();
    }

    @Test
    void partsAreParsedOnceIntoValues() {
        ScopeSpec spec = ScopeSpec.builder().name("lb").shape(" hier:4 ").gather("par:3").filter(" hist:32 ").frontEnd(2)
                .leafHosts(List.of(3, 1)).extraHosts(List.of(5)).timeout(Duration.ofMillis(250)).build();
        assertThat(spec.shape()).isEqualTo(TreeShape.hier(4));
        assertThat(spec.gather()).isEqualTo(GatherMode.parallel(3));
        assertThat(spec.gather().toString()).isEqualTo("par:3");
        assertThat(spec.filterText()).isEqualTo("hist:32");
        assertThat(spec.leafHosts()).containsExactly(3, 1);
        assertThat(spec.timeout()).contains(Duration.ofMillis(250));
        assertThat(spec.toBuilder().build()).isEqualTo(spec).hasSameHashCodeAs(spec);
        assertThat(spec.toString()).contains("hier:4", "par:3", "hist:32", "250 ms");
    }

    @Test
    void gatherModesParse() {
        assertThat(GatherMode.parse("seq").sequential()).isTrue();
        assertThat(GatherMode.parse("par:1").helpers()).isEqualTo(1);
        assertThatThrownBy(() -> GatherMode.parse("par:0")).hasMessage("gather 'par:0': helper threads must be an integer in [1, 256]");
        assertThatThrownBy(() -> GatherMode.parse("par:x")).hasMessageContaining("'par:x'");
        assertThatThrownBy(() -> GatherMode.parse("parallel")).hasMessage("gather 'parallel': expected seq or par:N");
    }

    @Test
    void badValuesAreNamedInTheError() {
        assertThatThrownBy(() -> ScopeSpec.builder().shape("kary:1")).hasMessageContaining("kary:1");
        assertThatThrownBy(() -> ScopeSpec.builder().shape("tree")).hasMessageContaining("'tree'");
        assertThatThrownBy(() -> ScopeSpec.builder().filter("median")).hasMessageContaining("median");
        assertThatThrownBy(() -> ScopeSpec.builder().name("my.scope")).hasMessageContaining("'my.scope'");
        assertThatThrownBy(() -> ScopeSpec.builder().frontEnd(-1)).hasMessage("front-end host must be >= 0, frontEnd=-1");
        assertThatThrownBy(() -> ScopeSpec.builder().leafHosts(List.of(1, 2, 1)))
                .hasMessage("leaf hosts name host 1 twice, leaf hosts=[1, 2, 1]");
        assertThatThrownBy(() -> ScopeSpec.builder().extraHosts(List.of(-3)))
                .hasMessage("extra hosts must be host ids >= 0, extra hosts=[-3]");
        assertThatThrownBy(() -> ScopeSpec.builder().timeout(Duration.ZERO)).hasMessage("scope timeout must be > 0, timeout=PT0S");
    }
}
