package org.eventspace.scope.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class FilterSpecTest {
    @ParameterizedTest
    @ValueSource(strings = {"concat", "max:value", "max:rank", "max:round", "min:value", "min:rank", "min:round",
            "stats", "hist:1", "hist:32", "hist:65536", "class:all", "class:comm", "class:^Patch 1 -> ",
            "class:a:b|c"})
    void parsesTheCanonicalTextBackToAnEqualSpecWhoseInstancesBearTheName(String text) {
        FilterSpec spec = FilterSpec.parse(text);

        assertThat(spec.text()).isEqualTo(text);
        assertThat(FilterSpec.parse(spec.text())).isEqualTo(spec);
        assertThat(spec.newInstance().name()).isEqualTo(text);
        assertThat(spec.newInstance()).isNotSameAs(spec.newInstance());
    }

    @Test
    void makesTheFilterTheTextNames() {
        assertThat(FilterSpec.parse("concat").newInstance()).isInstanceOf(ConcatFilter.class);
        assertThat(FilterSpec.parse("min:round").newInstance()).isInstanceOfSatisfying(ReduceByFieldFilter.class, f -> {
            assertThat(f.extreme()).isEqualTo(ReduceByFieldFilter.Extreme.MIN);
            assertThat(f.field()).isEqualTo(ReduceByFieldFilter.Field.ROUND);
        });
        assertThat(FilterSpec.parse("stats").newInstance()).isInstanceOf(StatsFilter.class);
        assertThat(FilterSpec.parse("hist:32").newInstance())
                .isInstanceOfSatisfying(HistFilter.class, f -> assertThat(f.bins()).isEqualTo(32));
        assertThat(FilterSpec.parse("class:comm").newInstance()).isInstanceOfSatisfying(ClassFilter.class,
                f -> assertThat(f.scheme()).isSameAs(ClassScheme.COMMUNICATION));
        assertThat(FilterSpec.parse("class:all")).isEqualTo(new FilterSpec.Classify(ClassScheme.ALL));
        assertThat(FilterSpec.parse("class:MPI_.*")).isEqualTo(new FilterSpec.Classify(ClassScheme.matching("MPI_.*")));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "\"\"        | expected one of concat, max:FIELD, min:FIELD, stats, hist:BINS, class:SCHEME",
            "histogram   | expected one of concat, max:FIELD, min:FIELD, stats, hist:BINS, class:SCHEME",
            "\" stats\"  | expected one of concat",
            "STATS       | expected one of concat",
            "concat:x    | expected concat with no argument",
            "stats:      | expected stats with no argument",
            "max         | expected max:FIELD or min:FIELD with FIELD one of value, rank, round",
            "min:size    | expected max:FIELD or min:FIELD with FIELD one of value, rank, round",
            "hist        | expected hist:BINS with BINS an integer 1..65536",
            "hist:abc    | expected hist:BINS with BINS an integer 1..65536",
            "hist:0      | bins must be 1..65536, bins=0",
            "hist:-3     | bins must be 1..65536, bins=-3",
            "hist:65537  | bins must be 1..65536, bins=65537",
            "class       | expected class:SCHEME with SCHEME all, comm or a regular expression",
            "class:      | class scheme must be all, comm or a non-empty regular expression",
            "class:[a    | class scheme '[a' is not a valid regular expression: Unclosed character class"})
    void badTextNamesTheTextAndWhatWasExpected(String text, String expected) {
        assertThatThrownBy(() -> FilterSpec.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("bad filter '" + text + "': ")
                .hasMessageContaining(expected);
    }

    @Test
    void histSpecChecksItsBinsWhenMadeInCode() {
        assertThatThrownBy(() -> new FilterSpec.Hist(0)).hasMessage("bins must be 1..65536, bins=0");
        assertThatThrownBy(() -> new HistFilter(65537)).hasMessage("bins must be 1..65536, bins=65537");
    }
}
