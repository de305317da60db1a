package org.eventspace.base.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;

import org.eventspace.base.json.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The bound holds before reading (regular files), while reading (pipes, devices) and exactly at the limit. */
class BoundedFilesTest {
    @TempDir
    Path dir;

    @Test
    void aFileOverTheLimitIsRefusedBeforeReadingNamingFileSizeAndLimit() throws IOException {
        Path big = dir.resolve("big.json");
        try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(3L << 30); // sparse: no disk, no reading
        }
        assertThatThrownBy(() -> BoundedFiles.open(big, BoundedFiles.DEFAULT_MAX_BYTES))
                .isInstanceOf(InputLimitException.class)
                .hasMessage(big + ": 3 GiB (3221225472 bytes), over the limit of 512 MiB on an input file "
                        + "(ES_MAX_INPUT_BYTES raises it)");
        assertThatThrownBy(() -> BoundedFiles.readTree(big)).isInstanceOf(InputLimitException.class)
                .hasMessageContaining("3 GiB").hasMessageNotContaining("\n");
    }

    @Test
    void aFileOfExactlyTheLimitIsReadWholeAndOneByteMoreIsNot() throws IOException {
        Path exact = dir.resolve("exact.json");
        Files.writeString(exact, "[1,2,3]");
        try (InputStream in = BoundedFiles.open(exact, 7)) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("[1,2,3]");
        }
        assertThatThrownBy(() -> BoundedFiles.open(exact, 6)).isInstanceOf(InputLimitException.class)
                .hasMessage(exact + ": 7 B (7 bytes), over the limit of 6 B on an input file (ES_MAX_INPUT_BYTES raises it)");
    }

    @Test
    void aDeviceWithNoSizeIsStoppedByCountingAtTheLimit() {
        // /dev/zero never ends: without the counting stream this would read until the heap is gone
        Path zero = Path.of("/dev/zero");
        assertThatThrownBy(() -> {
            try (InputStream in = BoundedFiles.open(zero, 1 << 20)) {
                in.readAllBytes();
            }
        }).isInstanceOf(InputLimitException.class)
                .hasMessage("/dev/zero: more than 1 MiB read, over the limit of 1 MiB on an input file "
                        + "(ES_MAX_INPUT_BYTES raises it)");
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aPipeIsReadUpToTheLimitAndStoppedPastIt() throws Exception {
        Path fifo = dir.resolve("fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertThat(mkfifo.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(mkfifo.exitValue()).isZero();
        byte[] exactly = new byte[4096];
        assertThat(readThroughPipe(fifo, exactly, 4096)).isEqualTo(4096);
        assertThatThrownBy(() -> readThroughPipe(fifo, new byte[4097], 4096)).isInstanceOf(InputLimitException.class)
                .hasMessageContaining("more than 4 KiB read");
    }

    /** Writes {@code bytes} into the pipe from another thread while this one reads it bounded. */
    private static int readThroughPipe(Path fifo, byte[] bytes, long limit) throws Exception {
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try (OutputStream out = Files.newOutputStream(fifo)) {
                out.write(bytes);
            } catch (IOException e) {
                // the reader stopped early: the pipe is closed under us
            }
        });
        try (InputStream in = BoundedFiles.open(fifo, limit)) {
            return in.readAllBytes().length;
        } finally {
            writer.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void theParserCapsTokensExplicitly() throws IOException {
        Path deep = dir.resolve("deep.json");
        Files.writeString(deep, "[".repeat(1001) + "]".repeat(1001));
        assertThatThrownBy(() -> BoundedFiles.readTree(deep)).isInstanceOf(StreamConstraintsException.class)
                .hasMessageContaining("1000");
        Path number = dir.resolve("number.json");
        Files.writeString(number, "[" + "9".repeat(300) + "]");
        assertThatThrownBy(() -> BoundedFiles.readTree(number)).isInstanceOf(StreamConstraintsException.class);
        try (JsonParser p = BoundedFiles.jsonParser(InputStream.nullInputStream())) {
            assertThat(p.streamReadConstraints().getMaxStringLength()).isEqualTo(16 * 1024 * 1024);
        }
    }

    @Test
    void aValidDocumentIsReadAsTheSharedMapperReadsIt() throws IOException {
        Path ok = dir.resolve("ok.json");
        Files.writeString(ok, "{\"a\": [1, 2.5, \"x\"]}");
        assertThat(BoundedFiles.readTree(ok)).isEqualTo(Json.mapper().readTree(ok.toFile()));
        Path empty = dir.resolve("empty.json");
        Files.writeString(empty, "");
        assertThat(BoundedFiles.readTree(empty).isMissingNode()).isTrue();
        Path lines = dir.resolve("lines.txt");
        Files.writeString(lines, "a\nb\n");
        assertThat(BoundedFiles.readAllLines(lines)).containsExactly("a", "b");
        assertThat(BoundedFiles.readString(lines)).isEqualTo("a\nb\n");
    }

    @Test
    void theLimitComesFromTheEnvironmentAndABadSettingIsNamed() throws InputLimitException {
        assertThat(BoundedFiles.maxBytes(null)).isEqualTo(512L << 20);
        assertThat(BoundedFiles.maxBytes("2g")).isEqualTo(2L << 30);
        assertThat(BoundedFiles.maxBytes("1000")).isEqualTo(1000);
        assertThat(BoundedFiles.maxBytes("64M")).isEqualTo(64L << 20);
        for (String bad : new String[] {"0", "-1", "lots", "g", "99999999999999g"}) {
            assertThatThrownBy(() -> BoundedFiles.maxBytes(bad)).isInstanceOf(InputLimitException.class)
                    .hasMessageStartingWith("ES_MAX_INPUT_BYTES=" + bad + ": expected a positive number of bytes");
        }
    }
}
