package dev.quiver.tools.core;

import dev.quiver.workspace.ToolTestContext;

import static java.time.Duration.ofSeconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.ToolException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GrepToolTest {

    @TempDir
    Path root;

    final GrepTool tool = new GrepTool();

    private void file(String path, String content) throws IOException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    private String grep(Map<String, ?> arguments) throws ToolException, IOException {
        return tool.call(Arguments.of(arguments), new ToolTestContext(root)).text();
    }

    @Test
    void hitsArePrintedAsPathLineText() throws Exception {
        file("src/A.java", "class A {\n    int x = 1;\n    int y = 2;\n}\n");
        file("src/b/B.java", "int x;\n");
        assertEquals("src/A.java:2:     int x = 1;\nsrc/b/B.java:1: int x;", grep(Map.of("pattern", "int x")));
    }

    @Test
    void regexSyntaxIsRe2() throws Exception {
        file("a.txt", "foo123\nfoo\nbar456\n");
        assertEquals("a.txt:1: foo123\na.txt:3: bar456", grep(Map.of("pattern", "[a-z]+\\d{3}$")));
    }

    @Test
    void longMatchingLineIsCutAt300Characters() throws Exception {
        String line = "needle " + "z".repeat(400);
        file("long.txt", line + "\n");
        assertEquals("long.txt:1: " + line.substring(0, 300) + "...", grep(Map.of("pattern", "needle")));
    }

    @Test
    void hitsStopAt200WithANoteOfHowManyMore() throws Exception {
        file("many.txt", IntStream.rangeClosed(1, 230).mapToObj(i -> "match " + i).collect(Collectors.joining("\n")));
        file("zz-more.txt", "match again\nmatch again\n");
        String out = grep(Map.of("pattern", "match"));
        String[] lines = out.split("\n");
        assertEquals(201, lines.length);
        assertEquals("many.txt:1: match 1", lines[0]);
        assertEquals("many.txt:200: match 200", lines[199]);
        assertEquals("... more lines match than the 200 shown; narrow the pattern or include, or raise maxResults.",
                lines[200]);
    }

    @Test
    void aSecondSearchSeesFilesAddedAndRemovedSinceTheFirst() throws Exception {
        for (int i = 0; i < 30; i++) {
            file("d" + (char) ('a' + i % 26) + i + "/f.txt", "match in " + i + "\n");
        }
        ToolTestContext context = new ToolTestContext(root);
        Thread.sleep(2300); // older than the walker's racy window, so the second search reuses the first walk
        Map<String, Object> firstHit = Map.of("pattern", "match", "maxResults", 1);
        assertTrue(tool.call(Arguments.of(firstHit), context).text().startsWith("da0/f.txt:1: match in 0\n"));
        file("dz25/g.txt", "match late\n");
        Files.delete(root.resolve("da0/f.txt"));
        file("da0/e.txt", "match early\n");
        String out = tool.call(Arguments.of(Map.of("pattern", "match")), context).text();
        assertTrue(out.startsWith("da0/e.txt:1: match early\nda26/f.txt:1: match in 26\n"), out);
        assertTrue(out.endsWith("dz25/f.txt:1: match in 25\ndz25/g.txt:1: match late"), out);
        assertEquals(31, out.split("\n").length, out);
    }

    @Test
    void noMatchesSaysSo() throws Exception {
        file("a.txt", "nothing here\n");
        assertEquals("No matches.", grep(Map.of("pattern", "absent")));
    }

    @Test
    void invalidRegexIsReported() {
        ToolException error = assertThrows(ToolException.class, () -> grep(Map.of("pattern", "(")));
        assertTrue(error.getMessage().startsWith("Invalid regex: "), error.getMessage());
        assertTrue(error.getMessage().length() > "Invalid regex: ".length(), "it says what is wrong");
    }

    @Test
    void binaryFilesAreSkipped() throws Exception {
        byte[] bytes = "needle in a binary\0\1\2".getBytes(StandardCharsets.ISO_8859_1);
        Files.write(root.resolve("blob.bin"), bytes);
        file("text.txt", "needle in text\n");
        assertEquals("text.txt:1: needle in text", grep(Map.of("pattern", "needle")));
    }

    @Test
    void includeGlobLimitsTheFilesSearched() throws Exception {
        file("src/A.java", "TODO java\n");
        file("src/a.kt", "TODO kotlin\n");
        file("notes.md", "TODO notes\n");
        assertEquals("src/A.java:1: TODO java", grep(Map.of("pattern", "TODO", "include", "**/*.java")));
        assertEquals("notes.md:1: TODO notes\nsrc/A.java:1: TODO java",
                grep(Map.of("pattern", "TODO", "include", "*.{md,java}")));
    }

    @Test
    void ignoreCaseMatchesAnyCase() throws Exception {
        file("a.txt", "Error one\nERROR two\nerror three\nfine\n");
        assertEquals("a.txt:3: error three", grep(Map.of("pattern", "error")));
        assertEquals("a.txt:1: Error one\na.txt:2: ERROR two\na.txt:3: error three",
                grep(Map.of("pattern", "error", "ignoreCase", true)));
    }

    @Test
    void ignoredFilesAreSkippedUnlessAskedFor() throws Exception {
        file(".gitignore", "*.log\n");
        file("app.log", "secret token\n");
        file("src/App.java", "// token\n");
        assertEquals("src/App.java:1: // token", grep(Map.of("pattern", "token")));
        assertEquals("app.log:1: secret token\nsrc/App.java:1: // token",
                grep(Map.of("pattern", "token", "includeIgnored", true)));
    }

    @Test
    void crlfLinesMatchAtTheirEndWithoutCarriageReturns() throws Exception {
        file("win.txt", "alpha\r\nbeta\r\n");
        assertEquals("win.txt:1: alpha", grep(Map.of("pattern", "ha$")));
    }

    @Test
    void catastrophicPatternOnALongLineReturnsQuicklyBecauseRe2IsLinear() throws Exception {
        // a backtracking engine takes exponential time on this; RE2 takes time linear in the line
        file("aaa.txt", "a".repeat(50_000) + "b\n");
        String out = assertTimeoutPreemptively(ofSeconds(20), () -> grep(Map.of("pattern", "(a+)+$")));
        assertEquals("No matches.", out);
        assertFalse(grep(Map.of("pattern", "(a+)+b$")).equals("No matches."));
    }

    @Test
    void aStaleTemporaryAKilledProcessLeftIsNeverSearched() throws Exception {
        // what a kill while staging leaves: the new content of .x under a temporary's name, in the tree
        file("src/.x.0123456789abcdef.quiver-tmp", "zanzibarquill from the stale copy\n");
        file("src/.x", "zanzibarquill in a dotfile, which is searched\n");
        file("tmp/.y.7.quiver-tmp/inner.txt", "zanzibarquill in a staged folder copy\n");
        assertEquals("src/.x:1: zanzibarquill in a dotfile, which is searched", grep(Map.of("pattern", "zanzibarquill")));
        for (Map<String, String> asked : java.util.List.of(Map.of("include", "*.quiver-tmp"), Map.of("include", "**/*.txt"),
                Map.of("path", "src/.x.0123456789abcdef.quiver-tmp"), Map.of("path", "tmp"))) {
            Map<String, String> arguments = new java.util.HashMap<>(asked);
            arguments.put("pattern", "zanzibarquill");
            String out;
            try {
                out = grep(arguments);
            } catch (ToolException refused) {
                out = refused.getMessage();
            }
            assertFalse(out.contains("stale copy") || out.contains("staged folder copy"), asked + ": " + out);
        }
    }

}
