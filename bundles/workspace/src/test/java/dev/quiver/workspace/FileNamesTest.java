package dev.quiver.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Workspace.Entry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Names that are not UTF-8 are listed escaped, and the escaped form leads back to the same file. */
class FileNamesTest {

    @TempDir
    Path root;

    /** Makes a file whose name holds raw bytes, the way any program on the machine could: through a shell. */
    static void shell(Path directory, String script) throws IOException, InterruptedException {
        Process process = new ProcessBuilder("sh", "-c", script).directory(directory.toFile())
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), output);
    }

    @Test
    void aNameThatIsNotUtf8IsListedEscapedAndResolvesToTheSameFile() throws Exception {
        shell(root, "printf 'needle one\\n' > \"$(printf 'bad\\377name.txt')\"; "
                + "mkdir \"$(printf 'dir\\376')\"; printf 'needle two\\n' > \"$(printf 'dir\\376/in\\\\side\\377.txt')\"; "
                + "printf 'needle three\\n' > café.txt");
        JailedWorkspace workspace = JailedWorkspace.open(root);

        assertEquals(List.of("bad\\xFFname.txt", "café.txt", "dir\\xFE/in\\\\side\\xFF.txt"),
                workspace.files(root, false));
        List<String> walked = new ArrayList<>();
        workspace.walk(root, false, Integer.MAX_VALUE, entry -> walked.add(entry.relativePath()
                + (entry.kind() == Entry.Kind.DIRECTORY ? "/" : "")));
        assertEquals(List.of("bad\\xFFname.txt", "café.txt", "dir\\xFE/", "dir\\xFE/in\\\\side\\xFF.txt"), walked);

        for (String[] file : new String[][] {{"bad\\xFFname.txt", "needle one\n"}, {"café.txt", "needle three\n"},
                {"dir\\xFE/in\\\\side\\xFF.txt", "needle two\n"}}) {
            Path resolved = workspace.resolve(file[0]);
            assertTrue(Files.isRegularFile(resolved), file[0]);
            assertEquals(file[1], workspace.readText(resolved).text(), file[0]);
            assertEquals(file[0], workspace.relativize(resolved));
        }
        try (var folder = workspace.openFolder(workspace.resolve("dir\\xFE"))) {
            assertEquals(11, folder.openRead("in\\\\side\\xFF.txt").size());
        }
    }

    @Test
    void aFileLiterallyNamedLikeAnEscapeIsTheOneItsNameResolvesTo() throws Exception {
        shell(root, "printf raw > \"$(printf 'x\\377')\"; printf literal > 'x\\xFF'");
        JailedWorkspace workspace = JailedWorkspace.open(root);

        assertEquals("literal", workspace.readText(workspace.resolve("x\\xFF")).text());
        // both are shown alike (an escape is told from a name's own text only where the name has escapes)
        assertEquals(List.of("x\\xFF", "x\\xFF"), workspace.files(root, false).stream().sorted().toList());
    }

    @Test
    void anEscapeOfAnAsciiByteIsNoEscape() throws Exception {
        JailedWorkspace workspace = JailedWorkspace.open(root);
        // \x2F would be a slash: only bytes 80 to FF are ever escaped, so this is an ordinary (missing) name
        assertEquals(root.resolve("a\\x2Fb"), workspace.resolve("a\\x2Fb"));
    }

    @Test
    void aJournalKeepsTheBytesOfANameThatIsNotUtf8() throws Exception {
        shell(root, "mkdir \"$(printf 'd\\377')\" && printf x > \"$(printf 'd\\377/f\\376')\" && printf y > plain.txt");
        JailedWorkspace workspace = JailedWorkspace.open(root);
        Path folder = workspace.resolve("d\\xFF");
        Path file = workspace.resolve("d\\xFF/f\\xFE");
        Path plain = workspace.resolve("plain.txt");
        for (Path path : new Path[] {folder, file, plain}) {
            assertTrue(Files.exists(path), path::toString);
            assertEquals(path, Transaction.journaled(Transaction.journaled(path)));
        }
        assertEquals(plain.toString(), Transaction.journaled(plain), "a UTF-8 path is journaled as its text");
    }
}
