package dev.quiver.tools.edit.plus;

import dev.quiver.workspace.ToolTestContext;
import dev.quiver.workspace.Appender;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.ToolException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MultiEditToolTest {

    @TempDir
    Path root;

    ToolTestContext context;
    final MultiEditTool tool = new MultiEditTool();

    @BeforeEach
    void open() throws IOException {
        context = new ToolTestContext(root);
    }

    private Path file(String path, String content) throws IOException, ToolException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
        context.read(path);
        return file;
    }

    private static Map<String, Object> edit(String oldString, String newString) {
        return Map.of("oldString", oldString, "newString", newString);
    }

    private String multiEdit(String path, List<Map<String, Object>> edits) throws ToolException {
        return tool.call(Arguments.of(Map.of("path", path, "edits", edits)), context).text();
    }

    @Test
    void editsApplyInOrderEachOnTheResultOfTheOneBefore() throws Exception {
        Path file = file("src/users.ts", "const a = 1;\nconst b = 2;\nconst c = 3;\n");
        String out = multiEdit("src/users.ts", List.of(edit("const a = 1;", "const a = 10;"),
                edit("a = 10", "alpha = 10"), Map.of("oldString", "const", "newString", "let", "replaceAll", true)));
        assertEquals("Edited src/users.ts: 3 edits, 5 replacements (at lines 1, 1, 1).", out);
        assertEquals("let alpha = 10;\nlet b = 2;\nlet c = 3;\n", Files.readString(file));
    }

    @Test
    void aFailingEditLeavesTheFileExactlyAsItWasAndNamesTheEdit() throws Exception {
        String content = "one\ntwo\nthree\n";
        Path file = file("src/users.ts", content);
        ToolException error = assertThrows(ToolException.class, () -> multiEdit("src/users.ts",
                List.of(edit("one", "1"), edit("zzzz qqqq", "x"), edit("three", "3"))));
        assertEquals("edit 2: oldString not found in src/users.ts. Nothing in the file resembles it; read the file "
                + "again and copy the text exactly. No edits were applied.", error.getMessage());
        assertEquals(content, Files.readString(file));
    }

    @Test
    void anAmbiguousEditNamesItsCount() throws Exception {
        file("a.txt", "x\nx\ny\n");
        ToolException error = assertThrows(ToolException.class, () -> multiEdit("a.txt",
                List.of(edit("y", "z"), edit("x", "w"))));
        assertEquals("edit 2: oldString appears 2 times in a.txt. Add surrounding context or set replaceAll. "
                + "No edits were applied.", error.getMessage());
    }

    @Test
    void anEditCanDependOnTextAnEarlierEditInserted() throws Exception {
        Path file = file("a.txt", "start\n");
        multiEdit("a.txt", List.of(edit("start", "start\nmiddle"), edit("middle", "middle\nend")));
        assertEquals("start\nmiddle\nend\n", Files.readString(file));
    }

    @Test
    void emptyAndIdenticalStringsAreRefusedWithTheEditNumber() throws Exception {
        file("a.txt", "x\n");
        assertEquals("edit 1: oldString is empty. Give the exact text to replace; to write a whole file use "
                + "write_file. No edits were applied.",
                assertThrows(ToolException.class, () -> multiEdit("a.txt", List.of(edit("", "y")))).getMessage());
        assertEquals("edit 1: oldString and newString are the same; there is nothing to change. No edits were applied.",
                assertThrows(ToolException.class, () -> multiEdit("a.txt", List.of(edit("x", "x")))).getMessage());
        assertEquals("edit 2: Missing required argument 'newString' (a string). No edits were applied.",
                assertThrows(ToolException.class, () -> multiEdit("a.txt",
                        List.of(edit("x", "y"), Map.of("oldString", "y")))).getMessage());
    }

    @Test
    void noEditsOrTooManyAreRefused() throws Exception {
        file("a.txt", "x\n");
        assertEquals("edits is empty. Give at least one {\"oldString\": ..., \"newString\": ...}.",
                assertThrows(ToolException.class, () -> multiEdit("a.txt", List.of())).getMessage());
        List<Map<String, Object>> many = new ArrayList<>();
        for (int i = 0; i < 101; i++) {
            many.add(edit("x", "y"));
        }
        assertTrue(assertThrows(ToolException.class, () -> multiEdit("a.txt", many)).getMessage()
                .startsWith("edits holds 101 entries"));
    }

    @Test
    void crlfFileKeepsCrlfWhenEditedWithLfStrings() throws Exception {
        Path file = file("win.txt", "a\r\nb\r\nc\r\n");
        multiEdit("win.txt", List.of(edit("a\nb", "A\nB"), edit("c", "c\nd")));
        assertArrayEquals("A\r\nB\r\nc\r\nd\r\n".getBytes(StandardCharsets.UTF_8), Files.readAllBytes(file));
    }

    @Test
    void theFileMustHaveBeenReadAndUnchanged() throws Exception {
        Files.writeString(root.resolve("unread.txt"), "x\n");
        assertEquals("unread.txt has not been read in this session. Read it with read_file first.",
                assertThrows(ToolException.class, () -> multiEdit("unread.txt", List.of(edit("x", "y")))).getMessage());
        Path file = file("a.txt", "x\n");
        Files.writeString(file, "x and more\n");
        assertEquals("a.txt changed since it was last read. Read it again before changing it.",
                assertThrows(ToolException.class, () -> multiEdit("a.txt", List.of(edit("x", "y")))).getMessage());
    }

    @Test
    void permissionsAreKeptAndNoTemporaryFileIsLeft() throws Exception {
        Path file = file("run.sh", "echo a\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-x---"));
        multiEdit("run.sh", List.of(edit("a", "b")));
        assertEquals("rwxr-x---", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        try (var files = Files.list(root)) {
            assertEquals(List.of("run.sh"), files.map(p -> p.getFileName().toString()).toList());
        }
    }

    @Test
    void subjectIsThePath() throws ToolException {
        assertEquals(List.of(Subject.path("src/a.ts")),
                tool.subjects(Arguments.of(Map.of("path", "src/a.ts", "edits", List.of()))));
    }

    @Test
    void aWriterAppendingEveryMillisecondNeverLosesALineToMultiEdits() throws Exception {
        Path file = root.resolve("log.txt");
        Files.writeString(file, "header 0\n");
        int landed = 0;
        int refused = 0;
        Appender appender = new Appender(file);
        try (appender) {
            // until 20 edits landed, each a rename the appender races, at most 500 tries
            for (int n = 1; n <= 500 && landed < 20; n++) {
                context.read("log.txt");
                String header = Files.readString(file).lines().findFirst().orElseThrow();
                try {
                    multiEdit("log.txt", List.of(edit(header, "header x"), edit("header x", "header " + n)));
                    landed++;
                } catch (ToolException changedMeanwhile) {
                    refused++;
                }
            }
        }
        assertEquals(List.of(), appender.lost(), landed + " multi_edit calls landed, " + refused + " refused");
        assertTrue(landed > 0, "no multi_edit call landed");
    }

}
