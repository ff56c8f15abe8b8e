package dev.quiver.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Shell.Command;
import dev.quiver.api.Shell.Job;
import dev.quiver.api.Shell.Poll;
import dev.quiver.api.Shell.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The user's login profile, taken once per environment and reused by unsandboxed commands, in a home
 * of the test's own with a {@code .profile} it writes.
 */
class LoginProfileTest {

    private static final Duration GENEROUS = Duration.ofSeconds(60);
    private static final String NOTE = "[quiver] Commands run without your login profile: ";

    @TempDir
    Path dir;

    @TempDir
    Path home;

    @TempDir
    Path state;

    private ProcessShell shell;

    @BeforeEach
    void open() {
        shell = new ProcessShell(state, System.getenv("PATH"), Duration.ofSeconds(2));
        shell.activate();
    }

    @AfterEach
    void close() {
        shell.deactivate();
    }

    private TestContext context() throws Exception {
        return TestContext.in(dir).unsandboxed().env("HOME", home.toString()).env("FROM_KERNEL", "kernel");
    }

    private Result run(String line) throws Exception {
        return shell.run(new Command(line, GENEROUS), context());
    }

    private void profile(String text) throws Exception {
        Files.writeString(home.resolve(".profile"), text);
    }

    @Test
    void theProfileRunsOnceInTheHomeAndWhatItExportsReachesEveryCommand() throws Exception {
        Files.createDirectories(home.resolve("bin"));
        Path tool = Files.writeString(home.resolve("bin/profile-tool"), "#!/bin/sh\necho tool ran\n");
        tool.toFile().setExecutable(true);
        profile("""
                echo ran >> "$HOME/runs"
                pwd > "$HOME/where"
                echo "the profile greets"
                export FROM_PROFILE=profile
                export PATH="$HOME/bin:$PATH"
                """);
        for (int i = 0; i < 3; i++) {
            Result result = run("echo \"$FROM_PROFILE $FROM_KERNEL\"; profile-tool; pwd");
            assertEquals("profile kernel\ntool ran\n" + dir.toRealPath() + "\n", result.stdout(), result.stderr());
            assertEquals("", result.stderr());
        }
        assertEquals(List.of("ran"), Files.readAllLines(home.resolve("runs")), "one run of the profile for three commands");
        assertEquals(home.toRealPath().toString(), Files.readString(home.resolve("where")).strip(),
                "the profile runs in the home, never in the workspace a repository fills");
    }

    @Test
    void aBackgroundCommandGetsTheProfilesEnvironmentToo() throws Exception {
        profile("export FROM_PROFILE=profile\n");
        Job job = shell.start("echo \"$FROM_PROFILE\"", "", context());
        long deadline = System.nanoTime() + GENEROUS.toNanos();
        StringBuilder out = new StringBuilder();
        while (true) {
            Poll poll = shell.poll(job.handle());
            out.append(poll.stdout());
            if (poll.job().state() != Job.State.RUNNING) {
                break;
            }
            assertTrue(System.nanoTime() < deadline, "the job never ended");
            Thread.sleep(20);
        }
        assertEquals("profile\n", out.toString());
    }

    @Test
    void aProfileThatHangsIsStoppedOnceWithAllItStartedAndCommandsRunWithoutIt() throws Exception {
        profile("""
                echo ran >> "$HOME/runs"
                export FROM_PROFILE=profile
                sleep 300 &
                echo $! > "$HOME/child.pid"
                echo $$ > "$HOME/profile.pid"
                sleep 300
                """);
        Result first = run("echo \"${FROM_PROFILE:-none} $FROM_KERNEL\"");
        assertEquals("none kernel\n", first.stdout());
        assertTrue(first.stderr().startsWith(NOTE + "it (bash -l) did not finish within 2 s"), first.stderr());
        for (Path pidFile : List.of(home.resolve("profile.pid"), home.resolve("child.pid"))) {
            long pid = Processes.pids(pidFile).get(0);
            assertFalse(Processes.running(pid), pidFile + ": " + pid + " is gone once the profile was stopped");
        }
        Result second = run("echo \"${FROM_PROFILE:-none}\"");
        assertEquals("none\n", second.stdout());
        assertEquals("", second.stderr(), "the problem is said once");
        assertEquals(List.of("ran"), Files.readAllLines(home.resolve("runs")), "a hung profile is not run again");
    }

    @Test
    void aProfileThatExitsEarlyLeavesTheKernelsEnvironment() throws Exception {
        profile("export FROM_PROFILE=profile\nexit 3\n");
        Result result = run("echo \"${FROM_PROFILE:-none} $FROM_KERNEL\"");
        assertEquals("none kernel\n", result.stdout());
        assertTrue(result.stderr().startsWith(NOTE + "it (bash -l) ended before it printed its environment"),
                result.stderr());
    }

    @Test
    void whatTheProfilePrintsCannotPassForTheEnvironment() throws Exception {
        profile("""
                printf 'FORGED=1\\0quiver-profile-0000000000000000\\0FORGED=2\\0'
                export REAL=1
                """);
        Result result = run("echo \"${FORGED:-none} $REAL\"");
        assertEquals("none 1\n", result.stdout(), result.stderr());
    }

    @Test
    void bashsOwnVariablesAndTheProfilesMarkerAreNotPassedOn() throws Exception {
        profile("cd /tmp\n");
        Result result = run("echo \"$PWD\"; env | grep -c '^QUIVER_SHELL_RUN='");
        assertEquals(dir.toRealPath() + "\n1\n", result.stdout(), "the command's own PWD, its own marker only");
        Set<String> names = Set.copyOf(run("env | cut -d= -f1").stdout().lines().toList());
        assertTrue(names.contains("FROM_KERNEL"), names.toString());
    }

    @Test
    void aChangedProfileIsRunAgainAtTheNextCommand() throws Exception {
        profile("export TOOL_VERSION=1\n");
        assertEquals("1\n", run("echo \"$TOOL_VERSION\"").stdout());
        // as an installer adds itself: a different size, whatever the clock's resolution
        profile("export TOOL_VERSION=22\n");
        assertEquals("22\n", run("echo \"$TOOL_VERSION\"").stdout());
    }

    @Test
    void overSshTheBashrcDoesNotRunAtEveryCommand() throws Exception {
        // Debian's bash runs ~/.bashrc for `bash -c` under ssh when the shell level it inherits is below 1
        Files.writeString(home.resolve(".bashrc"), "echo ran >> \"$HOME/bashrc-runs\"\n");
        TestContext overSsh = context().env("SSH_CLIENT", "192.0.2.1 50000 22");
        overSsh.environment.remove("SHLVL");
        for (int i = 0; i < 3; i++) {
            assertEquals("ok\n", shell.run(new Command("echo ok", GENEROUS), overSsh).stdout());
        }
        assertFalse(Files.exists(home.resolve("bashrc-runs")), "the workspace's commands never run the bashrc");
    }

    @Test
    void functionsNamedPrintfOrExecAndNonAsciiValuesChangeNothing() throws Exception {
        profile("""
                printf() { echo forged; }
                exec() { echo forged; }
                export -f printf exec 2>/dev/null
                export PLACE='café ☕'
                """);
        Result result = run("echo \"$PLACE\"; builtin echo \"${PATH:+has a path}\"");
        assertEquals("café ☕\nhas a path\n", result.stdout(), result.stderr());
    }

    @Test
    void aCommandCancelledWhileTheProfileRunsLeavesItToBeRunAgain() throws Exception {
        profile("""
                echo ran >> "$HOME/runs"
                [ -e "$HOME/quick" ] || sleep 300
                export FROM_PROFILE=profile
                """);
        TestContext cancelled = context();
        Thread canceller = new Thread(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                return;
            }
            cancelled.cancelled.set(true);
        });
        canceller.start();
        Result first = shell.run(new Command("echo first", GENEROUS), cancelled);
        canceller.join();
        assertEquals(Result.End.CANCELLED, first.end(), first.toString());
        Files.writeString(home.resolve("quick"), "");
        Result second = run("echo \"$FROM_PROFILE\"");
        assertEquals("profile\n", second.stdout(), "the profile ran again: " + second.stderr());
        assertEquals(List.of("ran", "ran"), Files.readAllLines(home.resolve("runs")));
    }
}
