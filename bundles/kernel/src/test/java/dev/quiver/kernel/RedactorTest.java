package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Workspace;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The values of known secrets never leave a tool result whole, whichever route brought them. */
class RedactorTest {

    @TempDir
    Path root;

    private Redactor redactor(Map<String, String> environment) throws Exception {
        Workspace workspace = new WorkspaceFactoryComponent().open(root);
        return new Redactor(workspace, environment);
    }

    @Test
    void valuesOfSecretFilesAndOfTheScrubbedEnvironmentAreReplacedWithTheirSource() throws Exception {
        Files.writeString(root.resolve(".env"), "# local settings\nexport DB_PASSWORD=\"hunter2-but-longer\"\n"
                + "API_KEY: sk-live-0123456789abcdef\nDEBUG=true\nPORT=3306\n");
        Files.createDirectories(root.resolve("config/secrets"));
        Files.writeString(root.resolve("config/secrets/server.key"), "-----BEGIN PRIVATE KEY-----\n"
                + "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n");
        Files.writeString(root.resolve(".gitignore"), "config/secrets/\n.env\n");
        Redactor redactor = redactor(Map.of("OPENAI_API_KEY", "sk-proj-abcdefghijklmnop", "SHORT_TOKEN", "abc"));

        String output = "password hunter2-but-longer, key sk-live-0123456789abcdef, "
                + "body MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7, env sk-proj-abcdefghijklmnop, "
                + "debug true, port 3306, short abc, -----BEGIN PRIVATE KEY-----";
        assertEquals("password [redacted: .env], key [redacted: .env], "
                + "body [redacted: config/secrets/server.key], env [redacted: $OPENAI_API_KEY], "
                + "debug true, port 3306, short abc, -----BEGIN PRIVATE KEY-----", redactor.redact(output),
                "short values and the key's armour lines are not secrets worth breaking every output for");
    }

    /**
     * A cancelled tool's thread is interrupted, and an interrupt stops a walk: the first look for secret
     * files must still run to its end there, or that output went out with only the environment's values
     * redacted (review). The thread's interrupt is kept.
     */
    @Test
    void anInterruptedThreadStillRedactsTheSecretFilesValues() throws Exception {
        Files.writeString(root.resolve(".env"), "API_KEY=sk-live-0123456789abcdef\n");
        Redactor redactor = redactor(Map.of());
        Thread.currentThread().interrupt();
        try {
            assertEquals("key [redacted: .env]", redactor.redact("key sk-live-0123456789abcdef"));
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept for the caller");
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void aSecretFileWrittenOrChangedLaterIsRedactedAfterTheNextRefresh() throws Exception {
        Redactor redactor = redactor(Map.of());
        assertEquals("token abcdefgh12345678", redactor.redact("token abcdefgh12345678"));
        Files.writeString(root.resolve("prod.env"), "TOKEN=abcdefgh12345678\n");
        redactor.refresh();
        assertEquals("token [redacted: prod.env]", redactor.redact("token abcdefgh12345678"));
        Files.writeString(root.resolve("prod.env"), "TOKEN=zyxwvuts87654321xx\n");
        redactor.refresh();
        assertEquals("old abcdefgh12345678 new [redacted: prod.env]",
                redactor.redact("old abcdefgh12345678 new zyxwvuts87654321xx"));
    }

    @Test
    void aLongerValueIsReplacedWholeEvenWhenAShorterOneIsPartOfIt() throws Exception {
        Files.writeString(root.resolve(".env"), "A=abcdefgh\nB=abcdefgh-and-more\n");
        String redacted = redactor(Map.of()).redact("abcdefgh-and-more");
        assertEquals("[redacted: .env]", redacted);
        assertFalse(redacted.contains("and-more"));
        assertTrue(redactor(Map.of()).redact("").isEmpty());
    }

    @Test
    void aPlantedSecretFileCannotBlankCodeFromTheModelsView() throws Exception {
        Files.createDirectories(root.resolve("test/fixtures"));
        Files.writeString(root.resolve("test/fixtures/sample.env"), "os.system(req.args[\"cmd\"])  # backdoor\n"
                + "HOOK=eval(atob(payload))\nNOTE=some words with spaces\nTOKEN=tok_0123456789abcdef\n");
        String code = "def handler(req):\n    os.system(req.args[\"cmd\"])  # backdoor\n    eval(atob(payload))\n"
                + "    # some words with spaces\n    auth = 'tok_0123456789abcdef'\n";
        assertEquals(code.replace("tok_0123456789abcdef", "[redacted: test/fixtures/sample.env]"),
                redactor(Map.of()).redact(code), "only the secret-shaped value is redacted");
    }

    @Test
    void theCommittedValueOfATrackedSecretIsRedactedAfterALocalEdit() throws Exception {
        Files.writeString(root.resolve(".env"), "API_KEY=committed-0123456789\n");
        git("init", "-q");
        git("add", ".env");
        git("-c", "user.email=a@b.c", "-c", "user.name=a", "commit", "-q", "-m", "oops");
        Files.writeString(root.resolve(".env"), "API_KEY=rotated-9876543210\n"); // git diff now prints both
        assertEquals("-API_KEY=[redacted: .env] +API_KEY=[redacted: .env]",
                redactor(Map.of()).redact("-API_KEY=committed-0123456789 +API_KEY=rotated-9876543210"));
    }

    @Test
    void aSecretNamedLinkToAKernelFileOrAPipeNeverBlocksTheLook() throws Exception {
        Path kmsg = Path.of("/proc/kmsg");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(kmsg), "no readable /proc/kmsg here");
        Files.createSymbolicLink(root.resolve("kernel.env"), kmsg); // a regular file of size 0 whose read blocks
        assertEquals(0, new ProcessBuilder("mkfifo", root.resolve("pipe.env").toString()).start().waitFor());
        Files.writeString(root.resolve("real.env"), "KEY=abcdefgh12345678\n");
        Redactor redactor = redactor(Map.of());
        String redacted = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(10),
                () -> redactor.redact("abcdefgh12345678"));
        assertEquals("[redacted: real.env]", redacted);
    }

    private void git(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).directory(root.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertEquals(0, process.waitFor(), output);
    }
}
