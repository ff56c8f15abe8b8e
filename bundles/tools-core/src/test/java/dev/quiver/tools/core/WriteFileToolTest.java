package dev.quiver.tools.core;

import dev.quiver.workspace.ToolTestContext;
import dev.quiver.workspace.Appender;

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

    ToolTestContext context;
    final WriteFileTool tool = new WriteFileTool();

    @BeforeEach
    void open() throws IOException {
        context = new ToolTestContext(root);
    }

    private String write(String path, String content) throws ToolException {
        return tool.call(Arguments.of(Map.of("path", path, "content", content)), context).text();
    }

    /** Writes a file as if it existed before the session and the model has read it since. */
    private void existing(String name, byte[] content) throws IOException, ToolException {
        Path file = root.resolve(name);
        Files.createDirectories(file.getParent());
        Files.write(file, content);
        context.workspace().reads().read(context.workspace().resolve(name));
    }

    private void existing(String name, String content) throws IOException, ToolException {
        existing(name, content.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void newFileIsCreatedWithItsParentDirectories() throws Exception {
        String out = write("src/main/java/App.java", "class App {\n}\n");
        assertEquals("Created src/main/java/App.java (2 lines, 14 bytes).", out);
        assertEquals("class App {\n}\n", Files.readString(root.resolve("src/main/java/App.java")));
    }

    @Test
    void existingFileIsReportedAsReplaced() throws Exception {
        existing("a.txt", "old\n");
        assertEquals("Replaced a.txt (1 line, 4 bytes).", write("a.txt", "new\n"));
        assertEquals("new\n", Files.readString(root.resolve("a.txt")));
    }

    @Test
    void aRewriteOfACrlfFileKeepsCrlfAndAnLfFileStaysLf() throws Exception {
        existing("win.txt", "one\r\ntwo\r\n");
        write("win.txt", "uno\ndos\ntres\n");
        assertEquals("uno\r\ndos\r\ntres\r\n", Files.readString(root.resolve("win.txt")));
        existing("unix.txt", "one\ntwo\n");
        write("unix.txt", "uno\ndos\n");
        assertEquals("uno\ndos\n", Files.readString(root.resolve("unix.txt")));
        // content that already says CRLF is written as given
        existing("mixed.txt", "one\r\n");
        write("mixed.txt", "a\r\nb\n");
        assertEquals("a\r\nb\n", Files.readString(root.resolve("mixed.txt")));
    }

    @Test
    void byteCountIsOfTheEncodedContent() throws Exception {
        assertEquals("Created u.txt (1 line, 4 bytes).", write("u.txt", "\u20ac\n"));
        assertArrayEquals("\u20ac\n".getBytes(StandardCharsets.UTF_8), Files.readAllBytes(root.resolve("u.txt")));
    }

    @Test
    void rewritingAHundredLinesAsThreeAddsACollapseNote() throws Exception {
        existing("big.txt", "line\n".repeat(100));
        String out = write("big.txt", "a\nb\nc\n");
        assertEquals("Replaced big.txt (3 lines, 6 bytes). Note: it had 100 lines and now has 3. If you meant to "
                + "change only part of it, restore it and use edit_file.", out);
    }

    @Test
    void keepingHalfTheLineBreaksOrMoreHasNoNote() throws Exception {
        existing("big.txt", "line\n".repeat(100));
        assertEquals("Replaced big.txt (50 lines, 100 bytes).", write("big.txt", "x\n".repeat(50)));
        existing("two.txt", "a\nb\n");
        assertFalse(write("two.txt", "ab\n").contains("Note"), "files under 3 lines are not flagged");
    }

    @Test
    void collapsingNineLinesIntoOneAddsTheNote() throws Exception {
        // the reference's own example: a short file whose line breaks were lost in the rewrite
        existing("list.md", "# Items\n\n- one\n- two\n- three\n- four\n- five\n\nEnd\n");
        String out = write("list.md", "# Items - one - two - three - four - five End\n");
        assertTrue(out.endsWith("Note: it had 9 lines and now has 1. If you meant to change only part of it, restore "
                + "it and use edit_file."), out);
        existing("three.txt", "a\r\nb\r\nc\r\n");
        assertTrue(write("three.txt", "a b c").contains("Note: it had 3 lines and now has 1."), "3 lines, CRLF");
    }

    @Test
    void latin1FileKeepsItsEncodingWhenReplaced() throws Exception {
        existing("legacy.txt", "caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));
        String out = write("legacy.txt", "caf\u00e9 cr\u00e8me\n");
        assertEquals("Replaced legacy.txt (1 line, 11 bytes).", out);
        assertArrayEquals("caf\u00e9 cr\u00e8me\n".getBytes(StandardCharsets.ISO_8859_1),
                Files.readAllBytes(root.resolve("legacy.txt")));
    }

    @Test
    void latin1FileIsNotSilentlyMangledByCharactersLatin1CannotHold() throws Exception {
        byte[] original = "price: 5 \u00a3\n".getBytes(StandardCharsets.ISO_8859_1);
        existing("legacy.txt", original);
        ToolException error = assertThrows(ToolException.class, () -> write("legacy.txt", "price: 5 \u20ac\n"));
        assertTrue(error.getMessage().contains("ISO-8859-1"), error.getMessage());
        assertArrayEquals(original, Files.readAllBytes(root.resolve("legacy.txt")), "the file is unchanged");
    }

    @Test
    void replacedFileKeepsItsPermissions() throws Exception {
        Path script = root.resolve("build.sh");
        existing("build.sh", "#!/bin/sh\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        write("build.sh", "#!/bin/sh\necho built\n");
        assertEquals("rwxr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(script)));
    }

    @Test
    void noTemporaryFilesAreLeftBehind() throws Exception {
        existing("a.txt", "old\n");
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
    void aBinaryFileIsNotOverwrittenUnseenAndTheErrorSaysWhatToDo() throws Exception {
        byte[] blob = {0, 1, 2, 3};
        Files.write(root.resolve("blob.bin"), blob);
        ToolException error = assertThrows(ToolException.class, () -> write("blob.bin", "now text\n"));
        assertEquals("blob.bin cannot be read with read_file, so it cannot be overwritten unseen: blob.bin is a binary "
                + "file (it has a NUL byte in its first 8 KB); only text files can be read. If replacing it is "
                + "intended, delete it first, then write it.", error.getMessage());
        assertArrayEquals(blob, Files.readAllBytes(root.resolve("blob.bin")));
    }

    @Test
    void anExistingFileThatWasNotReadIsRefusedAndKept() throws Exception {
        Files.writeString(root.resolve("notes.txt"), "mine\n");
        ToolException error = assertThrows(ToolException.class, () -> write("notes.txt", "theirs\n"));
        assertEquals("notes.txt has not been read in this session. Read it with read_file first.", error.getMessage());
        assertEquals("mine\n", Files.readString(root.resolve("notes.txt")));
    }

    @Test
    void aFileChangedSinceItWasReadIsRefused() throws Exception {
        existing("notes.txt", "first\n");
        Files.writeString(root.resolve("notes.txt"), "edited outside the session\n");
        ToolException error = assertThrows(ToolException.class, () -> write("notes.txt", "theirs\n"));
        assertEquals("notes.txt changed since it was last read. Read it again before changing it.", error.getMessage());
        assertEquals("edited outside the session\n", Files.readString(root.resolve("notes.txt")));
    }

    @Test
    void aRewriteOfTheSameSizeAndTimeSinceTheReadIsStillAChange() throws Exception {
        existing("notes.txt", "first\n");
        Path notes = root.resolve("notes.txt");
        java.nio.file.attribute.FileTime readAt = Files.getLastModifiedTime(notes);
        Files.writeString(notes, "fir5t\n");
        Files.setLastModifiedTime(notes, readAt);
        ToolException error = assertThrows(ToolException.class, () -> write("notes.txt", "theirs\n"));
        assertEquals("notes.txt changed since it was last read. Read it again before changing it.", error.getMessage());
        assertEquals("fir5t\n", Files.readString(notes));
    }

    @Test
    void aFileTooLargeToReadWholeIsReadInPartsAndThenItCanBeReplaced() throws Exception {
        byte[] big = new byte[33 * 1024 * 1024];
        for (int i = 0; i < big.length; i += 2) {
            big[i] = 'x';
            big[i + 1] = '\n';
        }
        Path log = root.resolve("big.log");
        Files.write(log, big);
        ToolException unread = assertThrows(ToolException.class, () -> write("big.log", "short\n"));
        assertEquals("big.log has not been read in this session. Read it with read_file first.", unread.getMessage());
        assertEquals(big.length, Files.size(log));
        String window = new ReadFileTool().call(Arguments.of(Map.of("path", "big.log", "offset", 17000000,
                "limit", 2)), context).text();
        assertEquals("[big.log: lines 17000000-17000001 of 17301504; continue with offset 17000002]\n"
                + "17000000: x\n17000001: x\n", window);
        write("big.log", "short\n");
        assertEquals("short\n", Files.readString(log));
    }

    @Test
    void aFileReadThroughReadFileCanBeReplacedAndWrittenAgainWithoutAnotherRead() throws Exception {
        Files.writeString(root.resolve("notes.txt"), "first\n");
        new ReadFileTool().call(Arguments.of(Map.of("path", "notes.txt")), context);
        assertEquals("Replaced notes.txt (1 line, 7 bytes).", write("notes.txt", "second\n"));
        assertEquals("Replaced notes.txt (1 line, 6 bytes).", write("notes.txt", "third\n"), "its own write counts as read");
        assertEquals("third\n", Files.readString(root.resolve("notes.txt")));
    }

    @Test
    void aNewFileNeedsNoRead() throws Exception {
        assertEquals("Created fresh/new.txt (1 line, 4 bytes).", write("fresh/new.txt", "new\n"));
    }

    @Test
    void hugeContentIsWrittenWhole() throws Exception {
        String content = "0123456789abcdef".repeat(1 << 20); // 16 MB
        String out = write("huge.txt", content);
        assertEquals("Created huge.txt (1 line, 16777216 bytes).", out);
        assertEquals(16L << 20, Files.size(root.resolve("huge.txt")));
    }

    @Test
    void contentWithNulBytesIsWrittenAsGiven() throws Exception {
        write("nul.bin", "a\0b");
        assertArrayEquals(new byte[] {'a', 0, 'b'}, Files.readAllBytes(root.resolve("nul.bin")));
    }

    @Test
    void aPathWithANulCharacterIsRefused() {
        ToolException error = assertThrows(ToolException.class, () -> write("a\0b.txt", "x"));
        assertEquals("Path contains a NUL character: a\\0b.txt", error.getMessage());
    }

    @Test
    void aFileNameTooLongForTheFileSystemIsReportedWithoutATrace() {
        String name = "n".repeat(300) + ".txt";
        ToolException error = assertThrows(ToolException.class, () -> write(name, "x"));
        assertEquals(name + ": File name too long. No file was changed.", error.getMessage());
        assertFalse(error.getMessage().contains("at java."), error.getMessage());
    }

    @Test
    void absolutePathsInsideAreAcceptedAndOutsideRefused() throws Exception {
        String inside = root.toRealPath().resolve("abs.txt").toString();
        assertEquals("Created abs.txt (1 line, 2 bytes).", write(inside, "x\n"));
        assertEquals("Path escapes workspace: /etc/quiver-test.txt",
                assertThrows(ToolException.class, () -> write("/etc/quiver-test.txt", "x")).getMessage());
    }

    @Test
    void aSymbolicLinkOutOfTheWorkspaceIsRefusedAndNothingIsWrittenThere(@TempDir Path outside) throws Exception {
        Files.createSymbolicLink(root.resolve("out"), outside);
        assertEquals("Path escapes workspace: out/planted.txt",
                assertThrows(ToolException.class, () -> write("out/planted.txt", "x")).getMessage());
        assertFalse(Files.exists(outside.resolve("planted.txt")));
    }

    @Test
    void aWriterAppendingEveryMillisecondNeverLosesALineToARewrite() throws Exception {
        Path file = root.resolve("log.txt");
        Files.writeString(file, "header 0\n");
        int landed = 0;
        int refused = 0;
        Appender appender = new Appender(file);
        try (appender) {
            // until 20 edits landed, each a rename the appender races, at most 500 tries
            for (int n = 1; n <= 500 && landed < 20; n++) {
                context.workspace().reads().read(file);
                String header = Files.readString(file).lines().findFirst().orElseThrow();
                try {
                    String text = Files.readString(file);
                    write("log.txt", text.replace(header, "header " + n));
                    landed++;
                } catch (ToolException changedMeanwhile) {
                    refused++;
                }
            }
        }
        assertEquals(List.of(), appender.lost(), landed + " write_file calls landed, " + refused + " refused");
        assertTrue(landed > 0, "no write_file call landed");
    }

    @Test
    void aReadOnlyFileIsRefusedNamingItsModeAndKept() throws Exception {
        existing("locked.txt", "keep\n");
        Files.setPosixFilePermissions(root.resolve("locked.txt"), PosixFilePermissions.fromString("r--r--r--"));
        ToolException error = assertThrows(ToolException.class, () -> write("locked.txt", "replaced\n"));
        assertEquals("locked.txt: it is read-only (mode r--r--r--); it is not replaced. If it should change, make it "
                + "writable first (chmod u+w), or ask the user. No file was changed.", error.getMessage());
        assertEquals("keep\n", Files.readString(root.resolve("locked.txt")));
        assertEquals("r--r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve("locked.txt"))));
    }

    @Test
    void aFailedWriteRemovesTheFoldersItMadeAndNamesNoTemporary() throws Exception {
        // the folders are made before the file's name turns out too long for the file system
        String name = "new/deeper/" + "n".repeat(300) + ".txt";
        ToolException error = assertThrows(ToolException.class, () -> write(name, "z"));
        assertFalse(error.getMessage().contains(".quiver-tmp") || error.getMessage().contains(root.toString()),
                error.getMessage());
        assertTrue(error.getMessage().endsWith("No file was changed."), error.getMessage());
        assertFalse(Files.exists(root.resolve("new")), "the folders the failed write made are still there");
    }
}
