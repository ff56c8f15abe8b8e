package dev.quiver.tools.git;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolException;
import dev.quiver.workspace.ToolTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * git_branch, git_current_branch, git_log_file, git_diff_commits, git_show_file and git_changed_in_ref on
 * real repositories built with the git CLI: a rename, a branch merged with --no-ff, a secret changed on
 * the branch, a tag; and, per test, a detached HEAD, an unborn branch, a clone with an upstream, a
 * shallow clone and a submodule.
 */
class GitHistoryToolsTest {

    static final String OLD_NAME_TEXT = "a file that will be renamed\nwith enough lines\nto be found similar\nby rename detection\n";

    @TempDir
    Path root;

    @TempDir
    Path other;

    private ToolTestContext context;
    /** Short ids: the root commit, the rename, the branch's commit, main's own commit, the merge. */
    private String c1, c2, f1, c3, merge;

    @BeforeEach
    void build() throws Exception {
        git(1, "Alice Archer <alice@example.com>", "init", "-q", "-b", "main");
        GitFixture.write(root, ".gitignore", "build/\n");
        GitFixture.write(root, "a.txt", "one\ntwo\nthree\n");
        GitFixture.write(root, "old-name.txt", OLD_NAME_TEXT);
        GitFixture.write(root, ".env", GitFixture.SECRET_OLD + "\n");
        GitFixture.write(root, "src/Main.java", "class Main {}\n");
        git(1, null, "add", "-A");
        c1 = commit(1, "Alice Archer <alice@example.com>", "Add the first files");
        git(1, null, "tag", "v1");
        git(2, null, "mv", "old-name.txt", "new-name.txt");
        c2 = commit(2, "Bob Baker <bob@example.com>", "Rename old-name to new-name");
        git(3, null, "checkout", "-q", "-b", "feature");
        GitFixture.write(root, "new-name.txt", OLD_NAME_TEXT + "feature line\n");
        GitFixture.write(root, ".env", GitFixture.SECRET_NEW + "\n");
        git(3, null, "add", "-A");
        f1 = commit(3, "Carol Cole <carol@example.com>", "Feature work");
        git(4, null, "checkout", "-q", "main");
        GitFixture.write(root, "a.txt", "one\ntwo on main\nthree\n");
        git(4, null, "add", "-A");
        c3 = commit(4, "Alice Archer <alice@example.com>", "Main work");
        git(5, "Alice Archer <alice@example.com>", "merge", "-q", "--no-ff", "feature", "-m", "Merge feature");
        merge = head();
        context = new ToolTestContext(root);
    }

    /** git at a fixed day of January 2024, so that "newest first" has one right answer. */
    private String git(int day, String author, String... args) throws Exception {
        return git(root, day, author, args);
    }

    private static String git(Path directory, int day, String author, String... args) throws Exception {
        String date = "2024-01-0" + day + "T12:00:00+0000";
        return GitFixture.git(directory, author, Map.of("GIT_AUTHOR_DATE", date, "GIT_COMMITTER_DATE", date), args);
    }

    private String commit(int day, String author, String message) throws Exception {
        git(day, author, "commit", "-q", "-m", message);
        return head();
    }

    private String head() throws Exception {
        return git(root, 9, null, "rev-parse", "HEAD").strip().substring(0, 7);
    }

    private String call(Tool tool, Map<String, ?> values) throws ToolException {
        return call(tool, values, context);
    }

    private static String call(Tool tool, Map<String, ?> values, ToolTestContext context) throws ToolException {
        Arguments arguments = Arguments.of(values);
        tool.subjects(arguments, context.workspace());
        return tool.call(arguments, context).text();
    }

    // git_branch

    @Test
    void branchListsNewestCommitFirstAndMarksTheCurrentOne() throws Exception {
        assertEquals("2 local branches, newest commit first:\n"
                + "* main     " + merge + "  2024-01-05  Alice Archer  Merge feature\n"
                + "  feature  " + f1 + "  2024-01-03  Carol Cole  Feature work", call(new GitBranchTool(), Map.of()));
    }

    @Test
    void branchSaysWhenHeadIsDetachedAndMarksNone() throws Exception {
        git(6, null, "checkout", "-q", "--detach", c3);
        String text = call(new GitBranchTool(), Map.of());
        assertTrue(text.startsWith("HEAD detached at " + c3 + ": no branch is checked out.\n2 local branches"), text);
        assertFalse(text.contains("* "), text);
        assertEquals("HEAD detached at " + c3 + "\nLast commit: " + c3 + "  2024-01-04  Alice Archer  Main work",
                call(new GitCurrentBranchTool(), Map.of()));
    }

    @Test
    void remoteBranchesShowOnlyWhenAskedAndOriginHeadIsLeftOut() throws Exception {
        GitFixture.git(other, null, "clone", "-q", root.toUri().toString(), "clone");
        ToolTestContext clone = new ToolTestContext(other.resolve("clone"));
        assertEquals("1 local branches:\n* main  " + merge + "  2024-01-05  Alice Archer  Merge feature",
                call(new GitBranchTool(), Map.of(), clone));
        String all = call(new GitBranchTool(), Map.of("remote", true), clone);
        assertTrue(all.startsWith("3 branches, newest commit first:\n"), all);
        assertTrue(all.contains("\n* main            " + merge), all);
        assertTrue(all.contains("\n  origin/main     " + merge), all);
        assertTrue(all.endsWith("\n  origin/feature  " + f1 + "  2024-01-03  Carol Cole  Feature work"), all);
        assertFalse(all.contains("origin/HEAD"), all);
    }

    @Test
    void branchStopsAtItsCapAndSaysHowManyAreLeft() throws Exception {
        // 105 more branches at the root commit, written as loose refs (what git branch writes), older than both
        String full = git(9, null, "rev-parse", c1).strip();
        int extra = GitBranchTool.MAX_BRANCHES + 5;
        for (int i = 0; i < extra; i++) {
            GitFixture.write(root, ".git/refs/heads/b" + String.format("%03d", i), full + "\n");
        }
        String text = call(new GitBranchTool(), Map.of());
        int total = extra + 2;
        assertTrue(text.startsWith(total + " local branches, newest commit first:\n* main "), text);
        assertEquals(GitBranchTool.MAX_BRANCHES, text.lines().filter(l -> l.startsWith("  ") || l.startsWith("* ")).count(), text);
        // main, feature, then b000 onwards by name among equals: the last shown is b097
        assertTrue(text.endsWith("\n  b" + String.format("%03d", GitBranchTool.MAX_BRANCHES - 3) + "     " + c1
                + "  2024-01-01  Alice Archer  Add the first files\n... and " + (total - GitBranchTool.MAX_BRANCHES)
                + " older ones."), text.substring(text.length() - 300));
    }

    // git_current_branch

    @Test
    void currentBranchGivesTheUpstreamAndHowFarApartTheyAre() throws Exception {
        assertEquals("On branch main, no upstream\nLast commit: " + merge + "  2024-01-05  Alice Archer  Merge feature",
                call(new GitCurrentBranchTool(), Map.of()));
        Path clonePath = other.resolve("clone");
        GitFixture.git(other, null, "clone", "-q", root.toUri().toString(), "clone");
        ToolTestContext clone = new ToolTestContext(clonePath);
        assertTrue(call(new GitCurrentBranchTool(), Map.of(), clone).startsWith("On branch main (up to date with origin/main)\n"));
        GitFixture.write(clonePath, "local.txt", "mine\n");
        git(clonePath, 6, null, "add", "local.txt");
        git(clonePath, 6, null, "commit", "-q", "-m", "Local work");
        GitFixture.write(root, "upstream.txt", "theirs\n");
        git(6, null, "add", "upstream.txt");
        commit(6, "Bob Baker <bob@example.com>", "Upstream work 1");
        GitFixture.write(root, "upstream.txt", "theirs again\n");
        git(7, null, "add", "upstream.txt");
        commit(7, "Bob Baker <bob@example.com>", "Upstream work 2");
        git(clonePath, 8, null, "fetch", "-q");
        String text = call(new GitCurrentBranchTool(), Map.of(), clone);
        assertTrue(text.startsWith("On branch main (ahead 1, behind 2 of origin/main)\nLast commit: "), text);
        assertTrue(text.endsWith("  Local work"), text);
    }

    @Test
    void currentBranchSaysAMergeIsInProgress() throws Exception {
        git(6, null, "checkout", "-q", "-b", "clash", c2);
        GitFixture.write(root, "a.txt", "one\ntwo on clash\nthree\n");
        git(6, null, "commit", "-q", "-am", "Clash");
        assertThrows(AssertionError.class, () -> git(7, null, "merge", "-q", "main"));
        String text = call(new GitCurrentBranchTool(), Map.of());
        assertTrue(text.startsWith("On branch clash, no upstream\nLast commit: "), text);
        assertTrue(text.endsWith("\nIn progress: Conflicts"), text);
    }

    // git_log_file

    @Test
    void logFileFollowsTheFileBackThroughItsRenameAsGitLogFollowDoes() throws Exception {
        String text = call(new GitLogFileTool(), Map.of("path", "new-name.txt"));
        assertEquals("3 commits touching new-name.txt from HEAD, newest first:\n"
                + f1 + "  2024-01-03  Carol Cole  Feature work\n"
                + c2 + "  2024-01-02  Bob Baker  Rename old-name to new-name  (renamed from old-name.txt)\n"
                + c1 + "  2024-01-01  Alice Archer  Add the first files", text);
        String cli = git(9, null, "log", "--follow", "--format=%h", "--abbrev=7", "--", "new-name.txt");
        assertEquals(List.of(f1, c2, c1), cli.lines().toList(), "the git CLI agrees");
    }

    @Test
    void logFileIsCappedAndSaysHowToContinueUnderTheOldName() throws Exception {
        String two = call(new GitLogFileTool(), Map.of("path", "new-name.txt", "limit", 2));
        assertTrue(two.startsWith("2 commits touching new-name.txt from HEAD, newest first (more exist):\n"), two);
        assertTrue(two.endsWith("\nRaise limit (max 100) or pass ref: " + c2 + "~1, path: old-name.txt for older ones."), two);
        String rest = call(new GitLogFileTool(), Map.of("path", "old-name.txt", "ref", c2 + "~1"));
        assertEquals("1 commit touching old-name.txt from " + c2 + "~1, newest first:\n"
                + c1 + "  2024-01-01  Alice Archer  Add the first files", rest);
        String one = call(new GitLogFileTool(), Map.of("path", "new-name.txt", "limit", 1));
        assertTrue(one.endsWith("pass ref: " + f1 + "~1, path: new-name.txt for older ones."), one);
    }

    @Test
    void logFileFindsADeletedFileAndRefusesAFolder() throws Exception {
        git(6, null, "rm", "-q", "a.txt");
        String deleted = commit(6, "Bob Baker <bob@example.com>", "Drop a.txt");
        String text = call(new GitLogFileTool(), Map.of("path", "a.txt"));
        assertTrue(text.startsWith("3 commits touching a.txt from HEAD, newest first:\n" + deleted + "  "), text);
        assertTrue(text.contains("\n" + c3 + "  ") && text.endsWith("Add the first files"), text);
        ToolException folder = assertThrows(ToolException.class, () -> call(new GitLogFileTool(), Map.of("path", "src")));
        assertEquals("src is a folder; git_log_file follows one file. git_log takes a folder.", folder.getMessage());
        assertEquals("No commits touching never.txt reachable from HEAD.",
                call(new GitLogFileTool(), Map.of("path", "never.txt")));
    }

    // git_diff_commits

    @Test
    void diffCommitsGivesTheStatFirstThenTheDiffAndDetectsTheRename() throws Exception {
        String text = call(new GitDiffCommitsTool(), Map.of("from", "v1"));
        assertTrue(text.startsWith("From v1 (" + c1 + ") to HEAD (" + merge + "), 3 files:\n"), text);
        assertTrue(text.contains("\nold-name.txt -> new-name.txt  (renamed, "), text);
        assertTrue(text.contains("\n.env  (modified)  [holds secrets: content left out]\n"), text);
        assertTrue(text.contains("\na.txt  (modified)  +1 -1\n"), text);
        int stat = text.indexOf("a.txt  (modified)");
        int diff = text.indexOf("-two\n+two on main");
        assertTrue(stat > 0 && diff > stat, text);
        assertTrue(text.contains("+feature line"), text);
        assertFalse(text.contains("secret-value"), text);
    }

    @Test
    void diffCommitsBetweenBranchesForOnePathAndWhenEqual() throws Exception {
        String text = call(new GitDiffCommitsTool(), Map.of("from", "feature", "to", "main", "path", "a.txt"));
        assertEquals("From feature (" + f1 + ") to main (" + merge + ") in a.txt, 1 file:\n"
                + "a.txt  (modified)  +1 -1\n\n", text.substring(0, text.indexOf("diff --git")));
        assertEquals("No differences from HEAD (" + merge + ") to main (" + merge + ").",
                call(new GitDiffCommitsTool(), Map.of("from", "HEAD", "to", "main")));
    }

    @Test
    void diffCommitsIsCutAtItsCharacterCapAndSaysSo() throws Exception {
        StringBuilder big = new StringBuilder();
        for (int i = 0; big.length() < 2 * GitRepo.MAX_CHARS; i++) {
            big.append("line ").append(i).append(" of a file far longer than one answer may be\n");
        }
        GitFixture.write(root, "big.txt", big.toString());
        GitFixture.write(root, "small.txt", "after the big one\n");
        git(6, null, "add", "big.txt", "small.txt");
        String added = commit(6, "Bob Baker <bob@example.com>", "Add a big file");
        String text = call(new GitDiffCommitsTool(), Map.of("from", merge, "to", added));
        int lines = (int) big.chars().filter(c -> c == '\n').count();
        // the stat names both files with their counts; the diff stops inside the first, and says where
        assertTrue(text.startsWith("From " + merge + " (" + merge + ") to " + added + " (" + added + "), 2 files:\n"
                + "big.txt  (added)  +" + lines + " -0\nsmall.txt  (added)  +1 -0\n\ndiff --git a/big.txt"), text.substring(0, 300));
        assertTrue(text.endsWith("\n... [diff cut at " + GitRepo.MAX_CHARS + " characters; pass a path to see one file]"),
                text.substring(text.length() - 300));
        assertFalse(text.contains("diff --git a/small.txt"), "the second file's diff is past the cap");
        assertTrue(text.length() < GitRepo.MAX_CHARS + 300, "length " + text.length());
        assertFalse(text.contains("line " + (lines - 1) + " of"), "the big file's end is past the cap");
    }

    @Test
    void aSecretIsANoteInEveryDiffAtEveryRefEvenRenamedOrDeleted() throws Exception {
        GitFixture.write(root, "deploy/id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\nkey-material-value\n");
        git(6, null, "add", "-A");
        commit(6, "Bob Baker <bob@example.com>", "Add a key");
        git(7, null, "mv", "deploy/id_rsa", "deploy/server.pem");
        git(7, null, "rm", "-q", ".env");
        commit(7, "Bob Baker <bob@example.com>", "Rename the key, drop .env");
        for (String from : List.of("v1", c2, f1, "HEAD~1", "HEAD~2")) {
            String text = call(new GitDiffCommitsTool(), Map.of("from", from));
            assertFalse(text.contains("secret-value") || text.contains("key-material") || text.contains("BEGIN OPENSSH"),
                    from + ": " + text);
            assertTrue(text.contains("[holds secrets: content left out]"), from + ": " + text);
        }
        String reverse = call(new GitDiffCommitsTool(), Map.of("from", "HEAD", "to", "HEAD~1"));
        assertTrue(reverse.contains("deploy/server.pem -> deploy/id_rsa  (renamed, 100% similar)  [holds secrets"), reverse);
        assertTrue(reverse.contains(".env  (added)  [holds secrets"), reverse);
        assertFalse(reverse.contains("secret-value") || reverse.contains("key-material"), reverse);
    }

    // git_show_file

    @Test
    void showFileNumbersAnOldVersionLikeReadFile() throws Exception {
        assertEquals("[old-name.txt at v1: lines 1-4 of 4]\n1: a file that will be renamed\n2: with enough lines\n"
                + "3: to be found similar\n4: by rename detection", call(new GitShowFileTool(), Map.of("path", "old-name.txt", "ref", "v1")));
        assertEquals("[a.txt at " + c1 + ": lines 2-2 of 3; continue with offset 3]\n2: two",
                call(new GitShowFileTool(), Map.of("path", "a.txt", "ref", c1, "offset", 2, "limit", 1)));
        assertEquals("[a.txt at HEAD: lines 2-3 of 3]\n2: two on main\n3: three",
                call(new GitShowFileTool(), Map.of("path", "a.txt", "ref", "HEAD", "offset", 2)));
        ToolException past = assertThrows(ToolException.class,
                () -> call(new GitShowFileTool(), Map.of("path", "a.txt", "ref", "HEAD", "offset", 9)));
        assertEquals("offset 9 is past the end of a.txt at HEAD, which has 3 lines.", past.getMessage());
    }

    @Test
    void showFileSaysWhatIsNotAFile() throws Exception {
        ToolException missing = assertThrows(ToolException.class,
                () -> call(new GitShowFileTool(), Map.of("path", "new-name.txt", "ref", "v1")));
        assertEquals("new-name.txt does not exist at v1 (" + c1 + "). git_log_file lists the commits that touched it, "
                + "under every name it had.", missing.getMessage());
        ToolException folder = assertThrows(ToolException.class,
                () -> call(new GitShowFileTool(), Map.of("path", "src", "ref", "HEAD")));
        assertEquals("src is a folder at HEAD; git_show_file takes a file.", folder.getMessage());
        Files.write(root.resolve("blob.bin"), new byte[] {1, 0, 2, 3});
        Files.createSymbolicLink(root.resolve("link"), Path.of("a.txt"));
        git(6, null, "add", "-A");
        commit(6, "Bob Baker <bob@example.com>", "Binary and link");
        ToolException binary = assertThrows(ToolException.class,
                () -> call(new GitShowFileTool(), Map.of("path", "blob.bin", "ref", "HEAD")));
        assertEquals("blob.bin at HEAD is a binary file (4 bytes); it has no lines to show.", binary.getMessage());
        assertEquals("link at HEAD is a symbolic link to a.txt", call(new GitShowFileTool(), Map.of("path", "link", "ref", "HEAD")));
        // the name is looked up as written: today's link does not redirect a look into the past
        ToolException before = assertThrows(ToolException.class,
                () -> call(new GitShowFileTool(), Map.of("path", "link", "ref", "HEAD~1")));
        assertTrue(before.getMessage().startsWith("link does not exist at HEAD~1"), before.getMessage());
        Files.createSymbolicLink(root.resolve("innocent.txt"), Path.of(".env"));
        ToolException viaLink = assertThrows(ToolException.class,
                () -> call(new GitShowFileTool(), Map.of("path", "innocent.txt", "ref", "v1")));
        assertTrue(viaLink.getMessage().contains("holds secrets"), viaLink.getMessage());
    }

    @Test
    void showFileRefusesASecretPathAtEveryRef() throws Exception {
        for (String ref : List.of("v1", c2, f1, "feature", "HEAD", "no-such-ref")) {
            ToolException secret = assertThrows(ToolException.class,
                    () -> call(new GitShowFileTool(), Map.of("path", ".env", "ref", ref)));
            assertEquals(".env left out: the file holds secrets, so no version of it is shown.", secret.getMessage(), ref);
        }
        ToolException nested = assertThrows(ToolException.class,
                () -> call(new GitShowFileTool(), Map.of("path", "config/prod.env", "ref", "HEAD")));
        assertTrue(nested.getMessage().startsWith("config/prod.env left out"), nested.getMessage());
    }

    // git_changed_in_ref

    @Test
    void changedInRefListsTrackedChangesWithLettersAndCountsUntrackedButNotIgnored() throws Exception {
        GitFixture.write(root, "a.txt", "one\nchanged now\nthree\n");
        Files.delete(root.resolve("src/Main.java"));
        GitFixture.write(root, "staged-new.txt", "new and staged\n");
        git(6, null, "add", "staged-new.txt");
        GitFixture.write(root, "untracked.txt", "not added\n");
        GitFixture.write(root, "build/out.class", "ignored output\n");
        GitFixture.write(root, "build/more/out2.class", "ignored output\n");
        GitFixture.write(root, "build/forced.txt", "force-added though ignored\n");
        git(6, null, "add", "-f", "build/forced.txt");
        String text = call(new GitChangedInRefTool(), Map.of("ref", "v1"));
        assertEquals("6 files changed from v1 (" + c1 + ") to the working tree:\n"
                + "A  build/forced.txt\n"
                + "A  staged-new.txt\n"
                + "D  src/Main.java\n"
                + "M  .env\n"
                + "M  a.txt\n"
                + "R  old-name.txt -> new-name.txt\n"
                + "(1 untracked file not listed; git_status lists them)", text);
        assertEquals("1 file changed in src from HEAD (" + merge + ") to the working tree:\nD  src/Main.java",
                call(new GitChangedInRefTool(), Map.of("ref", "HEAD", "path", "src")));
    }

    @Test
    void changedInRefStopsAtItsNameCapAndSaysHowManyAreLeft() throws Exception {
        int files = GitChangedInRefTool.MAX_FILES + 10;
        for (int i = 0; i < files; i++) {
            GitFixture.write(root, "many/f" + String.format("%03d", i) + ".txt", i + "\n");
        }
        git(6, null, "add", "many");
        String text = call(new GitChangedInRefTool(), Map.of("ref", "HEAD"));
        assertTrue(text.startsWith(files + " files changed from HEAD (" + merge + ") to the working tree:\nA  many/f000.txt\n"),
                text.substring(0, 200));
        assertEquals(GitChangedInRefTool.MAX_FILES, text.lines().filter(l -> l.startsWith("A  ")).count());
        String last = "A  many/f" + String.format("%03d", GitChangedInRefTool.MAX_FILES - 1) + ".txt";
        assertTrue(text.endsWith("\n" + last + "\n... and 10 more; pass a path to narrow."),
                text.substring(text.length() - 200));
    }

    @Test
    void changedInRefSaysWhenNothingDiffers() throws Exception {
        assertEquals("No tracked file differs between main (" + merge + ") and the working tree.",
                call(new GitChangedInRefTool(), Map.of("ref", "main")));
    }

    // unborn, shallow, submodule, hostile input

    @Test
    void anUnbornBranchIsDescribedByEveryTool(@TempDir Path empty) throws Exception {
        GitFixture.git(empty, null, "init", "-q", "-b", "trunk");
        GitFixture.write(empty, "first.txt", "x\n");
        ToolTestContext fresh = new ToolTestContext(empty);
        assertEquals("On branch trunk, no commits yet (the branch exists once something is committed).\nNo local branches.",
                call(new GitBranchTool(), Map.of(), fresh));
        assertEquals("On branch trunk, no commits yet", call(new GitCurrentBranchTool(), Map.of(), fresh));
        assertEquals("On branch trunk, no commits yet: there is no history yet.",
                call(new GitLogFileTool(), Map.of("path", "first.txt"), fresh));
        for (Tool tool : List.of(new GitChangedInRefTool(), new GitShowFileTool(), new GitDiffCommitsTool())) {
            ToolException error = assertThrows(ToolException.class,
                    () -> call(tool, Map.of("ref", "HEAD", "from", "HEAD", "path", "first.txt"), fresh));
            assertTrue(error.getMessage().startsWith("Unknown revision 'HEAD': no branch, tag or commit by that name "
                    + "(the branch has no commits yet)"), tool.spec().name() + ": " + error.getMessage());
        }
    }

    @Test
    void aShallowCloneShowsWhatItHasAndSaysWhatItLacks() throws Exception {
        GitFixture.git(other, null, "clone", "-q", "--depth", "1", root.toUri().toString(), "shallow");
        ToolTestContext shallow = new ToolTestContext(other.resolve("shallow"));
        assertTrue(Files.exists(other.resolve("shallow/.git/shallow")), "the clone is shallow");
        assertEquals("1 commit touching new-name.txt from HEAD, newest first:\n"
                + merge + "  2024-01-05  Alice Archer  Merge feature", call(new GitLogFileTool(), Map.of("path", "new-name.txt"), shallow));
        assertTrue(call(new GitCurrentBranchTool(), Map.of(), shallow).startsWith("On branch main (up to date with origin/main)\n"));
        assertTrue(call(new GitShowFileTool(), Map.of("path", "new-name.txt", "ref", "HEAD"), shallow).endsWith("5: feature line"));
        assertEquals("No tracked file differs between HEAD (" + merge + ") and the working tree.",
                call(new GitChangedInRefTool(), Map.of("ref", "HEAD"), shallow));
        ToolException beyond = assertThrows(ToolException.class,
                () -> call(new GitDiffCommitsTool(), Map.of("from", "HEAD~1"), shallow));
        assertTrue(beyond.getMessage().startsWith("Unknown revision 'HEAD~1'"), beyond.getMessage());
    }

    @Test
    void aSubmoduleIsNamedNotEntered() throws Exception {
        Path library = other.resolve("library");
        Files.createDirectories(library);
        GitFixture.git(library, null, "init", "-q", "-b", "main");
        GitFixture.write(library, "lib.txt", "library file\n");
        GitFixture.git(library, null, "add", "-A");
        GitFixture.git(library, null, "commit", "-q", "-m", "Library");
        String libraryHead = GitFixture.git(library, null, "rev-parse", "HEAD").strip();
        git(6, null, "-c", "protocol.file.allow=always", "submodule", "add", "-q", library.toUri().toString(), "lib");
        commit(6, "Bob Baker <bob@example.com>", "Add the library");
        assertEquals("lib at HEAD is a submodule at commit " + libraryHead + "; its files are in another repository.",
                call(new GitShowFileTool(), Map.of("path", "lib", "ref", "HEAD")));
        String diff = call(new GitDiffCommitsTool(), Map.of("from", "HEAD~1"));
        assertTrue(diff.startsWith("From HEAD~1 (" + merge + ") to HEAD ("), diff);
        assertTrue(diff.contains("\nlib  (added)") && diff.contains("\n.gitmodules  (added)"), diff);
        assertEquals("2 files changed from HEAD~1 (" + merge + ") to the working tree:\nA  .gitmodules\nA  lib",
                call(new GitChangedInRefTool(), Map.of("ref", "HEAD~1")));
        assertTrue(call(new GitLogFileTool(), Map.of("path", ".gitmodules")).startsWith("1 commit touching .gitmodules"));
    }

    @Test
    void shellMetacharactersAreOnlyEverValues() throws Exception {
        String hostile = "; touch pwned.txt";
        String hostileRef = "$(touch pwned.txt)";
        assertEquals("No commits touching ; touch pwned.txt reachable from HEAD.",
                call(new GitLogFileTool(), Map.of("path", hostile)));
        assertEquals("No differences in ; touch pwned.txt from v1 (" + c1 + ") to HEAD (" + merge + ").",
                call(new GitDiffCommitsTool(), Map.of("from", "v1", "path", hostile)));
        assertThrows(ToolException.class, () -> call(new GitShowFileTool(), Map.of("path", hostile, "ref", "HEAD")));
        call(new GitChangedInRefTool(), Map.of("ref", "HEAD", "path", hostile));
        for (Tool tool : List.of(new GitLogFileTool(), new GitDiffCommitsTool(), new GitShowFileTool(), new GitChangedInRefTool())) {
            ToolException error = assertThrows(ToolException.class, () -> call(tool,
                    Map.of("path", "a.txt", "ref", hostileRef, "from", hostileRef)));
            assertTrue(error.getMessage().contains("touch pwned.txt"), tool.spec().name() + ": " + error.getMessage());
        }
        call(new GitBranchTool(), Map.of("remote", true));
        call(new GitCurrentBranchTool(), Map.of());
        assertFalse(Files.exists(root.resolve("pwned.txt")));
        assertFalse(Files.exists(Path.of("pwned.txt").toAbsolutePath()));
        try (var files = Files.walk(root)) {
            assertTrue(files.noneMatch(f -> f.getFileName().toString().contains("pwned")));
        }
    }

    @Test
    void pathsAreTheSubjectsAndGoThroughTheJail() throws Exception {
        assertEquals(List.of(Subject.path("a.txt")),
                new GitLogFileTool().subjects(Arguments.of(Map.of("path", "a.txt"))));
        assertEquals(List.of(Subject.path(".env")),
                new GitShowFileTool().subjects(Arguments.of(Map.of("path", ".env", "ref", "HEAD"))));
        assertEquals(List.of(), new GitDiffCommitsTool().subjects(Arguments.of(Map.of("from", "v1"))));
        assertEquals(List.of(), new GitBranchTool().subjects(Arguments.empty()));
        for (Tool tool : List.of(new GitLogFileTool(), new GitDiffCommitsTool(), new GitShowFileTool(), new GitChangedInRefTool())) {
            ToolException error = assertThrows(ToolException.class,
                    () -> call(tool, Map.of("path", "../outside.txt", "ref", "HEAD", "from", "v1")));
            assertTrue(error.getMessage().startsWith("Path escapes workspace"), tool.spec().name() + ": " + error.getMessage());
        }
    }
}
