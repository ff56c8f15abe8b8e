package dev.quiver.tools.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.FuzzyMatchCorpusTest;
import dev.quiver.api.ToolException;
import dev.quiver.workspace.ToolTestContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/** edit_file's tolerated matches and line endings, and read_file's window under the output cap, on real files. */
class FuzzyEditFileTest {

    @TempDir
    Path root;

    ToolTestContext context;

    @BeforeEach
    void open() throws IOException {
        context = new ToolTestContext(root);
    }

    private Path file(String name, String content) throws IOException, ToolException {
        Path file = root.resolve(name);
        Files.write(file, content.getBytes(StandardCharsets.UTF_8));
        context.workspace().reads().read(context.workspace().resolve(name));
        return file;
    }

    private String edit(String path, String oldString, String newString, boolean replaceAll) throws ToolException {
        return new EditFileTool().call(Arguments.of(Map.of("path", path, "oldString", oldString, "newString", newString,
                "replaceAll", replaceAll)), context).text();
    }

    @Test
    void aShiftedBlockIsReplacedReindentedAndTheResultSaysSo() throws Exception {
        Path file = file("A.java", "class A {\n    void f() {\n        run();\n    }\n}\n");
        String out = edit("A.java", "void f() {\n    run();\n}", "void f() {\n    run();\n    stop();\n}", false);
        assertEquals("Edited A.java: replaced 1 occurrence (from line 2). Matched with indentation shifted; the file's "
                + "block is 4 spaces deeper, and newString was re-indented the same.", out);
        assertEquals("class A {\n    void f() {\n        run();\n        stop();\n    }\n}\n", Files.readString(file));
    }

    @Test
    void anAmbiguousToleratedMatchIsRefusedWithItsLinesAndTheFileIsByteForByteUnchanged() throws Exception {
        byte[] before = "a\u2013b\nx\na\u2014b\n".getBytes(StandardCharsets.UTF_8);
        Path file = root.resolve("dash.txt");
        Files.write(file, before);
        context.read("dash.txt");
        ToolException error = assertThrows(ToolException.class, () -> edit("dash.txt", "a-b", "c", false));
        assertEquals("oldString is not in dash.txt as written; with Unicode dashes, quotes and spaces read as their "
                + "ASCII look-alikes it matches 2 places (lines 1 and 3), so which one is meant is unclear. Copy the "
                + "text exactly, with enough surrounding lines to be unique.", error.getMessage());
        assertArrayEquals(before, Files.readAllBytes(file));
    }

    /**
     * Every refusal of the API's fuzzy-match corpus, through the real tool on a real file named {@code f}
     * (the name the corpus's messages use): the tool's error holds the corpus's refusal, and the file's
     * bytes, its modification time and the folder's entries are as they were (no temporary left behind).
     */
    @TestFactory
    Stream<DynamicTest> everyCorpusRefusalLeavesTheFileByteForByteUnchanged() throws IOException {
        List<FuzzyMatchCorpusTest.Case> refusals = FuzzyMatchCorpusTest.cases().stream()
                .filter(c -> c.get("refuse") != null).toList();
        assertTrue(refusals.size() >= 20, "refusal cases: " + refusals.size());
        return refusals.stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> {
            Path workspace = Files.createTempDirectory(root, "case");
            ToolTestContext caseContext = new ToolTestContext(workspace);
            Path file = workspace.resolve("f");
            byte[] before = c.get("file").getBytes(StandardCharsets.UTF_8);
            Files.write(file, before);
            caseContext.read("f");
            var modified = Files.getLastModifiedTime(file);
            List<Path> entries;
            try (Stream<Path> list = Files.list(workspace)) {
                entries = list.sorted().toList();
            }
            ToolException error = assertThrows(ToolException.class, () -> new EditFileTool().call(Arguments.of(Map.of(
                    "path", "f", "oldString", c.get("old"), "newString", c.get("new"),
                    "replaceAll", "true".equals(c.get("all")))), caseContext));
            assertTrue(error.getMessage().contains(c.get("refuse")), error.getMessage());
            assertArrayEquals(before, Files.readAllBytes(file));
            assertEquals(modified, Files.getLastModifiedTime(file));
            try (Stream<Path> list = Files.list(workspace)) {
                assertEquals(entries, list.sorted().toList());
            }
        }));
    }

    @Test
    void replaceAllStaysExactAndSaysWhereTheNearMatchIs() throws Exception {
        Path file = file("k.txt", "key\u00A0= 1\n");
        ToolException error = assertThrows(ToolException.class, () -> edit("k.txt", "key = 1", "key = 2", true));
        assertTrue(error.getMessage().startsWith("oldString not found exactly in k.txt, and replaceAll replaces exact "
                + "text only. With Unicode dashes"), error.getMessage());
        assertEquals("key\u00A0= 1\n", Files.readString(file));
    }

    @Test
    void anLfFileGetsLfFromACrlfNewStringAndACrlfFileMatchesAMixedOldString() throws Exception {
        Path lf = file("lf.txt", "a\nb\nc\n");
        edit("lf.txt", "b", "b1\r\nb2", false);
        assertEquals("a\nb1\nb2\nc\n", Files.readString(lf));
        Path crlf = file("crlf.txt", "a\r\nb\r\nc\r\nd\r\n");
        edit("crlf.txt", "a\r\nb\nc", "A\nB\r\nC", false);
        assertEquals("A\r\nB\r\nC\r\nd\r\n", Files.readString(crlf));
    }

    @Test
    void aWhitespaceOnlyOldStringGetsTheClosestLinesNotAFalseNothingResemblesIt() throws Exception {
        file("w.txt", "a\n\t\nb\n");
        ToolException error = assertThrows(ToolException.class, () -> edit("w.txt", "    ", "x", false));
        assertTrue(error.getMessage().startsWith("oldString not found in w.txt. The closest text is at line 2:\n"),
                error.getMessage());
        file("v.txt", "value = 1\n");
        assertTrue(edit("v.txt", "value = 1  ", "value = 2", false).endsWith("Matched with trailing whitespace ignored."));
        assertEquals("value = 2\n", Files.readString(root.resolve("v.txt")));
    }

    @Test
    void readFileStopsItsWindowBeforeTheOutputCapAndContinuesFromTheFirstLineNotShown() throws Exception {
        // 100-character lines: 2000 of them would pass the kernel's 30,000-character cap near line 284
        String text = IntStream.rangeClosed(1, 2500).mapToObj(n -> "x".repeat(100)).collect(Collectors.joining("\n"));
        Files.writeString(root.resolve("wide.txt"), text);
        String out = new ReadFileTool().call(Arguments.of(Map.of("path", "wide.txt")), context).text();
        assertTrue(out.length() <= ReadFileTool.OUTPUT_BUDGET, "length " + out.length());
        String header = out.substring(0, out.indexOf('\n'));
        int last = Integer.parseInt(header.replaceAll(".*lines 1-(\\d+) of.*", "$1"));
        assertEquals("[wide.txt: lines 1-" + last + " of 2500; continue with offset " + (last + 1) + "]", header);
        assertTrue(out.endsWith("\n" + last + ": " + "x".repeat(100) + "\n"), "the last line shown is the one named");
        assertTrue(last > 200 && last < 300, "lines shown: " + last);
        String next = new ReadFileTool().call(Arguments.of(Map.of("path", "wide.txt", "offset", last + 1)), context)
                .text();
        assertTrue(next.startsWith("[wide.txt: lines " + (last + 1) + "-"), next.substring(0, 60));
    }
}
