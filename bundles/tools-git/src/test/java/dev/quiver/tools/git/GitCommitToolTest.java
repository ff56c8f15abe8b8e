package dev.quiver.tools.git;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.ToolException;
import dev.quiver.workspace.ToolTestContext;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.Config;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.file.FileBasedConfig;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.util.FS;
import org.eclipse.jgit.util.ProcessResult;
import org.eclipse.jgit.util.SystemReader;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** git_commit, and the trust boundary of the whole set, on real repositories built with the git CLI. */
class GitCommitToolTest {

    @TempDir
    Path root;

    @TempDir
    Path elsewhere;

    private ToolTestContext context;

    @BeforeEach
    void build() throws Exception {
        git("init", "-q", "-b", "main");
        git("config", "user.name", "Quinn Tester");
        git("config", "user.email", "quinn@example.com");
        GitFixture.write(root, "a.txt", "alpha\n");
        GitFixture.write(root, "gone.txt", "to be deleted\n");
        GitFixture.write(root, "keep.txt", "kept\n");
        GitFixture.write(root, "src/Main.java", "class Main {}\n");
        GitFixture.write(root, ".gitignore", "build/\n");
        git("add", "-A");
        git("commit", "-q", "-m", "base");
        context = new ToolTestContext(root);
    }

    private String git(String... args) throws Exception {
        return GitFixture.git(root, null, args);
    }

    /** A call as the kernel makes it: subjects first, with the same arguments object. */
    private String commit(Map<String, ?> values) throws ToolException {
        GitCommitTool tool = new GitCommitTool();
        Arguments arguments = Arguments.of(values);
        tool.subjects(arguments, context.workspace());
        return tool.call(arguments, context).text();
    }

    /** HEAD's id and the index's bytes: what a refused commit must leave alone. */
    private String repositoryState() throws Exception {
        return git("rev-parse", "HEAD").strip() + " " + java.util.Arrays.hashCode(Files.readAllBytes(root.resolve(".git/index")));
    }

    private Map<String, String> workingTree() throws Exception {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path file : (Iterable<Path>) walk::iterator) {
                String relative = root.relativize(file).toString();
                if (relative.startsWith(".git" + File.separator) || relative.equals(".git") || Files.isDirectory(file)) {
                    continue;
                }
                files.put(relative, Files.isSymbolicLink(file) ? "-> " + Files.readSymbolicLink(file)
                        : java.util.Base64.getEncoder().encodeToString(Files.readAllBytes(file))
                                + " " + Files.getLastModifiedTime(file));
            }
        }
        return files;
    }

    @Test
    void byDefaultEveryChangeIsCommittedLikeAddAll() throws Exception {
        GitFixture.write(root, "a.txt", "alpha changed\n");
        Files.delete(root.resolve("gone.txt"));
        GitFixture.write(root, "new.txt", "brand new\n");
        GitFixture.write(root, "build/out.class", "ignored output\n");
        Map<String, String> before = workingTree();

        String text = commit(Map.of("message", "Change a, drop gone, add new\n\nWhy: testing.  \n\n"));

        assertTrue(text.matches("Committed [0-9a-f]{7} on main, 3 files:\n"
                + "a\\.txt  \\(modified\\)\ngone\\.txt  \\(deleted\\)\nnew\\.txt  \\(added\\)"), text);
        assertEquals("", git("status", "--porcelain"));
        assertEquals("Change a, drop gone, add new\n\nWhy: testing.\n", git("log", "-1", "--format=%B").stripTrailing() + "\n");
        assertEquals("Quinn Tester <quinn@example.com>", git("log", "-1", "--format=%an <%ae>").strip());
        assertEquals("M\ta.txt\nD\tgone.txt\nA\tnew.txt", git("diff", "--name-status", "HEAD~1", "HEAD").strip());
        assertFalse(git("ls-files").contains("build/"));
        assertEquals(before, workingTree(), "the working tree must be byte for byte as it was");
        assertTrue(git("reflog", "-1").contains("commit: Change a, drop gone, add new"), git("reflog", "-1"));
    }

    @Test
    void explicitPathsCommitOnlyThoseAndLeaveOtherChangesWhereTheyWere() throws Exception {
        GitFixture.write(root, "a.txt", "alpha changed\n");
        GitFixture.write(root, "keep.txt", "kept, staged\n");
        git("add", "keep.txt");
        GitFixture.write(root, "src/Main.java", "class Main { int x; }\n");
        GitFixture.write(root, "new.txt", "untracked\n");

        String text = commit(Map.of("message", "Only a and src", "paths", List.of("a.txt", "src")));

        assertTrue(text.matches("Committed [0-9a-f]{7} on main, 2 files:\na\\.txt  \\(modified\\)\n"
                + "src/Main\\.java  \\(modified\\)"), text);
        assertEquals("a.txt\nsrc/Main.java", git("diff", "--name-only", "HEAD~1", "HEAD").strip());
        assertEquals("M  keep.txt\n?? new.txt", git("status", "--porcelain").strip());
        assertEquals("kept\n", git("show", "HEAD:keep.txt"));
    }

    @Test
    void amendReplacesYourOwnUnpushedCommitKeepingItsAuthor() throws Exception {
        // the same email as the configured identity, under another spelling of the name: still one's own commit
        GitFixture.git(root, "Q. Tester <QUINN@example.com>", "commit", "-q", "--allow-empty", "-m", "to amend");
        String amended = git("rev-parse", "--short=7", "HEAD").strip();
        GitFixture.write(root, "a.txt", "alpha amended\n");

        String text = commit(Map.of("message", "Amended message", "amend", true));

        assertTrue(text.matches("Amended " + amended + " into [0-9a-f]{7} on main, 1 file:\na\\.txt  \\(modified\\)"), text);
        assertEquals("2", git("rev-list", "--count", "HEAD").strip());
        assertEquals("Amended message", git("log", "-1", "--format=%s").strip());
        assertEquals("Q. Tester / Quinn Tester", git("log", "-1", "--format=%an / %cn").strip());
        assertEquals("alpha amended\n", git("show", "HEAD:a.txt"));

        String messageOnly = commit(Map.of("message", "Reworded", "amend", true));
        assertTrue(messageOnly.endsWith(" on main, same files, new message."), messageOnly);
        assertEquals("2", git("rev-list", "--count", "HEAD").strip());
        assertEquals("Reworded", git("log", "-1", "--format=%s").strip());
    }

    @Test
    void amendOfSomeoneElsesUnpushedCommitIsRefusedAndNothingChanges() throws Exception {
        GitFixture.git(root, "Ada Author <ada@example.com>", "commit", "-q", "--allow-empty", "-m", "Ada's work");
        String head = git("rev-parse", "--short=7", "HEAD").strip();
        GitFixture.write(root, "a.txt", "alpha changed\n");
        String state = repositoryState();
        String refs = git("for-each-ref");

        GitCommitTool tool = new GitCommitTool();
        Arguments arguments = Arguments.of(Map.of("message", "rewritten", "amend", true));
        ToolException beforeApproval = assertThrows(ToolException.class, () -> tool.subjects(arguments, context.workspace()));
        ToolException atCall = assertThrows(ToolException.class, () -> tool.call(arguments, context));
        for (ToolException error : List.of(beforeApproval, atCall)) {
            assertEquals("HEAD (" + head + " \"Ada's work\") was written by Ada Author <ada@example.com>, and this "
                    + "repository commits as <quinn@example.com> (git's user.email). Amending it would rewrite someone "
                    + "else's commit under their name, so git_commit does not amend it. Make a new commit instead: call "
                    + "git_commit again without amend. Nothing was changed.", error.getMessage());
        }
        assertEquals(state, repositoryState());
        assertEquals(refs, git("for-each-ref"));
        assertEquals("Ada's work", git("log", "-1", "--format=%s").strip());
        assertEquals(" M a.txt", git("status", "--porcelain").stripTrailing());

        // a new commit on top of it is fine
        assertTrue(commit(Map.of("message", "on top of Ada's")).startsWith("Committed "));
        assertEquals("Ada Author", git("log", "-1", "--skip=1", "--format=%an").strip());
    }

    /** A bare "origin" that root pushes main to, and a colleague's clone of it. */
    private Path origin() throws Exception {
        Path bare = elsewhere.resolve("origin.git");
        GitFixture.git(elsewhere, null, "init", "-q", "--bare", "-b", "main", bare.toString());
        git("remote", "add", "origin", bare.toString());
        git("push", "-q", "-u", "origin", "main");
        Path colleague = elsewhere.resolve("colleague");
        GitFixture.git(elsewhere, null, "clone", "-q", bare.toString(), colleague.toString());
        return colleague;
    }

    @Test
    void amendOfAPushedHeadIsRefusedAndHeadIndexAndRefsStayAsTheyWere() throws Exception {
        Path colleague = origin();
        // a colleague's commit, already on origin/main, is HEAD after a pull
        GitFixture.write(colleague, "a.txt", "alpha by alice\n");
        GitFixture.git(colleague, null, "add", "a.txt");
        GitFixture.git(colleague, "Alice Archer <alice@example.com>", "commit", "-q", "-m", "Alice's change");
        GitFixture.git(colleague, null, "push", "-q", "origin", "main");
        git("pull", "-q", "--ff-only");
        String head = git("rev-parse", "--short=7", "HEAD").strip();
        GitFixture.write(root, "a.txt", "alpha mine\n");
        String state = repositoryState();
        String refs = git("for-each-ref");
        String reflog = git("reflog");

        ToolException pushed = assertThrows(ToolException.class,
                () -> commit(Map.of("message", "rewritten", "amend", true)));
        assertEquals("HEAD (" + head + " \"Alice's change\") is already pushed: it is on origin/main. Amending it would "
                + "rewrite published history, so the branch would diverge from origin/main and need a force push that "
                + "replaces the commit for everyone. git_commit does not amend a pushed commit. Make a new commit instead: "
                + "call git_commit again without amend. Nothing was changed.", pushed.getMessage());
        assertEquals(state, repositoryState());
        assertEquals(refs, git("for-each-ref"));
        assertEquals(reflog, git("reflog"));
        assertEquals("## main...origin/main\n M a.txt", git("status", "--porcelain", "-b").stripTrailing());

        // one's own commit, once pushed, is refused just the same: the author is not what stops it
        String mine = commit(Map.of("message", "Mine"));
        assertTrue(mine.matches("Committed [0-9a-f]{7} on main \\(ahead 1 of origin/main\\), 1 file:\na\\.txt  "
                + "\\(modified\\)"), mine);
        git("push", "-q");
        String ownState = repositoryState();
        ToolException ownPushed = assertThrows(ToolException.class,
                () -> commit(Map.of("message", "Mine, reworded", "amend", true)));
        assertTrue(ownPushed.getMessage().contains("\"Mine\") is already pushed: it is on origin/main."),
                ownPushed.getMessage());
        assertEquals(ownState, repositoryState());
        assertEquals("## main...origin/main", git("status", "--porcelain", "-b").stripTrailing());
    }

    @Test
    void theReportGivesTheUpstreamInClosedParentheses() throws Exception {
        Path colleague = origin();
        GitFixture.write(root, "a.txt", "alpha mine\n");
        String committed = commit(Map.of("message", "Mine"));
        assertTrue(committed.matches("Committed [0-9a-f]{7} on main \\(ahead 1 of origin/main\\), 1 file:\n"
                + "a\\.txt  \\(modified\\)"), committed);

        // still unpushed and one's own: amending it is fine, and the report says where the branch stands
        String reworded = commit(Map.of("message", "Mine, reworded", "amend", true));
        assertTrue(reworded.matches("Amended [0-9a-f]{7} into [0-9a-f]{7} on main \\(ahead 1 of origin/main\\), same "
                + "files, new message\\."), reworded);

        GitFixture.write(colleague, "keep.txt", "kept by alice\n");
        GitFixture.git(colleague, "Alice Archer <alice@example.com>", "commit", "-q", "-am", "Alice's change");
        GitFixture.git(colleague, null, "push", "-q", "origin", "main");
        git("fetch", "-q");
        String amended = commit(Map.of("message", "Mine, reworded again", "amend", true));
        assertTrue(amended.matches("Amended [0-9a-f]{7} into [0-9a-f]{7} on main \\(ahead 1, behind 1 of origin/main\\), "
                + "same files, new message\\."), amended);
        GitFixture.write(root, "src/Main.java", "class Main { }\n");
        String diverged = commit(Map.of("message", "More"));
        assertTrue(diverged.matches("Committed [0-9a-f]{7} on main \\(ahead 2, behind 1 of origin/main\\), 1 file:\n"
                + "src/Main\\.java  \\(modified\\)"), diverged);
    }

    @Test
    void anAmendNamesTheAmendSubjectForRulesAndOnlyAnAmendDoes() throws Exception {
        GitFixture.git(root, "Quinn Tester <quinn@example.com>", "commit", "-q", "--allow-empty", "-m", "mine");
        GitFixture.write(root, "a.txt", "alpha changed\n");
        GitCommitTool tool = new GitCommitTool();
        assertEquals(List.of(Subject.name(GitCommitTool.AMEND), Subject.path("a.txt")),
                tool.subjects(Arguments.of(Map.of("message", "m", "amend", true)), context.workspace()));
        assertEquals("--amend", GitCommitTool.AMEND);
        assertEquals(List.of(Subject.path("a.txt")),
                tool.subjects(Arguments.of(Map.of("message", "m", "amend", false)), context.workspace()));
        assertEquals(List.of(Subject.path("a.txt")), tool.subjects(Arguments.of(Map.of("message", "m")), context.workspace()));
        git("add", "a.txt");
        GitFixture.git(root, "Quinn Tester <quinn@example.com>", "commit", "-q", "-m", "committed");
        assertEquals(List.of(Subject.name("--amend")),
                tool.subjects(Arguments.of(Map.of("message", "reworded", "amend", true)), context.workspace()));
        assertEquals(List.of(), tool.subjects(Arguments.of(Map.of("message", "m")), context.workspace()));
    }

    @Test
    void everyFileTheCommitWouldTakeIsAPathSubjectSecretsIncluded() throws Exception {
        GitFixture.write(root, "a.txt", "alpha changed\n");
        GitFixture.write(root, ".env", "API_KEY=do-not-commit-this\n");
        GitFixture.write(root, "certs/key.pem", "-----BEGIN PRIVATE KEY-----\n");
        Files.delete(root.resolve("gone.txt"));
        GitCommitTool tool = new GitCommitTool();
        assertEquals(List.of(Subject.path(".env"), Subject.path("a.txt"), Subject.path("certs/key.pem"),
                Subject.path("gone.txt")), tool.subjects(Arguments.of(Map.of("message", "m")), context.workspace()));
        assertEquals(List.of(Subject.path("a.txt")),
                tool.subjects(Arguments.of(Map.of("message", "m", "paths", List.of("a.txt", "keep.txt"))), context.workspace()));
        ToolException escape = assertThrows(ToolException.class, () -> tool.subjects(
                Arguments.of(Map.of("message", "m", "paths", List.of("../outside"))), context.workspace()));
        assertTrue(escape.getMessage().startsWith("Path escapes workspace"), escape.getMessage());
    }

    @Test
    void aSecretTheKernelDidNotJudgeIsRefusedByNameAndNothingIsCommitted() throws Exception {
        GitFixture.write(root, "a.txt", "alpha changed\n");
        GitFixture.write(root, ".env", "API_KEY=do-not-commit-this\n");
        GitFixture.write(root, "key.pem", "-----BEGIN PRIVATE KEY-----\n");
        String state = repositoryState();
        // no subjects() first: nothing was judged, so a secret is never committed
        ToolException error = assertThrows(ToolException.class,
                () -> new GitCommitTool().call(Arguments.of(Map.of("message", "with secrets")), context));
        assertTrue(error.getMessage().startsWith(".env, key.pem hold secrets by name, so git_commit does not commit them"),
                error.getMessage());
        assertTrue(error.getMessage().contains("{\"permission\": {\"git_commit\": {\".env\": \"allow\"}}}"), error.getMessage());
        assertTrue(error.getMessage().endsWith("Nothing was committed."), error.getMessage());
        assertEquals(state, repositoryState());
        assertEquals(" M a.txt\n?? .env\n?? key.pem", git("status", "--porcelain").stripTrailing());
    }

    @Test
    void aFileThatAppearsAfterTheJudgmentIsRefusedNotCommitted() throws Exception {
        GitFixture.write(root, "a.txt", "alpha changed\n");
        GitCommitTool tool = new GitCommitTool();
        Arguments arguments = Arguments.of(Map.of("message", "race"));
        assertEquals(List.of(Subject.path("a.txt")), tool.subjects(arguments, context.workspace()));
        GitFixture.write(root, "late.env", "TOKEN=arrived-after-approval\n");
        String state = repositoryState();
        ToolException secret = assertThrows(ToolException.class, () -> tool.call(arguments, context));
        assertTrue(secret.getMessage().startsWith("late.env holds secrets by name"), secret.getMessage());
        assertEquals(state, repositoryState());

        Files.delete(root.resolve("late.env"));
        Arguments again = Arguments.of(Map.of("message", "race"));
        tool.subjects(again, context.workspace());
        GitFixture.write(root, "late.txt", "arrived after approval\n");
        ToolException late = assertThrows(ToolException.class, () -> tool.call(again, context));
        assertEquals("late.txt changed after this commit was approved, so it was not judged with it. Nothing was "
                + "committed; call git_commit again to commit the current changes.", late.getMessage());
        assertEquals(state, repositoryState());
    }

    @Test
    void noHookAndNoFilterDriverEverRuns() throws Exception {
        Path marker = elsewhere.resolve("markers");
        Files.createDirectories(marker);
        installHooks(root.resolve("hooks"), marker);
        git("add", "hooks");
        git("commit", "-q", "-m", "a hooks folder for core.hooksPath");
        installHooks(root.resolve(".git/hooks"), marker);
        for (String kind : List.of("clean", "smudge", "process")) {
            git("config", "filter.evil." + kind, "sh -c 'touch " + marker.resolve("filter-" + kind) + "'");
        }
        GitFixture.write(root, ".gitattributes", "* filter=evil\n");
        // same length as before, so only reading the content can tell it changed
        GitFixture.write(root, "a.txt", "ALPHA\n");
        GitFixture.write(root, "new.txt", "new\n");
        Map<String, String> before = workingTree();

        assertTrue(new GitStatusTool().call(Arguments.empty(), context).text().contains("a.txt  (modified)"));
        assertTrue(new GitDiffTool().call(Arguments.empty(), context).text().contains("+ALPHA"));
        assertTrue(new GitChangedInRefTool().call(Arguments.of(Map.of("ref", "HEAD")), context).text()
                .contains("\nM  a.txt"));
        assertTrue(new GitShowFileTool().call(Arguments.of(Map.of("ref", "HEAD", "path", "a.txt")), context).text()
                .endsWith("1: alpha"));
        String text = commit(Map.of("message", "past the hooks"));
        assertTrue(text.contains("a.txt  (modified)") && text.contains("new.txt  (added)")
                && text.contains(".gitattributes  (added)"), text);
        git("config", "core.hooksPath", "hooks");
        GitFixture.write(root, "a.txt", "again\n");
        commit(Map.of("message", "past core.hooksPath", "amend", true));

        // JGit's own porcelain, on the repository as the tools open it, finds no hook and runs no filter either
        try (GitRepo git = GitRepo.open(context.workspace())) {
            assertEquals(ProcessResult.Status.NOT_PRESENT, git.repository.getFS()
                    .runHookIfPresent(git.repository, "post-commit", new String[0]).getStatus());
            GitFixture.write(root, "a.txt", "porcelain\n");
            Git.wrap(git.repository).add().setWorkingTreeIterator(git.workTree()).addFilepattern("a.txt").call();
            Git.wrap(git.repository).commit().setMessage("through JGit's porcelain").call();
            assertThrows(UnsupportedOperationException.class, () -> git.repository.getFS().runInShell("touch x", new String[0]));
        }
        try (Stream<Path> markers = Files.list(marker)) {
            assertEquals(List.of(), markers.toList(), "a hook or filter ran");
        }
        assertEquals(before.keySet(), workingTree().keySet());
        try (Repository repository = new FileRepositoryBuilder().setGitDir(root.resolve(".git").toFile()).build();
                RevWalk walk = new RevWalk(repository)) {
            RevCommit head = walk.parseCommit(repository.resolve("HEAD~1")); // the amend, below the porcelain commit
            try (TreeWalk tree = TreeWalk.forPath(repository, "a.txt", head.getTree())) {
                assertEquals("again\n", new String(repository.open(tree.getObjectId(0)).getBytes(), StandardCharsets.UTF_8));
            }
        }
    }

    private static void installHooks(Path folder, Path marker) throws Exception {
        Files.createDirectories(folder);
        for (String hook : List.of("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-index-change")) {
            Path script = folder.resolve(hook);
            Files.writeString(script, "#!/bin/sh\ntouch '" + marker.resolve(hook) + "'\n");
            Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    @Test
    void aRequiredFilterIsNeverBypassed() throws Exception {
        Path marker = elsewhere.resolve("lfs-ran");
        git("config", "filter.lfs.clean", "sh -c 'touch " + marker + "'");
        git("config", "filter.lfs.required", "true");
        GitFixture.write(root, ".gitattributes", "*.bin filter=lfs\n");
        git("add", ".gitattributes");
        git("-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "attributes");
        GitFixture.write(root, "blob.bin", "large\n");
        GitFixture.write(root, "a.txt", "alpha changed\n");
        String state = repositoryState();
        ToolException error = assertThrows(ToolException.class, () -> commit(Map.of("message", "with lfs")));
        assertTrue(error.getMessage().startsWith("The repository requires a filter program for blob.bin (filter lfs)"),
                error.getMessage());
        assertEquals(state, repositoryState());
        assertTrue(commit(Map.of("message", "only a", "paths", List.of("a.txt"))).contains("a.txt  (modified)"));
        assertFalse(Files.exists(marker));
    }

    @Test
    void linksAreCommittedAsLinksNeverFollowedOutOfTheWorkspace() throws Exception {
        Path outside = elsewhere.resolve("outside");
        Files.createDirectories(outside);
        Files.writeString(outside.resolve("private.txt"), "outside the workspace\n");
        Files.createSymbolicLink(root.resolve("link"), outside);
        Files.createSymbolicLink(root.resolve("file-link"), outside.resolve("private.txt"));
        commit(Map.of("message", "links"));
        assertEquals("link\nfile-link", String.join("\n", git("ls-tree", "--name-only", "HEAD", "link", "file-link")
                .strip().lines().sorted(java.util.Comparator.reverseOrder()).toList()));
        assertTrue(git("ls-tree", "HEAD", "link").startsWith("120000 blob"));
        assertTrue(git("ls-tree", "HEAD", "file-link").startsWith("120000 blob"));
        assertFalse(git("ls-tree", "-r", "--name-only", "HEAD").contains("private.txt"));
        assertEquals(outside.toString(), git("cat-file", "-p", "HEAD:link"));
    }

    @Test
    void errorsSayWhatWasWrongAndLeaveEverythingAsItWas() throws Exception {
        String state = repositoryState();
        ToolException blank = assertThrows(ToolException.class, () -> commit(Map.of("message", "  \n ")));
        assertEquals("The commit message is empty. Give a message that says what changed and why.", blank.getMessage());
        ToolException nothing = assertThrows(ToolException.class, () -> commit(Map.of("message", "nothing")));
        assertEquals("Nothing to commit: the working tree matches HEAD. git_status shows what changed.", nothing.getMessage());
        GitFixture.write(root, "a.txt", "alpha changed\n");
        ToolException nothingThere = assertThrows(ToolException.class,
                () -> commit(Map.of("message", "nothing", "paths", List.of("src"))));
        assertTrue(nothingThere.getMessage().startsWith("Nothing to commit in src:"), nothingThere.getMessage());
        Files.writeString(root.resolve(".git/MERGE_HEAD"), git("rev-parse", "HEAD"));
        ToolException merge = assertThrows(ToolException.class, () -> commit(Map.of("message", "during a merge")));
        assertTrue(merge.getMessage().startsWith("A merge is in progress"), merge.getMessage());
        Files.delete(root.resolve(".git/MERGE_HEAD"));
        Files.writeString(root.resolve(".git/index.lock"), "");
        ToolException locked = assertThrows(ToolException.class, () -> commit(Map.of("message", "locked")));
        assertTrue(locked.getMessage().startsWith("The git index is locked"), locked.getMessage());
        Files.delete(root.resolve(".git/index.lock"));
        assertEquals(state, repositoryState());
    }

    @Test
    void withoutAnIdentityTheErrorNamesGitConfig() throws Exception {
        git("config", "--unset", "user.name");
        git("config", "--unset", "user.email");
        GitFixture.write(root, "a.txt", "alpha changed\n");
        String state = repositoryState();
        SystemReader real = SystemReader.getInstance();
        SystemReader.setInstance(new SystemReader.Delegate(real) {
            @Override
            public FileBasedConfig openUserConfig(Config parent, FS fs) {
                return new FileBasedConfig(parent, elsewhere.resolve("no-user-config").toFile(), fs);
            }

            @Override
            public FileBasedConfig openSystemConfig(Config parent, FS fs) {
                return new FileBasedConfig(parent, elsewhere.resolve("no-system-config").toFile(), fs);
            }

            @Override
            public FileBasedConfig openJGitConfig(Config parent, FS fs) {
                return new FileBasedConfig(parent, elsewhere.resolve("no-jgit-config").toFile(), fs);
            }

            @Override
            public String getenv(String name) {
                return name.startsWith("GIT_") || name.equals("EMAIL") ? null : real.getenv(name);
            }
        });
        try {
            ToolException error = assertThrows(ToolException.class, () -> commit(Map.of("message", "who am I")));
            assertTrue(error.getMessage().startsWith("git has no identity to commit with: set it with git config "
                    + "user.email"), error.getMessage());
        } finally {
            SystemReader.setInstance(real);
        }
        assertEquals(state, repositoryState());
    }

    @Test
    void aDetachedHeadAndAFirstCommitAreFine(@TempDir Path empty) throws Exception {
        git("checkout", "-q", "--detach");
        GitFixture.write(root, "a.txt", "alpha detached\n");
        String text = commit(Map.of("message", "detached"));
        assertTrue(text.contains(" on a detached HEAD (no branch: create one"), text);

        GitFixture.git(empty, null, "init", "-q", "-b", "trunk");
        GitFixture.git(empty, null, "config", "user.email", "first@example.com");
        GitFixture.git(empty, null, "config", "user.name", "First");
        GitFixture.write(empty, "first.txt", "x\n");
        ToolTestContext fresh = new ToolTestContext(empty);
        GitCommitTool tool = new GitCommitTool();
        Arguments arguments = Arguments.of(Map.of("message", "first"));
        tool.subjects(arguments, fresh.workspace());
        assertTrue(tool.call(arguments, fresh).text().matches("Committed [0-9a-f]{7} on trunk, 1 file:\nfirst\\.txt  \\(added\\)"));
        ToolException amendNothing = assertThrows(ToolException.class, () -> {
            Path other = empty.resolve("sub");
            Files.createDirectories(other);
            GitFixture.git(other, null, "init", "-q");
            GitFixture.git(other, null, "config", "user.email", "x@example.com");
            GitFixture.git(other, null, "config", "user.name", "X");
            new GitCommitTool().call(Arguments.of(Map.of("message", "m", "amend", true)), new ToolTestContext(other));
        });
        assertTrue(amendNothing.getMessage().startsWith("There is no commit to amend"), amendNothing.getMessage());
    }

    @Test
    void outsideARepositoryItSaysSo() throws Exception {
        ToolTestContext outside = new ToolTestContext(elsewhere);
        ToolException error = assertThrows(ToolException.class,
                () -> new GitCommitTool().call(Arguments.of(Map.of("message", "m")), outside));
        assertTrue(error.getMessage().endsWith("was not a git repository (nor inside one) when this session started, so "
                + "the git tools have nothing to read here. A repository made since is used from Quiver's next start."),
                error.getMessage());
        assertArrayEquals(new String[0], elsewhere.toFile().list());
    }
}
