package dev.quiver.tools.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.workspace.ToolTestContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** glob, grep and read_file on a name that is not UTF-8 (shown as bad\xFFname.txt) and on a UTF-8 one. */
class UndecodableNamesTest {

    @TempDir
    Path root;

    @BeforeEach
    void files() throws Exception {
        Process process = new ProcessBuilder("sh", "-c", "printf 'the needle\\n' > \"$(printf 'bad\\377name.txt')\"; "
                + "mkdir \"$(printf 'sub\\376')\"; printf 'the needle\\n' > \"$(printf 'sub\\376/x.txt')\"; "
                + "printf 'the needle\\n' > été.txt").directory(root.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), output);
    }

    @Test
    void globListsEveryNameEscapedWhereItIsNotUtf8() throws Exception {
        assertEquals("bad\\xFFname.txt\nsub\\xFE/x.txt\nété.txt",
                new GlobTool().call(Arguments.of(Map.of("pattern", "**/*.txt")), new ToolTestContext(root)).text());
    }

    @Test
    void grepFindsTheLinesOfEveryFile() throws Exception {
        assertEquals("bad\\xFFname.txt:1: the needle\nsub\\xFE/x.txt:1: the needle\nété.txt:1: the needle",
                new GrepTool().call(Arguments.of(Map.of("pattern", "needle")), new ToolTestContext(root)).text());
    }

    @Test
    void readFileOpensAnEscapedNameAsGlobShowsIt() throws Exception {
        ToolTestContext context = new ToolTestContext(root);
        for (String file : new String[] {"bad\\xFFname.txt", "sub\\xFE/x.txt", "été.txt"}) {
            String read = new ReadFileTool().call(Arguments.of(Map.of("path", file)), context).text();
            assertTrue(read.contains("1: the needle") && read.contains(file), read);
        }
    }
}
