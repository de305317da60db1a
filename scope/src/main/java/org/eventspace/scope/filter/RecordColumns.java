package org.eventspace.scope.filter;

/**
 * cbc's record segmentation: the words of a packet's records transposed into columns before blocks are cut — every
 * record's first header word, then every record's round, then every value — and back after decoding. Varg transposes
 * the screen before segmenting it when the motion is horizontal (dissertation §4.1.2.1), and Canidae keeps the
 * segmentation apart from redundancy elimination so that it can be chosen per kind of data (§8.4.2, §8.5.3): here
 * the kind is a {@code newest} packet of values-only result sets, where each record is
 * {@link PacketLayout#RECORD_HEADER_WORDS} words and its round (the set's version) changes every round while its rank
 * and often its value do not. Row-wise, every block of a record would change; in columns, the ranks and the unchanged
 * values form blocks that repeat from round to round, and the rounds one block that repeats within the packet.
 *
 * <p>The transposition is a bijection on any bytes: the packet header's {@link PacketLayout#HEADER_WORDS} words, the
 * words past the last whole row and a tail shorter than a word stay where they are. Stateless.
 */
final class RecordColumns {
    static final int HEADER_WORDS = PacketLayout.HEADER_WORDS;
    static final int STRIDE = PacketLayout.RECORD_HEADER_WORDS;

    private RecordColumns() {
    }

    /** Writes {@code raw[0, length)} in column order to {@code into}. */
    static void toColumns(byte[] raw, int length, byte[] into) {
        move(raw, length, into, true);
    }

    /** Writes {@code columns[0, length)} back in row order to {@code into}. */
    static void toRows(byte[] columns, int length, byte[] into) {
        move(columns, length, into, false);
    }

    private static void move(byte[] from, int length, byte[] to, boolean forward) {
        int words = length / Long.BYTES;
        int rows = words > HEADER_WORDS ? (words - HEADER_WORDS) / STRIDE : 0;
        int body = rows * STRIDE;
        int head = Math.min(length, HEADER_WORDS * Long.BYTES);
        System.arraycopy(from, 0, to, 0, head);
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < STRIDE; c++) {
                int row = HEADER_WORDS + r * STRIDE + c;
                int column = HEADER_WORDS + c * rows + r;
                int src = (forward ? row : column) * Long.BYTES;
                int dst = (forward ? column : row) * Long.BYTES;
                WireBytes.putLong(to, dst, WireBytes.getLong(from, src));
            }
        }
        int rest = head + body * Long.BYTES;
        System.arraycopy(from, rest, to, rest, length - rest);
    }
}
