package org.eventspace.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The packed runs ({@link CountRunsTable}): every sequence of counts comes back exactly, whatever its values (any
 * longs: differences wrap around 2^64), run lengths, period or scale; a trace written with them reads back and
 * expands to every rank's calls; a damaged table is refused with the place.
 */
class CountRunsTableProperties {
    @Property(tries = 300)
    void everySequenceDecodesToItself(@ForAll long seed, @ForAll @IntRange(min = 1, max = 12) int sequences) {
        Random r = new Random(seed);
        List<CountRuns> in = new ArrayList<>();
        for (int s = 0; s < sequences; s++) {
            in.add(randomRuns(r));
        }
        CountRunsTable.Encoder encoder = new CountRunsTable.Encoder();
        in.forEach(encoder::add);
        CountRunsTable table = CountRunsTable.read(encoder.toByteArray());
        assertThat(table.size()).isEqualTo(sequences);
        for (int s = 0; s < sequences; s++) {
            assertThat(table.runs(s, in.get(s).occurrences())).as("sequence %d", s).isEqualTo(in.get(s));
        }
    }

    /** Values of every kind: small, multiples of a large element size, the extremes of a long, periodic or not. */
    private static CountRuns randomRuns(Random r) {
        int runs = 1 + r.nextInt(30);
        long scale = switch (r.nextInt(4)) {
            case 0 -> 1;
            case 1 -> 24;
            case 2 -> 1L << (r.nextInt(62));
            default -> 1 + r.nextInt(1000);
        };
        long period = 1 + r.nextInt(25);
        boolean periodic = r.nextBoolean();
        long[] pairs = new long[2 * runs];
        for (int i = 0; i < runs; i++) {
            long value = switch (r.nextInt(6)) {
                case 0 -> Long.MIN_VALUE;
                case 1 -> Long.MAX_VALUE;
                case 2 -> r.nextLong();
                default -> scale * (r.nextInt(2000) - 100);
            };
            pairs[2 * i] = value;
            pairs[2 * i + 1] = periodic ? period * (1 + r.nextInt(3)) : 1 + r.nextInt(50);
        }
        if (periodic && r.nextBoolean()) {
            pairs[2 * runs - 1] = 1 + r.nextInt((int) period * 2); // a last run cut short or longer than a period
        }
        return CountRuns.of(pairs);
    }

    /** A program whose counts change over time, on ranks that differ: written, read back, every call in its place. */
    @Property(tries = 40)
    void traceFilesWithPackedRunsExpandToEveryRanksCalls(@ForAll long seed, @ForAll @IntRange(min = 1, max = 9) int ranks)
            throws IOException, TraceFormatException {
        Random r = new Random(seed);
        List<Programs.Stmt> program = Programs.random(r, 3);
        List<RankTrace> traces = new ArrayList<>();
        List<List<Trace.Call>> calls = new ArrayList<>();
        for (int rank = 0; rank < ranks; rank++) {
            RankTrace t = new RankTrace(rank, TraceConfig.of(TimeEncoding.HIST));
            calls.add(Programs.run(program, rank, t, new Random(seed + rank)));
            traces.add(t);
        }
        Trace trace = Trace.mergeAll(traces);
        Path dir = Files.createTempDirectory("runs-table");
        try {
            for (String name : new String[] {"t.trace.json", "t.trace.cbor"}) {
                Path file = dir.resolve(name);
                TraceFile.write(trace, file);
                Trace back = TraceFile.read(file);
                for (int rank = 0; rank < ranks; rank++) {
                    assertThat(back.expand(rank)).as("%s, rank %d", name, rank).isEqualTo(calls.get(rank));
                }
                assertThat(TraceFile.toJson(back)).isEqualTo(TraceFile.toJson(trace));
                Files.delete(file);
            }
        } finally {
            Files.delete(dir);
        }
    }

    /** The LAMMPS shape: sizes that change every 19 occurrences, multiples of 24 bytes, one block a value. */
    @Example
    void sizesThatChangeAtAFixedPeriodTakeAboutAByteABlock() {
        Random r = new Random(7);
        long[] pairs = new long[40];
        for (int i = 0; i < 20; i++) {
            pairs[2 * i] = 24L * (440 + r.nextInt(20));
            pairs[2 * i + 1] = 19;
        }
        CountRuns runs = CountRuns.of(pairs);
        CountRunsTable.Encoder encoder = new CountRunsTable.Encoder();
        encoder.add(runs);
        byte[] bytes = encoder.toByteArray();
        // head, scale, count, first value, width, then 19 differences of at most 6 bits
        assertThat(bytes.length).isLessThanOrEqualTo(6 + (19 * 6 + 7) / 8);
        assertThat(CountRunsTable.read(bytes).runs(0, 380)).isEqualTo(runs);
        assertThatThrownBy(() -> CountRunsTable.read(bytes).runs(0, 400)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("do not make the 400 calls");
    }

    @Example
    void aDamagedTableSaysWhichEntryAndByte() {
        CountRunsTable.Encoder encoder = new CountRunsTable.Encoder();
        encoder.add(CountRuns.of(new long[] {100, 3, 200, 3, 300, 3}));
        encoder.add(CountRuns.of(new long[] {5, 1, 7, 2}));
        byte[] whole = encoder.toByteArray();
        byte[] cut = java.util.Arrays.copyOf(whole, whole.length - 1);
        assertThatThrownBy(() -> CountRunsTable.read(cut)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageMatching("entry 1 \\(byte \\d+\\): .*");
        assertThatThrownBy(() -> CountRunsTable.read(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff,
                (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 1}))
                .hasMessageContaining("entry 0 (byte 0): expected a varint");
        assertThatThrownBy(() -> CountRunsTable.read(whole).runs(2, 9)).hasMessageContaining("below 2");
    }
}
