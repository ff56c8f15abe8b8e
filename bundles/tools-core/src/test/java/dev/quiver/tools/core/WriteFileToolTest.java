package dev.quiver.tools.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.ToolException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WriteFileToolTest {

    @TempDir
    Path root;

    TestContext context;
    final WriteFileTool tool = new WriteFileTool();

    @BeforeEach
    void open() throws IOException {
        context = new TestContext(root);
    }

    private String write(String path, String content) throws ToolException {
        return tool.call(Arguments.of(Map.of("path", path, "content", content)), context).text();
    }

    @Test
    void newFileIsCreatedWithItsParentDirectories() throws Exception {
        String out = write("src/main/java/App.java", "class App {\n}\n");
        assertEquals("Created src/main/java/App.java (2 lines, 14 bytes).", out);
        assertEquals("class App {\n}\n", Files.readString(root.resolve("src/main/java/App.java")));
    }

    @Test
    void existingFileIsReportedAsReplaced() throws Exception {
        Files.writeString(root.resolve("a.txt"), "old\n");
        assertEquals("Replaced a.txt (1 line, 4 bytes).", write("a.txt", "new\n"));
        assertEquals("new\n", Files.readString(root.resolve("a.txt")));
    }

    @Test
    void byteCountIsOfTheEncodedContent() throws Exception {
        assertEquals("Created u.txt (1 line, 4 bytes).", write("u.txt", "\u20ac\n"));
        assertArrayEquals("\u20ac\n".getBytes(StandardCharsets.UTF_8), Files.readAllBytes(root.resolve("u.txt")));
    }

    @Test
    void rewritingAHundredLinesAsThreeAddsACollapseNote() throws Exception {
        Files.writeString(root.resolve("big.txt"), "line\n".repeat(100));
        String out = write("big.txt", "a\nb\nc\n");
        assertEquals("Replaced big.txt (3 lines, 6 bytes). Note: it had 100 lines and now has 3. If you meant to "
                + "change only part of it, restore it and use edit_file.", out);
    }

    @Test
    void shrinkingByLessThanThreeQuartersHasNoNote() throws Exception {
        Files.writeString(root.resolve("big.txt"), "line\n".repeat(100));
        assertEquals("Replaced big.txt (25 lines, 50 bytes).", write("big.txt", "x\n".repeat(25)));
        Files.writeString(root.resolve("small.txt"), "line\n".repeat(19));
        assertFalse(write("small.txt", "x\n").contains("Note"), "files under 20 lines are not flagged");
    }

    @Test
    void latin1FileKeepsItsEncodingWhenReplaced() throws Exception {
        Files.write(root.resolve("legacy.txt"), "caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));
        String out = write("legacy.txt", "caf\u00e9 cr\u00e8me\n");
        assertEquals("Replaced legacy.txt (1 line, 11 bytes).", out);
        assertArrayEquals("caf\u00e9 cr\u00e8me\n".getBytes(StandardCharsets.ISO_8859_1),
                Files.readAllBytes(root.resolve("legacy.txt")));
    }

    @Test
    void latin1FileIsNotSilentlyMangledByCharactersLatin1CannotHold() throws Exception {
        byte[] original = "price: 5 \u00a3\n".getBytes(StandardCharsets.ISO_8859_1);
        Files.write(root.resolve("legacy.txt"), original);
        ToolException error = assertThrows(ToolException.class, () -> write("legacy.txt", "price: 5 \u20ac\n"));
        assertTrue(error.getMessage().contains("ISO-8859-1"), error.getMessage());
        assertArrayEquals(original, Files.readAllBytes(root.resolve("legacy.txt")), "the file is unchanged");
    }

    @Test
    void replacedFileKeepsItsPermissions() throws Exception {
        Path script = root.resolve("build.sh");
        Files.writeString(script, "#!/bin/sh\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        write("build.sh", "#!/bin/sh\necho built\n");
        assertEquals("rwxr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(script)));
    }

    @Test
    void noTemporaryFilesAreLeftBehind() throws Exception {
        Files.writeString(root.resolve("a.txt"), "old\n");
        write("a.txt", "new\n");
        write("b.txt", "b\n");
        try (Stream<Path> files = Files.list(root)) {
            assertEquals(List.of("a.txt", "b.txt"), files.map(p -> p.getFileName().toString()).sorted().toList());
        }
    }

    @Test
    void directoryPathIsRefused() throws Exception {
        Files.createDirectories(root.resolve("src"));
        assertEquals("src is a directory; give a file path.",
                assertThrows(ToolException.class, () -> write("src", "x")).getMessage());
    }

    @Test
    void pathOutsideTheWorkspaceIsRefusedAndNothingIsWritten() throws Exception {
        assertEquals("Path escapes workspace: ../escaped.txt",
                assertThrows(ToolException.class, () -> write("../escaped.txt", "x")).getMessage());
        assertFalse(Files.exists(root.getParent().resolve("escaped.txt")));
    }

    @Test
    void emptyContentMakesAnEmptyFile() throws Exception {
        assertEquals("Created empty.txt (0 lines, 0 bytes).", write("empty.txt", ""));
        assertEquals(0, Files.size(root.resolve("empty.txt")));
    }

    @Test
    void aBinaryFileCanBeReplacedWithText() throws Exception {
        Files.write(root.resolve("blob.bin"), new byte[] {0, 1, 2, 3});
        String out = write("blob.bin", "now text\n");
        assertTrue(out.startsWith("Replaced blob.bin"), out);
        assertEquals("now text\n", Files.readString(root.resolve("blob.bin")));
    }
}
