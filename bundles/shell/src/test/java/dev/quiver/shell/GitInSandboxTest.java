package dev.quiver.shell;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Shell;
import dev.quiver.api.Shell.Command;
import dev.quiver.api.Shell.Result;
import dev.quiver.api.ToolException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * git through bash in a real bubblewrap sandbox, on a real repository that committed its {@code .env}
 * and {@code key.pem}: nothing a command does may change the repository or empty a committed secret.
 */
class GitInSandboxTest {

    private static final Duration GENEROUS = Duration.ofSeconds(60);
    private static final String ENV = "API_KEY=committed-secret-value\n";
    private static final String PEM = "-----BEGIN PRIVATE KEY-----\ncommitted-key-body\n-----END PRIVATE KEY-----\n";

    @TempDir
    Path dir;

    @TempDir
    Path state;

    private ProcessShell shell;

    @BeforeEach
    void repository() throws Exception {
        shell = new ProcessShell(state, System.getenv("PATH"));
        git(dir, "init", "-q", "-b", "main");
        Files.writeString(dir.resolve(".env"), ENV);
        Files.writeString(dir.resolve("key.pem"), PEM);
        Files.writeString(dir.resolve("app.txt"), "app\n");
        Files.writeString(dir.resolve(".gitignore"), "local.env\n");
        git(dir, "add", "-A");
        git(dir, "commit", "-q", "-m", "first");
        Files.writeString(dir.resolve("local.env"), "TOKEN=untracked-secret-value\n");
    }

    private Result run(String line) throws ToolException, IOException {
        return shell.run(new Command(line, GENEROUS), TestContext.in(dir));
    }

    @Test
    void gitThroughBashCanNeitherCommitNorEmptyACommittedSecret() throws Exception {
        String head = git(dir, "rev-parse", "HEAD");
        String envBlob = git(dir, "rev-parse", "HEAD:.env");
        String pemBlob = git(dir, "rev-parse", "HEAD:key.pem");
        List<byte[]> before = contents();

        Result status = run("git status");
        assertEquals(0, status.exitCode(), status.stderr());
        assertTrue(status.stdout().contains("nothing to commit, working tree clean"),
                "a tracked secret is shown as it is, so git sees no change: " + status.stdout());
        Result diff = run("git diff --stat; cat .env; wc -c < local.env");
        assertEquals(ENV + "0\n", diff.stdout(), "tracked secret unmasked, untracked one empty: " + diff.stderr());
        Result commit = run("echo change >> app.txt && git add -A && git commit -m x");
        assertNotEquals(0, commit.exitCode());
        assertTrue(commit.stderr().contains("index.lock"), commit.stderr());
        assertTrue(commit.stderr().endsWith(ProcessShell.GIT_COMMIT_HINT + "\n"), commit.stderr());
        assertEquals(1, commit.stderr().split(java.util.regex.Pattern.quote(ProcessShell.GIT_COMMIT_HINT), -1).length - 1,
                "the hint comes once");

        Files.writeString(dir.resolve("app.txt"), "app\n"); // undo the one change the command was allowed
        assertEquals("", git(dir, "status", "--porcelain"));
        assertEquals(head, git(dir, "rev-parse", "HEAD"));
        assertEquals(envBlob, git(dir, "rev-parse", "HEAD:.env"));
        assertEquals(pemBlob, git(dir, "rev-parse", "HEAD:key.pem"));
        List<byte[]> after = contents();
        for (int i = 0; i < before.size(); i++) {
            assertArrayEquals(before.get(i), after.get(i), "file " + i + " is byte for byte as it was");
        }
    }

    @Test
    void aBackgroundGitCommitGetsTheHintToo() throws Exception {
        String handle = shell.start("git add -A", null, TestContext.in(dir)).handle();
        StringBuilder err = new StringBuilder();
        Shell.Poll poll;
        do {
            Thread.sleep(20);
            poll = shell.poll(handle);
            err.append(poll.stderr());
        } while (poll.job().state() == Shell.Job.State.RUNNING);
        assertTrue(err.toString().contains("index.lock") && err.toString().endsWith(ProcessShell.GIT_COMMIT_HINT + "\n"),
                err.toString());
    }

    @Test
    void aCommandThatFailsForOtherReasonsGetsNoHint() throws Exception {
        Result result = run("git log --oneline | wc -l; ls missing");
        assertEquals("1\n", result.stdout());
        assertTrue(!result.stderr().contains(ProcessShell.GIT_COMMIT_HINT), result.stderr());
    }

    @Test
    void gitLinkedOutOfTheWorkspaceIsRefused() throws Exception {
        Path other = Files.createDirectories(state.resolve("real-git"));
        Path workspace = Files.createDirectories(state.resolve("linked"));
        Files.move(dir.resolve(".git"), other.resolve(".git"));
        Files.createSymbolicLink(workspace.resolve(".git"), other.resolve(".git"));
        ToolException refused = assertThrows(ToolException.class,
                () -> shell.run(new Command("touch ran", GENEROUS), TestContext.in(workspace)));
        assertEquals("The workspace's .git is a symbolic link (to " + other.resolve(".git") + "), so the sandbox cannot "
                + "keep it read-only, and no command ran. Replace the link with the folder itself, or open the workspace "
                + "where the folder really is.", refused.getMessage());
        assertTrue(Files.notExists(workspace.resolve("ran")));
    }

    @Test
    void quiverLinkedOutOfTheWorkspaceIsRefused() throws Exception {
        Path settings = Files.createDirectories(state.resolve("settings"));
        Files.createSymbolicLink(dir.resolve(".quiver"), settings);
        ToolException refused = assertThrows(ToolException.class, () -> run("true"));
        assertTrue(refused.getMessage().startsWith("The workspace's .quiver is a symbolic link"), refused.getMessage());
    }

    @Test
    void aWorktreeSeesItsRepositoryReadOnly() throws Exception {
        Path worktree = state.resolve("worktree");
        git(dir, "worktree", "add", "-q", worktree.toString());
        String head = git(dir, "rev-parse", "HEAD");
        Result result = shell.run(new Command("git status --short | wc -l; git log --oneline | wc -l; "
                + "git commit --allow-empty -m x", GENEROUS), TestContext.in(worktree));
        assertTrue(result.stdout().startsWith("0\n1\n"), result.stdout() + result.stderr());
        assertNotEquals(0, result.exitCode());
        assertEquals(head, git(dir, "rev-parse", "HEAD"));
    }

    private List<byte[]> contents() throws IOException {
        List<byte[]> all = new ArrayList<>();
        for (String name : List.of(".env", "key.pem", "app.txt", "local.env", ".gitignore")) {
            all.add(Files.readAllBytes(dir.resolve(name)));
        }
        return all;
    }

    /** Runs git outside the sandbox and returns its output, stripped; fails the test when git fails. */
    static String git(Path directory, String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git", "-c", "user.name=Test", "-c", "user.email=test@example.com",
                "-c", "commit.gpgsign=false"));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new IOException("git " + String.join(" ", arguments) + " failed: " + output);
        }
        return output.strip();
    }
}
