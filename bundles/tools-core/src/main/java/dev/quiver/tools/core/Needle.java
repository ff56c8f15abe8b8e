package dev.quiver.tools.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A byte string searched for in file contents, eight bytes at a time: the scan looks for the
 * needle's rarest byte (by how often bytes occur in source code) with a word-wide comparison and
 * checks the whole needle only where that byte occurs. ASCII letters can be matched in either case.
 */
final class Needle {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;

    /** Rough byte frequencies in source text, most common first; bytes not listed count as rare. */
    private static final String COMMON = " etaoinsrlcdu\n;p(m).h,f=g\"b_y/vwSCETAk*{}x:RINLDOP-MF0[]1'>"
            + "<&jB2U#Hq+zGV!WK3Y$X4%JQ5Z6789|~@^`?\\\t";
    private static final int[] RANK = new int[256];

    static {
        for (int b = 0; b < 256; b++) {
            RANK[b] = b >= 0x80 ? 40 : COMMON.length() + 1;
        }
        for (int i = 0; i < COMMON.length(); i++) {
            RANK[COMMON.charAt(i)] = i;
        }
    }

    private final byte[] bytes;
    private final boolean foldCase;
    private final int rare;
    private final long rarePattern;
    private final long rareOtherCase;
    /** Whether the rare byte is a letter matched in either case. */
    private final boolean rareFolds;

    /**
     * @param bytes what to look for, at least one byte
     * @param foldCase whether ASCII letters match in either case
     */
    Needle(byte[] bytes, boolean foldCase) {
        this.bytes = bytes.clone();
        this.foldCase = foldCase;
        int best = 0;
        for (int i = 1; i < bytes.length; i++) {
            // the lower rank of a letter's two cases decides, since either may occur
            if (rank(bytes[i]) > rank(bytes[best])) {
                best = i;
            }
        }
        this.rare = best;
        byte b = bytes[best];
        this.rarePattern = (b & 0xFFL) * ONES;
        this.rareOtherCase = (foldCase && isLetter(b) ? (b ^ 0x20) & 0xFFL : b & 0xFFL) * ONES;
        this.rareFolds = rareOtherCase != rarePattern;
    }

    private int rank(byte b) {
        int rank = RANK[b & 0xFF];
        return foldCase && isLetter(b) ? Math.min(rank, RANK[(b ^ 0x20) & 0xFF]) : rank;
    }

    private static boolean isLetter(byte b) {
        int c = b | 0x20;
        return c >= 'a' && c <= 'z';
    }

    int length() {
        return bytes.length;
    }

    /** The first index in {@code [from, to)} where the whole needle starts, or -1. */
    int find(byte[] hay, int from, int to) {
        int length = bytes.length;
        int last = to - length; // the last possible start
        if (last < from) {
            return -1;
        }
        int i = from + rare;
        int end = last + rare + 1; // rare bytes beyond this cannot start a whole needle
        while (i + 8 <= end) {
            long word = (long) LONGS.get(hay, i);
            long found = rareBytes(word);
            while (found != 0) {
                int start = i + (Long.numberOfTrailingZeros(found) >>> 3) - rare;
                if (matchesAt(hay, start)) {
                    return start;
                }
                found &= found - 1;
            }
            i += 8;
        }
        for (; i < end; i++) {
            int start = i - rare;
            if (matchesAt(hay, start)) {
                return start;
            }
        }
        return -1;
    }

    /**
     * Whether the needle occurs in {@code [0, to)} of a direct buffer (little-endian), where file contents
     * are read, so that the many files without it are never copied onto the heap. The same scan as
     * {@link #find(byte[], int, int)}.
     */
    boolean occursIn(ByteBuffer hay, int to) {
        int length = bytes.length;
        int last = to - length;
        if (last < 0) {
            return false;
        }
        int i = rare;
        int end = last + rare + 1;
        // sixteen bytes a step, with the cheap test for any zero byte (exact as a yes or no) on both
        // words at once; the positions are worked out only for a pair that holds the byte: most
        // files are rejected here, so this loop is most of a search's own work
        while (i + 16 <= end) {
            long first = hay.getLong(i);
            long second = hay.getLong(i + 8);
            long any = anyZero(first ^ rarePattern) | anyZero(second ^ rarePattern);
            if (rareFolds) {
                any |= anyZero(first ^ rareOtherCase) | anyZero(second ^ rareOtherCase);
            }
            if (any != 0 && (occursAt(hay, i, first) || occursAt(hay, i + 8, second))) {
                return true;
            }
            i += 16;
        }
        if (i + 8 <= end) {
            if (occursAt(hay, i, hay.getLong(i))) {
                return true;
            }
            i += 8;
        }
        for (; i < end; i++) {
            if (matchesAt(hay, i - rare)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the needle starts at a place whose rare byte is in the word read at {@code i}. */
    private boolean occursAt(ByteBuffer hay, int i, long word) {
        long found = rareBytes(word);
        while (found != 0) {
            if (matchesAt(hay, i + (Long.numberOfTrailingZeros(found) >>> 3) - rare)) {
                return true;
            }
            found &= found - 1;
        }
        return false;
    }

    /** The high bit of exactly those bytes of {@code word} that are the rare byte (in either case when it folds). */
    private long rareBytes(long word) {
        long found = zeroBytes(word ^ rarePattern);
        return rareFolds ? found | zeroBytes(word ^ rareOtherCase) : found;
    }

    /** Non-zero exactly when {@code word} has a zero byte (which bytes it marks is exact only up to the first). */
    private static long anyZero(long word) {
        return (word - ONES) & ~word & HIGHS;
    }

    private boolean matchesAt(ByteBuffer hay, int start) {
        byte[] needle = bytes;
        for (int k = 0; k < needle.length; k++) {
            byte h = hay.get(start + k);
            byte n = needle[k];
            if (h != n && !(foldCase && isLetter(n) && (h ^ 0x20) == n)) {
                return false;
            }
        }
        return true;
    }

    /** Whether the first {@code probe} bytes of a direct buffer holding {@code length} bytes hold a NUL byte. */
    static boolean hasNul(ByteBuffer buffer, int length, int probe) {
        int end = Math.min(length, probe);
        int i = 0;
        for (; i + 8 <= end; i += 8) {
            if (zeroBytes(buffer.getLong(i)) != 0) {
                return true;
            }
        }
        for (; i < end; i++) {
            if (buffer.get(i) == 0) {
                return true;
            }
        }
        return false;
    }

    /** The high bit of exactly those bytes of {@code word} that are zero. */
    private static long zeroBytes(long word) {
        long lows = 0x7F7F7F7F7F7F7F7FL;
        return ~(((word & lows) + lows) | word | lows);
    }

    private boolean matchesAt(byte[] hay, int start) {
        byte[] needle = bytes;
        if (foldCase) {
            for (int k = 0; k < needle.length; k++) {
                byte h = hay[start + k];
                byte n = needle[k];
                if (h != n && !(isLetter(n) && (h ^ 0x20) == n)) {
                    return false;
                }
            }
            return true;
        }
        for (int k = 0; k < needle.length; k++) {
            if (hay[start + k] != needle[k]) {
                return false;
            }
        }
        return true;
    }

    /** Whether the first {@code probe} bytes of a buffer of {@code length} hold a NUL byte. */
    static boolean hasNul(byte[] buffer, int length, int probe) {
        int end = Math.min(length, probe);
        int i = 0;
        for (; i + 8 <= end; i += 8) {
            if (zeroBytes((long) LONGS.get(buffer, i)) != 0) {
                return true;
            }
        }
        for (; i < end; i++) {
            if (buffer[i] == 0) {
                return true;
            }
        }
        return false;
    }

    private static final long NEWLINES = 0x0A0A0A0A0A0A0A0AL;
    private static final long RETURNS = 0x0D0D0D0D0D0D0D0DL;

    /**
     * How many lines end in {@code [from, to)}: each {@code \n}, and each {@code \r} not followed by
     * {@code \n} (the byte at {@code to}, when there is one, counts as following). Eight bytes at a time.
     *
     * @param length how many bytes of the buffer are the file's
     */
    static int lineEnds(byte[] buffer, int from, int to, int length) {
        int count = 0;
        int i = from;
        for (; i + 8 <= to; i += 8) {
            long word = (long) LONGS.get(buffer, i);
            long newlines = zeroBytes(word ^ NEWLINES);
            long returns = zeroBytes(word ^ RETURNS);
            count += Long.bitCount(newlines);
            if (returns != 0) {
                // a \r is lone unless the next byte is \n; the next byte of the word's last one is in the next word
                long lone = returns & ~(newlines >>> 8);
                if ((returns & 0x8000000000000000L) != 0 && i + 8 < length && buffer[i + 8] == '\n') {
                    lone &= ~0x8000000000000000L;
                }
                count += Long.bitCount(lone);
            }
        }
        for (; i < to; i++) {
            byte b = buffer[i];
            if (b == '\n' || b == '\r' && (i + 1 >= length || buffer[i + 1] != '\n')) {
                count++;
            }
        }
        return count;
    }

    /** Whether every byte of the buffer is ASCII. */
    static boolean isAscii(byte[] buffer, int from, int to) {
        int i = from;
        for (; i + 8 <= to; i += 8) {
            if (((long) LONGS.get(buffer, i) & HIGHS) != 0) {
                return false;
            }
        }
        for (; i < to; i++) {
            if (buffer[i] < 0) {
                return false;
            }
        }
        return true;
    }
}
