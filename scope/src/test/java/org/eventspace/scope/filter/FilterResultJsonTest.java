package org.eventspace.scope.filter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;

/**
 * The JSON every filter's result serialises to is part of the run report ({@code scope.result}) and of the
 * documentation, so its field names, nesting and order are pinned here: {@code filter-results.jsonl} was written
 * by the filters when their results were still field-name maps, and every filter must still produce it byte for
 * byte over the same rounds.
 */
class FilterResultJsonTest {
    static final List<String> SPECS = List.of("concat", "max:value", "min:rank", "max:round", "stats", "hist:4",
            "class:all", "class:comm", "class:^MPI_");
    static final int HOSTS = 3;
    static final int ROUNDS = 3;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Round r on host h: two ranks per host, communication and compute events, a host record on host 1. */
    static List<ScopeRecord> records(long round, int host) {
        List<ScopeRecord> out = new ArrayList<>();
        if (round >= ROUNDS) {
            return out;   // the flush round that completes a pipelined filter's last round
        }
        for (int k = 0; k < 2; k++) {
            int rank = 2 * host + k;
            out.add(new ScopeRecord(rank, "MPI_Allreduce()", round, 10.25 + rank * 1.5 + round * 0.1));
            if (rank % 3 != 0) {
                out.add(new ScopeRecord(rank, "MPI_Send()", round, 1e6 + rank % 2 - round));
            }
            out.add(new ScopeRecord(rank, "compute", round, rank % 2 == 0 ? 100.0 / (rank + 1) : -0.0));
        }
        if (host == 1) {
            out.add(new ScopeRecord(-1, "allreduce-sum gred>core", round, 3.5));
        }
        return out;
    }

    /** One line per filter and round: the spec, the round and the result's JSON. */
    static List<String> lines() throws JsonProcessingException {
        List<String> lines = new ArrayList<>();
        for (String spec : SPECS) {
            ScopeTreeSimulator tree = ScopeTreeSimulator.kary(HOSTS, 2, FilterSpec.parse(spec));
            for (long round = 0; round <= ROUNDS; round++) {
                long r = round;
                Object result = tree.round(r, host -> records(r, host));
                lines.add(spec + " " + round + " " + JSON.writeValueAsString(result));
            }
        }
        return lines;
    }

    @Test
    void everyFilterSerialisesToTheJsonItsMapResultHad() throws IOException {
        List<String> expected;
        try (InputStream in = FilterResultJsonTest.class.getResourceAsStream("filter-results.jsonl")) {
            assertThat(in).as("filter-results.jsonl on the test class path").isNotNull();
            expected = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
        assertThat(expected).hasSize(SPECS.size() * (ROUNDS + 1));
        assertThat(lines()).containsExactlyElementsOf(expected);
    }

    /** The run report takes the result through valueToTree: an empty result is {}, a cut listing says so. */
    @Test
    void anEmptyResultIsTheEmptyObjectAndACutListingIsFlagged() throws JsonProcessingException {
        assertThat(FilterResult.none().isEmpty()).isTrue();
        assertThat(FilterResult.none().round()).isEqualTo(HistFilter.NO_ROUND);
        assertThat(JSON.valueToTree(FilterResult.none()).toString()).isEqualTo("{}");
        ConcatResult cut = new ConcatResult(7, 2, List.of(new ScopeRecord(3, "x", 7, 1.5)), true);
        assertThat(cut.isEmpty()).isFalse();
        assertThat(JSON.writeValueAsString(cut)).isEqualTo("{\"round\":7,\"records\":2,\"listing\":[{\"rank\":3,"
                + "\"event\":\"x\",\"round\":7,\"value\":1.5}],\"listing_truncated\":true}");
    }

    /** Writes the golden file from the current filters: run by hand only when the JSON is meant to change. */
    public static void main(String[] args) throws IOException {
        java.nio.file.Files.write(java.nio.file.Path.of(args[0]), lines());
    }
}
