package dev.quiver.tools.extra;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolException;
import dev.quiver.workspace.ToolTestContext;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The line-editing tools on real files: ranges, line endings, charsets and the read-before-write rule. */
class LineToolsTest {

    @TempDir
    Path root;

    private ToolTestContext context;

    @BeforeEach
    void open() throws Exception {
        context = new ToolTestContext(root);
    }

    private Path file(String name, String text) throws Exception {
        Path file = root.resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        context.read(name);
        return file;
    }

    private String call(Tool tool, Map<String, ?> values) throws ToolException {
        return tool.call(Arguments.of(values), context).text();
    }

    private ToolException refused(Tool tool, Map<String, ?> values) {
        return assertThrows(ToolException.class, () -> call(tool, values));
    }

    @Test
    void insertGoesBeforeTheLineAndOnePastTheEndAppends() throws Exception {
        Path file = file("a.txt", "one\ntwo\nthree\n");
        String text = call(new InsertLinesTool(), Map.of("path", "a.txt", "line", 2, "content", "new\n"));
        assertEquals("one\nnew\ntwo\nthree\n", Files.readString(file));
        assertTrue(text.startsWith("Inserted 1 line at line 2 of a.txt (now 4 lines):\n1: one\n2: new\n3: two\n"), text);
        call(new InsertLinesTool(), Map.of("path", "a.txt", "line", 5, "content", "last"));
        assertEquals("one\nnew\ntwo\nthree\nlast\n", Files.readString(file));
    }

    @Test
    void aLinePastTheEndNamesTheFilesLineCount() throws Exception {
        file("a.txt", "one\ntwo\n");
        assertEquals("line 4 is past the end of a.txt, which has 2 lines; 3 appends after the last line.",
                refused(new InsertLinesTool(), Map.of("path", "a.txt", "line", 4, "content", "x")).getMessage());
        assertEquals("end 3 is past the end of a.txt, which has 2 lines.",
                refused(new DeleteLinesTool(), Map.of("path", "a.txt", "start", 1, "end", 3)).getMessage());
        assertEquals("end 1 is before start 2; the range is inclusive, so end = start covers one line.",
                refused(new ReplaceLinesTool(), Map.of("path", "a.txt", "start", 2, "end", 1, "content", "x")).getMessage());
        assertTrue(refused(new DeleteLinesTool(), Map.of("path", "a.txt", "start", 0)).getMessage()
                .contains("'start' must be between 1 and"));
    }

    @Test
    void crlfEndingsAndAMissingFinalBreakAreKept() throws Exception {
        Path file = file("w.txt", "a\r\nb\r\nc");
        call(new AppendFileTool(), Map.of("path", "w.txt", "content", "d\ne\n"));
        assertEquals("a\r\nb\r\nc\r\nd\r\ne", Files.readString(file));
        call(new ReplaceLinesTool(), Map.of("path", "w.txt", "start", 4, "end", 5, "content", "z"));
        assertEquals("a\r\nb\r\nc\r\nz", Files.readString(file));
        call(new DeleteLinesTool(), Map.of("path", "w.txt", "start", 3, "end", 4));
        assertEquals("a\r\nb", Files.readString(file), "the new last line has no break, as the old last had none");
        call(new PrependFileTool(), Map.of("path", "w.txt", "content", "// header\n"));
        assertEquals("// header\r\na\r\nb", Files.readString(file));
    }

    @Test
    void aFileThatIsNotUtf8KeepsEveryByte() throws Exception {
        Path file = root.resolve("latin.txt");
        byte[] latin = "caf\u00e9\nna\u00efve\n".getBytes(StandardCharsets.ISO_8859_1);
        Files.write(file, latin);
        context.read("latin.txt");
        call(new InsertLinesTool(), Map.of("path", "latin.txt", "line", 2, "content", "\u00e0 la carte"));
        assertArrayEquals("caf\u00e9\n\u00e0 la carte\nna\u00efve\n".getBytes(StandardCharsets.ISO_8859_1),
                Files.readAllBytes(file));
        assertTrue(refused(new AppendFileTool(), Map.of("path", "latin.txt", "content", "\u2603")).getMessage()
                .contains("is not UTF-8, so it is kept in ISO-8859-1"));
    }

    @Test
    void deletingEveryLineIsRefusedPointingToDeleteFile() throws Exception {
        Path file = file("a.txt", "one\ntwo\n");
        assertEquals("That is every line of a.txt (2 lines). To remove the file use delete_file; to empty it, "
                + "write_file with empty content.",
                refused(new DeleteLinesTool(), Map.of("path", "a.txt", "start", 1, "end", 2)).getMessage());
        assertEquals("one\ntwo\n", Files.readString(file));
        String text = call(new DeleteLinesTool(), Map.of("path", "a.txt", "start", 2));
        assertEquals("one\n", Files.readString(file));
        assertTrue(text.startsWith("Deleted line 2 of a.txt (now 1 line):"), text);
    }

    @Test
    void replaceIsOneWriteOfTheRange() throws Exception {
        Path file = file("a.txt", "1\n2\n3\n4\n");
        call(new ReplaceLinesTool(), Map.of("path", "a.txt", "start", 2, "end", 3, "content", "two\nthree\nmore\n"));
        assertEquals("1\ntwo\nthree\nmore\n4\n", Files.readString(file));
    }

    @Test
    void aFileNotReadOrChangedSinceIsRefusedAsEditFileRefusesIt() throws Exception {
        Path file = root.resolve("unread.txt");
        Files.writeString(file, "x\n");
        assertEquals("unread.txt has not been read in this session. Read it with read_file first.",
                refused(new AppendFileTool(), Map.of("path", "unread.txt", "content", "y")).getMessage());
        file("read.txt", "x\n");
        Files.writeString(root.resolve("read.txt"), "changed by someone else\n");
        assertEquals("read.txt changed since it was last read. Read it again before changing it.",
                refused(new InsertLinesTool(), Map.of("path", "read.txt", "line", 1, "content", "y")).getMessage());
        assertEquals("x\n", Files.readString(file));
    }

    @Test
    void aToolsOwnWriteCountsAsReadSoEditsChain() throws Exception {
        Path file = file("a.txt", "a\n");
        call(new AppendFileTool(), Map.of("path", "a.txt", "content", "b"));
        call(new AppendFileTool(), Map.of("path", "a.txt", "content", "c"));
        assertEquals("a\nb\nc\n", Files.readString(file));
    }

    @Test
    void missingFilesFoldersBinaryAndHugeFilesAreRefusedWithWhatToDo() throws Exception {
        assertEquals("No such file: new.txt. Create it with write_file.",
                refused(new AppendFileTool(), Map.of("path", "new.txt", "content", "x")).getMessage());
        Files.createDirectories(root.resolve("dir"));
        assertEquals("dir is a folder; the line tools change files.",
                refused(new PrependFileTool(), Map.of("path", "dir", "content", "x")).getMessage());
        Files.write(root.resolve("bin.dat"), new byte[] {1, 0, 2, '\n'});
        context.read("bin.dat");
        assertTrue(refused(new InsertLinesTool(), Map.of("path", "bin.dat", "line", 1, "content", "x")).getMessage()
                .contains("is a binary file"));
        try (RandomAccessFile huge = new RandomAccessFile(root.resolve("huge.txt").toFile(), "rw")) {
            huge.setLength(40L * 1024 * 1024);
        }
        context.read("huge.txt");
        assertTrue(refused(new AppendFileTool(), Map.of("path", "huge.txt", "content", "x")).getMessage()
                .contains("more than the 32 MB a whole-file read or edit takes"));
        assertEquals("content is empty: give at least one line (\"\\n\" is one empty line).",
                refused(new AppendFileTool(), Map.of("path", "bin.dat", "content", "")).getMessage());
    }

    @Test
    void aLinkOutOfTheWorkspaceIsNotWrittenThrough(@TempDir Path outside) throws Exception {
        Path target = outside.resolve("victim.txt");
        Files.writeString(target, "safe\n");
        Files.createSymbolicLink(root.resolve("link.txt"), target);
        assertTrue(refused(new AppendFileTool(), Map.of("path", "link.txt", "content", "owned")).getMessage()
                .startsWith("Path escapes workspace"));
        assertEquals("safe\n", Files.readString(target));
    }

    @Test
    void thePathIsTheSubjectSoRulesAndSecretsApply() throws Exception {
        for (Tool tool : List.of(new InsertLinesTool(), new DeleteLinesTool(), new ReplaceLinesTool(),
                new AppendFileTool(), new PrependFileTool())) {
            assertEquals(List.of(Subject.path(".env")), tool.subjects(Arguments.of(Map.of("path", ".env"))),
                    tool.spec().name());
        }
    }
}
