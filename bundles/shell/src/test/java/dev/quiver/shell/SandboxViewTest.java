package dev.quiver.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Shell;
import dev.quiver.api.Shell.Command;
import dev.quiver.api.Shell.Result;
import dev.quiver.api.ToolException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a sandboxed command sees, in a real bubblewrap sandbox: a fake home with credentials in it
 * stands for the user's, passed as {@code HOME} in the environment the kernel hands the shell.
 */
class SandboxViewTest {

    private static final Duration GENEROUS = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @TempDir
    Path state;

    @TempDir
    Path home;

    private ProcessShell shell;
    private TestContext context;

    @BeforeEach
    void open() throws Exception {
        shell = new ProcessShell(state, System.getenv("PATH"));
        Files.createDirectories(home.resolve(".ssh"));
        Files.writeString(home.resolve(".ssh/id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY----- ssh-secret\n");
        Files.createDirectories(home.resolve(".aws"));
        Files.writeString(home.resolve(".aws/credentials"), "aws_secret_access_key = aws-secret\n");
        Files.writeString(home.resolve(".netrc"), "machine example.com password netrc-secret\n");
        Files.createDirectories(home.resolve(".local/state/quiver/sessions"));
        Files.writeString(home.resolve(".local/state/quiver/sessions/other.jsonl"), "another workspace's session\n");
        Files.writeString(home.resolve("notes.txt"), "plain notes\n");
        Files.createDirectories(home.resolve(".m2/repository"));
        Files.writeString(home.resolve(".m2/settings.xml"), "<password>maven-secret</password>\n");
        context = TestContext.in(dir).env("HOME", home.toString());
        context.environment.remove("XDG_STATE_HOME");
        context.environment.remove("XDG_CONFIG_HOME");
        context.environment.remove("XDG_DATA_HOME");
    }

    private Result run(String line) throws ToolException {
        return shell.run(new Command(line, GENEROUS), context);
    }

    @Test
    void homeIsEmptyAndTheUsersCredentialsAreNotThere() throws Exception {
        Result result = run("echo \"$HOME\"; ls -A ~ | wc -l; cat ~/.ssh/id_rsa ~/.aws/credentials ~/.netrc ~/notes.txt; "
                + "echo cat=$?");
        assertEquals(home + "\n0\ncat=1\n", result.stdout(), result.stderr());
        assertFalse(result.stderr().contains("secret"), result.stderr());
    }

    @Test
    void readableParentShowsItsFilesButNeverTheCredentialsOrQuiversData() throws Exception {
        context.shellConfig(Map.of("readable", List.of("~")));
        Result result = run("cat ~/notes.txt; find ~/.ssh ~/.aws ~/.local/state/quiver -mindepth 1 | wc -l; "
                + "wc -c < ~/.netrc; wc -c < ~/.m2/settings.xml; grep -rs secret ~ ; echo grep=$?; "
                + "echo x >> ~/notes.txt; echo write=$?");
        assertEquals("plain notes\n0\n0\n0\ngrep=1\nwrite=1\n", result.stdout(), result.stderr());
        assertEquals("plain notes\n", Files.readString(home.resolve("notes.txt")));
        assertTrue(Files.readString(home.resolve(".ssh/id_rsa")).contains("ssh-secret"), "the host's file is untouched");
    }

    @Test
    void writableCacheIsWrittenThrough() throws Exception {
        context.shellConfig(Map.of("writable", List.of("~/.m2", "~/.gradle")));
        Result result = run("echo jar > ~/.m2/repository/dep.jar && echo wrote; ls ~/.gradle; echo gradle=$?; "
                + "echo x > ~/notes.txt; cat ~/.m2/settings.xml | wc -c");
        assertEquals("wrote\ngradle=2\n0\n", result.stdout(), "a cache this machine lacks is skipped: " + result.stderr());
        assertEquals("jar\n", Files.readString(home.resolve(".m2/repository/dep.jar")));
        assertEquals("plain notes\n", Files.readString(home.resolve("notes.txt")), "the rest of the home is not shown");
        assertTrue(Files.readString(home.resolve(".m2/settings.xml")).contains("maven-secret"));
    }

    @Test
    void writableHomeIsRefusedBecauseItsProfileRunsOutsideTheSandbox() throws Exception {
        context.shellConfig(Map.of("writable", List.of("~")));
        ToolException refused = assertThrows(ToolException.class, () -> run("echo evil >> ~/.bashrc"));
        assertEquals("\"shell\".\"writable\" lists ~, which holds the home folder: a command could plant code there "
                + "(~/.bashrc) that runs outside the sandbox. List the caches themselves, such as ~/.m2 or ~/.npm.",
                refused.getMessage());
        assertFalse(Files.exists(home.resolve(".bashrc")));
    }

    @Test
    void onlyTheSystemFoldersTheWorkspaceAndTheListedOnesExist() throws Exception {
        Path elsewhere = Files.createDirectories(state.resolve("elsewhere"));
        Files.writeString(elsewhere.resolve("shown.txt"), "shown\n");
        // outside /tmp, where the sandbox's private /tmp would hide it anyway
        Result result = run("for p in /usr/bin/git /etc/passwd /var/lib /home /srv /work /mnt; do "
                + "[ -e $p ] && echo \"$p yes\" || echo \"$p no\"; done; wc -c < /etc/shadow");
        assertEquals("/usr/bin/git yes\n/etc/passwd yes\n/var/lib no\n/home no\n/srv no\n/work no\n/mnt no\n"
                + (Files.exists(Path.of("/etc/shadow")) ? "0\n" : ""), result.stdout(), result.stderr());
        context.shellConfig(Map.of("readable", List.of(elsewhere.toString())));
        assertEquals("shown\n", run("cat " + elsewhere.resolve("shown.txt")).stdout());
    }

    @Test
    void javaOnPathRunsInside() throws Exception {
        // the JDK this test runs on, wherever it is installed (/usr/lib/jvm, ~/.sdkman, /opt): put first on PATH
        Path javaBin = Path.of(System.getProperty("java.home"), "bin");
        context.env("PATH", javaBin + ":" + context.environment.get("PATH"));
        Result result = run("java -version 2>&1 | head -1; echo $?");
        assertTrue(result.stdout().contains("version"), result.stdout() + result.stderr());
    }

    @Test
    void commandsGetTheKernelsEnvironmentNotQuiversOwn() throws Exception {
        String hostOnly = System.getenv().keySet().stream()
                .filter(name -> name.matches("[A-Za-z_][A-Za-z0-9_]*") && !Set.of("PATH", "HOME", "TERM", "PWD", "SHLVL",
                        "OLDPWD", "_", "USER", "LOGNAME", "SHELL", "HOSTNAME", "LANG", "MAIL").contains(name))
                .findFirst().orElseThrow();
        context.environment.remove(hostOnly);
        context.env("QUIVER_TEST_PASSED", "from-the-kernel");
        String line = "echo \"[${" + hostOnly + ":-}][$QUIVER_TEST_PASSED]\"";
        assertEquals("[][from-the-kernel]\n", run(line).stdout(), "sandboxed");
        context.shellConfig(Map.of("sandbox", "off"));
        assertEquals("[][from-the-kernel]\n", run(line).stdout(), "unsandboxed");
        String handle = shell.start(line, null, context).handle();
        StringBuilder out = new StringBuilder();
        Shell.Poll poll;
        do {
            Thread.sleep(20);
            poll = shell.poll(handle);
            out.append(poll.stdout());
        } while (poll.job().state() == Shell.Job.State.RUNNING);
        assertEquals("[][from-the-kernel]\n", out.toString(), "in the background");
    }
}
