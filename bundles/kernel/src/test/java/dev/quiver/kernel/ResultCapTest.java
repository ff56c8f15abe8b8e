package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ResultCapTest {

    @Test
    void resultAtTheCapIsUntouched() {
        String text = "x".repeat(ResultCap.MAX_CHARS);
        assertSame(text, ResultCap.cap(text));
    }

    @Test
    void longerResultKeepsTheFirst30000CharsAndSaysHowManyWereCut() {
        String text = "a".repeat(ResultCap.MAX_CHARS) + "b".repeat(41_233);
        String capped = ResultCap.cap(text);
        assertTrue(capped.startsWith("a".repeat(ResultCap.MAX_CHARS) + "\n"));
        assertTrue(capped.endsWith("... [truncated 41,233 chars]"), capped.substring(capped.length() - 40));
        assertEquals(-1, capped.indexOf('b'));
    }

    @Test
    void aSurrogatePairAtTheCutIsNotSplit() {
        String text = "a".repeat(ResultCap.MAX_CHARS - 1) + "\uD83D\uDE00" + "tail";
        String capped = ResultCap.cap(text);
        assertTrue(capped.startsWith("a".repeat(ResultCap.MAX_CHARS - 1) + "\n"), "the emoji is cut whole");
        assertTrue(capped.endsWith("[truncated 6 chars]"), capped);
    }
}
