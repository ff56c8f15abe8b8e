package dev.quiver.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class TextTest {

    @Test
    void everyKindOfLineEndEndsALineAndAFinalOneStartsNone() {
        assertEquals(List.of("a", "b", "c", "", "d"), Text.lines("a\nb\r\nc\r\rd"));
        assertEquals(List.of("a"), Text.lines("a\n"));
        assertEquals(List.of(), Text.lines(""));
        assertEquals(List.of(""), Text.lines("\n"));
    }

    @Test
    void lineOfCountsTheSameLineEnds() {
        String text = "a\nb\r\nc\rd";
        assertEquals(1, Text.lineOf(text, 0));
        assertEquals(2, Text.lineOf(text, 2));
        assertEquals(3, Text.lineOf(text, 5));
        assertEquals(4, Text.lineOf(text, 7));
    }

    @Test
    void windowsSayWhatIsShownAndWhereToContinue() {
        List<String> lines = List.of("one", "two", "three");
        assertEquals("[f: lines 2-2 of 3; continue with offset 3]\n2: two\n", Text.window("f", lines, 2, 1));
        assertEquals("[f is empty]", Text.window("f", List.of(), 1, 10));
    }

    @Test
    void replaceKeepsCrlfAndCountsOccurrences() throws ToolException {
        Text.Replacement one = Text.replace("x\r\ny\r\n", "x\ny", "1\n2\n3", false, "f");
        assertEquals("1\r\n2\r\n3\r\n", one.text());
        assertEquals(1, one.firstLine());
        Text.Replacement all = Text.replace("a b a", "a", "c", true, "f");
        assertEquals("c b c", all.text());
        assertEquals(2, all.count());
        assertEquals("oldString appears 2 times in f. Add surrounding context or set replaceAll.",
                assertThrows(ToolException.class, () -> Text.replace("a b a", "a", "c", false, "f")).getMessage());
    }

    @Test
    void aMissShowsTheClosestRegionNumbered() {
        ToolException error = assertThrows(ToolException.class,
                () -> Text.replace("alpha\nbeta\ngamma\n", "betta", "x", false, "f"));
        assertEquals("oldString not found in f. The closest text is at line 2:\n1: alpha\n2: beta\n3: gamma\n"
                + "Copy the text exactly as it is there, whitespace included.", error.getMessage());
    }

    @Test
    void lineEndingFollowsTheFirstLine() {
        assertEquals("\r\n", Text.lineEnding("a\r\nb\n"));
        assertEquals("\n", Text.lineEnding("a\nb\r\n"));
        assertEquals("\n", Text.lineEnding("no newline"));
    }

    @Test
    void encodingRefusesWhatTheCharsetCannotHold() throws ToolException {
        assertArrayEquals(new byte[] {(byte) 0xE9}, Text.encode("\u00e9", StandardCharsets.ISO_8859_1, "f"));
        ToolException error = assertThrows(ToolException.class,
                () -> Text.encode("\u20ac", StandardCharsets.ISO_8859_1, "f"));
        assertTrue(error.getMessage().startsWith("f is not UTF-8, so it is kept in ISO-8859-1, which cannot hold"),
                error.getMessage());
    }
}
