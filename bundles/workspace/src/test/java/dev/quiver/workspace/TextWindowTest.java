package dev.quiver.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Text;
import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace.TextWindow;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** readLines: the same window whether the file is read whole or, past 32 MB, as a stream. */
class TextWindowTest {

    private static final int PAST_WHOLE_READ = (int) JailedWorkspace.MAX_TEXT_BYTES + 1024;

    @TempDir
    Path dir;

    JailedWorkspace workspace;

    @BeforeEach
    void open() throws IOException {
        workspace = JailedWorkspace.open(dir);
    }

    /** A file of {@code head}, then filler lines up to past 32 MB, then {@code tail}. */
    private Path large(String name, byte[] head, byte[] tail) throws IOException {
        Path file = workspace.root().resolve(name);
        byte[] filler = "0123456789abcdef\n".getBytes(StandardCharsets.US_ASCII);
        try (OutputStream out = Files.newOutputStream(file)) {
            out.write(head);
            for (long written = head.length; written < PAST_WHOLE_READ; written += filler.length) {
                out.write(filler);
            }
            out.write(tail);
        }
        return file;
    }

    @Test
    void aLargeFileGivesTheWindowAndTheLineCountThatTheWholeTextWould() throws Exception {
        Path file = large("big.txt", "one\r\ntwo\rthree\n".getBytes(StandardCharsets.UTF_8),
                "last line ünïcode without terminator".getBytes(StandardCharsets.UTF_8));
        List<String> whole = Text.lines(Files.readString(file));
        TextWindow head = workspace.readLines(file, 1, 4);
        assertEquals(List.of("one", "two", "three", "0123456789abcdef"), head.lines());
        assertEquals(whole.size(), head.total(), "CRLF, a lone CR and a final line without terminator counted as Text.lines does");
        assertEquals(StandardCharsets.UTF_8, head.charset());
        TextWindow tail = workspace.readLines(file, whole.size() - 1, 10);
        assertEquals(whole.subList(whole.size() - 2, whole.size()), tail.lines());
        assertEquals(List.of(), workspace.readLines(file, whole.size() + 5, 3).lines(), "past the end: empty window");
    }

    @Test
    void aLargeFileWithOneInvalidUtf8ByteAtItsEndIsReadAsIso88591Throughout() throws Exception {
        Path file = large("latin.txt", "café\n".getBytes(StandardCharsets.UTF_8), new byte[] {'e', 'n', 'd', (byte) 0xE9});
        TextWindow window = workspace.readLines(file, 1, 1);
        assertEquals(StandardCharsets.ISO_8859_1, window.charset());
        assertEquals(List.of(new String("café".getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1)),
                window.lines(), "every byte kept, so writing it back changes nothing");
    }

    @Test
    void aLargeBinaryFileIsRefusedAsTheWholeReadRefusesIt() throws Exception {
        Path file = large("blob.bin", new byte[] {'a', 0, 'b', '\n'}, new byte[0]);
        ToolException error = assertThrows(ToolException.class, () -> workspace.readLines(file, 1, 1));
        assertTrue(error.getMessage().startsWith("blob.bin is a binary file"), error.getMessage());
    }

    @Test
    void aSmallFileReadsThroughTheWholeTextPath() throws Exception {
        Path file = workspace.root().resolve("small.txt");
        Files.writeString(file, "a\nb\nc\n");
        TextWindow window = workspace.readLines(file, 2, 5);
        assertEquals(List.of("b", "c"), window.lines());
        assertEquals(3, window.total());
        ToolException folder = assertThrows(ToolException.class, () -> workspace.readLines(workspace.root(), 1, 1));
        assertTrue(folder.getMessage().contains("is a directory"), folder.getMessage());
    }
}
