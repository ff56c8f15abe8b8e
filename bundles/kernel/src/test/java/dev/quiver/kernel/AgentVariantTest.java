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
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.RunOptions;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.TurnResult;
import dev.quiver.langchain4j.ModelProvider;
import dev.quiver.langchain4j.ModelSettings;
import dev.quiver.langchain4j.Thinking;
import dev.quiver.testing.OpenAiStub;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Agent variants and thinking levels in real sessions against the scripted OpenAI server: the tools and
 * prompt a variant offers on the wire, the level each request carries, switching between turns, the step
 * caps, and the cheaper model of explore and review subagents.
 */
class AgentVariantTest {

    @TempDir
    Path temp;

    private Path root;
    private Map<String, String> environment;
    private Framework framework;

    @BeforeEach
    void start() throws Exception {
        root = Files.createDirectories(temp.resolve("workspace")).toRealPath();
        environment = StubSessions.environment(temp);
        framework = new Framework();
        framework.register(new SubagentTest.Delegating("task"), "task", "state");
        framework.register(new TestTools.Echo("reader"), "reader", "read");
        framework.register(new CallChainTest.PathTool("writer"), "writer", "write");
        framework.register(new CallChainTest.PathTool("runner"), "runner", "execute");
        framework.register(new CallChainTest.PathTool("fetcher"), "fetcher", "network");
        framework.register(new CallChainTest.PathTool("jot"), "jot", "state");
        framework.register(new SubagentTest.Delegating("spawn_subagent"), "spawn_subagent", "state");
    }

    @AfterEach
    void stop() throws Exception {
        framework.close();
    }

    /**
     * The loopback server as a provider whose every model reasons: the level the kernel asks for goes out as
     * {@code reasoning_effort}, its own name, so the wire shows what each request was built with.
     */
    private static ModelProvider reasoning(OpenAiStub stub) {
        return new ModelProvider() {
            @Override
            public ChatModel chatModel(ModelSettings settings) {
                return OpenAiChatModel.builder().httpClientBuilder(JdkHttpClient.builder()).baseUrl(stub.baseUrl())
                        .apiKey("test").modelName(settings.name()).maxRetries(0)
                        .reasoningEffort(settings.thinking() == Thinking.OFF ? null : settings.thinking().id()).build();
            }

            @Override
            public StreamingChatModel streamingChatModel(ModelSettings settings) {
                return null;
            }

            @Override
            public boolean thinks(String name) {
                return true;
            }
        };
    }

    private KernelSession open(ModelProvider provider, RunOptions run) throws Exception {
        return StubSessions.open(root, environment, framework, provider, new SessionOptions(root, Optional.empty(),
                false, false, false, Optional.of("openai/test"), Optional.empty(), Optional.empty(), false, false, run));
    }

    private static RunOptions run(String agent, String think) {
        return new RunOptions(RunOptions.DEFAULT_MAX_TURNS, Map.of(), Map.of(), Optional.empty(),
                Optional.ofNullable(agent), Optional.ofNullable(think), false);
    }

    private void userConfig(String json) throws Exception {
        Path config = Files.createDirectories(Path.of(environment.get("XDG_CONFIG_HOME")).resolve("quiver"));
        Files.writeString(config.resolve("config.json"), json + "\n");
    }

    private static List<String> toolNames(JsonNode request) {
        List<String> names = new ArrayList<>();
        request.path("tools").forEach(tool -> names.add(tool.path("function").path("name").asText()));
        return names.stream().sorted().toList();
    }

    private static String systemPrompt(JsonNode request) {
        return request.path("messages").get(0).path("content").asText();
    }

    /** The prompt's line naming the step's tools. */
    private static String toolLine(JsonNode request) {
        return systemPrompt(request).lines().filter(line -> line.startsWith("Tools in this step:")).findFirst()
                .orElseThrow();
    }

    private static String task(String kind) {
        return "{\"description\":\"look\",\"kind\":\"" + kind + "\",\"prompt\":\"Where is main?\"}";
    }

    @Test
    void planIsOfferedNoToolThatWritesRunsOrReachesTheNetworkWhateverTheConfigAllowsNorIsAWorkerItStarts()
            throws Exception {
        // a config that allows everything and names every set cannot give a read-only variant its tools back
        userConfig("{\"permission\": {\"writer\": {\"*\": \"allow\"}, \"runner\": {\"*\": \"allow\"}, "
                + "\"fetcher\": {\"*\": \"allow\"}}}");
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("task", task("worker"))),
                OpenAiStub.calls(OpenAiStub.call("writer", "{\"path\":\"a.txt\"}")),
                OpenAiStub.text("could not write"),
                OpenAiStub.text("the plan"))) {
            KernelSession session = open(reasoning(stub), run("plan", null));
            assertEquals("plan", session.agent());
            assertEquals("high", session.thinking());
            assertEquals("the plan", session.send("plan the change", new TurnListener() { }).answer());
            JsonNode parent = stub.requests().get(0);
            // nor a worker in a checkout of its own, whose branch would be a change (its access is state)
            assertEquals(List.of("jot", "reader", "task"), toolNames(parent));
            assertEquals("Tools in this step: jot, reader, task.", toolLine(parent));
            assertTrue(systemPrompt(parent).contains("Agent variant: plan."), systemPrompt(parent));
            assertFalse(systemPrompt(parent).contains("The guard refuses"), "bash's paragraph without bash");
            assertEquals("high", parent.path("reasoning_effort").asText());
            // a worker of a plan session holds no more than the session: the read tools alone
            assertEquals(List.of("reader"), toolNames(stub.requests().get(1)));
            String refused = stub.requests().get(2).path("messages").toString();
            assertTrue(refused.contains("writer"), refused);
            assertFalse(session.tools().stream().anyMatch(tool -> tool.name().equals("writer")));
        }
    }

    @Test
    void agentAndThinkChangeTheNextRequestAndAChosenLevelOutlastsAVariantSwitch() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("1"), OpenAiStub.text("2"), OpenAiStub.text("3"),
                OpenAiStub.text("4"), OpenAiStub.text("5"))) {
            KernelSession session = open(reasoning(stub), RunOptions.DEFAULT);
            TurnListener quiet = new TurnListener() { };
            session.send("one", quiet);
            session.switchAgent("review");
            session.send("two", quiet);
            session.switchThinking("low");
            session.send("three", quiet);
            session.switchAgent("deep");
            session.send("four", quiet);
            session.switchThinking("off");
            session.send("five", quiet);

            List<JsonNode> requests = stub.requests();
            assertEquals(List.of("fetcher", "jot", "reader", "runner", "spawn_subagent", "task", "writer"),
                    toolNames(requests.get(0)));
            assertEquals("medium", requests.get(0).path("reasoning_effort").asText());
            assertFalse(systemPrompt(requests.get(0)).contains("Agent variant:"), "default has no paragraph");

            assertEquals(List.of("jot", "reader", "task"), toolNames(requests.get(1)));
            assertTrue(systemPrompt(requests.get(1)).contains("Agent variant: review."));
            assertEquals("high", requests.get(1).path("reasoning_effort").asText());

            assertEquals("low", requests.get(2).path("reasoning_effort").asText());
            // deep's tools and paragraph, but the level chosen with /think stays
            assertEquals(7, toolNames(requests.get(3)).size());
            assertTrue(systemPrompt(requests.get(3)).contains("Agent variant: deep."));
            assertEquals("low", requests.get(3).path("reasoning_effort").asText());
            assertFalse(requests.get(4).has("reasoning_effort"), requests.get(4).toString());
            assertEquals("off", session.thinking());
        }
    }

    @Test
    void aVariantsStepCapHoldsUnlessMaxTurnsWasGiven() throws Exception {
        OpenAiStub.Reply read = OpenAiStub.calls(OpenAiStub.call("reader", "{\"text\":\"x\"}"));
        try (OpenAiStub stub = OpenAiStub.start()) {
            for (int i = 0; i < 12 + 3; i++) {
                stub.enqueue(read);
            }
            TurnResult quick = open(reasoning(stub), run("quick", null)).send("go", new TurnListener() { });
            assertEquals(TurnResult.Status.STEP_LIMIT, quick.status());
            assertEquals(12, quick.steps());
            assertFalse(stub.requests().get(0).has("reasoning_effort"), "quick thinks not at all");
            TurnResult given = open(reasoning(stub), new RunOptions(3, Map.of(), Map.of(), Optional.empty(),
                    Optional.of("deep"), Optional.empty(), true)).send("go", new TurnListener() { });
            assertEquals(3, given.steps());
            assertEquals("max", stub.requests().get(12).path("reasoning_effort").asText(), "deep thinks most");
        }
    }

    @Test
    void anUnknownNameIsRefusedWithTheNamesAndAConfigsIsReportedAndTheDefaultUsed() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start()) {
            HostException agent = assertThrows(HostException.class, () -> open(reasoning(stub), run("turbo", null)));
            assertEquals("Unknown agent \"turbo\" (--agent). Available: default, quick, deep, plan, review.",
                    agent.getMessage());
            HostException level = assertThrows(HostException.class, () -> open(reasoning(stub), run(null, "huge")));
            assertTrue(level.getMessage().contains("off, low, medium, high, max"), level.getMessage());
            KernelSession session = open(reasoning(stub), RunOptions.DEFAULT);
            assertThrows(HostException.class, () -> session.switchAgent("turbo"));
            assertThrows(HostException.class, () -> session.switchThinking("lots"));
            assertEquals("default", session.agent());
            assertEquals("medium", session.thinking());

            userConfig("{\"agent\": \"turbo\", \"thinking\": \"low\"}");
            KernelSession configured = open(reasoning(stub), RunOptions.DEFAULT);
            assertEquals("default", configured.agent());
            assertEquals("low", configured.thinking());
            assertTrue(configured.warnings().stream().anyMatch(w -> w.startsWith("Unknown agent \"turbo\" (config key "
                    + "'agent')")), configured.warnings().toString());
        }
    }

    @Test
    void aModelWithoutThinkingIsToldOnceWhenALevelWasChosenAndTheRequestCarriesNone() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("1"), OpenAiStub.text("2"), OpenAiStub.text("3"))) {
            // StubSessions' provider keeps ModelProvider's default: it takes no thinking level
            KernelSession session = open(StubSessions.provider(stub), RunOptions.DEFAULT);
            List<String> notices = new CopyOnWriteArrayList<>();
            TurnListener listener = new TurnListener() {
                @Override
                public void notice(String text) {
                    notices.add(text);
                }
            };
            session.send("one", listener);
            assertEquals(List.of(), notices, "the default's level on such a model is not worth a line");
            session.switchThinking("high");
            session.send("two", listener);
            session.send("three", listener);
            assertEquals(1, notices.size(), notices.toString());
            assertTrue(notices.get(0).startsWith("openai/test takes no thinking level, so 'high' is not sent"),
                    notices.get(0));
            stub.requests().forEach(request -> assertFalse(request.has("reasoning_effort")));
        }
    }

    @Test
    void exploreAndReviewChildrenUseTheSubagentModelAndWorkersTheSessions() throws Exception {
        userConfig("{\"subagentModel\": \"openai/cheap-mini\"}");
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("task", task("explore"))), OpenAiStub.text("found"),
                OpenAiStub.calls(OpenAiStub.call("task", task("review"))), OpenAiStub.text("reviewed"),
                OpenAiStub.calls(OpenAiStub.call("task", task("worker"))), OpenAiStub.text("worked"),
                OpenAiStub.text("done"))) {
            KernelSession session = open(reasoning(stub), RunOptions.DEFAULT);
            assertEquals("done", session.send("go", new TurnListener() { }).answer());
            List<String> models = stub.requests().stream().map(request -> request.path("model").asText()).toList();
            assertEquals(List.of("test", "cheap-mini", "test", "cheap-mini", "test", "test", "test"), models);
        }
    }

    @Test
    void anUntrustedWorkspaceCannotPointSubagentsAtAModelOfItsChoosing() throws Exception {
        Files.createDirectories(root.resolve(".quiver"));
        Files.writeString(root.resolve(".quiver/config.json"), "{\"subagentModel\": \"openai/attacker-model\", "
                + "\"agent\": \"deep\"}\n");
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("task", task("explore"))), OpenAiStub.text("found"),
                OpenAiStub.text("done"))) {
            KernelSession session = StubSessions.openUntrusted(root, environment, framework, stub);
            assertEquals("default", session.agent());
            assertTrue(session.warnings().stream().anyMatch(w -> w.contains("subagentModel") && w.contains("agent")),
                    session.warnings().toString());
            session.send("go", new TurnListener() { });
            assertEquals(List.of("test", "test", "test"),
                    stub.requests().stream().map(request -> request.path("model").asText()).toList());
        }
    }
}
