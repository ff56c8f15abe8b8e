package dev.quiver.tools.edit.plus;

import dev.quiver.workspace.ToolTestContext;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.quiver.api.Arguments;
import dev.quiver.api.ToolException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplaceMatchToolTest {

    @TempDir
    Path root;

    ToolTestContext context;
    final ReplaceMatchTool tool = new ReplaceMatchTool();

    @BeforeEach
    void open() throws IOException {
        context = new ToolTestContext(root);
    }

    private Path file(String path, String content) throws IOException, ToolException {
        Path file = root.resolve(path);
        Files.writeString(file, content);
        context.read(path);
        return file;
    }

    private String replace(String path, int line, int column, String oldString, String newString) throws ToolException {
        return tool.call(Arguments.of(Map.of("path", path, "line", line, "column", column, "oldString", oldString,
                "newString", newString)), context).text();
    }

    @Test
    void replacesTheOccurrenceAtTheGivenPlaceOnly() throws Exception {
        Path file = file("a.txt", "foo foo\nfoo\n");
        assertEquals("Replaced 3 characters at a.txt:1:5.", replace("a.txt", 1, 5, "foo", "bar"));
        assertEquals("foo bar\nfoo\n", Files.readString(file));
        replace("a.txt", 2, 1, "foo", "baz");
        assertEquals("foo bar\nbaz\n", Files.readString(file));
    }

    @Test
    void columnsCountCharactersNotBytes() throws Exception {
        Path file = file("u.txt", "日本 😀 x\n");
        replace("u.txt", 1, 6, "x", "y");
        assertEquals("日本 😀 y\n", Files.readString(file));
    }

    @Test
    void whenTheTextIsNotThereTheErrorSaysWhereItIs() throws Exception {
        String content = "alpha beta\ngamma beta\n";
        Path file = file("a.txt", content);
        assertEquals("Line 1, column 1 of a.txt holds \"alpha beta\", not oldString. It starts at column 7 of that "
                + "line. Nothing was changed.",
                assertThrows(ToolException.class, () -> replace("a.txt", 1, 1, "beta", "x")).getMessage());
        assertEquals("Line 1, column 1 of a.txt holds \"alpha beta\", not oldString. It first occurs at line 2, column "
                + "1. Nothing was changed.",
                assertThrows(ToolException.class, () -> replace("a.txt", 1, 1, "gamma", "x")).getMessage());
        assertEquals(content, Files.readString(file));
    }

    @Test
    void textThatIsNowhereGetsTheClosestRegion() throws Exception {
        String content = "int count = 0;\nint total = 0;\nvoid add() {}\n";
        Path file = file("T.java", content);
        assertEquals("Line 2, column 1 of T.java holds \"int total = 0;\", not oldString. oldString is not in the file. "
                + "The closest text is at line 2:\n1: int count = 0;\n2: int total = 0;\n3: void add() {}\n"
                + "Copy the text exactly as it is there, whitespace included. Nothing was changed.",
                assertThrows(ToolException.class, () -> replace("T.java", 2, 1, "int totl = 0;", "long total = 0;"))
                        .getMessage());
        assertEquals(content, Files.readString(file));
    }

    @Test
    void linesAndColumnsPastTheEndAreExplained() throws Exception {
        file("a.txt", "ab\ncd\n");
        assertEquals("line 3 is past the end of a.txt, which has 2 lines. Nothing was changed.",
                assertThrows(ToolException.class, () -> replace("a.txt", 3, 1, "x", "y")).getMessage());
        assertEquals("column 4 is past the end of line 2 of a.txt, which has 2 characters. Nothing was changed.",
                assertThrows(ToolException.class, () -> replace("a.txt", 2, 4, "x", "y")).getMessage());
    }

    @Test
    void multiLineOldTextInACrlfFileMatchesWithLf() throws Exception {
        Path file = file("w.txt", "one\r\ntwo\r\nthree\r\n");
        replace("w.txt", 1, 2, "ne\ntw", "NE\nTW");
        assertArrayEquals("oNE\r\nTWo\r\nthree\r\n".getBytes(StandardCharsets.UTF_8), Files.readAllBytes(file));
    }

    @Test
    void theFileMustHaveBeenRead() throws Exception {
        Files.writeString(root.resolve("a.txt"), "x\n");
        assertEquals("a.txt has not been read in this session. Read it with read_file first.",
                assertThrows(ToolException.class, () -> replace("a.txt", 1, 1, "x", "y")).getMessage());
    }

    @Test
    void argumentsAreChecked() throws Exception {
        file("a.txt", "x\n");
        assertEquals("Argument 'line' must be between 1 and 2147483647, got 0.",
                assertThrows(ToolException.class, () -> replace("a.txt", 0, 1, "x", "y")).getMessage());
        assertEquals("oldString is empty. Give the text that starts at line 1, column 1; to insert, include a character "
                + "next to the insertion point in both strings.",
                assertThrows(ToolException.class, () -> replace("a.txt", 1, 1, "", "y")).getMessage());
    }
}
