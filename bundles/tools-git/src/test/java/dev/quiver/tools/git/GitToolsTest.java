package dev.quiver.tools.git;

import dev.quiver.workspace.ToolTestContext;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.PersonIdent;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The five reading git tools on a real repository built with the git CLI; git_commit has GitCommitToolTest. */
class GitToolsTest {

    @TempDir
    Path root;

    private ToolTestContext context;

    @BeforeEach
    void build() throws Exception {
        GitFixture.build(root);
        context = new ToolTestContext(root);
    }

    private String call(Tool tool, Map<String, ?> values) throws ToolException {
        Arguments arguments = Arguments.of(values);
        tool.subjects(arguments, context.workspace());
        return tool.call(arguments, context).text();
    }

    @Test
    void statusDescribesEveryKindOfChangeInWords() throws Exception {
        String text = call(new GitStatusTool(), Map.of());
        assertTrue(text.startsWith("On branch main, 7 changed:\n"), text);
        assertTrue(text.contains("\na.txt  (staged modified, modified)\n"), text);
        assertTrue(text.endsWith("\nstaged.txt  (staged modified)"), text);
        assertTrue(text.contains("\nmod.txt  (modified)\n"), text);
        assertTrue(text.contains("\ngone.txt  (deleted)\n"), text);
        assertTrue(text.contains("\nold.txt -> renamed.txt  (staged renamed)\n"), text);
        assertTrue(text.contains("\nnew.txt  (untracked)"), text);
        assertTrue(text.contains("\n.env  (modified)"), text);
    }

    @Test
    void statusNarrowsToAPathAndSaysWhenClean() throws Exception {
        assertEquals("On branch main, 1 changed in mod.txt:\nmod.txt  (modified)",
                call(new GitStatusTool(), Map.of("path", "mod.txt")));
        assertEquals("On branch main, nothing changed in src.", call(new GitStatusTool(), Map.of("path", "src")));
    }

    @Test
    void unstagedDiffSummarisesThenShowsTheDiffAndLeavesTheSecretOut() throws Exception {
        String text = call(new GitDiffTool(), Map.of());
        assertTrue(text.startsWith("Unstaged changes (working tree against the index), 4 files:\n"), text);
        assertTrue(text.contains("\n.env  (modified)  [holds secrets: content left out]\n"), text);
        assertTrue(text.contains("\na.txt  (modified)  +1 -0\n"), text);
        assertTrue(text.contains("\ngone.txt  (deleted)  +0 -1\n"), text);
        assertTrue(text.contains("\nmod.txt  (modified)  +1 -1\n"), text);
        assertTrue(text.contains("(1 untracked file not shown; git_status lists them)"), text);
        assertTrue(text.contains("-plain before\n+plain after"), text);
        assertTrue(text.contains("+five unstaged"), text);
        assertFalse(text.contains("secret-value"), text);
        assertFalse(text.contains("untracked\n+"), text);
        assertFalse(text.contains("staged.txt"), text);
    }

    @Test
    void stagedDiffShowsTheRenameAndTheStagedEdits() throws Exception {
        String text = call(new GitDiffTool(), Map.of("staged", true));
        assertTrue(text.startsWith("Staged changes (index against HEAD), 3 files:\n"), text);
        assertTrue(text.contains("\nold.txt -> renamed.txt  (renamed, 100% similar)\n"), text);
        assertTrue(text.contains("\nstaged.txt  (modified)  +1 -1\n"), text);
        assertTrue(text.contains("+four staged"), text);
        assertFalse(text.contains("five unstaged"), text);
    }

    @Test
    void ignoredFilesAreNeitherDiffedNorCountedAsUntracked() throws Exception {
        GitFixture.write(root, ".git/info/exclude", "build/\n*.log\n");
        GitFixture.write(root, "build/classes/A.class", "output\n");
        GitFixture.write(root, "build/B.class", "output\n");
        GitFixture.write(root, "debug.log", "noise\n");
        for (Map<String, ?> arguments : List.of(Map.<String, Object>of(), Map.of("ref", "HEAD"))) {
            String text = call(new GitDiffTool(), arguments);
            assertTrue(text.contains("(1 untracked file not shown; git_status lists them)"), arguments + ": " + text);
        }
    }

    @Test
    void diffAgainstARefAndForOnePath() throws Exception {
        String text = call(new GitDiffTool(), Map.of("ref", "HEAD~1", "path", "a.txt"));
        assertTrue(text.startsWith("Working tree against HEAD~1 ("), text);
        assertTrue(text.contains("-two\n+TWO by bob"), text);
        assertEquals("No unstaged changes in src. Staged changes show with staged: true.",
                call(new GitDiffTool(), Map.of("path", "src")));
    }

    @Test
    void logListsCommitsOfBothAuthorsNewestFirstWithinTheLimit() throws Exception {
        String text = call(new GitLogTool(), Map.of());
        String[] lines = text.split("\n");
        assertEquals("2 commits from HEAD, newest first:", lines[0], text);
        assertTrue(lines[1].matches("[0-9a-f]{7}  \\d{4}-\\d\\d-\\d\\d  Bob Baker  Shout line two"), text);
        assertTrue(lines[2].matches("[0-9a-f]{7}  \\d{4}-\\d\\d-\\d\\d  Alice Archer  Add the first files"), text);
        String one = call(new GitLogTool(), Map.of("limit", 1));
        assertTrue(one.startsWith("1 commit from HEAD, newest first (more exist):\n"), one);
        assertTrue(one.contains("Raise limit (max 40)"), one);
        assertTrue(call(new GitLogTool(), Map.of("path", "mod.txt")).startsWith("1 commit touching mod.txt"));
        ToolException tooMany = assertThrows(ToolException.class, () -> call(new GitLogTool(), Map.of("limit", 41)));
        assertEquals("Argument 'limit' must be between 1 and 40, got 41.", tooMany.getMessage());
    }

    @Test
    void logDefaultsToFifteen() throws Exception {
        try (Git git = Git.open(root.toFile())) {
            for (int i = 0; i < 20; i++) {
                git.commit().setAllowEmpty(true).setMessage("empty " + i)
                        .setAuthor(new PersonIdent("Carol", "carol@example.com"))
                        .setCommitter(new PersonIdent("Carol", "carol@example.com")).setOnly("mod.txt").call();
            }
        }
        String text = call(new GitLogTool(), Map.of());
        assertTrue(text.startsWith("15 commits from HEAD, newest first (more exist):\n"), text);
        assertEquals(17, text.split("\n").length, text);
    }

    @Test
    void showGivesMessageAuthorAndDiff() throws Exception {
        String text = call(new GitShowTool(), Map.of("ref", "HEAD"));
        assertTrue(text.startsWith("commit "), text);
        assertTrue(text.contains("\nAuthor: Bob Baker <bob@example.com>, "), text);
        assertTrue(text.contains("    Shout line two\n\n    A longer body\n    over two lines."), text);
        assertTrue(text.contains("1 file changed:\na.txt  (modified)  +1 -1\n"), text);
        assertTrue(text.contains("+TWO by bob"), text);
    }

    @Test
    void showOfTheRootCommitLeavesTheSecretOut() throws Exception {
        String text = call(new GitShowTool(), Map.of("ref", "HEAD~1"));
        assertTrue(text.contains("Root commit (no parent)"), text);
        assertTrue(text.contains("\n.env  (added)  [holds secrets: content left out]\n"), text);
        assertTrue(text.contains("+class Main {}"), text);
        assertFalse(text.contains("secret-value"), text);
        String onePath = call(new GitShowTool(), Map.of("ref", "HEAD~1", "path", "src"));
        assertTrue(onePath.contains("1 file changed in src:\nsrc/Main.java  (added)  +1 -0\n"), onePath);
    }

    @Test
    void unknownRefsFailClearly() {
        ToolException show = assertThrows(ToolException.class, () -> call(new GitShowTool(), Map.of("ref", "no-such-ref")));
        assertEquals("Unknown revision 'no-such-ref': no branch, tag or commit by that name. git_log lists commits.",
                show.getMessage());
        ToolException log = assertThrows(ToolException.class, () -> call(new GitLogTool(), Map.of("ref", "nope~3")));
        assertTrue(log.getMessage().startsWith("Unknown revision 'nope~3'"), log.getMessage());
        ToolException diff = assertThrows(ToolException.class, () -> call(new GitDiffTool(), Map.of("ref", "HEAD~9")));
        assertTrue(diff.getMessage().startsWith("Unknown revision 'HEAD~9'"), diff.getMessage());
        ToolException tree = assertThrows(ToolException.class, () -> call(new GitShowTool(), Map.of("ref", "HEAD^{tree}")));
        assertEquals("'HEAD^{tree}' names a tree, not a commit.", tree.getMessage());
    }

    @Test
    void blameNamesTheAuthorOfEachLineAndMarksUncommittedOnes() throws Exception {
        String text = call(new GitBlameTool(), Map.of("path", "a.txt"));
        String[] lines = text.split("\n");
        assertEquals("a.txt: lines 1-5 of 5, 2 authors", lines[0], text);
        assertTrue(lines[1].matches("1  [0-9a-f]{7}  \\d{4}-\\d\\d-\\d\\d  Alice Archer \\| one"), text);
        assertTrue(lines[2].matches("2  [0-9a-f]{7}  \\d{4}-\\d\\d-\\d\\d  Bob Baker \\| TWO by bob"), text);
        assertTrue(lines[5].matches("5  uncommitted +\\| five unstaged"), text);
        String range = call(new GitBlameTool(), Map.of("path", "a.txt", "startLine", 2, "endLine", 2));
        assertTrue(range.startsWith("a.txt: lines 2-2 of 5, 1 author\n2  "), range);
        ToolException past = assertThrows(ToolException.class,
                () -> call(new GitBlameTool(), Map.of("path", "a.txt", "startLine", 9)));
        assertEquals("startLine 9 is past the end of a.txt, which has 5 lines.", past.getMessage());
    }

    @Test
    void blameRefusesSecretsFoldersAndUntrackedFiles() {
        ToolException secret = assertThrows(ToolException.class, () -> call(new GitBlameTool(), Map.of("path", ".env")));
        assertTrue(secret.getMessage().contains("left out: the file holds secrets"), secret.getMessage());
        assertFalse(secret.getMessage().contains("secret-value"));
        ToolException untracked = assertThrows(ToolException.class, () -> call(new GitBlameTool(), Map.of("path", "new.txt")));
        assertEquals("new.txt is not tracked by git; there is nothing to blame.", untracked.getMessage());
        ToolException folder = assertThrows(ToolException.class, () -> call(new GitBlameTool(), Map.of("path", "src")));
        assertEquals("src is a folder; git_blame takes a file.", folder.getMessage());
    }

    @Test
    void shellMetacharactersInAPathAreOnlyEverAPath() throws Exception {
        String hostile = "; touch pwned.txt";
        assertTrue(call(new GitLogTool(), Map.of("path", hostile)).startsWith("No commits touching ; touch pwned.txt"));
        call(new GitStatusTool(), Map.of("path", hostile));
        call(new GitDiffTool(), Map.of("path", hostile));
        call(new GitShowTool(), Map.of("ref", "HEAD", "path", hostile));
        assertThrows(ToolException.class, () -> call(new GitBlameTool(), Map.of("path", hostile)));
        assertThrows(ToolException.class, () -> call(new GitShowTool(), Map.of("ref", "HEAD; touch pwned.txt")));
        assertThrows(ToolException.class, () -> call(new GitLogTool(), Map.of("ref", "$(touch pwned.txt)")));
        assertFalse(Files.exists(root.resolve("pwned.txt")));
        assertFalse(Files.exists(Path.of("pwned.txt").toAbsolutePath()));
        try (var files = Files.list(root)) {
            assertTrue(files.noneMatch(f -> f.getFileName().toString().contains("pwned")));
        }
    }

    @Test
    void pathsOutsideTheWorkspaceAreRefused() {
        for (Tool tool : List.of(new GitStatusTool(), new GitDiffTool(), new GitLogTool(), new GitBlameTool())) {
            ToolException error = assertThrows(ToolException.class, () -> call(tool, Map.of("path", "../outside.txt")));
            assertTrue(error.getMessage().startsWith("Path escapes workspace"), tool.spec().name() + ": " + error.getMessage());
        }
        ToolException show = assertThrows(ToolException.class,
                () -> call(new GitShowTool(), Map.of("ref", "HEAD", "path", "/etc/passwd")));
        assertTrue(show.getMessage().startsWith("Path escapes workspace"), show.getMessage());
    }

    @Test
    void subjectsAreThePathWhenGivenElseNone() throws Exception {
        assertEquals(List.of(), new GitStatusTool().subjects(Arguments.empty()));
        assertEquals(List.of(), new GitLogTool().subjects(Arguments.of(Map.of("limit", 3))));
        assertEquals(List.of(Subject.path("src")), new GitDiffTool().subjects(Arguments.of(Map.of("path", "src"))));
        assertEquals(List.of(Subject.path("a.txt")),
                new GitShowTool().subjects(Arguments.of(Map.of("ref", "HEAD", "path", "a.txt"))));
        assertEquals(List.of(Subject.path("a.txt")), new GitBlameTool().subjects(Arguments.of(Map.of("path", "a.txt"))));
        assertThrows(ToolException.class, () -> new GitBlameTool().subjects(Arguments.empty()));
    }

    @Test
    void aWorkspaceInsideTheWorkTreeSeesItsOwnPathsOnly() throws Exception {
        ToolTestContext sub = new ToolTestContext(root.resolve("src"));
        GitFixture.write(root, "src/Main.java", "class Main { int x; }\n");
        String status = new GitStatusTool().call(Arguments.empty(), sub).text();
        assertEquals("On branch main, 1 changed:\nMain.java  (modified)", status);
        String log = new GitLogTool().call(Arguments.empty(), sub).text();
        assertTrue(log.startsWith("1 commit from HEAD"), log);
        String blame = new GitBlameTool().call(Arguments.of(Map.of("path", "Main.java")), sub).text();
        assertTrue(blame.startsWith("Main.java: lines 1-1 of 1"), blame);
    }

    @Test
    void outsideARepositoryEveryToolSaysSo(@TempDir Path plain) throws Exception {
        Files.writeString(plain.resolve("a.txt"), "x\n");
        ToolTestContext outside = new ToolTestContext(plain);
        List<Tool> tools = List.of(new GitStatusTool(), new GitDiffTool(), new GitLogTool(), new GitShowTool(), new GitBlameTool());
        for (Tool tool : tools) {
            Arguments arguments = Arguments.of(Map.of("path", "a.txt", "ref", "HEAD"));
            ToolException error = assertThrows(ToolException.class, () -> tool.call(arguments, outside));
            assertEquals(outside.workspace().root() + " was not a git repository (nor inside one) when this session "
                    + "started, so the git tools have nothing to read here. A repository made since is used from "
                    + "Quiver's next start.", error.getMessage(), tool.spec().name());
        }
    }

    @Test
    void aRepositoryMadeOrRepointedDuringTheSessionIsNeverOpened(@TempDir Path plain, @TempDir Path other)
            throws Exception {
        GitFixture.build(other);
        ToolTestContext started = new ToolTestContext(plain); // no repository when the session started
        Files.createSymbolicLink(plain.resolve(".git"), other.resolve(".git"));
        ToolException planted = assertThrows(ToolException.class,
                () -> new GitShowTool().call(Arguments.of(Map.of("ref", "HEAD")), started));
        assertTrue(planted.getMessage().contains("was not a git repository"), planted.getMessage());

        // a repository whose .git is swapped for a link to another one mid-session
        Path moved = Files.move(root.resolve(".git"), root.resolve("git-moved"));
        Files.createSymbolicLink(root.resolve(".git"), other.resolve(".git"));
        ToolException swapped = assertThrows(ToolException.class, () -> call(new GitLogTool(), Map.of()));
        assertTrue(swapped.getMessage().contains("changed during this session") && swapped.getMessage().contains(
                other.resolve(".git").toRealPath().toString()), swapped.getMessage());
        Files.delete(root.resolve(".git"));
        Files.move(moved, root.resolve(".git"));
        assertTrue(call(new GitLogTool(), Map.of()).contains("commit"), "the session's own repository still opens");
    }

    @Test
    void anEmptyRepositoryIsDescribed(@TempDir Path empty) throws Exception {
        GitFixture.git(empty, null, "init", "-q", "-b", "trunk");
        GitFixture.write(empty, "first.txt", "x\n");
        ToolTestContext fresh = new ToolTestContext(empty);
        assertEquals("On branch trunk, no commits yet, 1 changed:\nfirst.txt  (untracked)",
                new GitStatusTool().call(Arguments.empty(), fresh).text());
        assertEquals("On branch trunk, no commits yet: there is nothing to log.",
                new GitLogTool().call(Arguments.empty(), fresh).text());
    }
}
