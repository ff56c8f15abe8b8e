package dev.quiver.tools.core;

import dev.quiver.workspace.ToolTestContext;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.ToolException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReadFileToolTest {

    @TempDir
    Path root;

    ToolTestContext context;
    final ReadFileTool tool = new ReadFileTool();

    @BeforeEach
    void open() throws IOException {
        context = new ToolTestContext(root);
    }

    private String read(Map<String, ?> arguments) throws ToolException {
        return tool.call(Arguments.of(arguments), context).text();
    }

    private void tenLines(String name) throws IOException {
        Files.writeString(root.resolve(name),
                IntStream.rangeClosed(1, 10).mapToObj(i -> "line " + i + "\n").collect(Collectors.joining()));
    }

    @Test
    void wholeFileIsNumberedUnderAHeaderWithTheWindowAndTotal() throws Exception {
        Files.createDirectories(root.resolve("src"));
        Files.writeString(root.resolve("src/notes.txt"), "alpha\n  beta\ngamma\n");
        assertEquals("[src/notes.txt: lines 1-3 of 3]\n1: alpha\n2:   beta\n3: gamma\n",
                read(Map.of("path", "src/notes.txt")));
    }

    @Test
    void lastLineWithoutNewlineIsStillALine() throws Exception {
        Files.writeString(root.resolve("a.txt"), "one\ntwo");
        assertEquals("[a.txt: lines 1-2 of 2]\n1: one\n2: two\n", read(Map.of("path", "a.txt")));
    }

    @Test
    void offsetAndLimitShowAWindowAndSayWhereToContinue() throws Exception {
        tenLines("ten.txt");
        assertEquals("[ten.txt: lines 4-6 of 10; continue with offset 7]\n4: line 4\n5: line 5\n6: line 6\n",
                read(Map.of("path", "ten.txt", "offset", 4, "limit", 3)));
        assertEquals("[ten.txt: lines 9-10 of 10]\n9: line 9\n10: line 10\n",
                read(Map.of("path", "ten.txt", "offset", 9, "limit", 5)));
    }

    @Test
    void offsetPastTheEndIsAnError() throws Exception {
        tenLines("ten.txt");
        ToolException error = assertThrows(ToolException.class, () -> read(Map.of("path", "ten.txt", "offset", 11)));
        assertEquals("offset 11 is past the end of ten.txt, which has 10 lines.", error.getMessage());
        assertTrue(read(Map.of("path", "ten.txt", "offset", 10)).endsWith("10: line 10\n"));
    }

    @Test
    void emptyFileSaysItIsEmpty() throws Exception {
        Files.write(root.resolve("empty.txt"), new byte[0]);
        assertEquals("[empty.txt is empty]", read(Map.of("path", "empty.txt")));
    }

    @Test
    void binaryFileIsRefusedWithAnExplanation() throws Exception {
        Files.write(root.resolve("logo.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, 0, 0, 13});
        ToolException error = assertThrows(ToolException.class, () -> read(Map.of("path", "logo.png")));
        assertEquals("logo.png is a binary file (it has a NUL byte in its first 8 KB); only text files can be read.",
                error.getMessage());
    }

    @Test
    void veryLongLineIsCutAndSaysHowLongItWas() throws Exception {
        String longLine = "x".repeat(2500);
        Files.writeString(root.resolve("min.js"), longLine + "\nshort\n");
        String out = read(Map.of("path", "min.js"));
        assertEquals("[min.js: lines 1-2 of 2]\n1: " + "x".repeat(2000) + " ... [line cut at 2000 of 2500 chars]\n"
                + "2: short\n", out);
    }

    @Test
    void lineOfExactlyTheLimitIsNotCut() throws Exception {
        Files.writeString(root.resolve("edge.txt"), "y".repeat(2000) + "\n");
        assertEquals("[edge.txt: lines 1-1 of 1]\n1: " + "y".repeat(2000) + "\n", read(Map.of("path", "edge.txt")));
    }

    @Test
    void crlfLinesAreShownWithoutCarriageReturns() throws Exception {
        Files.writeString(root.resolve("win.txt"), "first\r\nsecond\r\n\r\nfourth\r\n");
        String out = read(Map.of("path", "win.txt"));
        assertFalse(out.contains("\r"), out);
        assertEquals("[win.txt: lines 1-4 of 4]\n1: first\n2: second\n3: \n4: fourth\n", out);
    }

    @Test
    void latin1FileIsShownWithItsCharacters() throws Exception {
        Files.write(root.resolve("legacy.txt"), new byte[] {'c', 'a', 'f', (byte) 0xE9, '\n'});
        assertEquals("[legacy.txt: lines 1-1 of 1]\n1: caf\u00e9\n", read(Map.of("path", "legacy.txt")));
    }

    @Test
    void pathOutsideTheWorkspaceIsRefused() {
        ToolException error = assertThrows(ToolException.class, () -> read(Map.of("path", "../etc/passwd")));
        assertEquals("Path escapes workspace: ../etc/passwd", error.getMessage());
    }

    @Test
    void missingFileIsNamed() {
        assertEquals("No such file: nope.txt",
                assertThrows(ToolException.class, () -> read(Map.of("path", "nope.txt"))).getMessage());
    }

    @Test
    void offsetAndLimitOutOfRangeAreRefused() throws Exception {
        tenLines("ten.txt");
        assertThrows(ToolException.class, () -> read(Map.of("path", "ten.txt", "offset", 0)));
        assertThrows(ToolException.class, () -> read(Map.of("path", "ten.txt", "limit", 0)));
    }

    @Test
    void defaultWindowStopsAt2000Lines() throws Exception {
        Files.writeString(root.resolve("big.txt"), "l\n".repeat(2500));
        String out = read(Map.of("path", "big.txt"));
        assertTrue(out.startsWith("[big.txt: lines 1-2000 of 2500; continue with offset 2001]\n"), out.substring(0, 80));
        assertTrue(out.endsWith("\n2000: l\n"));
    }

    @Test
    void subjectIsThePathAsTheModelWroteIt() throws ToolException {
        assertEquals(List.of(Subject.path("./src/A.java")), tool.subjects(Arguments.of(Map.of("path", "./src/A.java"))));
        assertEquals("read_file", tool.spec().name());
    }
}
