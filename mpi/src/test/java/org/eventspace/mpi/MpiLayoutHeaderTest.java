package org.eventspace.mpi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.eventspace.events.TraceBuffer;
import org.eventspace.events.TraceBufferLayout;
import org.eventspace.events.TraceTupleLayout;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The C header the native library is built from (carried in the jar as /native/es_mpi_layout.h) against the Java
 * descriptors: every offset, length, code and op, so the two sides cannot drift apart.
 */
class MpiLayoutHeaderTest {
    private static final Map<String, Long> DEFINES = new LinkedHashMap<>();
    private static final Map<Integer, String> OPS = new LinkedHashMap<>();

    @BeforeAll
    static void parse() throws IOException {
        String header;
        try (InputStream in = MpiLayoutHeaderTest.class.getResourceAsStream("/native/es_mpi_layout.h")) {
            assertThat(in).as("es_mpi_layout.h in the mpi jar").isNotNull();
            header = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
        Matcher d = Pattern.compile("(?m)^#define (ES_\\w+) (0x[0-9A-Fa-f]+|\\d+)(LL)?\\s*$").matcher(header);
        while (d.find()) {
            String v = d.group(2);
            DEFINES.put(d.group(1), v.startsWith("0x") ? Long.parseLong(v.substring(2), 16) : Long.parseLong(v));
        }
        Matcher op = Pattern.compile("ES_OP\\((\\w+), (\\d+)\\)").matcher(header);
        while (op.find()) {
            OPS.put(Integer.parseInt(op.group(2)), "MPI_" + op.group(1));
        }
    }

    private static long define(String name) {
        assertThat(DEFINES).as("#define %s in es_mpi_layout.h", name).containsKey(name);
        return DEFINES.get(name);
    }

    @Test
    void tupleOffsetsAreTraceTupleLayouts() {
        assertThat(define("ES_TUPLE_COLLECTOR_ID_OFFSET")).isEqualTo(TraceTupleLayout.COLLECTOR_ID_OFFSET);
        assertThat(define("ES_TUPLE_OP_TYPE_OFFSET")).isEqualTo(TraceTupleLayout.OP_TYPE_OFFSET);
        assertThat(define("ES_TUPLE_FLAGS_OFFSET")).isEqualTo(TraceTupleLayout.FLAGS_OFFSET);
        assertThat(define("ES_TUPLE_SEQUENCE_OFFSET")).isEqualTo(TraceTupleLayout.SEQUENCE_OFFSET);
        assertThat(define("ES_TUPLE_VALUE_OFFSET")).isEqualTo(TraceTupleLayout.VALUE_OFFSET);
        assertThat(define("ES_TUPLE_START_NS_OFFSET")).isEqualTo(TraceTupleLayout.START_NS_OFFSET);
        assertThat(define("ES_TUPLE_END_NS_OFFSET")).isEqualTo(TraceTupleLayout.END_NS_OFFSET);
        assertThat(define("ES_TUPLE_LENGTH")).isEqualTo(TraceTupleLayout.LENGTH);
    }

    @Test
    void bufferOffsetsAreTraceBufferLayouts() {
        assertThat(define("ES_BUFFER_MAGIC")).isEqualTo(TraceBufferLayout.MAGIC);
        assertThat(define("ES_BUFFER_VERSION")).isEqualTo(TraceBufferLayout.VERSION);
        assertThat(define("ES_BUFFER_LITTLE_ENDIAN")).isEqualTo(TraceBufferLayout.LITTLE_ENDIAN);
        assertThat(define("ES_BUFFER_BIG_ENDIAN")).isEqualTo(TraceBufferLayout.BIG_ENDIAN);
        assertThat(define("ES_BUFFER_MAGIC_OFFSET")).isEqualTo(TraceBufferLayout.MAGIC_OFFSET);
        assertThat(define("ES_BUFFER_VERSION_OFFSET")).isEqualTo(TraceBufferLayout.VERSION_OFFSET);
        assertThat(define("ES_BUFFER_BYTE_ORDER_OFFSET")).isEqualTo(TraceBufferLayout.BYTE_ORDER_OFFSET);
        assertThat(define("ES_BUFFER_TUPLE_LENGTH_OFFSET")).isEqualTo(TraceBufferLayout.TUPLE_LENGTH_OFFSET);
        assertThat(define("ES_BUFFER_SLOT_LENGTH_OFFSET")).isEqualTo(TraceBufferLayout.SLOT_LENGTH_OFFSET);
        assertThat(define("ES_BUFFER_CAPACITY_OFFSET")).isEqualTo(TraceBufferLayout.CAPACITY_OFFSET);
        assertThat(define("ES_BUFFER_COLLECTOR_ID_OFFSET")).isEqualTo(TraceBufferLayout.COLLECTOR_ID_OFFSET);
        assertThat(define("ES_BUFFER_WRITE_POSITION_OFFSET")).isEqualTo(TraceBufferLayout.WRITE_POSITION_OFFSET);
        assertThat(define("ES_BUFFER_HEADER_LENGTH")).isEqualTo(TraceBufferLayout.HEADER_LENGTH);
        assertThat(define("ES_BUFFER_SLOT_SEQUENCE_OFFSET")).isEqualTo(TraceBufferLayout.SLOT_SEQUENCE_OFFSET);
        assertThat(define("ES_BUFFER_SLOT_TUPLE_OFFSET")).isEqualTo(TraceBufferLayout.SLOT_TUPLE_OFFSET);
        assertThat(define("ES_BUFFER_SLOT_LENGTH")).isEqualTo(TraceBufferLayout.SLOT_LENGTH);
        assertThat(define("ES_BUFFER_MIN_CAPACITY")).isEqualTo(TraceBuffer.MIN_CAPACITY);
        assertThat(define("ES_BUFFER_MAX_CAPACITY")).isEqualTo(TraceBuffer.MAX_CAPACITY);
    }

    @Test
    void mpiTupleFieldsAndMetaFileAreTheJavaDescriptors() {
        assertThat(define("ES_MPI_COLLECTOR_BASE")).isEqualTo(MpiTuple.COLLECTOR_BASE);
        assertThat(define("ES_VALUE_BYTES_BITS")).isEqualTo(MpiTuple.VALUE_BYTES_BITS);
        assertThat(define("ES_SEQUENCE_COMM_SHIFT")).isEqualTo(MpiTuple.SEQUENCE_COMM_SHIFT);
        assertThat(define("ES_COMM_WORLD_ID")).isEqualTo(MpiTuple.COMM_WORLD_ID);
        assertThat(define("ES_COMM_SELF_ID")).isEqualTo(MpiTuple.COMM_SELF_ID);
        assertThat((int) define("ES_COMM_UNKNOWN_ID")).isEqualTo(MpiTuple.COMM_UNKNOWN_ID);
        assertThat(define("ES_FLAG_FAILED")).isEqualTo(MpiTuple.FLAG_FAILED);
        assertThat(define("ES_FLAG_FORTRAN")).isEqualTo(MpiTuple.FLAG_FORTRAN);
        assertThat(define("ES_FLAG_NONBLOCKING")).isEqualTo(MpiTuple.FLAG_NONBLOCKING);
        assertThat(define("ES_FLAG_COLLECTIVE")).isEqualTo(MpiTuple.FLAG_COLLECTIVE);
        assertThat(define("ES_FLAG_IN_PLACE")).isEqualTo(MpiTuple.FLAG_IN_PLACE);
        assertThat(define("ES_REC_RECEIVE")).isEqualTo(MpiTuple.RECORD_RECEIVE);
        assertThat(MpiOp.known(MpiTuple.RECORD_RECEIVE)).as("a receive record is not an op code").isFalse();
        assertThat(define("ES_FLAG_PROC_NULL")).isEqualTo(MpiTuple.FLAG_PROC_NULL);
        assertThat(define("ES_REC_COLLECTIVE_DONE")).isEqualTo(MpiTuple.RECORD_COLLECTIVE_DONE);
        assertThat(MpiOp.known(MpiTuple.RECORD_COLLECTIVE_DONE)).as("a completion record is not an op code").isFalse();
        assertThat(define("ES_META_MAGIC")).isEqualTo(MpiRankMetaLayout.MAGIC);
        assertThat(define("ES_META_VERSION")).isEqualTo(MpiRankMetaLayout.VERSION);
        assertThat(define("ES_SYNC_ROUNDS")).isEqualTo(MpiRankMetaLayout.SYNC_ROUNDS);
        assertThat(define("ES_SYNC_PING_BYTES")).isEqualTo(MpiRankMetaLayout.SYNC_PING_BYTES);
        assertThat(define("ES_SYNC_PONG_BYTES")).isEqualTo(MpiRankMetaLayout.SYNC_PONG_BYTES);
        String[][] pairs = {
                {"ES_META_MAGIC_OFFSET", "MAGIC_OFFSET"}, {"ES_META_VERSION_OFFSET", "VERSION_OFFSET"},
                {"ES_META_BYTE_ORDER_OFFSET", "BYTE_ORDER_OFFSET"}, {"ES_META_STATE_OFFSET", "STATE_OFFSET"},
                {"ES_META_RANK_OFFSET", "RANK_OFFSET"}, {"ES_META_SIZE_OFFSET", "SIZE_OFFSET"},
                {"ES_META_HOST_INDEX_OFFSET", "HOST_INDEX_OFFSET"}, {"ES_META_PID_OFFSET", "PID_OFFSET"},
                {"ES_META_OP_COUNT_OFFSET", "OP_COUNT_OFFSET"}, {"ES_META_INIT_NS_OFFSET", "INIT_NS_OFFSET"},
                {"ES_META_FINALIZE_NS_OFFSET", "FINALIZE_NS_OFFSET"},
                {"ES_META_INIT_OFFSET_NS_OFFSET", "INIT_OFFSET_NS_OFFSET"},
                {"ES_META_INIT_RTT_NS_OFFSET", "INIT_RTT_NS_OFFSET"},
                {"ES_META_FINALIZE_OFFSET_NS_OFFSET", "FINALIZE_OFFSET_NS_OFFSET"},
                {"ES_META_FINALIZE_RTT_NS_OFFSET", "FINALIZE_RTT_NS_OFFSET"},
                {"ES_META_UNTRACED_CALLS_OFFSET", "UNTRACED_CALLS_OFFSET"},
                {"ES_META_CLOCK_SKEW_NS_OFFSET", "CLOCK_SKEW_NS_OFFSET"}, {"ES_META_HOSTNAME_OFFSET", "HOSTNAME_OFFSET"},
                {"ES_META_HOSTNAME_LENGTH", "HOSTNAME_LENGTH"},
                {"ES_META_UNTRACKED_REQUESTS_OFFSET", "UNTRACKED_REQUESTS_OFFSET"},
                {"ES_META_INIT_ERROR_NS_OFFSET", "INIT_ERROR_NS_OFFSET"},
                {"ES_META_FINALIZE_ERROR_NS_OFFSET", "FINALIZE_ERROR_NS_OFFSET"},
                {"ES_META_THREAD_RINGS_OFFSET", "THREAD_RINGS_OFFSET"}, {"ES_META_COMMS_LOST_OFFSET", "COMMS_LOST_OFFSET"},
                {"ES_META_COUNTERS_OFFSET", "COUNTERS_OFFSET"},
                {"ES_META_COUNTER_LENGTH", "COUNTER_LENGTH"}, {"ES_META_COMMS_COUNT_OFFSET", "COMMS_COUNT_OFFSET"},
                {"ES_META_COMMS_OFFSET", "COMMS_OFFSET"}, {"ES_META_COMM_LENGTH", "COMM_LENGTH"},
                {"ES_META_COMMS_MAX", "COMMS_MAX"}, {"ES_META_LENGTH", "LENGTH"},
                {"ES_META_STATE_RUNNING", "STATE_RUNNING"}, {"ES_META_STATE_FINALIZED", "STATE_FINALIZED"},
                {"ES_META_COUNTERS_MAX", "COUNTERS_MAX"}, {"ES_META_END_FLAGS_OFFSET", "END_FLAGS_OFFSET"},
                {"ES_META_END_SIGNAL_OFFSET", "END_SIGNAL_OFFSET"}, {"ES_META_END_SIGNAL_OP_OFFSET", "END_SIGNAL_OP_OFFSET"},
                {"ES_META_END_ABORT_CODE_OFFSET", "END_ABORT_CODE_OFFSET"},
                {"ES_META_END_EXIT_STATUS_OFFSET", "END_EXIT_STATUS_OFFSET"},
                {"ES_META_END_FAILED_NS_OFFSET", "END_FAILED_NS_OFFSET"}, {"ES_END_EXITED", "END_EXITED"},
                {"ES_END_BEFORE_FINALIZE", "END_BEFORE_FINALIZE"}, {"ES_END_ABORTED", "END_ABORTED"},
                {"ES_END_SIGNALED", "END_SIGNALED"}, {"ES_END_IN_CALL", "END_IN_CALL"},
                {"ES_END_AGENT_LOST", "END_AGENT_LOST"}, {"ES_META_HEARTBEAT_OFFSET", "HEARTBEAT_OFFSET"},
                {"ES_META_CURRENT_OP_OFFSET", "CURRENT_OP_OFFSET"}};
        for (String[] p : pairs) {
            try {
                long java = MpiRankMetaLayout.class.getField(p[1]).getLong(null);
                assertThat(define(p[0])).as("%s = MpiRankMetaLayout.%s", p[0], p[1]).isEqualTo(java);
            } catch (ReflectiveOperationException e) {
                throw new AssertionError("MpiRankMetaLayout." + p[1] + " is missing", e);
            }
        }
        assertThat(define("ES_META_NO_OFFSET")).isEqualTo(MpiRankMetaLayout.NO_OFFSET);
        // the counters, the end fields and the communicator table fit the file and do not overlap
        assertThat(MpiOp.END - MpiOp.FIRST).isLessThanOrEqualTo(MpiRankMetaLayout.COUNTERS_MAX);
        long countersEnd = define("ES_META_COUNTERS_OFFSET") + define("ES_META_COUNTERS_MAX") * define("ES_META_COUNTER_LENGTH");
        assertThat(countersEnd).isLessThanOrEqualTo(define("ES_META_END_FLAGS_OFFSET"));
        assertThat(define("ES_META_END_FAILED_NS_OFFSET") + 8).isLessThanOrEqualTo(define("ES_META_HEARTBEAT_OFFSET"));
        assertThat(define("ES_META_HEARTBEAT_OFFSET") + 8).isLessThanOrEqualTo(define("ES_META_CURRENT_OP_OFFSET"));
        assertThat(define("ES_META_CURRENT_OP_OFFSET") + 4).isLessThanOrEqualTo(define("ES_META_COMMS_COUNT_OFFSET"));
        assertThat(define("ES_META_COMMS_OFFSET") + define("ES_META_COMMS_MAX") * define("ES_META_COMM_LENGTH"))
                .isLessThanOrEqualTo(define("ES_META_LENGTH"));
    }

    @Test
    void opTableIsMpiOps() {
        assertThat(define("ES_OP_FIRST")).isEqualTo(MpiOp.FIRST);
        assertThat(define("ES_OP_END")).isEqualTo(MpiOp.END);
        assertThat(OPS).hasSize(MpiOp.END - MpiOp.FIRST);
        OPS.forEach((code, name) -> assertThat(MpiOp.name(code)).as("op %d", code).isEqualTo(name));
    }
}
