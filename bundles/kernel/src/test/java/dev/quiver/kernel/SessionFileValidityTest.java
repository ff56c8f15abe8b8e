package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.http.client.jdk.JdkHttpClient;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.TurnResult;
import dev.quiver.kernel.conversation.SessionStore;
import dev.quiver.kernel.permission.AuditLog;
import dev.quiver.kernel.permission.PermissionEngine;
import dev.quiver.kernel.permission.RuleSet;
import dev.quiver.testing.OpenAiStub;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input from the model leaves a valid session file: every line is JSON, every recorded call has
 * its result, nothing empty is recorded as an assistant message, and the resumed history can be sent.
 */
class SessionFileValidityTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;

    private Path workspace;
    private SessionStore store;
    private Framework framework;
    private ExecutorService workers;
    private final TestTools.Echo echo = new TestTools.Echo();

    @BeforeEach
    void start() throws Exception {
        workspace = Files.createDirectories(temp.resolve("ws"));
        store = new SessionStore(temp.resolve("sessions"));
        framework = new Framework();
        workers = Executors.newCachedThreadPool();
        framework.register(echo, "echo", "read");
    }

    @AfterEach
    void stop() throws Exception {
        workers.shutdownNow();
        framework.close();
    }

    private AgentLoop loop(OpenAiStub stub, boolean streamingModel, SessionStore.Recorder recorder,
            List<ChatMessage> history) throws Exception {
        ChatModel chat = OpenAiChatModel.builder().httpClientBuilder(JdkHttpClient.builder()).baseUrl(stub.baseUrl())
                .apiKey("test").modelName("test").maxRetries(0).build();
        StreamingChatModel streaming = streamingModel ? OpenAiStreamingChatModel.builder()
                .httpClientBuilder(JdkHttpClient.builder()).baseUrl(stub.baseUrl()).apiKey("test").modelName("test")
                .build() : null;
        AgentLoop.Models models = new AgentLoop.Models() {
            @Override
            public ChatModel chat() {
                return chat;
            }

            @Override
            public StreamingChatModel streaming() {
                return streaming;
            }

            @Override
            public String name() {
                return "test";
            }
        };
        dev.quiver.api.Workspace opened = new WorkspaceFactoryComponent().open(workspace);
        CallChain chain = new CallChain(opened, new PermissionEngine(RuleSet.empty(), opened, "/home/nobody"), List::of,
                workers, new CallChain.Modes(false, false, false), Duration.ofSeconds(5),
                new AuditLog(opened.root(), recorder.id()), key -> Optional.empty(), tool -> false);
        return new AgentLoop(models, chain, framework.registry::snapshot, workspace, false, recorder, history,
                128_000, Duration.ofSeconds(30), workers);
    }

    @Test
    void aCallToAToolThatDoesNotExist() throws Exception {
        SessionStore.Recorder recorder = store.create(workspace, "openai/test");
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.calls(OpenAiStub.call("no_such_tool", "{\"x\":1}")),
                OpenAiStub.text("That tool does not exist."))) {
            TurnResult result = loop(stub, false, recorder, List.of()).send("use the tool", new TurnListener() { });
            assertEquals("That tool does not exist.", result.answer());
            JsonNode back = toolMessages(stub.requests().get(1)).get(0);
            assertTrue(back.get("content").asText().startsWith("Error: No tool named 'no_such_tool'"), back.toString());
        }
        assertSessionFileValid(recorder, 1);
        assertResumedHistoryCanBeSent(recorder, false);
    }

    @Test
    void argumentsThatAreNotJson() throws Exception {
        SessionStore.Recorder recorder = store.create(workspace, "openai/test");
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.calls(OpenAiStub.call("echo", "{\"text\": \"unclosed")),
                OpenAiStub.text("Sorry, bad JSON."))) {
            TurnResult result = loop(stub, false, recorder, List.of()).send("echo it", new TurnListener() { });
            assertEquals("Sorry, bad JSON.", result.answer());
            assertEquals(0, echo.calls.get(), "the tool never ran");
            JsonNode back = toolMessages(stub.requests().get(1)).get(0);
            assertTrue(back.get("content").asText().startsWith("Error: Arguments for echo are not valid JSON"),
                    back.toString());
        }
        assertSessionFileValid(recorder, 1);
        assertResumedHistoryCanBeSent(recorder, false);
    }

    @Test
    void argumentsThatViolateTheSchema() throws Exception {
        SessionStore.Recorder recorder = store.create(workspace, "openai/test");
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("echo", "{\"times\":\"many\"}"),
                        OpenAiStub.call("echo", "{\"text\":42}")),
                OpenAiStub.text("I will fix the arguments."))) {
            TurnResult result = loop(stub, false, recorder, List.of()).send("echo it", new TurnListener() { });
            assertEquals("I will fix the arguments.", result.answer());
            assertEquals(0, echo.calls.get(), "the tool never ran");
            List<JsonNode> back = toolMessages(stub.requests().get(1));
            assertEquals(2, back.size());
            for (JsonNode message : back) {
                assertTrue(message.get("content").asText().startsWith("Error: "), message.toString());
            }
        }
        assertSessionFileValid(recorder, 2);
        assertResumedHistoryCanBeSent(recorder, false);
    }

    @Test
    void anEmptyAnswerTwice() throws Exception {
        SessionStore.Recorder recorder = store.create(workspace, "openai/test");
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text(""), OpenAiStub.text("  "))) {
            AgentLoop loop = loop(stub, false, recorder, List.of());
            HostException error = assertThrows(HostException.class, () -> loop.send("say something", new TurnListener() { }));
            assertTrue(error.getMessage().startsWith("The model answered with nothing twice"), error.getMessage());
            assertEquals(2, stub.requests().size(), "retried once, then stopped");
        }
        assertSessionFileValid(recorder, 0);
        assertResumedHistoryCanBeSent(recorder, false);
    }

    @Test
    void anEmptyAnswerTwiceAfterAToolCall() throws Exception {
        SessionStore.Recorder recorder = store.create(workspace, "openai/test");
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.calls(OpenAiStub.call("echo", "{\"text\":\"hi\"}")),
                OpenAiStub.text(""), OpenAiStub.text(""))) {
            AgentLoop loop = loop(stub, false, recorder, List.of());
            assertThrows(HostException.class, () -> loop.send("echo then speak", new TurnListener() { }));
            assertEquals(1, echo.calls.get());
        }
        assertSessionFileValid(recorder, 1);
        assertResumedHistoryCanBeSent(recorder, false);
    }

    @Test
    void aTextStreamCutMidway() throws Exception {
        SessionStore.Recorder recorder = store.create(workspace, "openai/test");
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.cut(OpenAiStub.text("This answer will be cut off in the middle"), 3))) {
            AgentLoop loop = loop(stub, true, recorder, List.of());
            HostException error = assertThrows(HostException.class, () -> loop.send("go", new TurnListener() { }));
            assertFalse(error.getMessage().contains("\n"), error.getMessage());
        }
        assertSessionFileValid(recorder, 0);
        assertFalse(Files.readString(recorder.file()).contains("This answer"), "no half answer is recorded");
        assertResumedHistoryCanBeSent(recorder, true);
    }

    @Test
    void aToolCallStreamCutMidway() throws Exception {
        SessionStore.Recorder recorder = store.create(workspace, "openai/test");
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.calls(OpenAiStub.call("echo", "{\"text\":\"ping\"}")),
                OpenAiStub.cut(OpenAiStub.calls(OpenAiStub.call("echo", "{\"text\":\"a long argument cut short\"}")), 3))) {
            AgentLoop loop = loop(stub, true, recorder, List.of());
            HostException error = assertThrows(HostException.class, () -> loop.send("go", new TurnListener() { }));
            assertFalse(error.getMessage().contains("\n"), error.getMessage());
            assertEquals(1, echo.calls.get(), "the cut call never ran");
        }
        assertSessionFileValid(recorder, 1);
        assertFalse(Files.readString(recorder.file()).contains("cut short"), "no half call is recorded");
        assertResumedHistoryCanBeSent(recorder, true);
    }

    /** Every line is JSON, every call has a result, no assistant event is empty; {@code calls} calls in all. */
    private static void assertSessionFileValid(SessionStore.Recorder recorder, int calls) throws Exception {
        List<String> lines = Files.readAllLines(recorder.file());
        assertFalse(lines.isEmpty());
        Set<String> open = new LinkedHashSet<>();
        Set<String> seen = new HashSet<>();
        for (String line : lines) {
            JsonNode event;
            try {
                event = JSON.readTree(line);
            } catch (Exception e) {
                throw new AssertionError("not JSON: " + line, e);
            }
            assertTrue(event.isObject(), line);
            switch (event.path("type").asText()) {
                case "assistant" -> {
                    boolean hasText = event.path("text").isTextual() && !event.path("text").asText().isBlank();
                    assertTrue(hasText || event.path("calls").size() > 0, "an empty assistant message: " + line);
                    assertTrue(open.isEmpty(), "a call without its result before " + line);
                    for (JsonNode call : event.path("calls")) {
                        String id = call.path("id").asText();
                        assertFalse(id.isBlank(), line);
                        assertTrue(seen.add(id), "a call id used twice: " + line);
                        open.add(id);
                    }
                }
                case "tool" -> assertTrue(open.remove(event.path("id").asText()), "a result without its call: " + line);
                case "user" -> assertTrue(open.isEmpty(), "a call without its result before " + line);
                default -> {
                }
            }
        }
        assertTrue(open.isEmpty(), "calls without results: " + open + " in\n" + String.join("\n", lines));
        assertEquals(calls, seen.size(), String.join("\n", lines));
    }

    /** Resumes the session, sends one more prompt, and checks the request the server got. */
    private void assertResumedHistoryCanBeSent(SessionStore.Recorder recorder, boolean streaming) throws Exception {
        SessionStore.Loaded loaded = store.resume(workspace, recorder.id(), "openai/test");
        assertEquals(recorder.id(), loaded.recorder().id());
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("Resumed fine."))) {
            TurnResult result = loop(stub, streaming, loaded.recorder(), loaded.history())
                    .send("carry on", new TurnListener() { });
            assertEquals("Resumed fine.", result.answer());
            assertEquals(1, stub.requests().size());
            assertWellFormed(stub.requests().get(0));
        }
        assertSessionFileValid(loaded.recorder(), countCalls(loaded.recorder()));
    }

    private static int countCalls(SessionStore.Recorder recorder) throws Exception {
        int calls = 0;
        for (String line : Files.readAllLines(recorder.file())) {
            calls += JSON.readTree(line).path("calls").size();
        }
        return calls;
    }

    /** OpenAI's rules: no empty assistant message, every tool_call answered right after it, no stray tool message. */
    private static void assertWellFormed(JsonNode request) {
        JsonNode messages = request.get("messages");
        assertEquals("system", messages.get(0).get("role").asText(), request.toString());
        Set<String> open = new LinkedHashSet<>();
        for (JsonNode message : messages) {
            String role = message.get("role").asText();
            if (role.equals("tool")) {
                assertTrue(open.remove(message.path("tool_call_id").asText()), "a result without its call: " + request);
                assertTrue(message.path("content").isTextual(), message.toString());
                continue;
            }
            assertTrue(open.isEmpty(), "calls without results " + open + ": " + request);
            if (role.equals("assistant")) {
                boolean hasText = message.path("content").isTextual() && !message.path("content").asText().isBlank();
                boolean hasCalls = message.path("tool_calls").size() > 0;
                assertTrue(hasText || hasCalls, "an empty assistant message: " + message);
                message.path("tool_calls").forEach(call -> {
                    assertFalse(call.path("id").asText().isBlank(), call.toString());
                    open.add(call.path("id").asText());
                });
            } else {
                assertTrue(message.path("content").isTextual() || message.path("content").isArray(), message.toString());
            }
        }
        assertTrue(open.isEmpty(), "calls without results " + open + ": " + request);
        JsonNode last = messages.get(messages.size() - 1);
        assertEquals("user", last.get("role").asText());
        assertEquals("carry on", last.get("content").asText());
    }

    private static List<JsonNode> toolMessages(JsonNode request) {
        List<JsonNode> tools = new java.util.ArrayList<>();
        request.get("messages").forEach(message -> {
            if (message.get("role").asText().equals("tool")) {
                tools.add(message);
            }
        });
        return tools;
    }
}
