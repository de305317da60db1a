package org.eventspace.mpi;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteOrder;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.eventspace.events.TraceTupleFlyweight;
import org.eventspace.events.TraceTupleLayout;
import org.eventspace.trace.EventNode;
import org.eventspace.trace.LoopNode;
import org.eventspace.trace.Op;
import org.eventspace.trace.PerfettoExport;
import org.eventspace.trace.TimeEncoding;
import org.eventspace.trace.Trace;
import org.eventspace.trace.TraceConfig;
import org.eventspace.trace.TraceFile;
import org.eventspace.trace.TracePrinter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MPI → ScalaTrace bridge on tuples as the library writes them: each call becomes one event of its rank's trace
 * (peer relative to the rank, bytes as the count, the site's low 31 bits), receive records are not calls, and a
 * repeated exchange compresses into one loop across the ranks.
 */
class MpiTraceRecorderTest {
    private static final int SITE_SEND = 0x4010;
    private static final int SITE_RECV = 0x4020;
    private static final int SITE_ALLREDUCE = 0x80004030; // the sign bit set: a library's signature can be negative

    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[TraceTupleLayout.LENGTH]);
    private final TraceTupleFlyweight tuple = new TraceTupleFlyweight().wrap(buffer, 0, ByteOrder.LITTLE_ENDIAN);

    @Test
    void aRingExchangeBecomesOneLoopWithPeersRelativeToTheRank() {
        int ranks = 2;
        int iterations = 10;
        MpiTraceRecorder recorder = new MpiTraceRecorder(ranks, TraceConfig.of(TimeEncoding.STATS));
        for (int r = 0; r < ranks; r++) {
            int next = (r + 1) % ranks;
            long t = 1_000;
            for (int i = 0; i < iterations; i++) {
                recorder.onCall(r, call(SITE_SEND, MpiOp.code("MPI_Send"), 0, next, 64, t, t += 500));
                recorder.onCall(r, call(SITE_RECV, MpiOp.code("MPI_Recv"), 0, next, 64, t += 100, t += 700));
                // the receive half, recorded after the call it completed in: not a call of its own
                recorder.onCall(r, call(SITE_RECV, MpiTuple.RECORD_RECEIVE, 0, next, 64, t - 700, t));
                recorder.onCall(r, call(SITE_ALLREDUCE, MpiOp.code("MPI_Allreduce"), MpiTuple.FLAG_COLLECTIVE, -1, 8,
                        t += 100, t += 300));
            }
        }
        recorder.onCall(ranks, call(SITE_SEND, MpiOp.code("MPI_Send"), 0, 0, 64, 0, 1)); // not a rank of the job

        assertThat(recorder.calls()).isEqualTo((long) ranks * iterations * 3);
        Trace trace = recorder.trace();
        assertThat(trace.ranks()).isEqualTo(ranks);
        assertThat(trace.eventsRecorded()).isEqualTo(recorder.calls());
        assertThat(trace.nodes()).anySatisfy(n -> {
            assertThat(n).isInstanceOf(LoopNode.class);
            assertThat(((LoopNode) n).iterations()).isEqualTo(iterations);
            assertThat(n.ranks().size()).isEqualTo(ranks);
        });
        List<Trace.Call> rank0 = trace.expand(0);
        assertThat(rank0).hasSize(iterations * 3);
        assertThat(rank0.subList(0, 3)).containsExactly(
                new Trace.Call(Op.MPI_SEND, SITE_SEND, -1, 1, 64, EventNode.NONE, 0, MpiTuple.COMM_WORLD_ID),
                new Trace.Call(Op.MPI_RECV, SITE_RECV, -1, 1, 64, EventNode.NONE, 0, MpiTuple.COMM_WORLD_ID),
                new Trace.Call(Op.MPI_ALLREDUCE, SITE_ALLREDUCE & Integer.MAX_VALUE, -1, EventNode.NONE, 8, EventNode.NONE,
                        EventNode.NONE, MpiTuple.COMM_WORLD_ID));
        // rank 1's next rank is 0: one before it
        assertThat(trace.expand(1).get(0).peer()).isEqualTo(-1);
    }

    /**
     * A halo exchange on a non-periodic line: the end ranks send to and receive from MPI_PROC_NULL on every step (the
     * library flags those calls, their peer field says none). The peer is kept as a value of its own, and the file
     * reads back: trace show prints it, the export writes it.
     */
    @Test
    void aHaloExchangeWithMpiProcNullReadsBack(@TempDir java.nio.file.Path dir) throws Exception {
        int ranks = 3;
        MpiTraceRecorder recorder = new MpiTraceRecorder(ranks, TraceConfig.of(TimeEncoding.STATS));
        for (int r = 0; r < ranks; r++) {
            long t = 1_000;
            for (int i = 0; i < 5; i++) {
                boolean last = r == ranks - 1;
                recorder.onCall(r, call(SITE_SEND, MpiOp.code("MPI_Sendrecv"), last ? MpiTuple.FLAG_PROC_NULL : 0,
                        last ? -1 : r + 1, last ? 0 : 64, t, t += 500));
                recorder.onCall(r, call(SITE_RECV, MpiOp.code("MPI_Send"), MpiTuple.FLAG_PROC_NULL, -1, 0, t, t += 10));
            }
            // a completion record is part of the wait before it, not a call
            recorder.onCall(r, call(SITE_RECV, MpiTuple.RECORD_COLLECTIVE_DONE, MpiTuple.FLAG_COLLECTIVE, -1, 0, t, t));
        }
        Trace trace = recorder.trace();
        assertThat(trace.eventsRecorded()).isEqualTo(ranks * 5 * 2);
        assertThat(trace.expand(ranks - 1).get(0).peer()).isEqualTo(EventNode.PROC_NULL);
        assertThat(trace.expand(0).get(0).peer()).isEqualTo(1);

        java.nio.file.Path file = dir.resolve("halo.trace.json");
        TraceFile.write(trace, file);
        assertThat(java.nio.file.Files.readString(file)).contains("\"proc_null\"");
        Trace read = TraceFile.read(file);
        assertThat(read.expand(ranks - 1)).isEqualTo(trace.expand(ranks - 1));
        assertThat(read.expand(0)).isEqualTo(trace.expand(0));
        assertThat(TracePrinter.structure(read)).contains("peer MPI_PROC_NULL").contains("rank+1@");
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        new PerfettoExport(read, 1_000).write(out);
        assertThat(out.toString(java.nio.charset.StandardCharsets.UTF_8)).contains("\"peer\":\"MPI_PROC_NULL\"");
    }

    @Test
    void aRankThatMadeNoCallHasAnEmptyTrace() {
        MpiTraceRecorder recorder = new MpiTraceRecorder(3, TraceConfig.of(TimeEncoding.STATS));
        recorder.onCall(1, call(SITE_ALLREDUCE, MpiOp.code("MPI_Barrier"), MpiTuple.FLAG_COLLECTIVE, -1, 0, 10, 20));

        Trace trace = recorder.trace();
        assertThat(trace.ranks()).isEqualTo(3);
        assertThat(trace.expand(0)).isEmpty();
        assertThat(trace.expand(1)).extracting(Trace.Call::op).containsExactly(Op.MPI_BARRIER);
    }

    /**
     * The tag and the communicator a call carries are kept (a wait's request count as its tag; a one-sided call's
     * window is not a communicator), calls that differ only in them stay apart, and the file reads them back.
     */
    @Test
    void tagsAndCommunicatorsAreKeptAndReadBack(@TempDir java.nio.file.Path dir) throws Exception {
        MpiTraceRecorder recorder = new MpiTraceRecorder(2, TraceConfig.of(TimeEncoding.STATS));
        long comm = 0x1234_5678L;
        for (int r = 0; r < 2; r++) {
            long t = 100;
            for (int i = 0; i < 4; i++) {
                recorder.onCall(r, call(SITE_SEND, MpiOp.code("MPI_Isend"), MpiTuple.FLAG_NONBLOCKING, 1 - r, 8, t, t += 10,
                        comm << MpiTuple.SEQUENCE_COMM_SHIFT | (r == 0 ? 5 : 6)));
                recorder.onCall(r, call(SITE_SEND, MpiOp.code("MPI_Isend"), MpiTuple.FLAG_NONBLOCKING, 1 - r, 8, t, t += 10,
                        7));
                recorder.onCall(r, call(SITE_RECV, MpiOp.code("MPI_Waitall"), 0, -1, 0, t, t += 10,
                        (long) MpiTuple.COMM_UNKNOWN_ID << MpiTuple.SEQUENCE_COMM_SHIFT | 2));
                recorder.onCall(r, call(SITE_ALLREDUCE, MpiOp.code("MPI_Put"), 0, 1 - r, 8, t, t += 10,
                        9L << MpiTuple.SEQUENCE_COMM_SHIFT));
            }
        }
        Trace trace = recorder.trace();
        assertThat(trace.expand(0).subList(0, 4)).containsExactly(
                new Trace.Call(Op.MPI_ISEND, SITE_SEND, -1, 1, 8, EventNode.NONE, 5, comm),
                new Trace.Call(Op.MPI_ISEND, SITE_SEND, -1, 1, 8, EventNode.NONE, 7, MpiTuple.COMM_WORLD_ID),
                new Trace.Call(Op.MPI_WAITALL, SITE_RECV, -1, EventNode.NONE, 0, EventNode.NONE, 2, EventNode.NONE),
                new Trace.Call(Op.MPI_PUT, SITE_ALLREDUCE & Integer.MAX_VALUE, -1, 1, 8, EventNode.NONE, EventNode.NONE,
                        EventNode.NONE));
        assertThat(trace.expand(1).get(0).tag()).isEqualTo(6);
        java.nio.file.Path file = dir.resolve("tags.trace.json");
        TraceFile.write(trace, file);
        assertThat(java.nio.file.Files.readString(file)).contains("\"tag\"").contains("\"communicator\":" + comm);
        Trace read = TraceFile.read(file);
        assertThat(read.expand(0)).isEqualTo(trace.expand(0));
        assertThat(read.expand(1)).isEqualTo(trace.expand(1));
    }

    private TraceTupleFlyweight call(int site, int op, int flags, int peer, long bytes, long startNs, long endNs) {
        return call(site, op, flags, peer, bytes, startNs, endNs, 0);
    }

    private TraceTupleFlyweight call(int site, int op, int flags, int peer, long bytes, long startNs, long endNs,
                                     long sequence) {
        ByteOrder o = ByteOrder.LITTLE_ENDIAN;
        buffer.putInt(TraceTupleLayout.COLLECTOR_ID_OFFSET, site, o);
        buffer.putShort(TraceTupleLayout.OP_TYPE_OFFSET, (short) op, o);
        buffer.putShort(TraceTupleLayout.FLAGS_OFFSET, (short) flags, o);
        buffer.putLong(TraceTupleLayout.SEQUENCE_OFFSET, sequence, o);
        buffer.putLong(TraceTupleLayout.VALUE_OFFSET, ((long) (peer + 1) << MpiTuple.VALUE_BYTES_BITS) | bytes, o);
        buffer.putLong(TraceTupleLayout.START_NS_OFFSET, startNs, o);
        buffer.putLong(TraceTupleLayout.END_NS_OFFSET, endNs, o);
        return tuple;
    }
}
