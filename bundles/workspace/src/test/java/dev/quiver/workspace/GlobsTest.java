package dev.quiver.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.ToolException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GlobsTest {

    private static void assertMatches(String glob, String... paths) throws ToolException {
        Predicate<String> matcher = Globs.matcher(glob);
        for (String path : paths) {
            assertTrue(matcher.test(path), () -> glob + " should match " + path);
        }
    }

    private static void assertNoMatch(String glob, String... paths) throws ToolException {
        Predicate<String> matcher = Globs.matcher(glob);
        for (String path : paths) {
            assertFalse(matcher.test(path), () -> glob + " should not match " + path);
        }
    }

    @Test
    void doubleStarSlashMatchesTopLevelAndNestedFiles() throws ToolException {
        assertMatches("**/*.java", "App.java", "src/App.java", "src/main/java/dev/App.java");
        assertNoMatch("**/*.java", "App.javax", "App.java.txt", "src/App.kt");
    }

    @Test
    void patternWithoutSlashMatchesTheFileNameAtAnyDepth() throws ToolException {
        assertMatches("*.md", "README.md", "docs/guide.md", "docs/a/b/c/notes.md");
        assertNoMatch("*.md", "README.mdx", "docs.md/file.txt", "md");
    }

    @Test
    void patternWithASlashMatchesOnlyDirectChildrenOfThatDirectory() throws ToolException {
        assertMatches("src/*.ts", "src/a.ts", "src/index.ts");
        assertNoMatch("src/*.ts", "src/lib/a.ts", "other/src/a.ts", "a.ts", "src/a.tsx");
    }

    @Test
    void singleStarAndQuestionMarkStayWithinOneSegment() throws ToolException {
        assertMatches("src/*", "src/a", "src/b.txt");
        assertNoMatch("src/*", "src/a/b");
        assertMatches("a?c.txt", "abc.txt", "dir/axc.txt");
        assertNoMatch("a?c.txt", "a/c.txt", "ac.txt", "abbc.txt");
    }

    @Test
    void doubleStarInTheMiddleSpansDirectories() throws ToolException {
        assertMatches("src/**/test/*.java", "src/test/A.java", "src/a/b/test/A.java");
        assertNoMatch("src/**/test/*.java", "lib/src/test/A.java", "src/test/x/A.java");
    }

    @Test
    void characterClassesMatchOneCharacter() throws ToolException {
        assertMatches("file[0-9].txt", "file1.txt", "d/file7.txt");
        assertNoMatch("file[0-9].txt", "filea.txt", "file10.txt");
    }

    @Test
    void braceAlternativesMatchAnyOfThem() throws ToolException {
        assertMatches("*.{ts,tsx}", "a.ts", "web/b.tsx");
        assertNoMatch("*.{ts,tsx}", "a.js", "a.t", "a.{ts,tsx}");
        assertMatches("src/{main,test}/**/*.java", "src/main/A.java", "src/test/x/B.java");
        assertNoMatch("src/{main,test}/**/*.java", "src/it/A.java");
    }

    @Test
    void nestedAndRepeatedBracesExpandToEveryCombination() throws ToolException {
        assertEquals(new TreeSet<>(Set.of("a.txt", "b.txt", "c.txt")),
                new TreeSet<>(Globs.expandBraces("{a,{b,c}}.txt", "{a,{b,c}}.txt")));
        assertEquals(new TreeSet<>(Set.of("x1a", "x1b", "x2a", "x2b")),
                new TreeSet<>(Globs.expandBraces("x{1,2}{a,b}", "x{1,2}{a,b}")));
        assertEquals(List.of("plain/*.txt"), Globs.expandBraces("plain/*.txt", "plain/*.txt"));
        assertMatches("{lib,src}/*.{c,h}", "lib/x.c", "src/y.h");
        assertNoMatch("{lib,src}/*.{c,h}", "lib/x.cpp", "bin/x.c");
    }

    @Test
    void emptyAlternativeMatchesTheBarePattern() throws ToolException {
        assertMatches("Makefile{,.am}", "Makefile", "sub/Makefile.am");
        assertNoMatch("Makefile{,.am}", "Makefile.in");
    }

    @Test
    void unclosedBraceIsAnError() {
        ToolException error = assertThrows(ToolException.class, () -> Globs.matcher("src/{a,b"));
        assertEquals("Glob 'src/{a,b' has an unclosed '{'.", error.getMessage());
    }

    @Test
    void globExpandingToTooManyAlternativesIsRefused() {
        String glob = "{a,b}".repeat(9); // 512 alternatives
        ToolException error = assertThrows(ToolException.class, () -> Globs.matcher(glob));
        assertTrue(error.getMessage().contains("more than 256 alternatives"), error.getMessage());
    }

    @Test
    void emptyAndNegatedGlobsAreRefused() {
        assertThrows(ToolException.class, () -> Globs.matcher(""));
        assertThrows(ToolException.class, () -> Globs.matcher("   "));
        ToolException negated = assertThrows(ToolException.class, () -> Globs.matcher("!*.java"));
        assertTrue(negated.getMessage().contains("negated"), negated.getMessage());
    }

    @Test
    void leadingDotSlashIsTheSameAsNone() throws ToolException {
        assertMatches("./src/*.ts", "src/a.ts");
        assertNoMatch("./src/*.ts", "src/x/a.ts", "lib/src/a.ts");
    }

    @Test
    void workspaceGlobMatcherUsesTheSameSemantics(@TempDir Path dir) throws Exception {
        Predicate<String> matcher = JailedWorkspace.open(dir).globMatcher("**/*.{java,kt}");
        assertTrue(matcher.test("A.java"));
        assertTrue(matcher.test("x/y/B.kt"));
        assertFalse(matcher.test("x/y/B.scala"));
    }
}
