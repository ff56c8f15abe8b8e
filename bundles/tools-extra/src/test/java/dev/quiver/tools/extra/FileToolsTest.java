package dev.quiver.tools.extra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolException;
import dev.quiver.workspace.ToolTestContext;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** tree, file_info, find_files, recent_files and count_lines over a real folder with ignore files and secrets. */
class FileToolsTest {

    @TempDir
    Path root;

    private ToolTestContext context;

    @BeforeEach
    void open() throws Exception {
        write("src/main/App.java", "class App {\n}\n");
        write("src/main/UserService.java", "class UserService {}\n");
        write("src/test/AppTest.java", "class AppTest {}\n");
        write("README.md", "# hi\n");
        write("zeta.txt", "z\n");
        write(".gitignore", "build/\n");
        write("build/out.class", "compiled\n");
        write(".env", "API_KEY=hunter2\n");
        context = new ToolTestContext(root);
    }

    private Path write(String name, String text) throws Exception {
        Path file = root.resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        return file;
    }

    private String call(Tool tool, Map<String, ?> values) throws ToolException {
        return tool.call(Arguments.of(values), context).text();
    }

    @Test
    void treeListsFoldersFirstHonouringIgnoreFilesAndLeavesSecretsOut() throws Exception {
        String tree = call(new TreeTool(), Map.of());
        assertEquals("""
                ./
                  src/
                    main/
                      App.java
                      UserService.java
                    test/
                      AppTest.java
                  .gitignore
                  README.md
                  zeta.txt
                [1 file holding secrets by name (such as .env) not shown]""", tree);
        assertFalse(tree.contains("hunter2"));
    }

    @Test
    void treeSaysWhereDepthAndTheEntryCapCutIt() throws Exception {
        String shallow = call(new TreeTool(), Map.of("depth", 1));
        assertTrue(shallow.startsWith("./\n  src/\n  .gitignore\n"), shallow);
        assertTrue(shallow.contains("[folders at depth 1 not opened: tree one of them, or raise depth (at most 12)]"),
                shallow);
        String capped = call(new TreeTool(), Map.of("limit", 3));
        assertEquals("./\n  src/\n  .gitignore\n  README.md\n[cut at 3 entries, upper levels first: tree a subfolder, "
                + "or raise limit (at most 2000)]\n[1 file holding secrets by name (such as .env) not shown]", capped);
        assertEquals("src/main/\n  App.java\n  UserService.java", call(new TreeTool(), Map.of("path", "src/main")));
    }

    @Test
    void treeDoesNotFollowALinkOutOfTheWorkspace(@TempDir Path outside) throws Exception {
        Files.writeString(outside.resolve("secret-plans.txt"), "x");
        Files.createSymbolicLink(root.resolve("src/out"), outside);
        String tree = call(new TreeTool(), Map.of("path", "src"));
        assertTrue(tree.contains("  out/ (link, not followed)") || tree.contains("  out (link or special file)"), tree);
        assertFalse(tree.contains("secret-plans"), tree);
        assertTrue(assertThrows(ToolException.class, () -> call(new TreeTool(), Map.of("path", "src/out")))
                .getMessage().startsWith("Path escapes workspace"));
    }

    @Test
    void fileInfoDescribesSizeLinesEncodingAndEndings() throws Exception {
        write("crlf.txt", "a\r\nb\r\nc");
        String info = call(new FileInfoTool(), Map.of("path", "crlf.txt"));
        assertTrue(info.startsWith("crlf.txt\nkind: text file\nsize: 7 bytes\nlines: 3\nmodified: "), info);
        assertTrue(info.contains("\nencoding: ASCII (valid UTF-8)\nline endings: CRLF; no line break at the end\n"), info);
        Files.write(root.resolve("latin.txt"), "caf\u00e9\r\nx\n".getBytes(StandardCharsets.ISO_8859_1));
        String latin = call(new FileInfoTool(), Map.of("path", "latin.txt"));
        assertTrue(latin.contains("encoding: not valid UTF-8: the file tools read and write it as ISO-8859-1"), latin);
        assertTrue(latin.contains("line endings: mixed (LF 1, CRLF 1)"), latin);
        Files.write(root.resolve("bom.txt"), new byte[] {(byte) 0xef, (byte) 0xbb, (byte) 0xbf, 'h', (byte) 0xc3,
            (byte) 0xa9, '\n'});
        assertTrue(call(new FileInfoTool(), Map.of("path", "bom.txt")).contains("encoding: UTF-8 with a byte-order mark"));
        Files.write(root.resolve("img.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, 0, 0, 13});
        String binary = call(new FileInfoTool(), Map.of("path", "img.png"));
        assertTrue(binary.contains("kind: binary file\nsize: 8 bytes\nmodified: "), binary);
        assertFalse(binary.contains("lines:"), binary);
        assertTrue(call(new FileInfoTool(), Map.of("path", "src")).startsWith("src\nkind: folder, 2 entries"));
        assertTrue(call(new FileInfoTool(), Map.of("path", "build/out.class")).endsWith("ignored by .gitignore"));
        assertEquals("No such file or folder: nope.txt. find_files or glob finds it by name.",
                assertThrows(ToolException.class, () -> call(new FileInfoTool(), Map.of("path", "nope.txt"))).getMessage());
    }

    @Test
    void fileInfoStreamsAHugeFile() throws Exception {
        try (RandomAccessFile huge = new RandomAccessFile(root.resolve("huge.log").toFile(), "rw")) {
            huge.setLength(48L * 1024 * 1024); // zeros: binary by the first 8 KB, read to the end all the same
        }
        String info = call(new FileInfoTool(), Map.of("path", "huge.log"));
        assertTrue(info.contains("kind: binary file\nsize: 48.0 MB (50331648 bytes)"), info);
    }

    @Test
    void findFilesMatchesPartOfTheNameIgnoringCase() throws Exception {
        assertEquals("src/main/UserService.java", call(new FindFilesTool(), Map.of("name", "user")));
        assertEquals("src/main/App.java\nsrc/test/AppTest.java", call(new FindFilesTool(), Map.of("name", "APP")));
        assertEquals("src/test/AppTest.java", call(new FindFilesTool(), Map.of("name", "app", "path", "src/test")));
        assertEquals("src/main/App.java\n... 1 more of 2; give a longer part of the name, a path, or raise limit.",
                call(new FindFilesTool(), Map.of("name", "app", "limit", 1)));
        assertTrue(call(new FindFilesTool(), Map.of("name", "env")).startsWith("No file name contains \"env\""));
        assertTrue(call(new FindFilesTool(), Map.of("name", "out")).startsWith("No file name contains"),
                "ignored files are not found");
    }

    @Test
    void recentFilesAreNewestFirstAndLimited() throws Exception {
        Instant now = Instant.now();
        Files.setLastModifiedTime(root.resolve("zeta.txt"), FileTime.from(now.minusSeconds(10)));
        Files.setLastModifiedTime(root.resolve("README.md"), FileTime.from(now.minusSeconds(3600)));
        Files.setLastModifiedTime(root.resolve("src/main/App.java"), FileTime.from(now.minusSeconds(5)));
        for (String old : new String[] {"src/main/UserService.java", "src/test/AppTest.java", ".gitignore"}) {
            Files.setLastModifiedTime(root.resolve(old), FileTime.from(now.minusSeconds(86_400 * 30)));
        }
        Files.setLastModifiedTime(root.resolve(".env"), FileTime.from(now));
        String recent = call(new RecentFilesTool(), Map.of("limit", 3));
        String[] lines = recent.split("\n");
        assertEquals(3, lines.length, recent);
        assertTrue(lines[0].endsWith("  src/main/App.java"), recent);
        assertTrue(lines[1].endsWith("  zeta.txt"), recent);
        assertTrue(lines[2].endsWith("(60 min ago)  README.md"), recent);
    }

    @Test
    void countLinesCountsOneFileOrEveryMatchWithATotal() throws Exception {
        assertEquals("src/main/App.java: 2 lines.", call(new CountLinesTool(), Map.of("path", "src/main/App.java")));
        write("src/main/NoBreak.java", "a\nb");
        Files.write(root.resolve("src/main/Blob.java"), new byte[] {0, 1, 2});
        assertEquals("""
                2  src/main/App.java
                2  src/main/NoBreak.java
                1  src/main/UserService.java
                1  src/test/AppTest.java
                6 lines in 4 files (1 binary file skipped).""", call(new CountLinesTool(), Map.of("glob", "*.java")));
        assertEquals("No files match *.env (ignored files and files holding secrets excluded).",
                call(new CountLinesTool(), Map.of("glob", "*.env")));
        assertEquals("Give either path (one file) or glob (many files), not neither.",
                assertThrows(ToolException.class, () -> call(new CountLinesTool(), Map.of())).getMessage());
        assertTrue(assertThrows(ToolException.class, () -> call(new CountLinesTool(), Map.of("path", "src/main/Blob.java")))
                .getMessage().startsWith("src/main/Blob.java is a binary file"));
    }
}
