package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.http.client.jdk.JdkHttpClient;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.TurnResult;
import dev.quiver.api.host.Usage;
import dev.quiver.kernel.conversation.SessionStore;
import dev.quiver.langchain4j.ModelProvider;
import dev.quiver.langchain4j.ModelSettings;
import dev.quiver.testing.OpenAiStub;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Subagents in real sessions against the scripted OpenAI server: what a child is offered on the wire,
 * that its calls go through the parent's rules, approval and audit log, what the parent gets back, and
 * how a step cap, a failure and a cancel end it.
 */
class SubagentTest {

    @TempDir
    Path temp;

    private Path root;
    private Map<String, String> environment;
    private Framework framework;
    private CallChainTest.PathTool writer;

    /** Starts a subagent as the agent set's {@code task} does. */
    static final class Delegating implements Tool {
        private final String name;

        Delegating(String name) {
            this.name = name;
        }

        @Override
        public ToolSpec spec() {
            return new ToolSpec(name, "Hand a task to a subagent.", "{\"type\":\"object\",\"properties\":{"
                    + "\"description\":{\"type\":\"string\"},\"prompt\":{\"type\":\"string\"},"
                    + "\"kind\":{\"type\":\"string\"}},\"required\":[\"description\",\"prompt\"]}");
        }

        @Override
        public List<Subject> subjects(Arguments arguments) {
            return List.of();
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
            ToolContext.SubagentKind kind = ToolContext.SubagentKind.valueOf(
                    arguments.string("kind", "explore").toUpperCase(java.util.Locale.ROOT));
            return ToolResult.of(context.runSubagent(arguments.string("description"), kind, arguments.string("prompt")));
        }
    }

    /** A read tool whose result the model writes: its question is a request of the parent's turn too. */
    private static final class Asking implements Tool {
        @Override
        public ToolSpec spec() {
            return new ToolSpec("summarise", "Summarise.", "{\"type\":\"object\",\"properties\":{}}");
        }

        @Override
        public List<Subject> subjects(Arguments arguments) {
            return List.of();
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
            return ToolResult.of(context.askModel("Summarise.", "text"));
        }
    }

    @BeforeEach
    void start() throws Exception {
        root = Files.createDirectories(temp.resolve("workspace")).toRealPath();
        environment = StubSessions.environment(temp);
        framework = new Framework();
        framework.register(new Delegating("task"), "task", "state");
        // a read tool that starts a subagent too: the chain, not only the offer, keeps children from having children
        framework.register(new Delegating("nested"), "nested", "read");
        framework.register(new TestTools.Echo("reader"), "reader", "read");
        writer = new CallChainTest.PathTool("writer");
        framework.register(writer, "writer", "write");
        framework.register(new CallChainTest.PathTool("runner"), "runner", "execute");
        framework.register(new CallChainTest.PathTool("fetcher"), "fetcher", "network");
        framework.register(new CallChainTest.PathTool("jot"), "jot", "state");
        framework.register(new Asking(), "summarise", "read");
    }

    @AfterEach
    void stop() throws Exception {
        framework.close();
    }

    /** The user's config file: its permission table. */
    private void userRules(String permission) throws Exception {
        userConfig("{\"permission\": " + permission + "}");
    }

    private void userConfig(String json) throws Exception {
        Path config = Files.createDirectories(Path.of(environment.get("XDG_CONFIG_HOME")).resolve("quiver"));
        Files.writeString(config.resolve("config.json"), json + "\n");
    }

    private KernelSession open(OpenAiStub stub, boolean interactive) throws Exception {
        return StubSessions.open(root, environment, framework, StubSessions.provider(stub), new SessionOptions(root, Optional.empty(),
                false, interactive, false, Optional.of("openai/test"), Optional.empty(), Optional.empty()));
    }

    @Test
    void aChildsPromptCarriesTheProjectsInstructionsAndTheUsersAppendedTextBeforeItsOwnParagraph() throws Exception {
        Files.writeString(root.resolve("AGENTS.md"), "Run the tests with make t-73.\n");
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("task", task("look around", "explore", "Where is main?"))),
                OpenAiStub.text("main is in src/Main.java"),
                OpenAiStub.text("done"))) {
            KernelSession session = StubSessions.open(root, environment, framework, StubSessions.provider(stub), new SessionOptions(root,
                    Optional.empty(), false, false, false, Optional.of("openai/test"), Optional.empty(), Optional.empty(),
                    false, false, new dev.quiver.api.host.RunOptions(50, java.util.Map.of(), java.util.Map.of(),
                            Optional.of("Never touch vendor-41/."))));
            assertEquals("done", session.send("find main", new TurnListener() { }).answer());
            String child = stub.requests().get(1).path("messages").get(0).path("content").asText();
            assertTrue(child.contains("Run the tests with make t-73."), child);
            int user = child.indexOf("Never touch vendor-41/.");
            assertTrue(user >= 0 && user < child.indexOf("You are a subagent"), child);
        }
    }

    private static List<String> toolNames(JsonNode request) {
        List<String> names = new ArrayList<>();
        request.path("tools").forEach(tool -> names.add(tool.path("function").path("name").asText()));
        return names;
    }

    private static String task(String description, String kind, String prompt) {
        return "{\"description\":\"" + description + "\",\"kind\":\"" + kind + "\",\"prompt\":\"" + prompt + "\"}";
    }

    /** The text of the last tool result a request carries. */
    private static String lastToolResult(JsonNode request) {
        String found = null;
        for (JsonNode message : request.path("messages")) {
            if (message.path("role").asText().equals("tool")) {
                found = message.path("content").asText();
            }
        }
        return found;
    }

    private List<String> auditLines() throws Exception {
        Path audit = SessionStore.fromEnvironment(environment).stateFolder(root).resolve("audit.jsonl");
        return Files.exists(audit) ? Files.readAllLines(audit) : List.of();
    }

    @Test
    void anExploreChildIsOfferedOnlyReadToolsOnTheWireEvenWhereTheConfigAllowsTheRestAndTheParentGetsOnlyItsReport()
            throws Exception {
        userRules("{\"writer\": {\"*\": \"allow\"}, \"runner\": {\"*\": \"allow\"}, \"fetcher\": {\"*\": \"allow\"}}");
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("task", task("look around", "explore", "Where is main?"))),
                OpenAiStub.calls(OpenAiStub.call("reader", "{\"text\":\"child-only-output-31\"}")),
                OpenAiStub.calls(OpenAiStub.call("nested", task("deeper", "explore", "go on"))),
                OpenAiStub.text("main is in src/Main.java"),
                OpenAiStub.text("done"))) {
            KernelSession session = open(stub, false);
            List<Usage> usages = new CopyOnWriteArrayList<>();
            List<String> streamed = new CopyOnWriteArrayList<>();
            TurnResult result = session.send("find main", new TurnListener() {
                @Override
                public void usage(Usage usage) {
                    usages.add(usage);
                }

                @Override
                public void callOutput(String tool, String text) {
                    streamed.add(tool + ": " + text);
                }
            });
            assertEquals("done", result.answer());
            List<JsonNode> requests = stub.requests();
            assertEquals(5, requests.size());
            List<String> parentTools = toolNames(requests.get(0));
            assertTrue(parentTools.containsAll(List.of("task", "writer", "runner", "fetcher", "jot")), parentTools.toString());
            for (int child = 1; child <= 3; child++) {
                assertEquals(List.of("nested", "reader", "summarise"), toolNames(requests.get(child)).stream().sorted().toList(),
                        "the child was offered a tool that writes, runs, reaches the network, keeps state or starts "
                                + "a subagent: " + requests.get(child).path("tools"));
            }
            JsonNode first = requests.get(1).path("messages");
            assertEquals(2, first.size(), "the child starts with its own context: " + first);
            assertTrue(first.get(0).path("content").asText().contains("You are a subagent"), first.toString());
            assertEquals("Where is main?", first.get(1).path("content").asText());
            assertTrue(lastToolResult(requests.get(3)).contains("A subagent cannot start another subagent"),
                    lastToolResult(requests.get(3)));

            String report = lastToolResult(requests.get(4));
            assertEquals("Subagent 'look around' (explore) finished in 3 steps with 2 calls. Its report:\n\n"
                    + "main is in src/Main.java", report);
            assertFalse(requests.get(4).toString().contains("child-only-output-31"),
                    "the child's transcript reached the parent");
            assertEquals(1, result.calls().size());
            assertEquals(CallOutcome.Status.OK, result.calls().get(0).status());

            assertEquals(5, usages.size(), "every request, the child's too, counts in the parent's turn");
            assertEquals(50, result.usage().inputTokens());
            assertEquals(25, result.usage().outputTokens());
            Path sessionFile;
            try (Stream<Path> files = Files.walk(temp.resolve("home"))) {
                sessionFile = files.filter(path -> path.toString().endsWith(session.id() + ".jsonl")).findFirst()
                        .orElseThrow();
            }
            String recorded = Files.readString(sessionFile);
            assertEquals(5, recorded.split("\"type\":\"usage\"", -1).length - 1, recorded);
            assertFalse(recorded.contains("child-only-output-31") || recorded.contains("You are a subagent"),
                    "the child's conversation went into the session's: " + recorded);
            assertTrue(streamed.stream().anyMatch(line -> line.startsWith("task: [look around] reader ")),
                    streamed.toString());
            assertTrue(streamed.stream().anyMatch(line -> line.startsWith("task: [look around] reader: ok in ")),
                    streamed.toString());
        }
    }

    @Test
    void aWorkersCallThatAParentDenyRuleRefusesIsDeniedAndAuditedWithItsLabel() throws Exception {
        userRules("{\"writer\": {\"*\": \"deny\"}}");
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("task", task("write notes", "worker", "Write a.txt"))),
                OpenAiStub.calls(OpenAiStub.call("writer", "{\"path\":\"a.txt\"}")),
                OpenAiStub.text("could not write a.txt"),
                OpenAiStub.text("done"))) {
            KernelSession session = open(stub, true);
            List<ApprovalRequest> asked = new CopyOnWriteArrayList<>();
            session.send("write it", new TurnListener() {
                @Override
                public Approval approve(ApprovalRequest request) {
                    asked.add(request);
                    return Approval.once();
                }
            });
            List<JsonNode> requests = stub.requests();
            assertTrue(toolNames(requests.get(1)).containsAll(List.of("writer", "runner", "fetcher")),
                    "a worker holds the parent's write tools: " + toolNames(requests.get(1)));
            assertFalse(toolNames(requests.get(1)).contains("task"));
            String denied = lastToolResult(requests.get(2));
            assertTrue(denied.startsWith("Refused (rule): "), denied);
            assertEquals(0, writer.calls.get(), "the denied call reached the tool");
            assertEquals(List.of(), asked, "a deny rule is not asked about");
            List<String> writes = auditLines().stream().filter(line -> line.contains("\"tool\":\"writer\"")).toList();
            assertEquals(1, writes.size(), auditLines().toString());
            JsonNode line = Json.MAPPER.readTree(writes.get(0));
            assertEquals("deny", line.path("decision").asText());
            assertEquals("rule", line.path("by").asText());
            assertEquals("write notes", line.path("subagent").asText());
            assertTrue(auditLines().stream().filter(l -> l.contains("\"tool\":\"task\""))
                    .noneMatch(l -> l.contains("subagent")), "the parent's own call is not marked as a subagent's");
        }
    }

    @Test
    void aWorkersCallThatAsksGoesToTheParentsApprovalNamingTheSubagent() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("task", task("write notes", "worker", "Write a.txt"))),
                OpenAiStub.calls(OpenAiStub.call("writer", "{\"path\":\"a.txt\"}")),
                OpenAiStub.text("wrote a.txt"),
                OpenAiStub.text("done"))) {
            KernelSession session = open(stub, true);
            List<ApprovalRequest> asked = new CopyOnWriteArrayList<>();
            session.send("write it", new TurnListener() {
                @Override
                public Approval approve(ApprovalRequest request) {
                    asked.add(request);
                    return Approval.once();
                }
            });
            assertEquals(1, asked.size());
            assertEquals("writer", asked.get(0).tool());
            assertEquals("a.txt", asked.get(0).subject());
            assertTrue(asked.get(0).verdict().reason().startsWith("subagent 'write notes': "),
                    asked.get(0).verdict().reason());
            assertEquals(1, writer.calls.get());
            assertEquals("used a.txt", lastToolResult(stub.requests().get(2)));
            JsonNode line = Json.MAPPER.readTree(auditLines().stream().filter(l -> l.contains("\"tool\":\"writer\""))
                    .findFirst().orElseThrow());
            assertEquals("allow", line.path("decision").asText());
            assertEquals("user", line.path("by").asText());
            assertEquals("write notes", line.path("subagent").asText());
        }
    }

    @Test
    void aReadOnlySessionsWorkerHoldsNoWriteTool() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("task", task("write notes", "worker", "Write a.txt"))),
                OpenAiStub.text("I cannot write"),
                OpenAiStub.text("done"))) {
            ModelProvider provider = new ModelProvider() {
                @Override
                public ChatModel chatModel(ModelSettings settings) {
                    return OpenAiChatModel.builder().httpClientBuilder(JdkHttpClient.builder()).baseUrl(stub.baseUrl())
                            .apiKey("test").modelName(settings.name()).maxRetries(0).build();
                }

                @Override
                public StreamingChatModel streamingChatModel(ModelSettings settings) {
                    return null;
                }
            };
            KernelSession session = StubSessions.open(root, environment, framework, provider, new SessionOptions(root,
                    Optional.empty(), false, true, true, Optional.of("openai/test"), Optional.empty(), Optional.empty()));
            session.send("write it", new TurnListener() { });
            assertEquals(List.of("nested", "reader", "summarise"), toolNames(stub.requests().get(1)).stream().sorted().toList());
        }
    }

    @Test
    void aQuestionAChildsToolAsksTheModelCountsOnceInTheParentsTurn() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("task", task("sum", "explore", "Summarise"))),
                OpenAiStub.calls(OpenAiStub.call("summarise", "{}")),
                OpenAiStub.text("a summary"),
                OpenAiStub.text("the summary is: a summary"),
                OpenAiStub.text("done"))) {
            List<Usage> usages = new CopyOnWriteArrayList<>();
            TurnResult result = open(stub, false).send("go", new TurnListener() {
                @Override
                public void usage(Usage usage) {
                    usages.add(usage);
                }
            });
            assertEquals(5, stub.requests().size());
            assertEquals("a summary", lastToolResult(stub.requests().get(3)));
            assertEquals(5, usages.size());
            assertEquals(50, result.usage().inputTokens(), "each of the 5 requests counts once");
            assertEquals(25, result.usage().outputTokens());
        }
    }

    @Test
    void aChildAtItsStepCapOrWhoseModelFailsGivesTheParentAClearError() throws Exception {
        List<OpenAiStub.Reply> script = new ArrayList<>();
        script.add(OpenAiStub.calls(OpenAiStub.call("task", task("loop", "explore", "Keep reading"))));
        for (int step = 0; step < Subagents.STEP_CAP; step++) {
            script.add(OpenAiStub.calls(OpenAiStub.call("reader", "{\"text\":\"page " + step + "\"}")));
        }
        script.add(OpenAiStub.text("gave up"));
        script.add(OpenAiStub.calls(OpenAiStub.call("task", task("broken", "explore", "Try"))));
        script.add(OpenAiStub.failure(400, "context length exceeded"));
        script.add(OpenAiStub.text("done"));
        try (OpenAiStub stub = OpenAiStub.start(script.toArray(OpenAiStub.Reply[]::new))) {
            KernelSession session = open(stub, false);
            TurnResult capped = session.send("read everything", new TurnListener() { });
            assertEquals("gave up", capped.answer());
            assertEquals(2 + Subagents.STEP_CAP, stub.requests().size());
            CallOutcome outcome = capped.calls().get(0);
            assertEquals(CallOutcome.Status.ERROR, outcome.status());
            assertEquals("The subagent 'loop' reached its cap of 20 steps (20 calls) without a final answer, so it "
                    + "reported nothing. Give it a narrower task, or do the rest yourself.", outcome.output());

            TurnResult failed = session.send("try once more", new TurnListener() { });
            assertEquals("done", failed.answer());
            CallOutcome broken = failed.calls().get(0);
            assertEquals(CallOutcome.Status.ERROR, broken.status());
            assertTrue(broken.output().startsWith("The subagent 'broken' failed: ")
                    && broken.output().contains("context length exceeded"), broken.output());
        }
    }

    @Test
    void aCallRunningASubagentIsBoundedByItsStepCapNotByTheToolTimeout() throws Exception {
        userConfig("{\"toolTimeout\": 1}");
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("task", task("slow", "explore", "Think"))),
                OpenAiStub.delayed(Duration.ofMillis(2500), OpenAiStub.text("slow answer")),
                OpenAiStub.text("done"))) {
            TurnResult result = open(stub, false).send("go", new TurnListener() { });
            CallOutcome outcome = result.calls().get(0);
            assertEquals(CallOutcome.Status.OK, outcome.status(), outcome.output());
            assertTrue(outcome.output().endsWith("slow answer"), outcome.output());
        }
    }

    @Test
    void cancellingTheParentCancelsTheChildAtOnce() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("task", task("slow", "explore", "Think long"))),
                OpenAiStub.delayed(Duration.ofSeconds(30), OpenAiStub.text("too late")),
                OpenAiStub.text("never asked"))) {
            KernelSession session = open(stub, false);
            List<CallOutcome> ended = new CopyOnWriteArrayList<>();
            Thread canceller = new Thread(() -> {
                long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (stub.requests().size() < 2 && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                session.cancelTurn();
            });
            canceller.start();
            long started = System.nanoTime();
            HostException cancelled = assertThrows(HostException.class, () -> session.send("go", new TurnListener() {
                @Override
                public void callEnded(CallOutcome outcome) {
                    ended.add(outcome);
                }
            }));
            long seconds = Duration.ofNanos(System.nanoTime() - started).toSeconds();
            canceller.join();
            assertTrue(seconds < 10, "the turn waited " + seconds + " s for a cancelled child");
            assertTrue(cancelled.getMessage().contains("cancelled"), cancelled.getMessage());
            assertEquals(2, stub.requests().size(), "the parent went on after the cancel");
            assertEquals(1, ended.size());
            assertTrue(ended.get(0).output().contains("The subagent 'slow' was cancelled"), ended.get(0).output());
        }
    }
}
