package org.eventspace.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A trace buffer in a memory-mapped file, read through a second, read-only mapping as another process would. */
class MappedTraceBufferTest {
    @TempDir
    Path dir;

    private final TraceTupleFlyweight tuple = new TraceTupleFlyweight();

    /**
     * The file's blocks exist before the first tuple: a collector's store into the mapping never needs a block the
     * file system might not have (a full disk would then kill the writer with SIGBUS, not fail an open).
     */
    @Test
    void theFileHasEveryBlockOnDiskBeforeTheFirstWrite() throws Exception {
        Path file = dir.resolve("c1.trace");
        int capacity = 1 << 14;
        try (TraceBuffer ignored = TraceBuffer.mapped(file, capacity, 1)) {
            long length = TraceBufferLayout.bufferLength(capacity);
            Process stat = new ProcessBuilder("stat", "-c", "%b %B", file.toString()).redirectErrorStream(true).start();
            String[] blocks = new String(stat.getInputStream().readAllBytes()).trim().split(" ");
            assertThat(stat.waitFor()).isZero();
            long allocated = Long.parseLong(blocks[0]) * Long.parseLong(blocks[1]);
            assertThat(allocated).as("bytes allocated on disk for a %d-byte trace file", length).isGreaterThanOrEqualTo(length);
        }
    }

    @Test
    void aFileThatCannotGetItsBytesIsRefusedNamingTheFileAndTheBytes() throws Exception {
        // A file size limit (ulimit -f, in KiB) stands in for a full disk: both refuse the write with an error.
        Path file = dir.resolve("c2.trace");
        Process child = new ProcessBuilder("bash", "-c", "ulimit -f 64; exec \"$0\" -cp \"$1\" \"$2\" \"$3\"",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), System.getProperty("java.class.path"),
                MapOneFile.class.getName(), file.toString()).redirectErrorStream(true).start();
        String out = new String(child.getInputStream().readAllBytes());
        assertThat(child.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(out).contains("cannot give trace file " + file + " its " + TraceBufferLayout.bufferLength(1 << 14)
                + " bytes (65536 written): File too large; is the disk full?");
        assertThat(child.exitValue()).isEqualTo(3);
    }

    /** Maps one 16384-slot trace file; exits 3 with the error's message if that fails. */
    static final class MapOneFile {
        public static void main(String[] args) {
            try (TraceBuffer ignored = TraceBuffer.mapped(Path.of(args[0]), 1 << 14, 2)) {
                System.exit(0);
            } catch (IOException e) {
                System.out.println(e.getMessage());
                System.exit(3);
            }
        }
    }

    @Test
    void readerOfTheFileSeesWhatTheWriterWritesWhileItWrites() throws IOException {
        Path file = dir.resolve("c9.trace");
        try (TraceBuffer buffer = TraceBuffer.mapped(file, 8, 9)) {
            for (long i = 0; i < 5; i++) {
                buffer.write(9, TraceOp.SEND, TraceOp.FLAG_VALUE_IS_SIZE, i, 100 + i, 10 * i, 10 * i + 3);
            }
            assertThat(Files.size(file)).isEqualTo(TraceBufferLayout.bufferLength(8));
            try (TraceBufferReader reader = TraceBufferReader.open(file)) {
                assertThat(reader.collectorId()).isEqualTo(9);
                assertThat(reader.capacity()).isEqualTo(8);
                for (long i = 0; i < 5; i++) {
                    assertThat(reader.readNext(tuple)).isTrue();
                    assertThat(tuple.collectorId()).isEqualTo(9);
                    assertThat(tuple.opType()).isEqualTo(TraceOp.SEND);
                    assertThat(tuple.flags()).isEqualTo(TraceOp.FLAG_VALUE_IS_SIZE);
                    assertThat(tuple.sequence()).isEqualTo(i);
                    assertThat(tuple.value()).isEqualTo(100 + i);
                    assertThat(tuple.startNs()).isEqualTo(10 * i);
                    assertThat(tuple.endNs()).isEqualTo(10 * i + 3);
                }
                assertThat(reader.readNext(tuple)).isFalse();

                // Written after the reader mapped the file: seen through the shared mapping, with laps counted.
                for (long i = 5; i < 20; i++) {
                    buffer.write(9, TraceOp.SEND, i, 100 + i, 0, 0);
                }
                assertThat(reader.readNext(tuple)).isTrue();
                assertThat(tuple.sequence()).isEqualTo(12);
                assertThat(reader.missed()).isEqualTo(7);
            }
        }
        // The file outlives the writer: the post-mortem trace.
        try (TraceBufferReader reader = TraceBufferReader.open(file)) {
            assertThat(reader.position()).isEqualTo(12);
            assertThat(reader.writePosition()).isEqualTo(20);
        }
    }

    @Test
    void fileThatIsNotATraceBufferIsRefusedNamingTheFileAndTheMagic() throws IOException {
        Path file = dir.resolve("not-a-trace.bin");
        Files.write(file, new byte[512]);
        assertThatThrownBy(() -> TraceBufferReader.open(file)).isInstanceOf(IOException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("magic=0x0").hasMessageContaining("0x42545345");
    }

    @Test
    void shortTruncatedAndWrongVersionFilesAreRefusedWithWhatWasWrong() throws IOException {
        Path empty = dir.resolve("empty.trace");
        Files.write(empty, new byte[10]);
        assertThatThrownBy(() -> TraceBufferReader.open(empty)).hasMessageContaining(empty.toString())
                .hasMessageContaining("size=10");

        Path good = dir.resolve("good.trace");
        TraceBuffer.mapped(good, 16).close();
        byte[] bytes = Files.readAllBytes(good);

        Path truncated = dir.resolve("truncated.trace");
        Files.write(truncated, java.util.Arrays.copyOf(bytes, 300));
        assertThatThrownBy(() -> TraceBufferReader.open(truncated)).hasMessageContaining(truncated.toString())
                .hasMessageContaining("truncated").hasMessageContaining("capacity=16");

        Path newer = dir.resolve("newer.trace");
        bytes[TraceBufferLayout.VERSION_OFFSET] = 2;
        Files.write(newer, bytes);
        assertThatThrownBy(() -> TraceBufferReader.open(newer)).hasMessageContaining(newer.toString())
                .hasMessageContaining("version=2");

        Path missing = dir.resolve("missing.trace");
        assertThatThrownBy(() -> TraceBufferReader.open(missing)).isInstanceOf(IOException.class)
                .hasMessageContaining(missing.toString());
    }

    /** A file written on a host of the other byte order (built by hand here) reads the same: §4.1, parsed on read. */
    @Test
    void bufferWrittenInTheOtherByteOrderIsDecodedByItsHeader() throws IOException {
        ByteOrder other = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        int capacity = 4;
        UnsafeBuffer b = new UnsafeBuffer(new byte[(int) TraceBufferLayout.bufferLength(capacity)]);
        ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        b.putInt(TraceBufferLayout.MAGIC_OFFSET, TraceBufferLayout.MAGIC, le);
        b.putShort(TraceBufferLayout.VERSION_OFFSET, TraceBufferLayout.VERSION, le);
        b.putByte(TraceBufferLayout.BYTE_ORDER_OFFSET,
                other == ByteOrder.BIG_ENDIAN ? TraceBufferLayout.BIG_ENDIAN : TraceBufferLayout.LITTLE_ENDIAN);
        b.putInt(TraceBufferLayout.TUPLE_LENGTH_OFFSET, TraceTupleLayout.LENGTH, le);
        b.putInt(TraceBufferLayout.SLOT_LENGTH_OFFSET, TraceBufferLayout.SLOT_LENGTH, le);
        b.putInt(TraceBufferLayout.CAPACITY_OFFSET, capacity, le);
        b.putInt(TraceBufferLayout.COLLECTOR_ID_OFFSET, 5, le);
        for (int i = 0; i < capacity; i++) {
            int slot = TraceBufferLayout.HEADER_LENGTH + i * TraceBufferLayout.SLOT_LENGTH;
            b.putLong(slot, i < 3 ? i : -1, other);
            int t = slot + TraceBufferLayout.SLOT_TUPLE_OFFSET;
            b.putInt(t + TraceTupleLayout.COLLECTOR_ID_OFFSET, 5, other);
            b.putShort(t + TraceTupleLayout.OP_TYPE_OFFSET, (short) TraceOp.BARRIER, other);
            b.putLong(t + TraceTupleLayout.SEQUENCE_OFFSET, 1000 + i, other);
            b.putLong(t + TraceTupleLayout.START_NS_OFFSET, 7L << 40, other);
            b.putLong(t + TraceTupleLayout.END_NS_OFFSET, (7L << 40) + i, other);
        }
        b.putLong(TraceBufferLayout.WRITE_POSITION_OFFSET, 3, other);
        Path file = dir.resolve("foreign.trace");
        Files.write(file, b.byteArray());

        try (TraceBufferReader reader = TraceBufferReader.open(file)) {
            assertThat(reader.byteOrder()).isEqualTo(other);
            assertThat(reader.writePosition()).isEqualTo(3);
            for (int i = 0; i < 3; i++) {
                assertThat(reader.readNext(tuple)).isTrue();
                assertThat(tuple.collectorId()).isEqualTo(5);
                assertThat(tuple.opType()).isEqualTo(TraceOp.BARRIER);
                assertThat(tuple.sequence()).isEqualTo(1000 + i);
                assertThat(tuple.durationNs()).isEqualTo(i);
            }
            assertThat(reader.readNext(tuple)).isFalse();
            assertThat(reader.missed()).isZero();
        }
    }
}
