package dev.quiver.model.ollama;

import dev.quiver.langchain4j.StreamedChat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.quiver.langchain4j.ModelException;
import dev.quiver.langchain4j.ModelException.Kind;
import dev.quiver.langchain4j.ModelSettings;
import dev.quiver.langchain4j.RetryPolicy;
import dev.quiver.testing.OllamaStub;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The Ollama provider (LangChain4j's Ollama module 1.18.1 on the 1.19.0 core) against OllamaStub:
 * /api/chat with and without streaming, tool calls, retries and errors.
 */
class OllamaModelProviderTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final RetryPolicy FAST = new RetryPolicy(3, Duration.ofMillis(20), Duration.ofMillis(50),
            Duration.ofSeconds(30));

    private static final ToolSpecification READ_FILE = ToolSpecification.builder()
            .name("read_file")
            .description("Reads a file of the workspace.")
            .parameters(JsonObjectSchema.builder()
                    .addStringProperty("path", "the file, relative to the workspace")
                    .required("path")
                    .build())
            .build();
    private static final ToolSpecification GLOB = ToolSpecification.builder()
            .name("glob")
            .description("Lists files matching a pattern.")
            .parameters(JsonObjectSchema.builder().addStringProperty("pattern").required("pattern").build())
            .build();

    private static OllamaModelProvider provider() {
        return new OllamaModelProvider(Map.<String, String>of()::get, FAST);
    }

    private static ModelSettings settings(String baseUrl) {
        return new ModelSettings("llama3.2", Optional.ofNullable(baseUrl), Duration.ofSeconds(10));
    }

    private static ChatRequest plain(String text) {
        return ChatRequest.builder().messages(UserMessage.from(text)).build();
    }

    private static ChatRequest withTools(List<ChatMessage> messages) {
        return ChatRequest.builder().messages(messages).toolSpecifications(READ_FILE, GLOB).build();
    }

    @Test
    void theBaseUrlIsTheServerRootAndNoKeyIsSent() throws Exception {
        try (OllamaStub stub = OllamaStub.start(OllamaStub.text("hello"), OllamaStub.text("again"))) {
            assertEquals("hello", provider().chatModel(settings(stub.baseUrl())).chat("hi"));
            assertEquals("again", provider().chatModel(settings(stub.baseUrl() + "/")).chat("hi"));
            assertEquals(List.of("/api/chat", "/api/chat"), stub.paths());
            JsonNode sent = stub.requests().get(0);
            assertEquals("llama3.2", sent.get("model").asText());
            assertFalse(sent.get("stream").asBoolean(true), sent.toString());
            assertFalse(stub.headers().get(0).containsKey("authorization"));
        }
    }

    /** Quiver adds /api/chat itself: a base URL that has it would be sent to /api/chat/api/chat, a 404. */
    @Test
    void aBaseUrlEndingInTheEndpointIsRefusedNamingTheRootToUseBeforeAnyRequest() throws Exception {
        try (OllamaStub stub = OllamaStub.start(OllamaStub.text("never"))) {
            String given = stub.baseUrl() + "/api/chat";
            IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                    () -> provider().chatModel(settings(given)));
            assertEquals("Base URL must be the API's root, without the endpoint: Quiver adds /api/chat itself. Use "
                    + stub.baseUrl() + " instead of " + given + ".", error.getMessage());
            error = assertThrows(IllegalArgumentException.class,
                    () -> provider().streamingChatModel(settings(stub.baseUrl() + "/api/generate/")));
            assertTrue(error.getMessage().contains("Use " + stub.baseUrl() + " instead of"), error.getMessage());
            IllegalArgumentException fromHost = assertThrows(IllegalArgumentException.class, () -> new OllamaModelProvider(
                    Map.of("OLLAMA_HOST", "127.0.0.1:" + stub.port() + "/api/chat")::get, FAST).chatModel(settings(null)));
            assertTrue(fromHost.getMessage().contains("adds /api/chat itself"), fromHost.getMessage());
            assertEquals(List.of(), stub.paths(), "nothing was sent");
        }
    }

    @Test
    void ollamaHostIsReadAsOllamasClientReadsIt() throws Exception {
        assertEquals("http://127.0.0.1:11500", OllamaModelProvider.fromOllamaHost("127.0.0.1:11500"));
        assertEquals("http://gpu-box:11434", OllamaModelProvider.fromOllamaHost("gpu-box"));
        assertEquals("http://127.0.0.1:11434", OllamaModelProvider.fromOllamaHost("0.0.0.0"));
        assertEquals("http://127.0.0.1:8080", OllamaModelProvider.fromOllamaHost(":8080"));
        assertEquals("https://ollama.example", OllamaModelProvider.fromOllamaHost("https://ollama.example"));
        try (OllamaStub stub = OllamaStub.start(OllamaStub.text("via OLLAMA_HOST"))) {
            OllamaModelProvider provider = new OllamaModelProvider(
                    Map.of("OLLAMA_HOST", "127.0.0.1:" + stub.port())::get, FAST);
            assertEquals("via OLLAMA_HOST", provider.chatModel(settings(null)).chat("hi"));
        }
        assertThrows(IllegalArgumentException.class, () -> provider().chatModel(settings("localhost:11434")));
    }

    @Test
    void theSystemPromptIsTheFirstMessage() throws Exception {
        try (OllamaStub stub = OllamaStub.start(OllamaStub.text("ok"))) {
            provider().chatModel(settings(stub.baseUrl())).chat(ChatRequest.builder()
                    .messages(SystemMessage.from("You are Quiver."), UserMessage.from("hi")).build());
            JsonNode messages = stub.requests().get(0).get("messages");
            assertEquals("system", messages.get(0).get("role").asText());
            assertEquals("You are Quiver.", messages.get(0).get("content").asText());
            assertEquals("user", messages.get(1).get("role").asText());
        }
    }

    @Test
    void toolSchemasGoOutAndResultsFollowTheirCallsInOrder() throws Exception {
        try (OllamaStub stub = OllamaStub.start(
                OllamaStub.calls(OllamaStub.call("read_file", "{\"path\":\"a.txt\"}"),
                        OllamaStub.call("glob", "{\"pattern\":\"*.java\"}")),
                OllamaStub.text("done"))) {
            ChatModel model = provider().chatModel(settings(stub.baseUrl()));
            List<ChatMessage> messages = new ArrayList<>(List.of(UserMessage.from("look around")));
            ChatResponse first = model.chat(withTools(messages));

            JsonNode tool = stub.requests().get(0).get("tools").get(0);
            assertEquals("function", tool.get("type").asText());
            assertEquals("read_file", tool.get("function").get("name").asText());
            assertEquals("Reads a file of the workspace.", tool.get("function").get("description").asText());
            JsonNode parameters = tool.get("function").get("parameters");
            assertEquals("object", parameters.get("type").asText());
            assertEquals("string", parameters.get("properties").get("path").get("type").asText());
            assertEquals("path", parameters.get("required").get(0).asText());

            List<ToolExecutionRequest> calls = first.aiMessage().toolExecutionRequests();
            assertEquals(List.of("read_file", "glob"), calls.stream().map(ToolExecutionRequest::name).toList());
            // current Ollama sends an id per call (older servers none: then the id is null)
            assertEquals(stub.callIds(), calls.stream().map(ToolExecutionRequest::id).toList());
            assertEquals(JSON.readTree("{\"path\":\"a.txt\"}"), JSON.readTree(calls.get(0).arguments()));
            assertEquals(26, first.tokenUsage().inputTokenCount());
            assertEquals(12, first.tokenUsage().outputTokenCount());

            messages.add(first.aiMessage());
            messages.add(ToolExecutionResultMessage.from(calls.get(0), "contents of a.txt"));
            messages.add(ToolExecutionResultMessage.from(calls.get(1), "A.java"));
            assertEquals("done", model.chat(withTools(messages)).aiMessage().text());

            // Ollama pairs results with calls by position: the tool messages follow the assistant's calls in order
            JsonNode followUp = stub.requests().get(1).get("messages");
            JsonNode assistant = followUp.get(1);
            assertEquals("assistant", assistant.get("role").asText());
            assertEquals("read_file", assistant.get("tool_calls").get(0).get("function").get("name").asText());
            assertEquals(JSON.readTree("{\"path\":\"a.txt\"}"),
                    assistant.get("tool_calls").get(0).get("function").get("arguments"));
            assertEquals("glob", assistant.get("tool_calls").get(1).get("function").get("name").asText());
            assertEquals("tool", followUp.get(2).get("role").asText());
            assertEquals("contents of a.txt", followUp.get(2).get("content").asText());
            assertEquals("tool", followUp.get(3).get("role").asText());
            assertEquals("A.java", followUp.get(3).get("content").asText());
        }
    }

    @Test
    void streamedLinesArriveAsPiecesAndCompleteWithUsage() throws Exception {
        try (OllamaStub stub = OllamaStub.start(OllamaStub.text("Hello from a local model."))) {
            StreamedChat streamed = StreamedChat.chat(provider().streamingChatModel(settings(stub.baseUrl())), plain("hi"));
            assertNull(streamed.error);
            assertTrue(streamed.pieces.size() > 1, streamed.pieces.toString());
            assertEquals("Hello from a local model.", streamed.text());
            assertEquals("Hello from a local model.", streamed.response.aiMessage().text());
            assertEquals(26, streamed.response.tokenUsage().inputTokenCount());
            assertEquals(12, streamed.response.tokenUsage().outputTokenCount());
            assertTrue(stub.requests().get(0).get("stream").asBoolean());
        }
    }

    @Test
    void streamedToolCallsComeBackWhole() throws Exception {
        try (OllamaStub stub = OllamaStub.start(OllamaStub.calls(
                OllamaStub.call("read_file", "{\"path\":\"src/Main.java\"}"),
                OllamaStub.call("glob", "{\"pattern\":\"**/*.md\"}")))) {
            StreamedChat streamed = StreamedChat.chat(provider().streamingChatModel(settings(stub.baseUrl())),
                    withTools(List.of(UserMessage.from("look"))));
            assertNull(streamed.error);
            List<ToolExecutionRequest> calls = streamed.response.aiMessage().toolExecutionRequests();
            assertEquals(List.of("read_file", "glob"), calls.stream().map(ToolExecutionRequest::name).toList());
            assertEquals(JSON.readTree("{\"pattern\":\"**/*.md\"}"), JSON.readTree(calls.get(1).arguments()));
        }
    }

    @Test
    void aBusyServerIsRetriedAfterItsRetryAfter() throws Exception {
        try (OllamaStub stub = OllamaStub.start(
                OllamaStub.failure(503, "server busy, please try again.  maximum pending requests exceeded",
                        Map.of("Retry-After", "1")),
                OllamaStub.text("sync"),
                OllamaStub.failure(429, "too many requests", Map.of("Retry-After", "1")),
                OllamaStub.text("streamed"))) {
            assertEquals("sync", provider().chatModel(settings(stub.baseUrl())).chat("hi"));
            assertEquals("streamed",
                    StreamedChat.chat(provider().streamingChatModel(settings(stub.baseUrl())), plain("hi")).text());
            List<Long> arrivals = stub.arrivals();
            assertEquals(4, arrivals.size());
            assertTrue(TimeUnit.NANOSECONDS.toMillis(arrivals.get(1) - arrivals.get(0)) >= 950);
            assertTrue(TimeUnit.NANOSECONDS.toMillis(arrivals.get(3) - arrivals.get(2)) >= 950);
        }
    }

    @Test
    void theModelTimeoutBoundsEachAttemptOfBothModels() throws Exception {
        try (OllamaStub stub = OllamaStub.start(
                OllamaStub.delayed(Duration.ofSeconds(3), OllamaStub.text("too late")), OllamaStub.text("sync"),
                OllamaStub.delayed(Duration.ofSeconds(3), OllamaStub.text("too late")), OllamaStub.text("streamed"))) {
            ModelSettings quick = new ModelSettings("llama3.2", Optional.of(stub.baseUrl()), Duration.ofMillis(500));
            assertEquals("sync", provider().chatModel(quick).chat("hi"));
            assertEquals("streamed", StreamedChat.chat(provider().streamingChatModel(quick), plain("hi")).text());
            assertEquals(4, stub.requests().size());
        }
    }

    @Test
    void aStreamThatKeepsSendingOutlastsTheModelTimeoutManyTimesOver() throws Exception {
        String answer = "A slow model that keeps sending small pieces of its answer.";
        try (OllamaStub stub = OllamaStub.start(OllamaStub.paced(OllamaStub.text(answer), Duration.ofMillis(150)))) {
            ModelSettings quick = new ModelSettings("llama3.2", Optional.of(stub.baseUrl()), Duration.ofMillis(500));
            StreamedChat streamed = StreamedChat.chat(provider().streamingChatModel(quick), plain("hi"));
            assertNull(streamed.error);
            assertEquals(answer, streamed.text());
            assertEquals(1, stub.requests().size());
        }
    }

    @Test
    void anUnknownModelIsOneLineSayingHowToPullIt() throws Exception {
        try (OllamaStub stub = OllamaStub.start(
                OllamaStub.failure(404, "model \"llama3.2\" not found, try pulling it first"),
                OllamaStub.failure(404, "model \"llama3.2\" not found, try pulling it first"))) {
            ModelException error = assertThrows(ModelException.class,
                    () -> provider().chatModel(settings(stub.baseUrl())).chat("hi"));
            assertEquals(Kind.NOT_FOUND, error.kind());
            assertEquals("Model 'llama3.2' was not found (HTTP 404 from " + stub.baseUrl() + "/api/chat): "
                    + "model \"llama3.2\" not found, try pulling it first. "
                    + "Check the model name, or fetch it with: ollama pull llama3.2", error.getMessage());
            StreamedChat streamed = StreamedChat.chat(provider().streamingChatModel(settings(stub.baseUrl())), plain("hi"));
            assertEquals(error.getMessage(), streamed.error.getMessage());
            assertEquals(2, stub.requests().size());
        }
    }

    @Test
    void a400IsNotRetried() throws Exception {
        try (OllamaStub stub = OllamaStub.start(
                OllamaStub.failure(400, "registry.ollama.ai/library/gemma:2b does not support tools"),
                OllamaStub.text("never"))) {
            ModelException error = assertThrows(ModelException.class,
                    () -> provider().chatModel(settings(stub.baseUrl())).chat(withTools(List.of(UserMessage.from("x")))));
            assertEquals(Kind.BAD_REQUEST, error.kind());
            assertTrue(error.getMessage().endsWith("does not support tools"), error.getMessage());
            assertEquals(1, stub.requests().size());
        }
    }

    @Test
    void aServerThatIsNotRunningIsOneLineNamingTheUrl() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        String root = "http://127.0.0.1:" + port;
        ModelException error = assertThrows(ModelException.class, () -> provider().chatModel(settings(root)).chat("hi"));
        assertEquals("Cannot connect to Ollama at " + root
                + ": connection refused. Is the server running, and is the base URL right?", error.getMessage());
        StreamedChat streamed = StreamedChat.chat(provider().streamingChatModel(settings(root)), plain("hi"));
        assertEquals(error.getMessage(), streamed.error.getMessage());
    }

    @Test
    void aStreamCutOrStoppedMidwayIsAClearErrorAndNotAHang() throws Exception {
        try (OllamaStub stub = OllamaStub.start(
                OllamaStub.cut(OllamaStub.text("An answer that breaks off."), 2),
                OllamaStub.truncated(OllamaStub.text("An answer that just stops."), 2))) {
            StreamedChat cut = StreamedChat.chat(provider().streamingChatModel(settings(stub.baseUrl())), plain("hi"));
            ModelException error = assertInstanceOf(ModelException.class, cut.error);
            assertEquals(Kind.BAD_RESPONSE, error.kind());
            assertTrue(error.getMessage().startsWith("The stream from Ollama was cut after 2 events"), error.getMessage());
            assertEquals("An answer th", cut.text());
            // LangChain4j's Ollama listener ignores the end of the body: without "done": true it would wait forever
            StreamedChat stopped = StreamedChat.chat(provider().streamingChatModel(settings(stub.baseUrl())), plain("hi"));
            assertTrue(assertInstanceOf(ModelException.class, stopped.error).getMessage()
                    .contains("ended before the answer was complete"), stopped.error.getMessage());
            assertEquals(2, stub.requests().size());
        }
    }

    @Test
    void anErrorLineMidStreamIsReportedInOneLine() throws Exception {
        try (OllamaStub stub = OllamaStub.start(OllamaStub.streamError(OllamaStub.text("Half an answer"), 2,
                "an error was encountered while running the model: unexpected EOF"))) {
            StreamedChat streamed = StreamedChat.chat(provider().streamingChatModel(settings(stub.baseUrl())), plain("hi"));
            ModelException error = assertInstanceOf(ModelException.class, streamed.error);
            assertEquals("Ollama reported an error in the stream: an error was encountered while running the model: "
                    + "unexpected EOF", error.getMessage());
            assertEquals(1, stub.requests().size());
        }
    }
}
