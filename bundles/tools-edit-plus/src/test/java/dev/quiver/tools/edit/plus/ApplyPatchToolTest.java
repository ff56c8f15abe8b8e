package dev.quiver.tools.edit.plus;

import dev.quiver.workspace.ToolTestContext;
import dev.quiver.workspace.Appender;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.ToolException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApplyPatchToolTest {

    @TempDir
    Path root;

    ToolTestContext context;
    final ApplyPatchTool tool = new ApplyPatchTool();

    @BeforeEach
    void open() throws IOException {
        context = new ToolTestContext(root);
    }

    /** A file as it existed before the session, read by the model since. */
    private Path file(String path, String content) throws IOException, ToolException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
        context.read(path);
        return file;
    }

    private String read(String path) throws IOException {
        return Files.readString(root.resolve(path));
    }

    private static String patch(String... lines) {
        return "*** Begin Patch\n" + String.join("\n", lines) + "\n*** End Patch\n";
    }

    private String apply(String patch) throws ToolException {
        return tool.call(Arguments.of(Map.of("patch", patch)), context).text();
    }

    /** Every file under the root with its bytes, to prove a failed patch changed nothing. */
    private Map<String, String> snapshot() throws IOException {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path path : walk.filter(Files::isRegularFile).toList()) {
                files.put(root.relativize(path).toString(), new String(Files.readAllBytes(path), StandardCharsets.ISO_8859_1));
            }
        }
        return files;
    }

    private ToolException failsUnchanged(String patch) throws IOException {
        Map<String, String> before = snapshot();
        ToolException error = assertThrows(ToolException.class, () -> apply(patch));
        assertEquals(before, snapshot(), "a failed patch leaves every file as it was");
        assertTrue(error.getMessage().endsWith("No file was changed."), error.getMessage());
        return error;
    }

    // ------------------------------------------------------------------------------------ adds

    @Test
    void addCreatesAFileWithItsParents() throws Exception {
        String out = apply(patch("*** Add File: src/new/Hello.java", "+class Hello {", "+}"));
        assertEquals("Applied the patch:\nA src/new/Hello.java (2 lines)", out);
        assertEquals("class Hello {\n}\n", read("src/new/Hello.java"));
    }

    @Test
    void addWithBlankLinesKeepsTheInnerOnesAndDropsTrailingOnes() throws Exception {
        apply("*** Begin Patch\n*** Add File: a.txt\n+one\n\n+three\n\n\n*** End Patch");
        assertEquals("one\n\nthree\n", read("a.txt"));
    }

    @Test
    void addOfAnEmptyFile() throws Exception {
        apply(patch("*** Add File: empty.txt"));
        assertEquals("", read("empty.txt"));
    }

    @Test
    void addOverAnExistingFileFails() throws Exception {
        file("a.txt", "mine\n");
        ToolException error = failsUnchanged(patch("*** Add File: a.txt", "+theirs"));
        assertTrue(error.getMessage().contains("a.txt already exists. Use '*** Update File' to change it"),
                error.getMessage());
    }

    @Test
    void addLineWithoutPlusIsAParseErrorNamingTheLine() throws Exception {
        ToolException error = failsUnchanged(patch("*** Add File: a.txt", "+ok", "not added"));
        assertEquals("The patch is malformed at line 4: every line of an added file starts with '+', got 'not added'. "
                + "No file was changed.", error.getMessage());
    }

    // --------------------------------------------------------------------------------- deletes

    @Test
    void deleteRemovesAFileWithoutNeedingARead() throws Exception {
        Files.writeString(root.resolve("old.txt"), "bye\n");
        assertEquals("Applied the patch:\nD old.txt", apply(patch("*** Delete File: old.txt")));
        assertFalse(Files.exists(root.resolve("old.txt")));
    }

    @Test
    void deleteOfAMissingFileFails() throws Exception {
        ToolException error = failsUnchanged(patch("*** Delete File: nope.txt"));
        assertTrue(error.getMessage().contains("Delete File nope.txt (patch line 2): No such file: nope.txt"),
                error.getMessage());
    }

    @Test
    void deleteThenAddTheSamePathReplacesIt() throws Exception {
        Files.writeString(root.resolve("a.txt"), "old\n");
        apply(patch("*** Delete File: a.txt", "*** Add File: a.txt", "+new"));
        assertEquals("new\n", read("a.txt"));
    }

    // --------------------------------------------------------------------------------- updates

    @Test
    void updateReplacesLinesFoundByContext() throws Exception {
        file("app.py", "def main():\n    print('hi')\n    return 0\n");
        String out = apply(patch("*** Update File: app.py", "@@ def main():", "-    print('hi')",
                "+    print('hello')", "     return 0"));
        assertEquals("Applied the patch:\nM app.py (1 hunk)", out);
        assertEquals("def main():\n    print('hello')\n    return 0\n", read("app.py"));
    }

    @Test
    void firstHunkMayOmitItsHeader() throws Exception {
        file("a.txt", "one\ntwo\nthree\n");
        apply(patch("*** Update File: a.txt", " one", "-two", "+2", " three"));
        assertEquals("one\n2\nthree\n", read("a.txt"));
    }

    @Test
    void severalHunksApplyInOrder() throws Exception {
        file("a.txt", "a\nb\nc\nd\ne\nf\ng\n");
        String out = apply(patch("*** Update File: a.txt", "@@", " a", "-b", "+B", "@@", " e", "-f", "+F"));
        assertEquals("Applied the patch:\nM a.txt (2 hunks)", out);
        assertEquals("a\nB\nc\nd\ne\nF\ng\n", read("a.txt"));
    }

    @Test
    void repeatedTextIsChangedAfterThePreviousHunkNotBefore() throws Exception {
        file("a.txt", "x = 1\nmark\nx = 1\n");
        apply(patch("*** Update File: a.txt", "@@", " mark", "@@", "-x = 1", "+x = 2"));
        assertEquals("x = 1\nmark\nx = 2\n", read("a.txt"));
    }

    @Test
    void stackedHeadersNarrowThePlaceStepByStep() throws Exception {
        // after "class Square {" the first "return 0;" is perimeter's; only the second header reaches area's
        file("Square.java", String.join("\n",
                "class Square {",
                "    double perimeter() {",
                "        return 0;",
                "    }",
                "    double area() {",
                "        return 0;",
                "    }",
                "}", ""));
        apply(patch("*** Update File: Square.java", "@@ class Square {", "@@     double area() {",
                "-        return 0;", "+        return side * side;"));
        assertEquals(String.join("\n",
                "class Square {",
                "    double perimeter() {",
                "        return 0;",
                "    }",
                "    double area() {",
                "        return side * side;",
                "    }",
                "}", ""), read("Square.java"));
    }

    @Test
    void aHeaderThatIsNotThereFailsNamingTheFileAndHunk() throws Exception {
        file("a.txt", "one\ntwo\n");
        ToolException error = failsUnchanged(patch("*** Update File: a.txt", "@@ three", "-two", "+2"));
        assertTrue(error.getMessage().startsWith("apply_patch failed on Update File a.txt (patch line 2): hunk 1 "
                + "(@@ three): the @@ line 'three' is not in a.txt."), error.getMessage());
    }

    @Test
    void contextNotFoundFailsWithTheExpectedLinesAndTheClosestText() throws Exception {
        file("a.txt", "alpha\nbeta\ngamma\n");
        ToolException error = failsUnchanged(patch("*** Update File: a.txt", " alpha", "-betta", "+BETA"));
        String message = error.getMessage();
        assertTrue(message.contains("hunk 1: its context and removed lines are not in a.txt. Expected:\nalpha\nbetta\n"),
                message);
        assertTrue(message.contains("The closest text is at lines 1-2:\n1: alpha\n2: beta\n"), message);
    }

    @Test
    void contextMatchesIgnoringTrailingWhitespace() throws Exception {
        file("a.txt", "keep   \nold\n");
        apply(patch("*** Update File: a.txt", " keep", "-old", "+new"));
        assertEquals("keep   \nnew\n", read("a.txt"), "the file's own context line is kept byte for byte");
    }

    @Test
    void ignoringTrailingWhitespaceIsTriedBeforeIgnoringLeadingWhitespace() throws Exception {
        // line 1 matches only with leading whitespace ignored, line 2 already with trailing whitespace ignored
        file("a.txt", "  x\nx  \n");
        apply(patch("*** Update File: a.txt", "-x", "+y"));
        assertEquals("  x\ny\n", read("a.txt"));
    }

    @Test
    void contextMatchesIgnoringSurroundingWhitespaceAsTheLastResort() throws Exception {
        file("a.py", "if x:\n\tcall()\n\treturn\n");
        apply(patch("*** Update File: a.py", "     call()", "-    return", "+\treturn 1"));
        assertEquals("if x:\n\tcall()\n\treturn 1\n", read("a.py"));
    }

    @Test
    void exactMatchWinsOverAnEarlierLooseOne() throws Exception {
        file("a.txt", "  item\nitem\n");
        apply(patch("*** Update File: a.txt", "-item", "+ITEM"));
        assertEquals("  item\nITEM\n", read("a.txt"));
    }

    @Test
    void endOfFileAnchorsTheHunkAtTheEnd() throws Exception {
        file("a.txt", "x\ny\nx\n");
        apply(patch("*** Update File: a.txt", "-x", "+z", "*** End of File"));
        assertEquals("x\ny\nz\n", read("a.txt"));
    }

    @Test
    void endOfFileFailsWhenTheLinesAreNotLast() throws Exception {
        file("a.txt", "x\ny\n");
        ToolException error = failsUnchanged(patch("*** Update File: a.txt", "-x", "+z", "*** End of File"));
        assertTrue(error.getMessage().contains("are not in a.txt at the end of the file"), error.getMessage());
    }

    @Test
    void additionsOnlyAfterAHeaderGoRightBelowIt() throws Exception {
        file("a.txt", "imports:\nfoo\n\nbody\n");
        apply(patch("*** Update File: a.txt", "@@ imports:", "+bar"));
        assertEquals("imports:\nbar\nfoo\n\nbody\n", read("a.txt"));
    }

    @Test
    void additionsOnlyWithoutAHeaderAreAppended() throws Exception {
        file("a.txt", "one\n");
        apply(patch("*** Update File: a.txt", "+two"));
        assertEquals("one\ntwo\n", read("a.txt"));
    }

    @Test
    void aFileWithoutAFinalNewlineKeepsHavingNone() throws Exception {
        file("a.txt", "one\ntwo");
        apply(patch("*** Update File: a.txt", " one", "-two", "+2"));
        assertEquals("one\n2", read("a.txt"));
        context.read("a.txt");
        apply(patch("*** Update File: a.txt", " 2", "+3"));
        assertEquals("one\n2\n3", read("a.txt"));
        context.read("a.txt");
        apply(patch("*** Update File: a.txt", "-one", "+1"));
        assertEquals("1\n2\n3", read("a.txt"));
    }

    @Test
    void crlfFilesStayCrlfAndNewLinesGetCrlf() throws Exception {
        Path file = file("win.txt", "one\r\ntwo\r\nthree\r\n");
        apply(patch("*** Update File: win.txt", " one", "-two", "+2", "+2.5", " three"));
        assertArrayEquals("one\r\n2\r\n2.5\r\nthree\r\n".getBytes(StandardCharsets.UTF_8), Files.readAllBytes(file));
    }

    @Test
    void aPatchWrittenWithCrlfLinesIsReadLikeOneWithLf() throws Exception {
        file("a.txt", "one\ntwo\n");
        apply("*** Begin Patch\r\n*** Update File: a.txt\r\n one\r\n-two\r\n+2\r\n*** End Patch\r\n");
        assertEquals("one\n2\n", read("a.txt"));
    }

    @Test
    void unicodeTextIsMatchedAndWritten() throws Exception {
        file("greet.txt", "Grüße\n日本語\n😀 smile\n");
        apply(patch("*** Update File: greet.txt", " Grüße", "-日本語", "+にほんご", " 😀 smile"));
        assertEquals("Grüße\nにほんご\n😀 smile\n", read("greet.txt"));
    }

    @Test
    void whitespacePaddedMarkersAndTextAroundTheEnvelopeAreAccepted() throws Exception {
        file("a.txt", "one\n");
        apply("apply_patch <<'EOF'\n  *** Begin Patch  \n\t*** Update File:   a.txt  \n-one\n+1\n  *** End Patch \nEOF\n");
        assertEquals("1\n", read("a.txt"));
    }

    @Test
    void blankLineInsideAHunkIsAnEmptyContextLine() throws Exception {
        file("a.txt", "a\n\nb\n");
        apply("*** Begin Patch\n*** Update File: a.txt\n a\n\n-b\n+B\n*** End Patch\n");
        assertEquals("a\n\nB\n", read("a.txt"));
    }

    @Test
    void aUnifiedDiffRangeHeaderLocatesNothingAndIsIgnored() throws Exception {
        file("a.txt", "a\nb\n");
        apply(patch("*** Update File: a.txt", "@@ -1,2 +1,2 @@", " a", "-b", "+B"));
        assertEquals("a\nB\n", read("a.txt"));
    }

    @Test
    void anUnknownLineInAHunkIsAParseError() throws Exception {
        file("a.txt", "a\n");
        ToolException error = failsUnchanged(patch("*** Update File: a.txt", " a", "oops"));
        assertTrue(error.getMessage().contains("a hunk line starts with ' ' (context), '-' (removed) or '+' (added), got "
                + "'oops'."), error.getMessage());
    }

    @Test
    void anUpdateWithoutHunksOrMoveIsAnError() throws Exception {
        file("a.txt", "a\n");
        ToolException error = failsUnchanged(patch("*** Update File: a.txt"));
        assertTrue(error.getMessage().contains("has no hunks"), error.getMessage());
    }

    @Test
    void anUpdateOfAMissingFileSuggestsAdd() throws Exception {
        ToolException error = failsUnchanged(patch("*** Update File: nope.txt", "+x"));
        assertTrue(error.getMessage().contains("No such file: nope.txt. To create it, use '*** Add File'."),
                error.getMessage());
    }

    @Test
    void twoUpdatesOfTheSameFileCompose() throws Exception {
        file("a.txt", "one\ntwo\n");
        apply(patch("*** Update File: a.txt", "-one", "+1", "*** Update File: a.txt", "-two", "+2"));
        assertEquals("1\n2\n", read("a.txt"));
    }

    @Test
    void anAddedFileCanBeUpdatedLaterInTheSamePatch() throws Exception {
        apply(patch("*** Add File: n.txt", "+draft", "*** Update File: n.txt", "-draft", "+final"));
        assertEquals("final\n", read("n.txt"));
    }

    @Test
    void aLatin1FileKeepsItsBytes() throws Exception {
        Path file = root.resolve("legacy.txt");
        Files.write(file, "caf\u00e9\nprix\n".getBytes(StandardCharsets.ISO_8859_1));
        context.read("legacy.txt");
        apply(patch("*** Update File: legacy.txt", " caf\u00e9", "-prix", "+cr\u00e8me"));
        assertArrayEquals("caf\u00e9\ncr\u00e8me\n".getBytes(StandardCharsets.ISO_8859_1), Files.readAllBytes(file));
    }

    @Test
    void aCharacterTheFilesCharsetCannotHoldFailsBeforeAnyWrite() throws Exception {
        Files.write(root.resolve("legacy.txt"), "caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));
        context.read("legacy.txt");
        ToolException error = failsUnchanged(patch("*** Add File: first.txt", "+ok", "*** Update File: legacy.txt",
                "-caf\u00e9", "+\u20ac"));
        assertTrue(error.getMessage().contains("legacy.txt is not UTF-8"), error.getMessage());
        assertFalse(Files.exists(root.resolve("first.txt")));
    }

    // ----------------------------------------------------------------------------------- moves

    @Test
    void moveToRenamesAndEditsInOneStepKeepingPermissions() throws Exception {
        Path script = file("bin/run.sh", "#!/bin/sh\necho old\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-x---"));
        String out = apply(patch("*** Update File: bin/run.sh", "*** Move to: scripts/run.sh", " #!/bin/sh",
                "-echo old", "+echo new"));
        assertEquals("Applied the patch:\nR bin/run.sh -> scripts/run.sh (1 hunk)", out);
        assertFalse(Files.exists(script));
        assertEquals("#!/bin/sh\necho new\n", read("scripts/run.sh"));
        assertEquals("rwxr-x---", PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve(
                "scripts/run.sh"))));
    }

    @Test
    void aPureMoveNeedsNoHunks() throws Exception {
        file("a.txt", "same\n");
        apply(patch("*** Update File: a.txt", "*** Move to: b.txt"));
        assertEquals("same\n", read("b.txt"));
        assertFalse(Files.exists(root.resolve("a.txt")));
    }

    @Test
    void aMoveOntoAnExistingFileFails() throws Exception {
        file("a.txt", "a\n");
        file("b.txt", "b\n");
        ToolException error = failsUnchanged(patch("*** Update File: a.txt", "*** Move to: b.txt"));
        assertTrue(error.getMessage().contains("the move target b.txt already exists"), error.getMessage());
    }

    @Test
    void movingASecretToANameThatIsNotSecretIsRefused() throws Exception {
        file(".env", "KEY=1\n");
        ToolException error = failsUnchanged(patch("*** Update File: .env", "*** Move to: env.txt"));
        assertTrue(error.getMessage().contains(".env holds secrets by its name"), error.getMessage());
    }

    // --------------------------------------------------------------------- atomicity and rules

    @Test
    void aFailingLaterFileLeavesEveryEarlierOneUnchanged() throws Exception {
        file("a.txt", "a\n");
        file("b.txt", "b\n");
        Files.writeString(root.resolve("gone.txt"), "g\n");
        ToolException error = failsUnchanged(patch(
                "*** Add File: new.txt", "+n",
                "*** Update File: a.txt", "-a", "+A",
                "*** Delete File: gone.txt",
                "*** Update File: b.txt", "-not there", "+B"));
        assertTrue(error.getMessage().startsWith("apply_patch failed on Update File b.txt (patch line 8): hunk 1"),
                error.getMessage());
        assertFalse(Files.exists(root.resolve("new.txt")));
    }

    @Test
    void aFileThatWasNotReadIsRefused() throws Exception {
        Files.writeString(root.resolve("unread.txt"), "x\n");
        ToolException error = failsUnchanged(patch("*** Update File: unread.txt", "-x", "+y"));
        assertTrue(error.getMessage().contains("unread.txt has not been read in this session. Read it with read_file "
                + "first."), error.getMessage());
    }

    @Test
    void aFileChangedSinceItWasReadIsRefused() throws Exception {
        file("a.txt", "x\n");
        Files.writeString(root.resolve("a.txt"), "x changed\n");
        ToolException error = failsUnchanged(patch("*** Update File: a.txt", "-x changed", "+y"));
        assertTrue(error.getMessage().contains("a.txt changed since it was last read"), error.getMessage());
    }

    @Test
    void writtenFilesCountAsReadSoTheNextPatchNeedsNoRead() throws Exception {
        apply(patch("*** Add File: a.txt", "+one"));
        apply(patch("*** Update File: a.txt", "-one", "+two"));
        assertEquals("two\n", read("a.txt"));
    }

    @Test
    void absoluteAndEscapingPathsAreRefused() throws Exception {
        String inside = root.toRealPath().resolve("a.txt").toString();
        ToolException absolute = failsUnchanged(patch("*** Add File: " + inside, "+x"));
        assertTrue(absolute.getMessage().contains("is not a relative path"), absolute.getMessage());
        ToolException escape = failsUnchanged(patch("*** Add File: ../evil.txt", "+x"));
        assertTrue(escape.getMessage().contains("Path escapes workspace: ../evil.txt"), escape.getMessage());
        assertFalse(Files.exists(root.getParent().resolve("evil.txt")));
    }

    @Test
    void aLinkOutOfTheWorkspaceIsNotFollowed(@TempDir Path outside) throws Exception {
        Files.createSymbolicLink(root.resolve("out"), outside);
        failsUnchanged(patch("*** Add File: out/planted.txt", "+x"));
        assertFalse(Files.exists(outside.resolve("planted.txt")));
    }

    @Test
    void aBinaryFileCannotBeUpdated() throws Exception {
        Files.write(root.resolve("a.bin"), new byte[] {1, 0, 2});
        context.read("a.bin");
        ToolException error = failsUnchanged(patch("*** Update File: a.bin", "+x"));
        assertTrue(error.getMessage().contains("a.bin is a binary file"), error.getMessage());
    }

    @Test
    void aMissingEnvelopeIsExplained() throws Exception {
        ToolException error = failsUnchanged("*** Update File: a.txt\n-a\n+b\n");
        assertEquals("The patch must start with a line '*** Begin Patch' and end with '*** End Patch'. No file was "
                + "changed.", error.getMessage());
        ToolException unterminated = failsUnchanged("*** Begin Patch\n*** Add File: a.txt\n+a\n");
        assertTrue(unterminated.getMessage().contains("the patch ends without '*** End Patch'."),
                unterminated.getMessage());
        ToolException empty = failsUnchanged("*** Begin Patch\n*** End Patch\n");
        assertEquals("The patch holds no file operation. No file was changed.", empty.getMessage());
    }

    @Test
    void subjectsNameEveryFileIncludingMoveTargets() throws ToolException {
        String patch = patch("*** Add File: a.txt", "+a", "*** Delete File: b.txt", "*** Update File: c.txt",
                "*** Move to: d/c.txt", "-x", "+y");
        assertEquals(List.of(Subject.path("a.txt"), Subject.path("b.txt"), Subject.path("c.txt"),
                Subject.path("d/c.txt")), tool.subjects(Arguments.of(Map.of("patch", patch))));
        assertThrows(ToolException.class, () -> tool.subjects(Arguments.of(Map.of("patch", "nonsense"))));
    }

    @Test
    void aWriteFailureWhileStagingChangesNoFile() throws Exception {
        Path a = file("a.txt", "a\n");
        Files.setPosixFilePermissions(a, PosixFilePermissions.fromString("rw-r-----"));
        Files.writeString(root.resolve("doomed.txt"), "kept\n");
        // every new content is staged before any file changes; this name is too long for the file system
        String longName = "n".repeat(300) + ".txt";
        Map<String, String> before = snapshot();
        ToolException error = assertThrows(ToolException.class, () -> apply(patch(
                "*** Update File: a.txt", "-a", "+A",
                "*** Delete File: doomed.txt",
                "*** Add File: " + longName, "+x")));
        assertEquals("apply_patch failed: " + longName + ": File name too long. No file was changed.", error.getMessage());
        assertEquals(before, snapshot());
        assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(a)));
    }

    @Test
    void aWriteFailureRemovesTheFoldersTheFailedPatchCreated() throws Exception {
        file("a.txt", "a\n");
        Path nested = root.resolve("new/deeper");
        String longName = "n".repeat(300) + ".txt"; // too long for the file system: the write fails
        ToolException error = assertThrows(ToolException.class, () -> apply(patch(
                "*** Update File: a.txt", "-a", "+A",
                "*** Add File: new/deeper/first.txt", "+1",
                "*** Add File: new/deeper/" + longName, "+x")));
        assertTrue(error.getMessage().endsWith("No file was changed."), error.getMessage());
        assertEquals("a\n", read("a.txt"));
        assertFalse(Files.exists(nested), "the folders made for the new files are gone again");
        assertFalse(Files.exists(root.resolve("new")));
    }

    @Test
    void aLinkIsNeitherDeletedNorMovedThroughToItsTarget() throws Exception {
        file("target.txt", "kept\n");
        Files.createSymbolicLink(root.resolve("link.txt"), root.resolve("target.txt"));
        context.read("link.txt");
        ToolException delete = failsUnchanged(patch("*** Delete File: link.txt"));
        assertTrue(delete.getMessage().contains("link.txt is a symbolic link, and apply_patch does not delete links"
                + " (it would act on the file the link points to). Use delete_file, which acts on the link itself."),
                delete.getMessage());
        ToolException move = failsUnchanged(patch("*** Update File: link.txt", "*** Move to: moved.txt", "-kept",
                "+moved"));
        assertTrue(move.getMessage().contains("Use move_file"), move.getMessage());
        assertTrue(Files.isSymbolicLink(root.resolve("link.txt")));
        // an update goes through the link to its target, as an editor's save does
        apply(patch("*** Update File: link.txt", "-kept", "+changed"));
        assertEquals("changed\n", read("target.txt"));
        assertTrue(Files.isSymbolicLink(root.resolve("link.txt")));
    }

    @Test
    void everyStarMarkerMayBePaddedWithWhitespace() throws Exception {
        file("old.txt", "one\ntwo\n");
        file("gone.txt", "bye\n");
        apply("  *** Begin Patch  \n"
                + "\t*** Add File: made.txt \n+made\n"
                + "  *** Delete File: gone.txt\t\n"
                + " *** Update File: old.txt  \n"
                + "   *** Move to: new.txt \n"
                + "@@ one  \n" // a line starting with a space is context, so @@ is not padded in front
                + "-two\n+2\n"
                + "  *** End of File  \n"
                + " *** End Patch \n");
        assertEquals("made\n", read("made.txt"));
        assertFalse(Files.exists(root.resolve("gone.txt")));
        assertFalse(Files.exists(root.resolve("old.txt")));
        assertEquals("one\n2\n", read("new.txt"));
    }

    @Test
    void hugeAddedFilesAreWritten() throws Exception {
        StringBuilder patch = new StringBuilder("*** Begin Patch\n*** Add File: big.txt\n");
        for (int i = 0; i < 200_000; i++) {
            patch.append("+line ").append(i).append('\n');
        }
        patch.append("*** End Patch\n");
        apply(patch.toString());
        assertEquals(200_000, Files.readAllLines(root.resolve("big.txt")).size());
    }

    @Test
    void aWriterAppendingEveryMillisecondNeverLosesALineToAPatch() throws Exception {
        Path file = root.resolve("log.txt");
        Files.writeString(file, "header 0\n");
        int landed = 0;
        int refused = 0;
        Appender appender = new Appender(file);
        try (appender) {
            // until 20 edits landed, each a rename the appender races, at most 500 tries
            for (int n = 1; n <= 500 && landed < 20; n++) {
                context.read("log.txt");
                String header = Files.readString(file).lines().findFirst().orElseThrow();
                try {
                    apply(patch("*** Update File: log.txt", "@@", "-" + header, "+header " + n));
                    landed++;
                } catch (ToolException changedMeanwhile) {
                    refused++;
                }
            }
        }
        assertEquals(List.of(), appender.lost(), landed + " apply_patch calls landed, " + refused + " refused");
        assertTrue(landed > 0, "no apply_patch call landed");
    }


    @Test
    void aPatchThatRunsOutOfSpaceChangesNoFileAndLeavesNothingBehind() throws Exception {
        file("src/A.java", "class A {\n    int a = 1;\n}\n");
        file("src/B.java", "class B {\n    int b = 1;\n}\n");
        file("docs/gone.md", "# Gone\n");
        String large = ("+" + "x".repeat(99) + "\n").repeat(2000); // 200 KB, over the limit below
        String patch = patch("*** Update File: src/A.java", "@@", "-    int a = 1;", "+    int a = 2;",
                "*** Delete File: docs/gone.md",
                "*** Add File: new/deep/Large.txt", large.substring(0, large.length() - 1),
                "*** Update File: src/B.java", "@@", "-    int b = 1;", "+    int b = 2;");
        Path patchFile = Files.writeString(Files.createTempFile("patch", ".txt"), patch);
        Map<String, String> before = snapshot();
        // a file-size limit of 64 KB: the JVM ignores SIGXFSZ, so the write fails with EFBIG, as a full disk fails
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder("bash", "-c", "ulimit -f 128 && exec \"$@\"", "child", java, "-cp",
                System.getProperty("java.class.path"), ApplyPatchChild.class.getName(), root.toString(),
                patchFile.toString(), "src/A.java", "src/B.java", "docs/gone.md").redirectErrorStream(true).start();
        String said = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child did not end");
        Files.delete(patchFile);
        assertTrue(said.startsWith("failed: ") && said.contains("new/deep/Large.txt") && said.endsWith("No file was changed."),
                said);
        assertFalse(said.contains(root.toString()) || said.contains(".quiver-tmp") || said.contains("could not be restored"),
                said);
        assertEquals(before, snapshot(), "a patch that failed for space changed a file");
        assertFalse(Files.exists(root.resolve("new")), "the folders the failed patch made are still there");
        try (Stream<Path> walk = Files.walk(root)) {
            assertEquals(List.of(), walk.filter(path -> path.getFileName().toString().endsWith(".quiver-tmp")).toList());
        }
    }
}
