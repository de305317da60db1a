package org.eventspace.events.dump;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.eventspace.events.dump.WrapperLatencies.GredLatencies;
import org.eventspace.events.dump.WrapperLatencies.PortLatencies;
import org.eventspace.base.stats.StatisticsSummary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dissertation §7.1 §3 latencies computed from a scripted dump ({@link ScriptedDump}) equal the ones
 * computed by hand below (our bar). All times in ns; h0 and h1 have unrelated clocks.
 *
 * <pre>
 * call seq 10                         call seq 11
 *   port 0 t0.c.rank0   t1=1000 t4=1900    t1=3300 t4=4000
 *   port 1 t0.c.rank1   t1=1200 t4=1800    t1=3000 t4=4200
 *   port 2 c.t0.proxy   t1=1100 t4=2000    t1=3100 t4=4100   (also t2/t3 of the hop)
 *   below  c.t0.gred    t2=1300 t3=1600    t2=3400 t3=3700   (also the core's store latency)
 *   h1     t0.c.rank2   t1= 500 t4=2000    t1=2600 t4=3800   (t1/t4 of the hop)
 * </pre>
 */
class WrapperLatenciesTest {
    @TempDir
    Path dir;

    private final ScriptedDump script = new ScriptedDump();

    private void writeScriptedRun() throws IOException {
        script.writePathmap(dir);
        script.writeTrace(dir, ScriptedDump.RANK0, new long[] {10, 1000, 1900}, new long[] {11, 3300, 4000});
        script.writeTrace(dir, ScriptedDump.RANK1, new long[] {10, 1200, 1800}, new long[] {11, 3000, 4200});
        script.writeTrace(dir, ScriptedDump.PROXY_SERVING, new long[] {10, 1100, 2000}, new long[] {11, 3100, 4100});
        script.writeTrace(dir, ScriptedDump.GRED_BELOW, new long[] {10, 1300, 1600}, new long[] {11, 3400, 3700});
        script.writeTrace(dir, ScriptedDump.RANK2, new long[] {10, 500, 2000}, new long[] {11, 2600, 3800});
    }

    @Test
    void latenciesFromTheDumpMatchTheHandComputedOnes() throws IOException {
        writeScriptedRun();
        TraceDump dump = TraceDump.open(dir);
        assertThat(dump.errors()).isEmpty();
        assertThat(dump.collectors()).hasSize(5);
        assertThat(dump.tuples()).isEqualTo(10);
        WrapperLatencies l = WrapperLatencies.of(dump);
        assertThat(l.skipped()).isEmpty();

        assertGredAsComputedByHand(l.gred(ScriptedDump.GRED), 2, 0);

        // Hop: (t4 - t1) - (t3 - t2), t1/t4 from t0.c.rank2 (h1), t2/t3 from c.t0.proxy.h1.0 (h0).
        //   seq 10: (2000 - 500) - (2000 - 1100) = 1500 - 900  = 600
        //   seq 11: (3800 - 2600) - (4100 - 3100) = 1200 - 1000 = 200
        //   mean 400, min 200, max 600
        WrapperLatencies.HopLatencies hop = l.hop(ScriptedDump.PROXY);
        assertThat(hop.fromHost()).isEqualTo("h1");
        assertThat(hop.toHost()).isEqualTo("h0");
        assertThat(hop.collectorBefore()).isEqualTo(ScriptedDump.RANK2);
        assertThat(hop.collectorAfter()).isEqualTo(ScriptedDump.PROXY_SERVING);
        assertThat(hop.callsJoined()).isEqualTo(2);
        assertThat(hop.callsDropped()).isZero();
        assertSummary(hop.twoWay(), 2, 400, 200, 600);

        // Store latency at the core: t_up - t_down of c.t0.gred.h0.0: 1600-1300 = 300, 3700-3400 = 300.
        WrapperLatencies.StoreLatencies store = l.store(ScriptedDump.CORE);
        assertThat(store.collector()).isEqualTo(ScriptedDump.GRED_BELOW);
        assertThat(store.callsJoined()).isEqualTo(2);
        assertSummary(store.store(), 2, 300, 300, 300);

        JsonNode json = new ObjectMapper().readTree(l.toJson());
        assertThat(json.get("schema").asText()).isEqualTo(WrapperLatencies.SCHEMA);
        assertThat(json.at("/greds/0/ports/2/total/mean_ns").asDouble()).isEqualTo(650.0);
        assertThat(json.at("/greds/0/ports/2/arrival_order/1").asLong()).isEqualTo(2);
        assertThat(json.at("/hops/0/two_way_latency/mean_ns").asDouble()).isEqualTo(400.0);
        assertThat(json.at("/cores/0/store_latency/max_ns").asLong()).isEqualTo(300);

        String text = text(l);
        assertThat(text).contains("gred t0.gred.h0.0 @h0, tree 0, 3 ports, t2/t3 from c.t0.gred.h0.0: 2 calls joined, 0 dropped")
                .contains("down latency  t2 - t1,l   mean 0.100 µs  min 0.100 µs  max 0.100 µs  (2 calls)")
                .contains("two-way latency  (t4 - t1) - (t3 - t2)   mean 0.400 µs  min 0.200 µs  max 0.600 µs  (2 calls)")
                .contains("arrival order   1st 0 calls, 2nd 2 calls, 3rd 0 calls");
    }

    /**
     * The gred by hand. l = last arriver (largest t1,i), f = first departer (smallest t4,i).
     * <pre>
     * seq 10: t2=1300 t3=1600; l = port 1 (t1,l=1200); f = port 1 (t4,f=1800)
     *   port  down t2-t1,i  up t4,i-t3  total (t4,i-t1,i)-(t3-t2)  arr.wait t1,l-t1,i  dep.wait t4,i-t4,f
     *   0     300           300         900-300 = 600             200                 100
     *   1     100           200         600-300 = 300               0                   0
     *   2     200           400         900-300 = 600             100                 200
     *   arrival order 0,2,1; departure order 1,0,2; gred down 1300-1200 = 100, up 1800-1600 = 200
     * seq 11: t2=3400 t3=3700; l = port 0 (t1,l=3300); f = port 0 (t4,f=4000)
     *   0     100           300         700-300 = 400               0                   0
     *   1     400           500        1200-300 = 900             300                 200
     *   2     300           400        1000-300 = 700             200                 100
     *   arrival order 1,2,0; departure order 0,2,1; gred down 3400-3300 = 100, up 4000-3700 = 300
     * </pre>
     */
    private static void assertGredAsComputedByHand(GredLatencies g, long joined, long dropped) {
        assertThat(g.host()).isEqualTo("h0");
        assertThat(g.collectorBelow()).isEqualTo(ScriptedDump.GRED_BELOW);
        assertThat(g.callsJoined()).isEqualTo(joined);
        assertThat(g.callsDropped()).isEqualTo(dropped);
        assertSummary(g.down(), 2, 100, 100, 100);
        assertSummary(g.up(), 2, 250, 200, 300);
        assertThat(g.ports()).hasSize(3);

        PortLatencies p0 = g.ports().get(0);
        assertThat(p0.collector()).isEqualTo(ScriptedDump.RANK0);
        assertThat(p0.contributor()).isEqualTo("rank 0");
        assertSummary(p0.down(), 2, 200, 100, 300);          // (300 + 100) / 2
        assertSummary(p0.up(), 2, 300, 300, 300);            // (300 + 300) / 2
        assertSummary(p0.total(), 2, 500, 400, 600);         // (600 + 400) / 2
        assertSummary(p0.arrivalWait(), 2, 100, 0, 200);     // (200 + 0) / 2
        assertSummary(p0.departureWait(), 2, 50, 0, 100);    // (100 + 0) / 2
        assertThat(p0.arrivalOrder()).containsExactly(1, 0, 1);    // 1st in seq 10, 3rd in seq 11
        assertThat(p0.departureOrder()).containsExactly(1, 1, 0);  // 2nd in seq 10, 1st in seq 11

        PortLatencies p1 = g.ports().get(1);
        assertThat(p1.contributor()).isEqualTo("rank 1");
        assertSummary(p1.down(), 2, 250, 100, 400);          // (100 + 400) / 2
        assertSummary(p1.up(), 2, 350, 200, 500);            // (200 + 500) / 2
        assertSummary(p1.total(), 2, 600, 300, 900);         // (300 + 900) / 2
        assertSummary(p1.arrivalWait(), 2, 150, 0, 300);     // (0 + 300) / 2
        assertSummary(p1.departureWait(), 2, 100, 0, 200);   // (0 + 200) / 2
        assertThat(p1.arrivalOrder()).containsExactly(1, 0, 1);    // 3rd, then 1st
        assertThat(p1.departureOrder()).containsExactly(1, 0, 1);  // 1st, then 3rd

        PortLatencies p2 = g.ports().get(2);
        assertThat(p2.collector()).isEqualTo(ScriptedDump.PROXY_SERVING);
        assertThat(p2.contributor()).isEqualTo(ScriptedDump.PROXY);
        assertSummary(p2.down(), 2, 250, 200, 300);          // (200 + 300) / 2
        assertSummary(p2.up(), 2, 400, 400, 400);            // (400 + 400) / 2
        assertSummary(p2.total(), 2, 650, 600, 700);         // (600 + 700) / 2
        assertSummary(p2.arrivalWait(), 2, 150, 100, 200);   // (100 + 200) / 2
        assertSummary(p2.departureWait(), 2, 150, 100, 200); // (200 + 100) / 2
        assertThat(p2.arrivalOrder()).containsExactly(0, 2, 0);    // 2nd both times
        assertThat(p2.departureOrder()).containsExactly(0, 1, 1);  // 3rd, then 2nd
    }

    @Test
    void aCallMissingFromOneCollectorIsDroppedAndCounted() throws IOException {
        writeScriptedRun();
        // Call 12 reached every collector but the one on the serving side of the hop (as if its ring had
        // overwritten it): the gred and the hop drop it, the core (one collector) keeps it.
        script.writeTrace(dir, ScriptedDump.RANK0, new long[] {10, 1000, 1900}, new long[] {11, 3300, 4000},
                new long[] {12, 5000, 5900});
        script.writeTrace(dir, ScriptedDump.RANK1, new long[] {10, 1200, 1800}, new long[] {11, 3000, 4200},
                new long[] {12, 5100, 5800});
        script.writeTrace(dir, ScriptedDump.GRED_BELOW, new long[] {10, 1300, 1600}, new long[] {11, 3400, 3700},
                new long[] {12, 5300, 5500});
        script.writeTrace(dir, ScriptedDump.RANK2, new long[] {10, 500, 2000}, new long[] {11, 2600, 3800},
                new long[] {12, 4000, 6000});
        WrapperLatencies l = WrapperLatencies.of(TraceDump.open(dir));

        assertGredAsComputedByHand(l.gred(ScriptedDump.GRED), 2, 1);   // the same numbers: call 12 left out
        assertThat(l.hop(ScriptedDump.PROXY).callsJoined()).isEqualTo(2);
        assertThat(l.hop(ScriptedDump.PROXY).callsDropped()).isEqualTo(1);
        assertSummary(l.hop(ScriptedDump.PROXY).twoWay(), 2, 400, 200, 600);
        // Core: 300, 300 and 5500 - 5300 = 200 → mean 800 / 3.
        assertThat(l.store(ScriptedDump.CORE).callsJoined()).isEqualTo(3);
        assertThat(l.store(ScriptedDump.CORE).callsDropped()).isZero();
        assertSummary(l.store(ScriptedDump.CORE).store(), 3, 800.0 / 3, 200, 300);
        assertThat(text(l)).contains("2 calls joined, 1 dropped");
    }

    @Test
    void unreadableFilesAreReportedByNameAndTheRestIsStillAnalysed() throws IOException {
        writeScriptedRun();
        Path truncated = script.file(dir, ScriptedDump.RANK2);
        try (FileChannel channel = FileChannel.open(truncated, StandardOpenOption.WRITE)) {
            channel.truncate(500);    // the header survives, the slots do not
        }
        Path foreign = dir.resolve("host-0").resolve("7.stray.trace");
        Files.writeString(foreign, "not a trace buffer at all, just some text that is long enough ".repeat(4));
        Path wrongMagic = script.file(dir, ScriptedDump.RANK0).resolveSibling("99.nothing.trace");
        Files.write(wrongMagic, new byte[4096]);

        TraceDump dump = TraceDump.open(dir);
        assertThat(dump.errors()).hasSize(3);
        assertThat(dump.errors()).anySatisfy(e -> assertThat(e).contains(truncated.toString()).contains("truncated"));
        assertThat(dump.errors()).anySatisfy(e -> assertThat(e).contains(foreign.toString()));
        assertThat(dump.errors()).anySatisfy(e -> assertThat(e).contains(wrongMagic.toString()));
        assertThat(dump.collectors()).hasSize(4);

        WrapperLatencies l = WrapperLatencies.of(dump);
        assertGredAsComputedByHand(l.gred(ScriptedDump.GRED), 2, 0);
        assertSummary(l.store(ScriptedDump.CORE).store(), 2, 300, 300, 300);
        assertThat(l.hops()).isEmpty();
        assertThat(l.skipped()).containsExactly("proxy t0.proxy.h1.0: before-stub collector t0.c.rank2 has no readable trace file");
    }

    @Test
    void aTraceFileWhoseHeaderNamesAnotherCollectorIsReported() throws IOException {
        writeScriptedRun();
        Path rank0 = script.file(dir, ScriptedDump.RANK0);
        Path rank1 = script.file(dir, ScriptedDump.RANK1);
        Files.copy(rank1, rank0, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        TraceDump dump = TraceDump.open(dir);
        assertThat(dump.errors()).singleElement().asString().contains(rank0.toString()).contains("collectorId=");
        assertThat(WrapperLatencies.of(dump).skipped()).singleElement().asString().contains("port 0");
    }

    @Test
    void printerShowsKnownTuplesAsTextAndJsonLines() throws IOException {
        writeScriptedRun();
        TraceDump dump = TraceDump.open(dir);
        StringWriter text = new StringWriter();
        TraceDumpPrinter.printText(dump, new PrintWriter(text));
        // h0's earliest timestamp is 1000 (t0.c.rank0, seq 10), h1's is 500 (t0.c.rank2, seq 10).
        assertThat(text.toString()).contains(
                "t0.c.rank0  @h0  allreduce-sum  seq=10  value=3  t_down=+0 ns  t_up=+900 ns  duration=0.900 µs\n",
                "c.t0.gred.h0.0  @h0  allreduce-sum  seq=11  value=3  t_down=+2400 ns  t_up=+2700 ns  duration=0.300 µs\n",
                "t0.c.rank2  @h1  allreduce-sum  seq=11  value=3  t_down=+2100 ns  t_up=+3300 ns  duration=1.200 µs\n");
        assertThat(text.toString()).startsWith("Trace dump " + dir + ": 5 collectors, 10 tuples, 0 unreadable files\n");

        StringWriter jsonl = new StringWriter();
        TraceDumpPrinter.printJsonLines(dump, new PrintWriter(jsonl));
        assertThat(jsonl.toString().lines()).hasSize(10).contains(
                "{\"schema\":\"eventspace.trace-tuple/1\",\"collector\":\"t0.c.rank2\",\"host\":\"h1\","
                        + "\"op\":\"allreduce-sum\",\"seq\":11,\"value\":3,\"start_ns\":2600,\"end_ns\":3800}");
    }

    @Test
    void aDirectoryThatIsNoDumpIsNamed() throws IOException {
        assertThatThrownBy(() -> TraceDump.open(dir.resolve("missing"))).isInstanceOf(IOException.class)
                .hasMessageContaining("missing").hasMessageContaining("not a directory");
        assertThatThrownBy(() -> TraceDump.open(dir)).isInstanceOf(IOException.class)
                .hasMessageContaining("has no pathmap.json");
        Files.writeString(dir.resolve(TraceDump.PATHMAP_FILE), "{\"schema\":\"something/2\"}");
        assertThatThrownBy(() -> TraceDump.open(dir)).isInstanceOf(IOException.class)
                .hasMessageContaining("schema=\"something/2\"");
    }

    @Test
    void aRingThatWrappedKeepsItsNewestTuplesAndCountsTheRest() throws IOException {
        writeScriptedRun();
        long[][] tuples = new long[18][];
        for (int i = 0; i < tuples.length; i++) {
            tuples[i] = new long[] {100 + i, 10_000 + 1000L * i, 10_500 + 1000L * i};
        }
        script.writeTrace(dir, ScriptedDump.GRED_BELOW, tuples);   // a ring of 16 tuples: 2 overwritten
        TraceDump dump = TraceDump.open(dir);
        CollectorTrace c = dump.collector(ScriptedDump.GRED_BELOW);
        assertThat(c.size()).isEqualTo(16);
        assertThat(c.overwritten()).isEqualTo(2);
        assertThat(c.sequence(0)).isEqualTo(102);
        assertThat(c.sequence(15)).isEqualTo(117);
        WrapperLatencies l = WrapperLatencies.of(dump);
        assertThat(l.overwrittenTuplesMax()).isEqualTo(2);
        assertThat(text(l)).contains("up to 2 older tuples per collector were overwritten");
        // No call is in both the ports' collectors (10, 11) and the one below (102…117): all 18 are dropped.
        assertThat(l.gred(ScriptedDump.GRED).callsJoined()).isZero();
        assertThat(l.gred(ScriptedDump.GRED).callsDropped()).isEqualTo(18);
        assertSummary(l.store(ScriptedDump.CORE).store(), 16, 500, 500, 500);
    }

    @Test
    void ordinals() {
        assertThat(WrapperLatencies.ordinal(1)).isEqualTo("1st");
        assertThat(WrapperLatencies.ordinal(2)).isEqualTo("2nd");
        assertThat(WrapperLatencies.ordinal(3)).isEqualTo("3rd");
        assertThat(WrapperLatencies.ordinal(4)).isEqualTo("4th");
        assertThat(WrapperLatencies.ordinal(11)).isEqualTo("11th");
        assertThat(WrapperLatencies.ordinal(13)).isEqualTo("13th");
        assertThat(WrapperLatencies.ordinal(22)).isEqualTo("22nd");
    }

    private static void assertSummary(StatisticsSummary s, long count, double mean, long min, long max) {
        assertThat(s.count()).as("count").isEqualTo(count);
        assertThat(s.mean()).as("mean ns").isCloseTo(mean, within(1e-9));
        assertThat(s.min()).as("min ns").isEqualTo(min);
        assertThat(s.max()).as("max ns").isEqualTo(max);
    }

    private static String text(WrapperLatencies l) {
        StringWriter out = new StringWriter();
        l.printText(new PrintWriter(out));
        return out.toString();
    }
}
