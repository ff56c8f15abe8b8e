package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.http.client.jdk.JdkHttpClient;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.quiver.api.host.HostException;
import dev.quiver.kernel.permission.AuditLog;
import dev.quiver.kernel.permission.PermissionEngine;
import dev.quiver.kernel.permission.RuleSet;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.TurnResult;
import dev.quiver.testing.OpenAiStub;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The loop against LangChain4j's real OpenAI client and a loopback server speaking OpenAI's format. */
class AgentLoopTest {

    @TempDir
    Path workspace;

    private Framework framework;
    private ExecutorService workers;
    private final TestTools.Echo echo = new TestTools.Echo();

    @BeforeEach
    void start() throws Exception {
        framework = new Framework();
        workers = Executors.newCachedThreadPool();
        framework.register(echo, "echo", "read");
    }

    @AfterEach
    void stop() throws Exception {
        workers.shutdownNow();
        framework.close();
    }

    private AgentLoop loop(OpenAiStub stub) throws Exception {
        OpenAiChatModel model = OpenAiChatModel.builder().httpClientBuilder(JdkHttpClient.builder())
                .baseUrl(stub.baseUrl()).apiKey("test").modelName("test").maxRetries(0).build();
        dev.quiver.api.Workspace opened = new WorkspaceFactoryComponent().open(workspace);
        CallChain chain = new CallChain(opened, new PermissionEngine(RuleSet.empty(), opened, "/home/nobody"), List::of,
                workers, new CallChain.Modes(false, false, false), Duration.ofSeconds(5), new AuditLog(opened.root(), "t"), key -> java.util.Optional.empty());
        return new AgentLoop(model, chain, framework.registry::snapshot, workspace, false);
    }

    @Test
    void toolCallResultGoesBackPairedWithItsIdAndTheLoopEndsWhenTheModelAnswers() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("echo", "{\"text\":\"ping\"}"), OpenAiStub.call("echo", "{\"text\":\"pong\"}")),
                OpenAiStub.text("done"))) {
            TurnResult result = loop(stub).send("go", new TurnListener() { });
            assertEquals(TurnResult.Status.DONE, result.status());
            assertEquals("done", result.answer());
            assertEquals(2, result.steps());
            assertEquals(2, result.calls().size());

            JsonNode first = stub.requests().get(0);
            assertEquals("echo", first.get("tools").get(0).get("function").get("name").asText());
            assertEquals("string", first.get("tools").get(0).get("function").get("parameters").get("properties")
                    .get("text").get("type").asText());
            JsonNode messages = stub.requests().get(1).get("messages");
            JsonNode assistant = messages.get(2);
            assertEquals("assistant", assistant.get("role").asText());
            assertEquals(assistant.get("tool_calls").get(0).get("id").asText(), messages.get(3).get("tool_call_id").asText());
            assertEquals("ping", messages.get(3).get("content").asText());
            assertEquals(assistant.get("tool_calls").get(1).get("id").asText(), messages.get(4).get("tool_call_id").asText());
            assertEquals("pong", messages.get(4).get("content").asText());
        }
    }

    @Test
    void theSystemPromptIsRebuiltEachStepWithTheToolsOfThatStep() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.calls(OpenAiStub.call("echo", "{\"text\":\"x\"}")),
                OpenAiStub.text("ok"))) {
            AgentLoop loop = loop(stub);
            TurnListener removeEchoAfterFirstCall = new TurnListener() {
                @Override
                public void callEnded(dev.quiver.api.host.CallOutcome outcome) {
                    framework.registry.removeTool(framework.registry.snapshot().get(0).reference());
                }
            };
            loop.send("go", removeEchoAfterFirstCall);
            String firstPrompt = stub.requests().get(0).get("messages").get(0).get("content").asText();
            String secondPrompt = stub.requests().get(1).get("messages").get(0).get("content").asText();
            assertTrue(firstPrompt.contains("Tools in this step: echo."), firstPrompt);
            assertTrue(secondPrompt.contains("No tools are available"), secondPrompt);
            assertFalse(stub.requests().get(1).has("tools"));
        }
    }

    @Test
    void unknownToolsAndBadArgumentsGoBackToTheModelAsErrors() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("nope", "{}"), OpenAiStub.call("echo", "{not json")),
                OpenAiStub.text("recovered"))) {
            TurnResult result = loop(stub).send("go", new TurnListener() { });
            assertEquals("recovered", result.answer());
            JsonNode messages = stub.requests().get(1).get("messages");
            assertTrue(messages.get(3).get("content").asText().startsWith("Error: No tool named 'nope'"));
            assertTrue(messages.get(4).get("content").asText().startsWith("Error: Arguments for echo are not valid JSON"));
        }
    }

    @Test
    void theLoopStopsAtTheStepCap() throws Exception {
        List<OpenAiStub.Reply> replies = new ArrayList<>();
        for (int i = 0; i < AgentLoop.STEP_CAP + 5; i++) {
            replies.add(OpenAiStub.calls(OpenAiStub.call("echo", "{\"text\":\"" + i + "\"}")));
        }
        try (OpenAiStub stub = OpenAiStub.start(replies.toArray(OpenAiStub.Reply[]::new))) {
            TurnResult result = loop(stub).send("loop forever", new TurnListener() { });
            assertEquals(TurnResult.Status.STEP_LIMIT, result.status());
            assertEquals(AgentLoop.STEP_CAP, stub.requests().size());
            assertEquals(AgentLoop.STEP_CAP, echo.calls.get());
        }
    }

    @Test
    void anEmptyAnswerIsNeverSentBackAsAnAssistantMessage() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text(""), OpenAiStub.text("second"))) {
            AgentLoop loop = loop(stub);
            assertEquals("", loop.send("one", new TurnListener() { }).answer());
            assertEquals("second", loop.send("two", new TurnListener() { }).answer());
            JsonNode messages = stub.requests().get(1).get("messages");
            for (JsonNode message : messages) {
                assertFalse("assistant".equals(message.get("role").asText()), messages.toString());
            }
        }
    }

    @Test
    void aServerErrorBecomesAOneLineHostError() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(new OpenAiStub.Failure(401, "Incorrect API key provided"))) {
            HostException error = assertThrows(HostException.class, () -> loop(stub).send("go", new TurnListener() { }));
            assertTrue(error.getMessage().startsWith("The model request failed"), error.getMessage());
            assertFalse(error.getMessage().contains("\n"));
        }
    }
}
