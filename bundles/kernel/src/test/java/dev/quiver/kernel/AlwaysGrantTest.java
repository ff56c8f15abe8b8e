package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;
import dev.quiver.api.host.CallOutcome.Status;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.TurnListener;
import dev.quiver.kernel.conversation.SessionStore;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * "Always allow" grants live in the session's memory only: an ALWAYS approval through a real
 * {@link KernelSession} and its call chain changes no file of the workspace (the audit log aside)
 * and none under the user's HOME / XDG config, data and state folders, and a new session over the
 * same workspace and configuration asks again.
 */
class AlwaysGrantTest {

    @TempDir
    Path temp;

    private Path root;
    private Path home;
    private Map<String, String> environment;
    private Framework framework;

    /** A command tool that runs nothing: it names its command as its subject and answers with it. */
    static final class Runner implements Tool {
        @Override
        public ToolSpec spec() {
            return new ToolSpec("runner", "Pretend to run a command.",
                    "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":\"string\"}},\"required\":[\"command\"]}");
        }

        @Override
        public List<Subject> subjects(Arguments arguments) throws ToolException {
            return List.of(Subject.command(arguments.string("command")));
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
            return ToolResult.of("ran " + arguments.string("command"));
        }
    }

    /** Answers every approval with one choice and records what was asked. */
    static final class Answer implements TurnListener {
        final List<ApprovalRequest> asked = new ArrayList<>();
        private final Approval approval;

        Answer(Approval approval) {
            this.approval = approval;
        }

        @Override
        public Approval approve(ApprovalRequest request) {
            asked.add(request);
            return approval;
        }
    }

    @BeforeEach
    void setUp() throws Exception {
        root = Files.createDirectories(temp.resolve("workspace")).toRealPath();
        home = Files.createDirectories(temp.resolve("home")).toRealPath();
        environment = Map.of("HOME", home.toString(),
                "XDG_CONFIG_HOME", home.resolve(".config").toString(),
                "XDG_DATA_HOME", home.resolve(".local/share").toString(),
                "XDG_STATE_HOME", home.resolve(".local/state").toString(),
                "XDG_CACHE_HOME", home.resolve(".cache").toString());
        // a workspace that has been used before: its config, its source
        Files.createDirectories(root.resolve(".quiver"));
        Files.writeString(root.resolve(".quiver/config.json"),
                "{\"permission\": {\"runner\": {\"*\": \"ask\", \"git log *\": \"allow\"}}}\n");
        Files.createDirectories(root.resolve("src/a"));
        Files.writeString(root.resolve("src/a/Existing.java"), "class Existing {}\n");
        // the user's config, data and state folders, with a user config file to leave alone
        Files.createDirectories(home.resolve(".config/quiver"));
        Files.writeString(home.resolve(".config/quiver/config.json"), "{\"toolTimeout\": 30}\n");
        Files.createDirectories(home.resolve(".local/share"));
        Files.createDirectories(home.resolve(".local/state"));
        framework = new Framework();
        framework.register(new CallChainTest.PathTool("writer"), "writer", "write");
        framework.register(new Runner(), "runner", "execute");
    }

    @AfterEach
    void tearDown() throws Exception {
        framework.close();
    }

    private KernelSession open(boolean interactive) throws IOException {
        Workspace workspace = new WorkspaceFactoryComponent().open(root);
        SessionOptions options = new SessionOptions(root, Optional.empty(), false, interactive, false, Optional.empty(),
                Optional.empty(), Optional.empty());
        return new KernelSession(workspace, options, Config.load(Optional.empty(), root, environment), framework.registry,
                name -> Optional.empty(), List::of, SessionStore.fromEnvironment(environment), tool -> false, () -> { });
    }

    /** Every file and folder below a folder: its relative path, and its kind, size and content hash. */
    private static Map<String, String> tree(Path folder) throws Exception {
        Map<String, String> entries = new TreeMap<>();
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        try (Stream<Path> walk = Files.walk(folder)) {
            for (Path path : walk.toList()) {
                String relative = folder.relativize(path).toString();
                if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
                    entries.put(relative + "/", "folder");
                } else {
                    byte[] content = Files.readAllBytes(path);
                    entries.put(relative, content.length + " bytes, sha256 " + HexFormat.of().formatHex(sha.digest(content))
                            + ", modified " + Files.getLastModifiedTime(path, LinkOption.NOFOLLOW_LINKS).toMillis());
                }
            }
        }
        return entries;
    }

    @Test
    void anAlwaysGrantIsWrittenNowhereAndANewSessionAsksAgain() throws Exception {
        Map<String, String> workspaceBefore = tree(root);
        Map<String, String> homeBefore = tree(home);

        Answer always = new Answer(Approval.always());
        try (KernelSession session = open(true)) {
            assertEquals(Status.OK, session.call("writer", "{\"path\":\"src/a/One.java\"}", always).status());
            assertEquals(Optional.of("src/a/*"), always.asked.get(0).pattern());
            assertEquals(Status.OK, session.call("writer", "{\"path\":\"src/a/Two.java\"}", always).status());
            assertEquals(Status.OK, session.call("runner", "{\"command\":\"git status --porcelain\"}", always).status());
            assertEquals(Optional.of("git status *"), always.asked.get(1).pattern());
            assertEquals(Status.OK, session.call("runner", "{\"command\":\"git status\"}", always).status());
            assertEquals(2, always.asked.size(), "the grants covered the second call of each: " + always.asked);
            assertEquals(Decision.ALLOW, session.check("writer", "{\"path\":\"src/a/Three.java\"}").decision(),
                    "the grant holds for the rest of the session");
        }

        assertEquals(workspaceBefore, tree(root), "nothing in the workspace was created or changed");
        Path audit = SessionStore.fromEnvironment(environment).stateFolder(root).resolve("audit.jsonl");
        Map<String, String> homeAfter = tree(home);
        String auditName = home.relativize(audit).toString();
        assertTrue(homeAfter.containsKey(auditName), "the calls were audited in the state folder: " + homeAfter.keySet());
        // the checkpoints taken before the writes hold the workspace's files and the tools' names, no grant
        String checkpoints = home.relativize(audit.resolveSibling(dev.quiver.kernel.checkpoint.Checkpoints.FOLDER))
                + "/";
        homeAfter.keySet().removeIf(name -> !homeBefore.containsKey(name)
                && (auditName.equals(name) || auditName.startsWith(name) && name.endsWith("/")
                        || name.startsWith(checkpoints)));
        assertEquals(homeBefore, homeAfter, "nothing under HOME or the XDG config, data and state folders but the "
                + "audit log and the checkpoints was created or changed");
        String log = Files.readString(audit);
        assertFalse(log.contains("src/a/*") || log.contains("git status *"), "the audit log holds no grant: " + log);

        Answer once = new Answer(Approval.once());
        try (KernelSession next = open(true)) {
            assertEquals(Decision.ASK, next.check("writer", "{\"path\":\"src/a/Three.java\"}").decision());
            assertEquals(Decision.ASK, next.check("runner", "{\"command\":\"git status\"}").decision());
            assertEquals(Status.OK, next.call("writer", "{\"path\":\"src/a/Three.java\"}", once).status());
            assertEquals(Status.OK, next.call("runner", "{\"command\":\"git status --short\"}", once).status());
            assertEquals(2, once.asked.size(), "a new session over the same workspace asks again: " + once.asked);
        }
        try (KernelSession headless = open(false)) {
            assertEquals(Status.DENIED, headless.call("writer", "{\"path\":\"src/a/Four.java\"}", new TurnListener() { })
                    .status(), "no grant survives into a headless session either");
        }
    }
}
