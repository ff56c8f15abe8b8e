package dev.quiver.tools.core;

import dev.quiver.workspace.ToolTestContext;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.ToolException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GlobToolTest {

    @TempDir
    Path root;

    final GlobTool tool = new GlobTool();

    private void files(String... paths) throws IOException {
        for (String path : paths) {
            Path file = root.resolve(path);
            Files.createDirectories(file.getParent());
            Files.writeString(file, path + "\n");
        }
    }

    private String glob(Map<String, ?> arguments) throws ToolException, IOException {
        return tool.call(Arguments.of(arguments), new ToolTestContext(root)).text();
    }

    @Test
    void aWorkspaceItsRepositoryIgnoresListsOnlyTrackedFilesAndGlobAndGrepSaySo() throws Exception {
        files("scratch/ws/notes.txt");
        Files.writeString(root.resolve(".gitignore"), "scratch/\n");
        Process init = new ProcessBuilder("git", "init", "-q").directory(root.toFile()).start();
        assertEquals(0, init.waitFor());
        ToolTestContext context = new ToolTestContext(root.resolve("scratch/ws"));
        String hint = "the workspace folder itself is ignored by the git repository it lies in, so only its tracked "
                + "files are listed: includeIgnored: true lists the rest";

        assertEquals("No files match *.txt (ignored files excluded); " + hint + ".",
                tool.call(Arguments.of(Map.of("pattern", "*.txt")), context).text());
        assertEquals("notes.txt", tool.call(Arguments.of(Map.of("pattern", "*.txt", "includeIgnored", true)), context).text());
        assertEquals("No matches. [" + hint + "]",
                new GrepTool().call(Arguments.of(Map.of("pattern", "notes")), context).text());
    }

    @Test
    void matchingFilesAreListedAsRelativePathsInWalkOrder() throws Exception {
        files("src/b/B.java", "src/A.java", "App.java", "README.md", "src/a.kt");
        assertEquals("App.java\nsrc/A.java\nsrc/b/B.java", glob(Map.of("pattern", "**/*.java")));
    }

    @Test
    void limitCutsTheListAndSaysHowManyMoreMatched() throws Exception {
        files("a1.txt", "a2.txt", "a3.txt", "d/a4.txt", "d/a5.txt");
        assertEquals("a1.txt\na2.txt\n... 3 more of 5 matching files; narrow the pattern or raise limit.",
                glob(Map.of("pattern", "*.txt", "limit", 2)));
        assertEquals("a1.txt\na2.txt\na3.txt\nd/a4.txt\nd/a5.txt", glob(Map.of("pattern", "*.txt", "limit", 5)));
    }

    @Test
    void withoutALimitTwoHundredPathsAreListed() throws Exception {
        for (int i = 0; i < 205; i++) {
            files(String.format("f%03d.txt", i));
        }
        String[] lines = glob(Map.of("pattern", "*.txt")).split("\n");
        assertEquals(201, lines.length);
        assertEquals("f199.txt", lines[199]);
        assertEquals("... 5 more of 205 matching files; narrow the pattern or raise limit.", lines[200]);
    }

    @Test
    void ignoredFilesAreExcludedUnlessAskedFor() throws Exception {
        files(".gitignore", "src/App.java", "build/Gen.java", "src/Old.java");
        Files.writeString(root.resolve(".gitignore"), "build/\nOld.java\n");
        assertEquals("src/App.java", glob(Map.of("pattern", "**/*.java")));
        assertEquals("build/Gen.java\nsrc/App.java\nsrc/Old.java",
                glob(Map.of("pattern", "**/*.java", "includeIgnored", true)));
    }

    @Test
    void noMatchSaysSoAndWhetherIgnoredFilesWereLeftOut() throws Exception {
        files("a.txt");
        assertEquals("No files match *.rs (ignored files excluded).", glob(Map.of("pattern", "*.rs")));
        assertEquals("No files match *.rs.", glob(Map.of("pattern", "*.rs", "includeIgnored", true)));
    }

    @Test
    void onlyFilesAreListedNotDirectories() throws Exception {
        files("docs/guide/intro.md");
        assertEquals("docs/guide/intro.md", glob(Map.of("pattern", "docs/**")));
    }

    @Test
    void braceAlternativesWork() throws Exception {
        files("web/a.ts", "web/b.tsx", "web/c.js");
        assertEquals("web/a.ts\nweb/b.tsx", glob(Map.of("pattern", "web/*.{ts,tsx}")));
    }

    @Test
    void malformedGlobIsReported() {
        ToolException error = assertThrows(ToolException.class, () -> glob(Map.of("pattern", "src/{a,b")));
        assertEquals("Glob 'src/{a,b' has an unclosed '{'.", error.getMessage());
    }

    @Test
    void cancelledCallStopsWalking() throws Exception {
        files("a.txt", "b.txt");
        ToolTestContext context = new ToolTestContext(root);
        context.cancelled.set(true);
        Map<String, Object> arguments = new HashMap<>();
        arguments.put("pattern", "*.txt");
        assertEquals("No files match *.txt (ignored files excluded).", tool.call(Arguments.of(arguments), context).text());
    }

    private static java.util.Set<String> lines(String text) {
        return java.util.Arrays.stream(text.split("\n")).filter(l -> !l.isEmpty())
                .collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new));
    }

    @Test
    void everyFileAgreesWithGitLsFilesOnARepositoryWithNestedIgnores() throws Exception {
        RepositoryFixture.build(root);
        java.util.Set<String> git = lines(Processes.git(root, "ls-files", "--cached", "--others", "--exclude-standard"));
        assertEquals(git, lines(glob(Map.of("pattern", "**", "limit", 10_000))));
        assertEquals(git, lines(glob(Map.of("pattern", "*", "limit", 10_000))), "a name glob matches at any depth");
        assertEquals(git, lines(Processes.rg(root, "--files")), "and ripgrep agrees with both");
    }

    @Test
    void patternsAgreeWithRipgrepGlobsOnTheSameRepository() throws Exception {
        RepositoryFixture.build(root);
        // ripgrep's -g overrides its ignore rules, so its matches are taken among the files it keeps
        java.util.Set<String> kept = lines(Processes.rg(root, "--files"));
        for (String pattern : java.util.List.of("*.txt", "**/*.java", "src/**", "docs/*.md", "docs/**/*.md",
                "src/*/*.txt", "**/a/**", "*.{md,java}", "sub/*", "deep/**/f.txt", "[a-k]*.txt", "?ib/**")) {
            java.util.Set<String> expected = lines(Processes.rg(root, "--files", "-g", pattern));
            expected.retainAll(kept);
            assertTrue(!expected.isEmpty() || pattern.equals("?ib/**"), pattern + " is meant to match something");
            String ours = glob(Map.of("pattern", pattern, "limit", 10_000));
            assertEquals(expected, ours.startsWith("No files match") ? java.util.Set.of() : lines(ours), pattern);
        }
    }

    @Test
    void aFileAddedAfterAGlobIsFoundByTheNextOne() throws Exception {
        files("a/one.txt");
        ToolTestContext context = new ToolTestContext(root);
        assertEquals("a/one.txt", tool.call(Arguments.of(Map.of("pattern", "*.txt")), context).text());
        files("a/two.txt", "b/three.txt");
        assertEquals("a/one.txt\na/two.txt\nb/three.txt",
                tool.call(Arguments.of(Map.of("pattern", "*.txt")), context).text());
        Files.delete(root.resolve("a/one.txt"));
        assertEquals("a/two.txt\nb/three.txt", tool.call(Arguments.of(Map.of("pattern", "*.txt")), context).text());
    }

    @Test
    void linksToFilesInsideAreListedAndLinksLeadingOutsideAreNot(@TempDir Path outside) throws Exception {
        files("real.txt");
        Files.writeString(outside.resolve("secret.txt"), "x");
        Files.createSymbolicLink(root.resolve("inside-link.txt"), root.resolve("real.txt"));
        Files.createSymbolicLink(root.resolve("outside-link.txt"), outside.resolve("secret.txt"));
        Files.createSymbolicLink(root.resolve("outside-dir"), outside);
        assertEquals("inside-link.txt\nreal.txt", glob(Map.of("pattern", "**")));
    }

    @Test
    void limitIsCheckedAndAnEmptyPatternExplained() {
        assertEquals("Argument 'limit' must be between 1 and 10000, got 0.",
                assertThrows(ToolException.class, () -> glob(Map.of("pattern", "*", "limit", 0))).getMessage());
        assertEquals("Glob is empty. Give a pattern such as **/*.java or src/*.ts.",
                assertThrows(ToolException.class, () -> glob(Map.of("pattern", " "))).getMessage());
    }

    @Test
    void aPatternNamingAFolderGetsAHint() throws Exception {
        files("src/a/B.java");
        assertEquals("No files match src/ (ignored files excluded); src is a folder, whose files src/** matches.",
                glob(Map.of("pattern", "src/")));
        assertEquals("src/a/B.java", glob(Map.of("pattern", "src/**")));
    }

    @Test
    void aStaleTemporaryAKilledProcessLeftIsNeverListed() throws Exception {
        files("src/.x.0123456789abcdef.quiver-tmp", "src/.x", "tmp/.y.7.quiver-tmp/inner.txt");
        assertEquals("src/.x", glob(Map.of("pattern", "**/.*")));
        for (String pattern : java.util.List.of("**/*.quiver-tmp", "**/*quiver-tmp*", "src/.x.*", "**/inner.txt", "tmp/**")) {
            String out = glob(Map.of("pattern", pattern));
            assertTrue(out.startsWith("No files match " + pattern + " "), pattern + ": " + out);
        }
    }
}
