package dev.quiver.tools.core;

import dev.quiver.workspace.ToolTestContext;
import dev.quiver.workspace.Appender;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.ToolException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EditFileToolTest {

    @TempDir
    Path root;

    ToolTestContext context;
    final EditFileTool tool = new EditFileTool();

    @BeforeEach
    void open() throws IOException {
        context = new ToolTestContext(root);
    }

    private String edit(String path, String oldString, String newString) throws ToolException {
        return edit(path, oldString, newString, false);
    }

    private String edit(String path, String oldString, String newString, boolean replaceAll) throws ToolException {
        Map<String, Object> arguments = new HashMap<>();
        arguments.put("path", path);
        arguments.put("oldString", oldString);
        arguments.put("newString", newString);
        arguments.put("replaceAll", replaceAll);
        return tool.call(Arguments.of(arguments), context).text();
    }

    /** A file the model has read, as it must have before editing. */
    private Path file(String name, String content) throws IOException, ToolException {
        Path file = root.resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
        markRead(name);
        return file;
    }

    private void markRead(String name) throws ToolException {
        context.workspace().reads().read(context.workspace().resolve(name));
    }

    @Test
    void uniqueOccurrenceIsReplaced() throws Exception {
        Path file = file("src/A.java", "class A {\n    int x = 1;\n}\n");
        assertEquals("Edited src/A.java: replaced 1 occurrence (from line 2).", edit("src/A.java", "int x = 1;", "int x = 2;"));
        assertEquals("class A {\n    int x = 2;\n}\n", Files.readString(file));
    }

    @Test
    void occurrenceAppearingThreeTimesIsRefusedWithoutReplaceAll() throws Exception {
        String content = "foo();\nbar();\nfoo();\nfoo();\n";
        Path file = file("src/A.java", content);
        ToolException error = assertThrows(ToolException.class, () -> edit("src/A.java", "foo();", "baz();"));
        assertEquals("oldString appears 3 times in src/A.java. Add surrounding context or set replaceAll.",
                error.getMessage());
        assertEquals(content, Files.readString(file), "nothing was written");
    }

    @Test
    void surroundingContextMakesARepeatedTextUnique() throws Exception {
        Path file = file("a.txt", "foo();\nbar();\nfoo();\n");
        assertEquals("Edited a.txt: replaced 1 occurrence (from line 2).", edit("a.txt", "bar();\nfoo();", "bar();\nqux();"));
        assertEquals("foo();\nbar();\nqux();\n", Files.readString(file));
    }

    @Test
    void replaceAllReplacesEveryOccurrenceAndCountsThem() throws Exception {
        Path file = file("a.txt", "keep\nold old\nkeep\nold\n");
        assertEquals("Edited a.txt: replaced 3 occurrences (from line 2).", edit("a.txt", "old", "new", true));
        assertEquals("keep\nnew new\nkeep\nnew\n", Files.readString(file));
    }

    @Test
    void notFoundErrorShowsTheClosestRegionWithLineNumbers() throws Exception {
        String content = "class Totals {\n    int count = 0;\n    int total = 0;\n    void add(int x) {\n"
                + "        total += x;\n    }\n}\n";
        Path file = file("src/Totals.java", content);
        ToolException error = assertThrows(ToolException.class,
                () -> edit("src/Totals.java", "int totl = 0;\nvoid add(int x) {", "long total = 0;"));
        assertEquals("oldString not found in src/Totals.java. The closest text is at lines 3-4:\n"
                + "2:     int count = 0;\n"
                + "3:     int total = 0;\n"
                + "4:     void add(int x) {\n"
                + "5:         total += x;\n"
                + "Copy the text exactly as it is there, whitespace included.", error.getMessage());
        assertEquals(content, Files.readString(file));
    }

    @Test
    void nearMissesOfOneLineMatchWithTheToleranceNamedAndAWrongWordStillMisses() throws Exception {
        String content = "if (ready) {\n    start();\n}\n";
        Path file = file("Run.java", content);
        assertEquals("Edited Run.java: replaced 1 occurrence (from line 2). Matched with trailing whitespace ignored.",
                edit("Run.java", "    start(); ", "    stop();"));
        assertEquals("if (ready) {\n    stop();\n}\n", Files.readString(file));
        assertEquals("Edited Run.java: replaced 1 occurrence (from line 2). Matched with indentation shifted; the "
                + "file's block is 2 spaces shallower, and newString was re-indented the same.",
                edit("Run.java", "      stop();", "      go();"));
        assertEquals("if (ready) {\n    go();\n}\n", Files.readString(file));
        String edited = Files.readString(file);
        ToolException error = assertThrows(ToolException.class, () -> edit("Run.java", "    Go();", "    halt();"));
        assertTrue(error.getMessage().startsWith("oldString not found in Run.java. The closest text is at line 2:"),
                error.getMessage());
        assertEquals(edited, Files.readString(file));
    }

    @Test
    void notFoundWithNothingSimilarSaysSo() throws Exception {
        file("a.txt", "alpha\nbeta\n");
        ToolException error = assertThrows(ToolException.class, () -> edit("a.txt", "zzzz qqqq", "x"));
        assertEquals("oldString not found in a.txt. Nothing in the file resembles it; read the file again and copy "
                + "the text exactly.", error.getMessage());
    }

    @Test
    void crlfFileEditedWithLfStringsKeepsCrlfEverywhere() throws Exception {
        Path file = file("win.txt", "one\r\ntwo\r\nthree\r\n");
        assertEquals("Edited win.txt: replaced 1 occurrence (from line 1).", edit("win.txt", "one\ntwo", "uno\ndos\ntres"));
        assertEquals("uno\r\ndos\r\ntres\r\nthree\r\n", Files.readString(file));
    }

    @Test
    void crlfFileEditedOnOneLineWithAMultiLineReplacementKeepsCrlf() throws Exception {
        Path file = file("win.txt", "a\r\nb\r\n");
        edit("win.txt", "b", "b1\nb2");
        assertEquals("a\r\nb1\r\nb2\r\n", Files.readString(file));
    }

    @Test
    void mixedLineEndingFileStillMatchesExactLfText() throws Exception {
        Path file = file("mixed.txt", "header\r\nfirst\nsecond\nfooter\r\n");
        assertEquals("Edited mixed.txt: replaced 1 occurrence (from line 2).",
                edit("mixed.txt", "first\nsecond", "1st\n2nd"));
        assertEquals("header\r\n1st\n2nd\nfooter\r\n", Files.readString(file));
    }

    @Test
    void emptyOldStringIsRefused() throws Exception {
        file("a.txt", "x\n");
        assertEquals("oldString is empty. To create or replace a whole file, use write_file.",
                assertThrows(ToolException.class, () -> edit("a.txt", "", "y")).getMessage());
    }

    @Test
    void identicalOldAndNewStringsAreRefused() throws Exception {
        file("a.txt", "x\n");
        assertEquals("oldString and newString are the same; there is nothing to change.",
                assertThrows(ToolException.class, () -> edit("a.txt", "x", "x")).getMessage());
    }

    @Test
    void latin1FileKeepsItsBytesAroundTheEdit() throws Exception {
        Path file = root.resolve("legacy.txt");
        Files.write(file, "na\u00efve caf\u00e9\nprix: 5\n".getBytes(StandardCharsets.ISO_8859_1));
        markRead("legacy.txt");
        edit("legacy.txt", "prix: 5", "prix: 6 \u00e0 emporter");
        assertArrayEquals("na\u00efve caf\u00e9\nprix: 6 \u00e0 emporter\n".getBytes(StandardCharsets.ISO_8859_1),
                Files.readAllBytes(file));
    }

    @Test
    void latin1FileIsNotSilentlyMangledByCharactersLatin1CannotHold() throws Exception {
        Path file = root.resolve("legacy.txt");
        byte[] original = "caf\u00e9\nprice\n".getBytes(StandardCharsets.ISO_8859_1);
        Files.write(file, original);
        markRead("legacy.txt");
        ToolException error = assertThrows(ToolException.class, () -> edit("legacy.txt", "price", "price \u20ac"));
        assertEquals("legacy.txt is not UTF-8, so it is kept in ISO-8859-1, which cannot hold '\u20ac' (U+20AC). "
                + "Use only characters ISO-8859-1 has, or convert the file to UTF-8 first (for example with iconv in "
                + "bash).", error.getMessage());
        assertArrayEquals(original, Files.readAllBytes(file));
    }

    @Test
    void editKeepsFilePermissions() throws Exception {
        Path script = file("run.sh", "#!/bin/sh\necho a\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-x---"));
        edit("run.sh", "echo a", "echo b");
        assertEquals("rwxr-x---", PosixFilePermissions.toString(Files.getPosixFilePermissions(script)));
    }

    @Test
    void missingFileAndEscapingPathAreRefused() {
        assertEquals("No such file: missing.txt",
                assertThrows(ToolException.class, () -> edit("missing.txt", "a", "b")).getMessage());
        assertEquals("Path escapes workspace: ../outside.txt",
                assertThrows(ToolException.class, () -> edit("../outside.txt", "a", "b")).getMessage());
    }

    @Test
    void replacementTextIsInsertedLiterallyEvenWithRegexCharacters() throws Exception {
        Path file = file("a.txt", "value = X\n");
        edit("a.txt", "X", "$1 \\n (.*)");
        assertEquals("value = $1 \\n (.*)\n", Files.readString(file));
    }

    @Test
    void anUnreadFileIsRefusedAndKept() throws Exception {
        Path file = root.resolve("unread.txt");
        Files.writeString(file, "alpha\n");
        ToolException error = assertThrows(ToolException.class, () -> edit("unread.txt", "alpha", "beta"));
        assertEquals("unread.txt has not been read in this session. Read it with read_file first.", error.getMessage());
        assertEquals("alpha\n", Files.readString(file));
    }

    @Test
    void aFileChangedSinceItWasReadMustBeReadAgain() throws Exception {
        Path file = file("a.txt", "alpha\n");
        Files.writeString(file, "alpha changed by someone else\n");
        ToolException error = assertThrows(ToolException.class, () -> edit("a.txt", "alpha", "beta"));
        assertEquals("a.txt changed since it was last read. Read it again before changing it.", error.getMessage());
        new ReadFileTool().call(Arguments.of(Map.of("path", "a.txt")), context);
        edit("a.txt", "alpha", "beta");
        assertEquals("beta changed by someone else\n", Files.readString(file));
    }

    @Test
    void successiveEditsNeedNoReadInBetween() throws Exception {
        Path file = file("a.txt", "one two three\n");
        edit("a.txt", "one", "1");
        edit("a.txt", "two", "2");
        assertEquals("1 2 three\n", Files.readString(file));
    }

    @Test
    void aSymbolicLinkIsEditedInItsTargetWhichKeepsBeingALink() throws Exception {
        Path target = file("real.txt", "value = 1\n");
        Files.createSymbolicLink(root.resolve("link.txt"), target);
        edit("link.txt", "1", "2");
        assertTrue(Files.isSymbolicLink(root.resolve("link.txt")));
        assertEquals("value = 2\n", Files.readString(target));
    }

    @Test
    void aWriterAppendingEveryMillisecondNeverLosesALineToAnEdit() throws Exception {
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
                    edit("log.txt", header, "header " + n);
                    landed++;
                } catch (ToolException changedMeanwhile) {
                    refused++;
                }
            }
        }
        assertEquals(List.of(), appender.lost(), landed + " edit_file calls landed, " + refused + " refused");
        assertTrue(landed > 0, "no edit_file call landed");
    }

}
