package dev.quiver.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Workspace.Entry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkspaceWalkTest {

    @TempDir
    Path root;

    private void write(String relative, String content) throws IOException {
        Path file = root.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    private void files(String... relatives) throws IOException {
        for (String relative : relatives) {
            write(relative, "content of " + relative + "\n");
        }
    }

    private static List<Entry> entries(JailedWorkspace workspace, boolean includeIgnored) throws IOException {
        List<Entry> entries = new ArrayList<>();
        workspace.walk(workspace.root(), includeIgnored, Integer.MAX_VALUE, entries::add);
        return entries;
    }

    private static Set<String> filePaths(JailedWorkspace workspace, Path start, boolean includeIgnored) throws IOException {
        Set<String> paths = new TreeSet<>();
        workspace.walk(start, includeIgnored, Integer.MAX_VALUE, entry -> {
            if (entry.kind() == Entry.Kind.FILE) {
                paths.add(entry.relativePath());
            }
            return true;
        });
        return paths;
    }

    private Set<String> walkedFiles() throws IOException {
        JailedWorkspace workspace = JailedWorkspace.open(root);
        return filePaths(workspace, workspace.root(), false);
    }

    @Test
    void nestedGitignoreAppliesOnlyWithinItsOwnDirectory() throws IOException {
        files("secret.txt", "sub/secret.txt", "sub/inner/secret.txt", "other/secret.txt", "sub/kept.txt");
        write("sub/.gitignore", "secret.txt\n");
        Set<String> walked = walkedFiles();
        assertTrue(walked.contains("secret.txt"), walked::toString);
        assertTrue(walked.contains("other/secret.txt"), walked::toString);
        assertTrue(walked.contains("sub/kept.txt"), walked::toString);
        assertFalse(walked.contains("sub/secret.txt"), walked::toString);
        assertFalse(walked.contains("sub/inner/secret.txt"), walked::toString);
    }

    @Test
    void deeperGitignoreOverridesAShallowerOne() throws IOException {
        files("a.log", "sub/a.log", "sub/important.log");
        write(".gitignore", "*.log\n");
        write("sub/.gitignore", "!important.log\n");
        Set<String> walked = walkedFiles();
        assertEquals(Set.of(".gitignore", "sub/.gitignore", "sub/important.log"), walked);
    }

    @Test
    void negationReincludesAFileTheLastMatchingLineWins() throws IOException {
        files("debug.log", "keep.log", "nested/keep.log", "nested/trace.log", "readme.txt");
        write(".gitignore", "*.log\n!keep.log\n");
        assertEquals(Set.of(".gitignore", "keep.log", "nested/keep.log", "readme.txt"), walkedFiles());
    }

    @Test
    void laterLineInTheSameFileWinsOverAnEarlierNegation() throws IOException {
        files("keep.log");
        write(".gitignore", "!keep.log\n*.log\n");
        assertEquals(Set.of(".gitignore"), walkedFiles());
    }

    @Test
    void directoryOnlyPatternIgnoresDirectoriesButNotFilesOfThatName() throws IOException {
        files("build/out.class", "sub/build/deep/out.class", "docs/build", "src/Main.java");
        write(".gitignore", "build/\n");
        assertEquals(Set.of(".gitignore", "docs/build", "src/Main.java"), walkedFiles());
    }

    @Test
    void fileInsideAnIgnoredDirectoryCannotBeReincluded() throws IOException {
        files("build/keep.txt", "build/other.txt");
        write(".gitignore", "build/\n!build/keep.txt\n");
        assertEquals(Set.of(".gitignore"), walkedFiles());
    }

    @Test
    void anchoredPatternMatchesOnlyAtItsOwnLevel() throws IOException {
        files("root-only.txt", "sub/root-only.txt", "sub/deeper/only-here.txt", "sub/only-here.txt");
        write(".gitignore", "/root-only.txt\n");
        write("sub/.gitignore", "/only-here.txt\n");
        assertEquals(Set.of(".gitignore", "sub/.gitignore", "sub/root-only.txt", "sub/deeper/only-here.txt"),
                walkedFiles());
    }

    @Test
    void patternWithAMiddleSlashIsAnchoredToItsDirectory() throws IOException {
        files("src/gen.txt", "lib/src/gen.txt");
        write(".gitignore", "src/gen.txt\n");
        assertEquals(Set.of(".gitignore", "lib/src/gen.txt"), walkedFiles());
    }

    @Test
    void doubleStarMatchesAnyNumberOfDirectories() throws IOException {
        files("a/z.txt", "a/b/z.txt", "a/b/c/z.txt", "a/b/c/y.txt", "z.txt", "x/cache/data.bin", "x/y/cache/data.bin",
                "cache.txt");
        write(".gitignore", "a/**/z.txt\n**/cache/\n");
        assertEquals(Set.of(".gitignore", "a/b/c/y.txt", "z.txt", "cache.txt"), walkedFiles());
    }

    @Test
    void gitInfoExcludeIsHonoured() throws IOException, InterruptedException {
        Git.run(root, "init", "-q");
        files("excluded.txt", "sub/excluded.txt", "included.txt");
        Files.writeString(root.resolve(".git/info/exclude"), "# local excludes\nexcluded.txt\n");
        assertEquals(Set.of("included.txt"), walkedFiles());
    }

    @Test
    void gitignoreNegationWinsOverInfoExclude() throws IOException, InterruptedException {
        Git.run(root, "init", "-q");
        files("wanted.txt", "unwanted.txt");
        Files.writeString(root.resolve(".git/info/exclude"), "*.txt\n");
        write(".gitignore", "!wanted.txt\n");
        assertEquals(Set.of(".gitignore", "wanted.txt"), walkedFiles());
    }

    @Test
    void quiverignoreIgnoresWhatGitignoreDoesNot() throws IOException {
        files("notes.md", "private/diary.md", "src/Main.java");
        write(".quiverignore", "private/\n*.md\n");
        assertEquals(Set.of(".quiverignore", "src/Main.java"), walkedFiles());
    }

    @Test
    void quiverignoreWinsOverGitignoreInTheSameFolder() throws IOException {
        files("notes.txt", "other.txt", "generated.json");
        write(".gitignore", "*.txt\n");
        write(".quiverignore", "!notes.txt\ngenerated.json\n");
        assertEquals(Set.of(".gitignore", ".quiverignore", "notes.txt"), walkedFiles());
    }

    @Test
    void dotGitIsNeverWalkedEvenWithIgnoredIncluded() throws IOException, InterruptedException {
        Git.run(root, "init", "-q");
        files("a.txt");
        JailedWorkspace workspace = JailedWorkspace.open(root);
        List<String> all = entries(workspace, true).stream().map(Entry::relativePath).toList();
        assertEquals(List.of("a.txt"), all);
        assertTrue(workspace.isIgnored(root.toRealPath().resolve(".git/config")));
        assertTrue(workspace.isIgnored(root.toRealPath().resolve(".git")));
    }

    @Test
    void symlinkedDirectoryIsListedButNotDescended() throws IOException {
        files("real/inside.txt");
        Files.createSymbolicLink(root.resolve("linked"), root.resolve("real"));
        Files.createSymbolicLink(root.resolve("file-link.txt"), root.resolve("real/inside.txt"));
        Files.createSymbolicLink(root.resolve("broken"), root.resolve("nowhere"));
        JailedWorkspace workspace = JailedWorkspace.open(root);
        Map<String, Entry.Kind> kinds = new TreeMap<>();
        for (Entry entry : entries(workspace, false)) {
            kinds.put(entry.relativePath(), entry.kind());
        }
        assertEquals(Map.of(
                "broken", Entry.Kind.OTHER,
                "file-link.txt", Entry.Kind.FILE,
                "linked", Entry.Kind.LINKED_DIRECTORY,
                "real", Entry.Kind.DIRECTORY,
                "real/inside.txt", Entry.Kind.FILE), kinds);
    }

    @Test
    void walkIsDepthFirstInNameOrderWithDirectoriesBeforeTheirContents() throws IOException {
        files("b/2.txt", "b/1.txt", "a.txt", "c.txt", "b/sub/x.txt");
        JailedWorkspace workspace = JailedWorkspace.open(root);
        List<String> order = entries(workspace, false).stream().map(Entry::relativePath).toList();
        assertEquals(List.of("a.txt", "b", "b/1.txt", "b/2.txt", "b/sub", "b/sub/x.txt", "c.txt"), order);
    }

    @Test
    void entriesCarryDepthAndFileSize() throws IOException {
        write("top.txt", "12345");
        write("dir/nested.txt", "1234567890");
        JailedWorkspace workspace = JailedWorkspace.open(root);
        Map<String, Entry> byPath = entries(workspace, false).stream()
                .collect(Collectors.toMap(Entry::relativePath, e -> e));
        assertEquals(1, byPath.get("top.txt").depth());
        assertEquals(5, byPath.get("top.txt").size());
        assertEquals(1, byPath.get("dir").depth());
        assertEquals(0, byPath.get("dir").size());
        assertEquals(2, byPath.get("dir/nested.txt").depth());
        assertEquals(10, byPath.get("dir/nested.txt").size());
        assertEquals(workspace.root().resolve("dir/nested.txt"), byPath.get("dir/nested.txt").path());
    }

    @Test
    void maxDepthOneListsOnlyTheDirectorysOwnEntries() throws IOException {
        files("a.txt", "dir/b.txt", "dir/deeper/c.txt");
        JailedWorkspace workspace = JailedWorkspace.open(root);
        List<String> listed = new ArrayList<>();
        workspace.walk(workspace.root(), false, 1, e -> listed.add(e.relativePath()));
        assertEquals(List.of("a.txt", "dir"), listed);
        listed.clear();
        workspace.walk(workspace.root().resolve("dir"), false, 1, e -> listed.add(e.relativePath()));
        assertEquals(List.of("dir/b.txt", "dir/deeper"), listed);
    }

    @Test
    void visitorReturningFalseStopsTheWalk() throws IOException {
        files("a.txt", "b/c.txt", "d.txt");
        JailedWorkspace workspace = JailedWorkspace.open(root);
        List<String> seen = new ArrayList<>();
        workspace.walk(workspace.root(), false, Integer.MAX_VALUE, e -> {
            seen.add(e.relativePath());
            return !e.relativePath().equals("b/c.txt");
        });
        assertEquals(List.of("a.txt", "b", "b/c.txt"), seen);
    }

    @Test
    void includeIgnoredListsIgnoredFilesAndDirectories() throws IOException {
        files("app.log", "build/out.class", "src/A.java");
        write(".gitignore", "*.log\nbuild/\n");
        JailedWorkspace workspace = JailedWorkspace.open(root);
        assertEquals(Set.of(".gitignore", "app.log", "build/out.class", "src/A.java"),
                filePaths(workspace, workspace.root(), true));
        assertEquals(Set.of(".gitignore", "src/A.java"), filePaths(workspace, workspace.root(), false));
    }

    @Test
    void isIgnoredAnswersForFilesInsideIgnoredDirectories() throws IOException {
        files("build/deep/out.class", "src/A.java", "src/A.log");
        write(".gitignore", "build/\n*.log\n");
        JailedWorkspace workspace = JailedWorkspace.open(root);
        Path real = workspace.root();
        assertTrue(workspace.isIgnored(real.resolve("build")));
        assertTrue(workspace.isIgnored(real.resolve("build/deep/out.class")));
        assertTrue(workspace.isIgnored(real.resolve("src/A.log")));
        assertFalse(workspace.isIgnored(real.resolve("src/A.java")));
        assertFalse(workspace.isIgnored(real.resolve("src")));
        assertFalse(workspace.isIgnored(real));
    }

    @Test
    void workspaceInsideARepositoryHonoursIgnoreFilesAboveIt() throws IOException, InterruptedException {
        Git.run(root, "init", "-q");
        files("module/a.tmp", "module/a.txt", "module/from-exclude.txt", "module/pkg/b.tmp");
        write(".gitignore", "*.tmp\n");
        Files.writeString(root.resolve(".git/info/exclude"), "module/from-exclude.txt\n");
        JailedWorkspace workspace = JailedWorkspace.open(root.resolve("module"));
        assertEquals(Set.of("a.txt"), filePaths(workspace, workspace.root(), false));
    }

    @Test
    void walkedFilesEqualWhatGitListsForARepositoryWithNestedIgnoreFiles() throws IOException, InterruptedException {
        Git.run(root, "init", "-q");
        buildRepositoryWithNestedIgnores();
        // a few files tracked, the rest untracked: both kinds are listed by git and by the walker
        Git.run(root, "add", "README.md", "src/main/java/App.java", "docs/guide.md");
        Set<String> expected = gitListedFiles(root);
        assertTrue(expected.size() > 10, () -> "the tree is meant to keep a fair number of files: " + expected);
        assertEquals(expected, walkedFiles());
    }

    @Test
    void trackedFilesAreListedWhereIgnoreRulesMatchThemAsGitListsThem() throws IOException, InterruptedException {
        Git.run(root, "init", "-q");
        buildRepositoryWithNestedIgnores();
        files("build/classes/Other.class", "lib/build/y.o");
        Git.run(root, "add", "README.md", "src/main/java/App.java");
        // git ignores untracked files only: these are tracked although the rules match them
        Git.run(root, "add", "-f", "app.log", "build/classes/App.class", "src/local/thing.txt",
                "src/main/secret-key.txt", "docs/a/b/draft-two.md");
        Set<String> expected = gitListedFiles(root);
        assertTrue(expected.containsAll(Set.of("app.log", "build/classes/App.class", "src/local/thing.txt")), expected::toString);
        assertFalse(expected.contains("build/classes/Other.class"), "an ignored folder shows only what it tracks");
        JailedWorkspace workspace = JailedWorkspace.open(root);
        assertEquals(expected, filePaths(workspace, workspace.root(), false));
        assertEquals(expected, new TreeSet<>(workspace.files(workspace.root(), false)));
        assertEquals(new TreeSet<>(gitListedFiles(root.resolve("src"))),
                new TreeSet<>(JailedWorkspace.open(root.resolve("src")).files(root.resolve("src"), false)),
                "the same from a workspace below the repository's top");

        assertFalse(workspace.isIgnored(root.resolve("app.log")));
        assertFalse(workspace.isIgnored(root.resolve("build")), "it holds a tracked file");
        assertFalse(workspace.isIgnored(root.resolve("build/classes/App.class")));
        assertTrue(workspace.isIgnored(root.resolve("build/classes/Other.class")));
        assertTrue(workspace.isIgnored(root.resolve("lib/build")));
        assertTrue(workspace.isIgnored(root.resolve("debug.log")));
    }

    @Test
    void walkedFilesOfASubfolderEqualWhatGitListsThere() throws IOException, InterruptedException {
        Git.run(root, "init", "-q");
        buildRepositoryWithNestedIgnores();
        Path sub = root.resolve("src");
        Set<String> expected = gitListedFiles(sub);
        JailedWorkspace workspace = JailedWorkspace.open(sub);
        assertFalse(expected.isEmpty());
        assertEquals(expected, filePaths(workspace, workspace.root(), false));
    }

    private static Set<String> gitListedFiles(Path directory) throws IOException, InterruptedException {
        String listed = Git.run(directory, "ls-files", "-z", "--cached", "--others", "--exclude-standard");
        return Arrays.stream(listed.split("\0")).filter(s -> !s.isEmpty())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private void buildRepositoryWithNestedIgnores() throws IOException {
        write(".gitignore", String.join("\n",
                "# build output",
                "*.log",
                "!keep.log",
                "build/",
                "/root-only.txt",
                "**/cache/",
                "docs/**/draft-*.md",
                "src/generated.txt",
                "*.tmp",
                "!important.tmp",
                "") );
        write("src/.gitignore", String.join("\n",
                "!debug.log",
                "local/",
                "/anchored.txt",
                "*.bak",
                ""));
        write("src/main/.gitignore", String.join("\n",
                "!*.bak",
                "secret-*",
                ""));
        Files.writeString(root.resolve(".git/info/exclude"), "personal.txt\n");
        files(
                "README.md",
                "app.log", "keep.log", "debug.log",
                "root-only.txt", "nested/root-only.txt",
                "build/classes/App.class", "lib/build/x.o", "lib/build.txt",
                "cache/blob", "lib/cache/blob", "lib/cache.txt",
                "docs/guide.md", "docs/draft-one.md", "docs/a/b/draft-two.md", "docs/a/final.md",
                "src/generated.txt", "lib/src/generated.txt",
                "x.tmp", "important.tmp", "sub/important.tmp", "sub/y.tmp",
                "src/debug.log", "src/other.log", "src/local/thing.txt", "src/anchored.txt",
                "src/main/anchored.txt", "src/a.bak", "src/main/b.bak", "src/main/java/App.java",
                "src/main/java/c.bak", "src/main/secret-key.txt", "src/main/java/secret-too.txt",
                "src/main/java/keep.log",
                "personal.txt", "sub/personal.txt",
                "name with spaces.txt");
        Files.write(root.resolve("empty.txt"), new byte[0]);
        Files.write(root.resolve("latin1.txt"), "caf\u00e9".getBytes(StandardCharsets.ISO_8859_1));
    }

    @Test
    void anIgnoreFileEditedDuringTheSessionIsReadAgainAtTheNextWalk() throws IOException {
        files("app.log", "keep.txt");
        JailedWorkspace workspace = JailedWorkspace.open(root);
        assertEquals(Set.of("app.log", "keep.txt"), filePaths(workspace, workspace.root(), false));
        write(".gitignore", "*.log\n");
        assertEquals(Set.of(".gitignore", "keep.txt"), filePaths(workspace, workspace.root(), false));
        write(".gitignore", "*.txt\n");
        assertEquals(Set.of(".gitignore", "app.log"), filePaths(workspace, workspace.root(), false));
        assertTrue(workspace.isIgnored(root.resolve("keep.txt")));
    }
}
