package dev.quiver.tools.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;

class NeedleTest {

    private static int find(String hay, String needle, boolean fold) {
        byte[] bytes = hay.getBytes(StandardCharsets.ISO_8859_1);
        return new Needle(needle.getBytes(StandardCharsets.ISO_8859_1), fold).find(bytes, 0, bytes.length);
    }

    @Test
    void findsTheFirstOccurrenceAtEveryAlignment() {
        for (int pad = 0; pad < 20; pad++) {
            String hay = "-".repeat(pad) + "needle" + "-".repeat(pad % 7) + "needle";
            assertEquals(pad, find(hay, "needle", false), hay);
        }
        assertEquals(-1, find("needl", "needle", false));
        assertEquals(0, find("n", "n", false));
        assertEquals(-1, find("", "n", false));
    }

    @Test
    void foldsAsciiCaseOnlyWhenAsked() {
        assertEquals(4, find("xxx NeEdLe", "needle", true));
        assertEquals(-1, find("xxx NeEdLe", "needle", false));
        assertEquals(-1, find("x[]x", "{}", true), "only letters fold");
    }

    @Test
    void occursInADirectBufferExactlyWhenFindFindsIt() {
        // the scan files are rejected by: sixteen bytes a step, then eight, then byte by byte; the
        // buffer past `to` holds the needle, which must never count
        Random random = new Random(11);
        String alphabet = "hashmp<HASMP x\n";
        java.nio.ByteBuffer direct = java.nio.ByteBuffer.allocateDirect(256).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int n = 0; n < 50_000; n++) {
            int needleLength = 1 + random.nextInt(9);
            byte[] needle = new byte[needleLength];
            for (int i = 0; i < needleLength; i++) {
                needle[i] = (byte) alphabet.charAt(random.nextInt(alphabet.length()));
            }
            int length = random.nextInt(120);
            byte[] hay = new byte[length];
            for (int i = 0; i < length; i++) {
                hay[i] = (byte) alphabet.charAt(random.nextInt(alphabet.length()));
            }
            direct.clear();
            direct.put(hay);
            while (direct.remaining() >= needleLength) {
                direct.put(needle);
            }
            for (boolean fold : new boolean[] {false, true}) {
                Needle scan = new Needle(needle, fold);
                boolean expected = scan.find(hay, 0, length) >= 0;
                String h = new String(hay, StandardCharsets.ISO_8859_1);
                String k = new String(needle, StandardCharsets.ISO_8859_1);
                assertEquals(fold ? h.toLowerCase(Locale.ROOT).contains(k.toLowerCase(Locale.ROOT)) : h.contains(k),
                        expected, () -> "find: '" + h + "' / '" + k + "'");
                assertEquals(expected, scan.occursIn(direct, length), () -> "occursIn, fold " + fold + ": '" + h
                        + "' / '" + k + "'");
            }
        }
    }

    @Test
    void agreesWithStringIndexOfOnRandomInput() {
        Random random = new Random(7);
        String alphabet = "abcAB \n\u00e9\u0000z";
        for (int n = 0; n < 20_000; n++) {
            StringBuilder hay = new StringBuilder();
            int length = random.nextInt(70);
            for (int i = 0; i < length; i++) {
                hay.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            int needleLength = 1 + random.nextInt(4);
            StringBuilder needle = new StringBuilder();
            for (int i = 0; i < needleLength; i++) {
                needle.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String h = hay.toString();
            String k = needle.toString();
            assertEquals(h.indexOf(k), find(h, k, false), () -> "'" + h + "' / '" + k + "'");
            int folded = h.toLowerCase(Locale.ROOT).indexOf(k.toLowerCase(Locale.ROOT));
            if (h.chars().allMatch(c -> c < 0x80) && k.chars().allMatch(c -> c < 0x80)) {
                assertEquals(folded, find(h, k, true), () -> "folded '" + h + "' / '" + k + "'");
            }
        }
    }

    @Test
    void respectsTheSearchWindow() {
        byte[] bytes = "needle needle".getBytes(StandardCharsets.US_ASCII);
        Needle needle = new Needle("needle".getBytes(StandardCharsets.US_ASCII), false);
        assertEquals(7, needle.find(bytes, 1, bytes.length));
        assertEquals(-1, needle.find(bytes, 1, 12));
        assertEquals(0, needle.find(bytes, 0, 6));
    }

    @Test
    void nulProbeAndAsciiCheck() {
        byte[] bytes = new byte[10_000];
        java.util.Arrays.fill(bytes, (byte) 'a');
        assertFalse(Needle.hasNul(bytes, bytes.length, 8192));
        bytes[8191] = 0;
        assertTrue(Needle.hasNul(bytes, bytes.length, 8192));
        bytes[8191] = 'a';
        bytes[8192] = 0;
        assertFalse(Needle.hasNul(bytes, bytes.length, 8192));
        assertTrue(Needle.isAscii(bytes, 0, bytes.length));
        bytes[9999] = (byte) 0xE9;
        assertFalse(Needle.isAscii(bytes, 0, bytes.length));
        assertTrue(Needle.isAscii(bytes, 0, 9999));
    }

    @Test
    void lineEndsAreCountedLikeTextLines() {
        java.util.Random random = new java.util.Random(11);
        String alphabet = "ab\r\n";
        for (int n = 0; n < 20_000; n++) {
            StringBuilder text = new StringBuilder();
            int length = random.nextInt(40);
            for (int i = 0; i < length; i++) {
                text.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            byte[] bytes = text.toString().getBytes(StandardCharsets.US_ASCII);
            byte[] padded = java.util.Arrays.copyOf(bytes, bytes.length + 16); // stale bytes past the file's end
            java.util.Arrays.fill(padded, bytes.length, padded.length, (byte) '\n');
            int from = length == 0 ? 0 : random.nextInt(length);
            int to = from + (length == from ? 0 : random.nextInt(length - from + 1));
            int expected = 0;
            for (int i = from; i < to; i++) {
                if (bytes[i] == '\n' || bytes[i] == '\r' && (i + 1 >= bytes.length || bytes[i + 1] != '\n')) {
                    expected++;
                }
            }
            String shown = text.toString().replace("\r", "R").replace("\n", "N");
            int f = from;
            int t = to;
            assertEquals(expected, Needle.lineEnds(padded, from, to, bytes.length), () -> shown + " [" + f + "," + t + ")");
        }
        byte[] all = "a\r\nb\rc\nd".getBytes(StandardCharsets.US_ASCII);
        assertEquals(dev.quiver.api.Text.lines("a\r\nb\rc\nd").size() - 1, Needle.lineEnds(all, 0, all.length, all.length));
    }
}
