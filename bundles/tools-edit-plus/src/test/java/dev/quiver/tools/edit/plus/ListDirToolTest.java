package dev.quiver.tools.edit.plus;

import dev.quiver.workspace.ToolTestContext;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ListDirToolTest {

    @TempDir
    Path root;

    ToolTestContext context;
    final ListDirTool tool = new ListDirTool();

    @BeforeEach
    void open() throws IOException {
        context = new ToolTestContext(root);
    }

    private void file(String path, int bytes) throws IOException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.write(file, new byte[bytes]);
    }

    private String list(Map<String, ?> arguments) throws ToolException {
        return tool.call(Arguments.of(arguments), context).text();
    }

    @Test
    void aNameThatIsNotUtf8IsListedEscapedAndItsFolderCanBeListedByThatName() throws Exception {
        Process process = new ProcessBuilder("sh", "-c", "mkdir \"$(printf 'd\\377')\"; "
                + "printf ab > \"$(printf 'd\\377/f\\376')\"; printf a > é.txt").directory(root.toFile()).start();
        assertEquals(0, process.waitFor());
        assertEquals("./\n  d\\xFF/\n    f\\xFE  2 B\n  é.txt  1 B", list(Map.of("depth", 2)));
        assertEquals("d\\xFF/\n  f\\xFE  2 B", list(Map.of("path", "d\\xFF")));
    }

    @Test
    void aTreeWithSizesWhereDirectoriesEndWithASlash() throws Exception {
        file("README.md", 2);
        file("src/app.ts", 2048);
        file("src/ui/button.ts", 10);
        assertEquals("./\n  README.md  2 B\n  src/\n    app.ts  2.0 KB\n    ui/\n"
                + "[directories at depth 2 are not opened; list one, or raise depth (at most 6)]", list(Map.of()));
    }

    @Test
    void depthOpensMoreLevels() throws Exception {
        file("src/ui/button.ts", 10);
        assertEquals("./\n  src/\n    ui/\n      button.ts  10 B", list(Map.of("depth", 3)));
        assertEquals("./\n  src/\n[directories at depth 1 are not opened; list one, or raise depth (at most 6)]",
                list(Map.of("depth", 1)));
    }

    @Test
    void aSubdirectoryIsListedUnderItsOwnName() throws Exception {
        file("src/a/b.txt", 1_500_000);
        assertEquals("src/\n  a/\n    b.txt  1.4 MB", list(Map.of("path", "src")));
    }

    @Test
    void ignoredEntriesAreHiddenUnlessAskedFor() throws Exception {
        Files.writeString(root.resolve(".gitignore"), "build/\n*.log\n");
        file("build/out.class", 1);
        file("app.log", 1);
        file("Main.java", 1);
        assertEquals("./\n  .gitignore  13 B\n  Main.java  1 B", list(Map.of()));
        assertEquals("./\n  .gitignore  13 B\n  Main.java  1 B\n  app.log  1 B\n  build/\n    out.class  1 B",
                list(Map.of("includeIgnored", true)));
    }

    @Test
    void atMost300EntriesUpperLevelsFirst() throws Exception {
        for (int i = 0; i < 5; i++) {
            for (int j = 0; j < 100; j++) {
                file(String.format("d%d/f%03d.txt", i, j), 1);
            }
        }
        file("z-last.txt", 1);
        String out = list(Map.of());
        String[] lines = out.split("\n");
        assertEquals(302, lines.length, "header, 300 entries, note");
        assertTrue(out.contains("\n  z-last.txt  1 B"), "every top-level entry comes before any deeper one");
        assertTrue(out.contains("\n  d4/\n"), out);
        assertEquals("[stopped at 300 entries, upper levels first; list a subdirectory or lower depth to see the rest]",
                lines[301]);
    }

    @Test
    void linksAreMarkedAndNotOpened(@TempDir Path outside) throws Exception {
        file("real/x.txt", 3);
        Files.createSymbolicLink(root.resolve("linked"), root.resolve("real"));
        Files.createSymbolicLink(root.resolve("out"), outside);
        Files.createSymbolicLink(root.resolve("file-link"), root.resolve("real/x.txt"));
        Files.createSymbolicLink(root.resolve("broken"), root.resolve("nowhere"));
        assertEquals("./\n  broken (broken link)\n  file-link  3 B (link)\n  linked/ (link)\n  out/ (link)\n  real/\n"
                + "    x.txt  3 B", list(Map.of()));
    }

    @Test
    void anEmptyDirectorySaysSo() throws Exception {
        Files.createDirectories(root.resolve("empty"));
        assertEquals("empty/\n  (empty)", list(Map.of("path", "empty")));
    }

    @Test
    void refusals() throws Exception {
        file("a.txt", 1);
        assertEquals("a.txt is a file, not a directory. Read it with read_file.",
                assertThrows(ToolException.class, () -> list(Map.of("path", "a.txt"))).getMessage());
        assertEquals("No such directory: nope",
                assertThrows(ToolException.class, () -> list(Map.of("path", "nope"))).getMessage());
        assertEquals("Path escapes workspace: ..",
                assertThrows(ToolException.class, () -> list(Map.of("path", ".."))).getMessage());
        assertEquals("Argument 'depth' must be between 1 and 6, got 7.",
                assertThrows(ToolException.class, () -> list(Map.of("depth", 7))).getMessage());
    }

    @Test
    void subjectIsThePathOrTheRoot() throws ToolException {
        assertEquals(List.of(Subject.path(".")), tool.subjects(Arguments.empty()));
        assertEquals(List.of(Subject.path("src")), tool.subjects(Arguments.of(Map.of("path", "src"))));
    }

    @Test
    void aStaleTemporaryAKilledProcessLeftIsNeverListed() throws Exception {
        file("src/.x.0123456789abcdef.quiver-tmp", 12);
        file("src/.x", 2);
        file(".quiver-new.00000000000000aa.quiver-tmp/inner.txt", 3);
        String out = list(Map.of("depth", 3));
        assertEquals("./\n  src/\n    .x  2 B", out);
        String src = list(Map.of("path", "src"));
        assertTrue(!src.contains("quiver-tmp") && src.contains(".x"), src);
    }
}
