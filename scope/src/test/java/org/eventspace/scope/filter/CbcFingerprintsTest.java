package org.eventspace.scope.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** The two fingerprint levels, the content-defined cuts, and what a wholly repeated packet costs. */
class CbcFingerprintsTest {
    private static byte[] words(long... values) {
        byte[] b = new byte[values.length * 8];
        for (int i = 0; i < values.length; i++) {
            WireBytes.putLong(b, i * 8, values[i]);
        }
        return b;
    }

    @Test
    void levelOneDependsOnEveryByteAndTheLengthButNotOnWhereTheBlockSits() {
        byte[] a = words(1, 2, 3, 4);
        byte[] shifted = new byte[a.length + 8];
        System.arraycopy(a, 0, shifted, 8, a.length);
        long fp = CbcFingerprints.block(a, 0, a.length);

        assertThat(CbcFingerprints.block(shifted, 8, a.length)).isEqualTo(fp);
        for (int i = 0; i < a.length; i++) {
            byte[] b = a.clone();
            b[i] ^= 1;
            assertThat(CbcFingerprints.block(b, 0, b.length)).as("byte %d flipped", i).isNotEqualTo(fp);
        }
        byte[] zeroTail = Arrays.copyOf(a, a.length + 1);
        assertThat(CbcFingerprints.block(zeroTail, 0, zeroTail.length)).isNotEqualTo(fp);
    }

    @Test
    void levelTwoCoversTheGroupsBlocksInOrder() {
        long[] fps = {11, 22, 33, 44};
        long g = CbcFingerprints.group(fps, 0, 4);

        assertThat(CbcFingerprints.group(new long[] {0, 11, 22, 33, 44}, 1, 4)).isEqualTo(g);
        assertThat(CbcFingerprints.group(new long[] {22, 11, 33, 44}, 0, 4)).isNotEqualTo(g);
        assertThat(CbcFingerprints.group(fps, 0, 3)).isNotEqualTo(g);
        assertThat(CbcFingerprints.check(words(1, 2), 16)).isNotEqualTo(CbcFingerprints.block(words(1, 2), 0, 16));
    }

    @Test
    void cutsMoveWithTheContentWhenWordsAreInsertedBefore() {
        Random random = new Random(7);
        long[] values = new long[400];
        for (int i = 0; i < values.length; i++) {
            values[i] = random.nextLong();
        }
        byte[] data = words(values);
        long[] moved = new long[values.length + 3];
        System.arraycopy(values, 0, moved, 3, values.length);
        moved[0] = 5;
        moved[1] = 6;
        moved[2] = 7;
        byte[] shifted = words(moved);

        java.util.List<Integer> cuts = cuts(data);
        java.util.List<Integer> shiftedCuts = cuts(shifted);
        // After the first few blocks the anchors agree again, 24 bytes later.
        long agreeing = cuts.stream().filter(c -> c > 100 && shiftedCuts.contains(c + 24)).count();
        assertThat(agreeing).isGreaterThan(cuts.size() * 3L / 4);
        for (int i = 1; i < cuts.size(); i++) {
            int len = cuts.get(i) - cuts.get(i - 1);
            assertThat(len).isBetween(16, 256);
        }
    }

    private static java.util.List<Integer> cuts(byte[] data) {
        java.util.List<Integer> cuts = new java.util.ArrayList<>();
        cuts.add(0);
        int from = 0;
        while (from < data.length) {
            from = CbcFingerprints.blockEnd(data, from, data.length, 2, 32, 7);
            cuts.add(from);
        }
        return cuts;
    }

    @Test
    void aWhollyRepeatedPacketCostsOneRunReferenceAndAnEmptyCacheMakesOneLiteralPerBlock() {
        Random random = new Random(3);
        long[] values = new long[512];
        for (int i = 0; i < values.length; i++) {
            values[i] = random.nextLong();
        }
        byte[] packet = words(values);
        CbcEncoder encoder = new CbcEncoder(64, 4096, false);
        CbcDecoder decoder = new CbcDecoder(64, 4096, false);

        int first = encoder.encode(packet, packet.length);
        assertThat(first).isGreaterThan(packet.length);
        decoder.decode(Arrays.copyOf(encoder.output(), first), first);
        int second = encoder.encode(packet, packet.length);
        byte[] message = Arrays.copyOf(encoder.output(), second);

        // flags, sequence 1, length 4096 (2 bytes), RUN back count (2 + 2 bytes at most), 8-byte check
        assertThat(message[0]).isZero();
        assertThat(message[4]).isEqualTo((byte) CbcLayout.OP_RUN);
        assertThat(second).isLessThanOrEqualTo(4 + 1 + 2 + 2 + CbcLayout.CHECK_BYTES);
        int n = decoder.decode(message, second);
        assertThat(Arrays.copyOf(decoder.output(), n)).isEqualTo(packet);
    }

    @Test
    void aReferenceToAnEvictedBlockAsksForAResyncNamingTheBlocks() {
        CbcEncoder encoder = new CbcEncoder(8, 16, false);
        CbcDecoder decoder = new CbcDecoder(8, 16, false);
        byte[] a = words(1, 2, 3);
        int n = encoder.encode(a, a.length);
        decoder.decode(Arrays.copyOf(encoder.output(), n), n);
        // A message that names block id next − 40: never held by a cache of 16.
        byte[] forged = {0, 1, 8, CbcLayout.OP_REF, 40, 0, 0, 0, 0, 0, 0, 0, 0};

        assertThatThrownBy(() -> decoder.decode(forged, forged.length)).isInstanceOf(ResyncNeeded.class)
                .hasMessageContaining("reference to blocks");
    }

    @Test
    void recordColumnsAreABijectionThatPutsEachRecordFieldTogether() {
        // header (3 words), two records of 3 words, one word past the last whole row, a 3-byte tail
        byte[] rows = Arrays.copyOf(words(1, 2, 3, 10, 11, 12, 20, 21, 22, 99), 83);
        rows[80] = 7;
        rows[82] = 9;
        byte[] columns = new byte[rows.length];
        RecordColumns.toColumns(rows, rows.length, columns);

        assertThat(Arrays.copyOf(columns, 80)).isEqualTo(words(1, 2, 3, 10, 20, 11, 21, 12, 22, 99));
        byte[] back = new byte[rows.length];
        RecordColumns.toRows(columns, columns.length, back);
        assertThat(back).isEqualTo(rows);
    }

    @Test
    void aDecoderAcceptsNothingBeforeTheFirstReset() {
        CbcDecoder decoder = new CbcDecoder(64, 16, false);
        byte[] message = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

        assertThatThrownBy(() -> decoder.decode(message, message.length)).isInstanceOf(ResyncNeeded.class)
                .hasMessageContaining("waiting for a RESET");
    }
}
