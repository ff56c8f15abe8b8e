package dev.quiver.tools.edit.plus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.ToolException;
import dev.quiver.workspace.ToolTestContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** apply_patch and multi_edit locating text with the shared tolerance ladder, on real files. */
class FuzzyPatchTest {

    @TempDir
    Path root;

    ToolTestContext context;

    @BeforeEach
    void open() throws IOException {
        context = new ToolTestContext(root);
    }

    private Path file(String path, String content) throws IOException, ToolException {
        Path file = root.resolve(path);
        Files.write(file, content.getBytes(StandardCharsets.UTF_8));
        context.read(path);
        return file;
    }

    private String read(String path) throws IOException {
        return Files.readString(root.resolve(path));
    }

    private String apply(String patch) throws ToolException {
        return new ApplyPatchTool().call(Arguments.of(Map.of("patch", patch)), context).text();
    }

    private static String patch(String... lines) {
        return "*** Begin Patch\n" + String.join("\n", lines) + "\n*** End Patch\n";
    }

    // Codex folds Unicode punctuation when it seeks lines; these are its kinds of cases, written anew.

    @Test
    void anEnDashInTheFileMatchesAnAsciiHyphenInThePatch() throws Exception {
        file("notes.txt", "Range: 1\u20135\nend\n");
        String out = apply(patch("*** Update File: notes.txt", "-Range: 1-5", "+Range: 1-6"));
        assertEquals("Range: 1-6\nend\n", read("notes.txt"));
        assertTrue(out.contains("hunk 1 matched with Unicode dashes, quotes and spaces read as their ASCII look-alikes"),
                out);
    }

    @Test
    void curlyDoubleQuotesMatchStraightOnes() throws Exception {
        file("say.py", "print(\u201Chello\u201D)\nx = 1\n");
        apply(patch("*** Update File: say.py", " print(\"hello\")", "-x = 1", "+x = 2"));
        assertEquals("print(\u201Chello\u201D)\nx = 2\n", read("say.py"), "the context line keeps its own quotes");
    }

    @Test
    void curlySingleQuotesMatchApostrophes() throws Exception {
        file("it.md", "It\u2019s here\n");
        apply(patch("*** Update File: it.md", "-It's here", "+It's there"));
        assertEquals("It's there\n", read("it.md"));
    }

    @Test
    void aNoBreakSpaceMatchesASpace() throws Exception {
        file("price.txt", "total:\u00A0100\n");
        apply(patch("*** Update File: price.txt", "-total: 100", "+total: 200"));
        assertEquals("total: 200\n", read("price.txt"));
    }

    @Test
    void anEmDashAndAMinusSignInContextMatch() throws Exception {
        file("m.txt", "a \u2014 b\nc \u2212 d\nkeep\n");
        apply(patch("*** Update File: m.txt", " a - b", " c - d", "-keep", "+kept"));
        assertEquals("a \u2014 b\nc \u2212 d\nkept\n", read("m.txt"));
    }

    @Test
    void theClosestTextShowsANoBreakSpaceEscapedSoTheAdviceCanBeFollowed() throws Exception {
        byte[] before = "let\u00A0x = 1;\n".getBytes(StandardCharsets.UTF_8);
        Files.write(root.resolve("nb.js"), before);
        context.read("nb.js");
        ToolException error = assertThrows(ToolException.class,
                () -> apply(patch("*** Update File: nb.js", "-let x = 2;", "+let x = 3;")));
        assertTrue(error.getMessage().contains("1: let\\u00A0x = 1;\n"), error.getMessage());
        assertArrayEquals(before, Files.readAllBytes(root.resolve("nb.js")));
    }

    @Test
    void aBlankLineBetweenEndOfFileAndEndPatchAndAfterTheEnvelopeIsAccepted() throws Exception {
        file("e.txt", "x\ny\n");
        apply("*** Begin Patch\n*** Update File: e.txt\n-y\n+z\n*** End of File\n\n*** End Patch\n\n\n");
        assertEquals("x\nz\n", read("e.txt"));
    }

    @Test
    void aShiftedHunkReindentsItsAddedLines() throws Exception {
        file("s.py", "def f():\n    if x:\n        run()\n");
        String out = apply(patch("*** Update File: s.py", " if x:", "-    run()", "+    run()", "+    stop()"));
        assertEquals("def f():\n    if x:\n        run()\n        stop()\n", read("s.py"));
        assertTrue(out.contains("hunk 1 matched with indentation shifted; added lines re-indented to match"), out);
    }

    @Test
    void anAmbiguousToleratedHunkIsRefusedWithItsLinesAndNothingChanges() throws Exception {
        byte[] before = "a  \nb\na \nb\n".getBytes(StandardCharsets.UTF_8);
        Files.write(root.resolve("amb.txt"), before);
        context.read("amb.txt");
        ToolException error = assertThrows(ToolException.class,
                () -> apply(patch("*** Update File: amb.txt", "-a", "+c", " b")));
        assertTrue(error.getMessage().contains("with trailing whitespace ignored they match 2 places (lines 1 and 3)"),
                error.getMessage());
        assertArrayEquals(before, Files.readAllBytes(root.resolve("amb.txt")));
    }

    /**
     * Exact context that repeats is not refused: as in Codex, the first place after the previous hunk (or
     * after the @@ lines) is taken, and a second identical hunk reaches the next place. Only the tolerances,
     * which are guesses, must be unique.
     */
    @Test
    void exactContextThatRepeatsTakesTheFirstPlaceAfterThePreviousHunkAsCodexDoes() throws Exception {
        file("r.js", "f() {\n  a();\n}\ng() {\n  a();\n}\nh() {\n  a();\n}\n");
        String out = apply(patch("*** Update File: r.js", "-  a();", "+  b();"));
        assertEquals("Applied the patch:\nM r.js (1 hunk)", out, "no tolerance is named and nothing is refused");
        assertEquals("f() {\n  b();\n}\ng() {\n  a();\n}\nh() {\n  a();\n}\n", read("r.js"));
        apply(patch("*** Update File: r.js", "@@", "-  a();", "+  c();", "@@", "-  a();", "+  d();"));
        assertEquals("f() {\n  b();\n}\ng() {\n  c();\n}\nh() {\n  d();\n}\n", read("r.js"));
    }

    @Test
    void everyToleranceOfApplyPatchRefusesTwoPlacesHeadersIncludedAndChangesNothing() throws Exception {
        refusedAsAmbiguous("a\u2013b\nx\na\u2014b\n", List.of("-a-b", "+c"),
                "the line 'a-b' is not in p.txt as written; with Unicode dashes, quotes and spaces read as their "
                        + "ASCII look-alikes it matches 2 places (lines 1 and 3)");
        refusedAsAmbiguous("  x = 1\n  y = 2\n    x = 1\n    y = 2\n", List.of("-x = 1", "-y = 2", "+z"),
                "its context and removed lines are not in p.txt as written; with indentation shifted they match 2 "
                        + "places (lines 1 and 3)");
        refusedAsAmbiguous("a  b\nc\na\tb\n", List.of("-a b", "+x"),
                "with whitespace runs collapsed it matches 2 places (lines 1 and 3)");
        refusedAsAmbiguous("sec\u2013one\nv\nsec\u2014one\nv\n", List.of("@@ sec-one", "-v", "+w"),
                "the line 'sec-one' is not in p.txt as written; with Unicode dashes, quotes and spaces read as "
                        + "their ASCII look-alikes it matches 2 places (lines 1 and 3)");
        // after an exact first hunk, the tolerance must still find one place in what follows it
        refusedAsAmbiguous("top\nk  \nk \n", List.of("-top", "+TOP", "@@", "-k", "+K"),
                "with trailing whitespace ignored it matches 2 places (lines 2 and 3)");
    }

    private void refusedAsAmbiguous(String content, List<String> hunk, String expected) throws Exception {
        byte[] before = content.getBytes(StandardCharsets.UTF_8);
        Path file = root.resolve("p.txt");
        Files.write(file, before);
        context.read("p.txt");
        List<String> lines = new ArrayList<>(List.of("*** Update File: p.txt"));
        lines.addAll(hunk);
        ToolException error = assertThrows(ToolException.class, () -> apply(patch(lines.toArray(String[]::new))));
        assertTrue(error.getMessage().contains(expected), error.getMessage());
        assertArrayEquals(before, Files.readAllBytes(file));
    }

    @Test
    void multiEditTakesEachEditsToleranceAndSaysWhichEditUsedOne() throws Exception {
        file("m.ts", "const a = \u201Cx\u201D;\nconst b = 1;   \n");
        String out = new MultiEditTool().call(Arguments.of(Map.of("path", "m.ts", "edits", List.of(
                Map.of("oldString", "const a = \"x\";", "newString", "const a = \"y\";"),
                Map.of("oldString", "const b = 1;", "newString", "const b = 2;")))), context).text();
        assertEquals("const a = \"y\";\nconst b = 2;   \n", read("m.ts"));
        assertTrue(out.endsWith(" Edit 1 matched with Unicode dashes, quotes and spaces read as their ASCII "
                + "look-alikes."), out);
    }

    @Test
    void multiEditWithOneAmbiguousEditChangesNothing() throws Exception {
        byte[] before = "x  =  1\ny\nx = 1\n".getBytes(StandardCharsets.UTF_8);
        Files.write(root.resolve("n.txt"), before);
        context.read("n.txt");
        ToolException error = assertThrows(ToolException.class, () -> new MultiEditTool().call(Arguments.of(Map.of(
                "path", "n.txt", "edits", List.of(Map.of("oldString", "y", "newString", "Y"),
                        Map.of("oldString", "x =  1", "newString", "x = 2")))), context));
        assertTrue(error.getMessage().startsWith("edit 2: oldString is not in n.txt as written; with whitespace runs "
                + "collapsed it matches 2 places (lines 1 and 3)"), error.getMessage());
        assertArrayEquals(before, Files.readAllBytes(root.resolve("n.txt")));
    }
}
