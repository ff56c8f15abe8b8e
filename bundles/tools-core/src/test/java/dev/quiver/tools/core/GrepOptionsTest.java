package dev.quiver.tools.core;

import dev.quiver.workspace.ToolTestContext;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.ToolException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** grep's options beyond the pattern, its refusals, and its agreement with ripgrep. */
class GrepOptionsTest {

    @TempDir
    Path root;

    final GrepTool tool = new GrepTool();

    private void file(String path, String content) throws IOException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    private String grep(Object... keysAndValues) throws ToolException, IOException {
        Map<String, Object> arguments = new HashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            arguments.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return tool.call(Arguments.of(arguments), new ToolTestContext(root)).text();
    }

    @Test
    void fixedStringsSearchesForRegexCharactersLiterally() throws Exception {
        file("a.txt", "call(x)\ncallxx\nuse a.b\nuse axb\n");
        assertEquals("a.txt:1: call(x)", grep("pattern", "call(x)", "fixedStrings", true));
        assertEquals("a.txt:3: use a.b", grep("pattern", "a.b", "fixedStrings", true));
        assertEquals("a.txt:3: use a.b\na.txt:4: use axb", grep("pattern", "a.b"));
    }

    @Test
    void anInvalidRegexSaysWhatIsWrongAndSuggestsFixedStrings() {
        ToolException error = assertThrows(ToolException.class, () -> grep("pattern", "call(x"));
        assertTrue(error.getMessage().startsWith("Invalid regex: "), error.getMessage());
        assertTrue(error.getMessage().endsWith("To search for the text itself, set fixedStrings."), error.getMessage());
    }

    @Test
    void wordMatchesWholeWordsOnlyInAnyScript() throws Exception {
        file("a.txt", "count = 1\naccount = 2\ncounter = 3\n(count)\nzählcount\n");
        assertEquals("a.txt:1: count = 1\na.txt:4: (count)", grep("pattern", "count", "word", true));
        assertEquals("a.txt:1: count = 1\na.txt:4: (count)",
                grep("pattern", "count", "word", true, "fixedStrings", true));
        assertEquals("a.txt:4: (count)", grep("pattern", "(count)", "word", true, "fixedStrings", true));
    }

    @Test
    void ignoreCaseWorksWithFixedStrings() throws Exception {
        file("a.txt", "Hello World\nHELLO WORLD\nhello world\nhelloworld\n");
        assertEquals("a.txt:1: Hello World\na.txt:2: HELLO WORLD\na.txt:3: hello world",
                grep("pattern", "hello world", "fixedStrings", true, "ignoreCase", true));
    }

    @Test
    void ignoreCaseFoldsTheKelvinSignAndTheLongSAsRe2Does() throws Exception {
        file("a.txt", "\u212Aelvin\nlong \u017Fign\nplain\n");
        assertEquals("a.txt:1: \u212Aelvin", grep("pattern", "kelvin", "ignoreCase", true));
        assertEquals("a.txt:2: long \u017Fign", grep("pattern", "long sign", "ignoreCase", true));
    }

    @Test
    void contextLinesAreMarkedWithDashesAndGroupsSeparated() throws Exception {
        file("a.txt", IntStream.rangeClosed(1, 12).mapToObj(i -> i == 3 || i == 5 || i == 11 ? "hit " + i : "line " + i)
                .collect(Collectors.joining("\n", "", "\n")));
        assertEquals(String.join("\n",
                "a.txt-2- line 2",
                "a.txt:3: hit 3",
                "a.txt-4- line 4",
                "a.txt:5: hit 5",
                "a.txt-6- line 6",
                "--",
                "a.txt-10- line 10",
                "a.txt:11: hit 11",
                "a.txt-12- line 12"), grep("pattern", "hit", "contextBefore", 1, "contextAfter", 1));
        assertEquals(String.join("\n",
                "a.txt-1- line 1",
                "a.txt-2- line 2",
                "a.txt:3: hit 3",
                "a.txt-4- line 4",
                "a.txt:5: hit 5",
                "--",
                "a.txt-9- line 9",
                "a.txt-10- line 10",
                "a.txt:11: hit 11"), grep("pattern", "hit", "contextBefore", 2));
    }

    @Test
    void contextAfterAHitThatIsItselfAHitIsPrintedAsAHit() throws Exception {
        file("a.txt", "hit 1\nhit 2\nplain\n");
        assertEquals("a.txt:1: hit 1\na.txt:2: hit 2\na.txt-3- plain", grep("pattern", "hit", "contextAfter", 2));
    }

    @Test
    void contextOfDifferentFilesIsSeparated() throws Exception {
        file("a.txt", "x\nhit\n");
        file("b.txt", "hit\ny\n");
        assertEquals("a.txt-1- x\na.txt:2: hit\n--\nb.txt:1: hit\nb.txt-2- y",
                grep("pattern", "hit", "contextBefore", 1, "contextAfter", 1));
    }

    @Test
    void maxResultsCapsTheHitsAndSaysMoreExist() throws Exception {
        file("a.txt", "m1\nm2\nm3\nm4\n");
        assertEquals("a.txt:1: m1\na.txt:2: m2\n... more lines match than the 2 shown; narrow the pattern or include, "
                + "or raise maxResults.", grep("pattern", "m", "maxResults", 2));
        assertEquals("a.txt:1: m1\na.txt:2: m2\na.txt:3: m3\na.txt:4: m4", grep("pattern", "m", "maxResults", 4),
                "exactly as many as asked: no note");
        assertEquals("Argument 'maxResults' must be between 1 and 1000, got 1001.",
                assertThrows(ToolException.class, () -> grep("pattern", "m", "maxResults", 1001)).getMessage());
    }

    @Test
    void theCapHoldsAcrossManyFilesAndKeepsFileOrder() throws Exception {
        for (int i = 0; i < 60; i++) {
            file(String.format("f%02d.txt", i), "hit a\nhit b\nhit c\n");
        }
        String out = grep("pattern", "hit", "maxResults", 100);
        List<String> lines = List.of(out.split("\n"));
        assertEquals(101, lines.size());
        assertEquals("f00.txt:1: hit a", lines.get(0));
        assertEquals("f33.txt:1: hit a", lines.get(99));
        assertTrue(lines.get(100).startsWith("... more lines match than the 100 shown"));
    }

    @Test
    void secretFilesAreSkippedAndCountedInTheFooter() throws Exception {
        file(".env", "API_KEY=token123\n");
        file("config/prod.env", "TOKEN=token456\n");
        file(".env.example", "API_KEY=token-placeholder\n");
        file("src/App.java", "String token = read();\n");
        assertEquals(".env.example:1: API_KEY=token-placeholder\nsrc/App.java:1: String token = read();\n"
                + "[skipped 2 files that hold secrets by name]", grep("pattern", "token"));
        assertEquals("No matches. [skipped 2 files that hold secrets by name]", grep("pattern", "token4"));
    }

    @Test
    void aPatternWithALineBreakIsExplained() {
        ToolException error = assertThrows(ToolException.class, () -> grep("pattern", "a\nb"));
        assertEquals("grep matches one line at a time, so a pattern holding a line break never matches. Search for a "
                + "single line of the text.", error.getMessage());
    }

    @Test
    void lineNumbersAgreeWithReadFileForEveryKindOfLineEnd() throws Exception {
        Files.write(root.resolve("mixed.txt"), "one\r\ntwo\rthree\nfour needle\r\nfive needle".getBytes(
                StandardCharsets.UTF_8));
        assertEquals("mixed.txt:4: four needle\nmixed.txt:5: five needle", grep("pattern", "needle"));
        assertEquals("mixed.txt:4: four needle\nmixed.txt:5: five needle", grep("pattern", "needle$"));
        String read = new ReadFileTool().call(Arguments.of(Map.of("path", "mixed.txt")), new ToolTestContext(root)).text();
        assertTrue(read.contains("4: four needle\n5: five needle\n"), read);
    }

    @Test
    void candidateLinesThatDoNotMatchStillCountTowardsTheLineNumbers() throws Exception {
        // every line holds the literal "needle"; only the last matches, after every kind of line end
        Files.write(root.resolve("candidates.txt"), "needle a\r\nx\rneedle b\nneedle zz\ny\r\nneedle 42\n"
                .getBytes(StandardCharsets.UTF_8));
        assertEquals("candidates.txt:6: needle 42", grep("pattern", "needle \\d+"));
        assertEquals("candidates.txt:1: needle a\ncandidates.txt:6: needle 42", grep("pattern", "needle (a|\\d+)$"));
    }

    @Test
    void aLineAfterAsciiCandidatesIsDecodedAsItsWholeFileIs() throws Exception {
        String text = "needle plain\nneedle caf\u00e9\n";
        Files.write(root.resolve("latin.txt"), text.getBytes(StandardCharsets.ISO_8859_1));
        Files.write(root.resolve("utf8.txt"), text.getBytes(StandardCharsets.UTF_8));
        assertEquals("latin.txt:2: needle caf\u00e9\nutf8.txt:2: needle caf\u00e9", grep("pattern", "needle caf\u00e9$"));
    }

    @Test
    void aFileThatIsNotUtf8IsSearchedAsIso88591() throws Exception {
        Files.write(root.resolve("legacy.txt"), "caf\u00e9 cr\u00e8me\nplain\n".getBytes(StandardCharsets.ISO_8859_1));
        assertEquals("legacy.txt:1: caf\u00e9 cr\u00e8me", grep("pattern", "caf\u00e9", "fixedStrings", true));
        assertEquals("legacy.txt:1: caf\u00e9 cr\u00e8me", grep("pattern", "cr\u00e8me$"));
        Files.writeString(root.resolve("modern.txt"), "caf\u00e9 noir\n");
        assertEquals("legacy.txt:1: caf\u00e9 cr\u00e8me\nmodern.txt:1: caf\u00e9 noir", grep("pattern", "caf\u00e9"));
    }

    @Test
    void aBinaryFileIsSkippedEvenWhenTheNeedleComesFirst() throws Exception {
        byte[] bytes = new byte[20_000];
        Arrays.fill(bytes, (byte) 'a');
        System.arraycopy("needle".getBytes(StandardCharsets.US_ASCII), 0, bytes, 0, 6);
        bytes[8000] = 0;
        Files.write(root.resolve("blob.dat"), bytes);
        bytes[8000] = 'a';
        bytes[9000] = 0; // past the 8 KB probe: text, as read_file would judge it
        Files.write(root.resolve("late-nul.dat"), bytes);
        String out = grep("pattern", "needle");
        assertTrue(out.startsWith("late-nul.dat:1: needle"), out);
        assertFalse(out.contains("blob.dat"), out);
    }

    @Test
    void linksOutOfTheWorkspaceAreNotFollowed(@TempDir Path outside) throws Exception {
        Files.writeString(outside.resolve("passwd"), "root:needle\n");
        Files.createSymbolicLink(root.resolve("passwd-link"), outside.resolve("passwd"));
        Files.createSymbolicLink(root.resolve("outside"), outside);
        file("inside.txt", "needle inside\n");
        assertEquals("inside.txt:1: needle inside", grep("pattern", "needle"));
    }

    @Test
    void aLinkToASecretIsNotReadUnderItsOtherName() throws Exception {
        file(".env", "PASSWORD=needle\n");
        Files.createSymbolicLink(root.resolve("notes.txt"), root.resolve(".env"));
        assertEquals("No matches. [skipped 1 file that holds secrets by name]", grep("pattern", "needle"));
    }

    @Test
    void veryLongLinesAndHugeFilesAreSearched() throws Exception {
        String longLine = "x".repeat(5_000_000) + " needle";
        file("huge.txt", "start\n" + longLine + "\nend needle\n");
        String out = grep("pattern", "needle");
        assertEquals("huge.txt:2: " + "x".repeat(300) + "...\nhuge.txt:3: end needle", out);
    }

    @Test
    void regexAlternativesAreEachFound() throws Exception {
        file("a.txt", "alpha\nbeta\ngamma\ndelta\n");
        assertEquals("a.txt:1: alpha\na.txt:3: gamma", grep("pattern", "alpha|gam+a"));
        assertEquals("a.txt:2: beta\na.txt:4: delta", grep("pattern", "(?i)BETA|DELTA"));
    }

    @Test
    void hitsAgreeWithRipgrepOnARepositoryWithNestedIgnores() throws Exception {
        RepositoryFixture.build(root);
        List<Object[]> cases = List.of(
                new Object[] {"needle", false, false, false},
                new Object[] {"Needle", false, true, false},
                new Object[] {"TODO(later)", true, false, false},
                new Object[] {"x := \\d+;$", false, false, false},
                new Object[] {"^tail", false, false, false},
                new Object[] {"needle|plain", false, false, false},
                new Object[] {"[A-Z]\\w+ again", false, false, false},
                new Object[] {"gr\u00fc\u00dfe|na\u00efve", false, false, false},
                new Object[] {"needle", false, false, true},
                new Object[] {"in", false, true, true});
        for (Object[] c : cases) {
            String pattern = (String) c[0];
            boolean fixed = (Boolean) c[1];
            boolean ignoreCase = (Boolean) c[2];
            boolean word = (Boolean) c[3];
            List<String> rgArgs = new java.util.ArrayList<>(List.of("-n", "--no-heading", "--crlf"));
            if (fixed) {
                rgArgs.add("-F");
            }
            if (ignoreCase) {
                rgArgs.add("-i");
            }
            if (word) {
                rgArgs.add("-w");
            }
            rgArgs.add("-e");
            rgArgs.add(pattern);
            Set<String> expected = pathAndLine(Processes.rg(root, rgArgs.toArray(String[]::new)), ":");
            String ours = grep("pattern", pattern, "fixedStrings", fixed, "ignoreCase", ignoreCase, "word", word,
                    "maxResults", 1000);
            assertEquals(expected, ours.equals("No matches.") ? Set.of() : pathAndLine(ours, ":"),
                    "pattern " + pattern + " fixed=" + fixed + " ignoreCase=" + ignoreCase + " word=" + word);
        }
    }

    @Test
    void includeGlobsAgreeWithRipgrepGlobs() throws Exception {
        RepositoryFixture.build(root);
        // ripgrep's -g overrides its ignore rules, so its hits are taken among the files it keeps
        Set<String> kept = new TreeSet<>(List.of(Processes.rg(root, "--files").split("\n")));
        for (String include : List.of("*.txt", "src/**", "docs/**/*.md", "*.{md,java}")) {
            Set<String> expected = pathAndLine(Processes.rg(root, "-n", "--no-heading", "-g", include, "needle"), ":");
            expected.removeIf(hit -> !kept.contains(hit.substring(0, hit.lastIndexOf(':'))));
            assertFalse(expected.isEmpty(), include);
            assertEquals(expected, pathAndLine(grep("pattern", "needle", "include", include, "maxResults", 1000), ":"),
                    include);
        }
    }

    /** {@code path:line} of every hit line, for comparing hit sets whatever the text after them. */
    private static Set<String> pathAndLine(String output, String separator) {
        Set<String> hits = new TreeSet<>();
        for (String line : output.split("\n")) {
            if (line.isEmpty() || line.startsWith("...") || line.startsWith("[")) {
                continue;
            }
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("^(.*?)" + separator + "(\\d+)" + separator)
                    .matcher(line);
            assertTrue(m.find(), line);
            hits.add(m.group(1) + ":" + m.group(2));
        }
        return hits;
    }

    @Test
    void anIncludeMatchingNoFileSaysSoAndHowToNameAFolder() throws Exception {
        file("src/a/B.java", "needle\n");
        assertEquals("No matches. [include src matched no file; src is a folder, whose files src/** matches]",
                grep("pattern", "needle", "include", "src"));
        assertEquals("No matches. [include *.rs matched no file]", grep("pattern", "needle", "include", "*.rs"));
        assertEquals("src/a/B.java:1: needle", grep("pattern", "needle", "include", "src/**"));
    }

    @Test
    void aFileOverTheSizeLimitIsSkippedAndCounted() throws Exception {
        byte[] line = "needle in a very large file\n".getBytes(StandardCharsets.US_ASCII);
        try (var out = Files.newOutputStream(root.resolve("huge.log"))) {
            for (long written = 0; written <= Search.MAX_FILE_BYTES; written += line.length) {
                out.write(line);
            }
        }
        file("small.txt", "needle\n");
        assertEquals("small.txt:1: needle\n[skipped 1 file over 64 MB; search such files with bash]",
                grep("pattern", "needle"));
    }
}
