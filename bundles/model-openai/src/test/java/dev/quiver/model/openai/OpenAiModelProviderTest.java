package dev.quiver.model.openai;

import dev.quiver.langchain4j.StreamedChat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.quiver.langchain4j.ModelException;
import dev.quiver.langchain4j.ModelException.Kind;
import dev.quiver.langchain4j.ModelSettings;
import dev.quiver.langchain4j.RetryPolicy;
import dev.quiver.langchain4j.Thinking;
import dev.quiver.testing.OpenAiStub;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The OpenAI provider against OpenAiStub: what crosses the wire, streaming, retries and errors. */
class OpenAiModelProviderTest {

    private static final RetryPolicy FAST = new RetryPolicy(3, Duration.ofMillis(20), Duration.ofMillis(50),
            Duration.ofSeconds(30));

    private static final ToolSpecification READ_FILE = ToolSpecification.builder()
            .name("read_file")
            .description("Reads a file of the workspace.")
            .parameters(JsonObjectSchema.builder()
                    .addStringProperty("path", "the file, relative to the workspace")
                    .addIntegerProperty("limit", "lines to read")
                    .required("path")
                    .build())
            .build();
    private static final ToolSpecification GLOB = ToolSpecification.builder()
            .name("glob")
            .description("Lists files matching a pattern.")
            .parameters(JsonObjectSchema.builder().addStringProperty("pattern").required("pattern").build())
            .build();

    private static ModelSettings settings(Optional<String> baseUrl) {
        return new ModelSettings("test-model", baseUrl, Duration.ofSeconds(10));
    }

    private static OpenAiModelProvider provider() {
        return new OpenAiModelProvider(Map.of("OPENAI_API_KEY", "sk-quiver-test-key")::get, FAST);
    }

    private static ChatRequest withTools(List<ChatMessage> messages) {
        return ChatRequest.builder().messages(messages).toolSpecifications(READ_FILE, GLOB).build();
    }

    private static ModelSettings thinking(String name, String baseUrl, Thinking level) {
        return new ModelSettings(name, Optional.of(baseUrl), Duration.ofSeconds(10), List.of(), retry -> { }, level);
    }

    @Test
    void aThinkingLevelReachesAReasoningModelAsReasoningEffortOnBothModels() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("a"), OpenAiStub.text("b"), OpenAiStub.text("c"),
                OpenAiStub.text("d"))) {
            provider().chatModel(thinking("o4-mini", stub.baseUrl(), Thinking.HIGH)).chat(withTools(
                    List.of(UserMessage.from("hi"))));
            StreamedChat.chat(provider().streamingChatModel(thinking("gpt-5", stub.baseUrl(), Thinking.LOW)),
                    ChatRequest.builder().messages(UserMessage.from("hi")).build());
            provider().chatModel(thinking("o3", stub.baseUrl(), Thinking.MAX)).chat("hi");
            provider().chatModel(thinking("o3", stub.baseUrl(), Thinking.OFF)).chat("hi");
            assertEquals("high", stub.requests().get(0).path("reasoning_effort").asText(), stub.requests().get(0).toString());
            // the tools' own request parameter is kept beside it
            assertTrue(stub.requests().get(0).path("parallel_tool_calls").asBoolean());
            assertEquals("low", stub.requests().get(1).path("reasoning_effort").asText());
            assertEquals("high", stub.requests().get(2).path("reasoning_effort").asText(), "max asks for the most there is");
            assertFalse(stub.requests().get(3).has("reasoning_effort"), "off sends none: " + stub.requests().get(3));
        }
    }

    @Test
    void aModelThatDoesNotReasonGetsNoReasoningEffortItWouldRefuse() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("a"))) {
            assertFalse(provider().thinks("gpt-4.1"));
            assertTrue(provider().thinks("o4-mini"));
            assertTrue(provider().thinks("openai/gpt-oss-120b"));
            provider().chatModel(thinking("gpt-4.1", stub.baseUrl(), Thinking.HIGH)).chat("hi");
            assertFalse(stub.requests().get(0).has("reasoning_effort"), stub.requests().get(0).toString());
        }
    }

    @Test
    void baseUrlIncludesTheVersionPathAndTheKeyGoesAsABearerToken() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("hello"))) {
            ChatModel model = provider().chatModel(settings(Optional.of(stub.baseUrl())));
            assertEquals("hello", model.chat("hi"));
            assertEquals("test-model", stub.requests().get(0).get("model").asText());
            assertEquals("Bearer sk-quiver-test-key", stub.authorizations().get(0));
            assertEquals("/v1/chat/completions", stub.paths().get(0));
        }
    }

    @Test
    void openAiBaseUrlFromTheEnvironmentIsUsedWhenNoneIsGiven() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("from env"))) {
            OpenAiModelProvider provider = new OpenAiModelProvider(Map.of("OPENAI_BASE_URL", stub.baseUrl())::get);
            assertEquals("from env", provider.chatModel(settings(Optional.empty())).chat("hi"));
        }
    }

    @Test
    void apiOpenAiComWithoutAKeyIsRefusedWithTheVariableToSet() {
        OpenAiModelProvider provider = new OpenAiModelProvider(Map.<String, String>of()::get);
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> provider.chatModel(settings(Optional.empty())));
        assertTrue(error.getMessage().startsWith("OPENAI_API_KEY is not set"), error.getMessage());
        assertThrows(IllegalArgumentException.class, () -> provider.streamingChatModel(settings(Optional.empty())));
    }

    @Test
    void aBaseUrlThatIsNotHttpIsRefused() {
        OpenAiModelProvider provider = new OpenAiModelProvider(Map.<String, String>of()::get);
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> provider.chatModel(settings(Optional.of("localhost:8000"))));
        assertTrue(error.getMessage().contains("http or https"), error.getMessage());
    }

    @Test
    void aBaseUrlEndingInTheEndpointIsRefusedNamingTheRootToUse() {
        OpenAiModelProvider provider = new OpenAiModelProvider(Map.<String, String>of()::get);
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> provider.chatModel(settings(Optional.of("http://127.0.0.1:8000/v1/chat/completions"))));
        assertEquals("Base URL must be the API's root, without the endpoint: Quiver adds /chat/completions itself. "
                + "Use http://127.0.0.1:8000/v1 instead of http://127.0.0.1:8000/v1/chat/completions.", error.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> provider.streamingChatModel(settings(Optional.of("http://h/v1/chat/completions/"))));
    }

    @Test
    void toolSchemasGoOutAndCallIdsComeBackPairedWithTheirResults() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("read_file", "{\"path\":\"a.txt\"}"),
                        OpenAiStub.call("glob", "{\"pattern\":\"*.java\"}")),
                OpenAiStub.text("done"))) {
            ChatModel model = provider().chatModel(settings(Optional.of(stub.baseUrl())));
            List<ChatMessage> messages = new ArrayList<>(List.of(SystemMessage.from("You are Quiver."),
                    UserMessage.from("look around")));
            ChatResponse first = model.chat(withTools(messages));

            JsonNode sent = stub.requests().get(0);
            assertEquals("system", sent.get("messages").get(0).get("role").asText());
            assertEquals("You are Quiver.", sent.get("messages").get(0).get("content").asText());
            JsonNode tool = sent.get("tools").get(0);
            assertEquals("function", tool.get("type").asText());
            assertEquals("read_file", tool.get("function").get("name").asText());
            assertEquals("Reads a file of the workspace.", tool.get("function").get("description").asText());
            JsonNode parameters = tool.get("function").get("parameters");
            assertEquals("object", parameters.get("type").asText());
            assertEquals("string", parameters.get("properties").get("path").get("type").asText());
            assertEquals("integer", parameters.get("properties").get("limit").get("type").asText());
            assertEquals("path", parameters.get("required").get(0).asText());
            assertEquals("glob", sent.get("tools").get(1).get("function").get("name").asText());
            assertTrue(sent.get("parallel_tool_calls").asBoolean(), sent.toString());

            List<ToolExecutionRequest> calls = first.aiMessage().toolExecutionRequests();
            assertEquals(stub.callIds(), calls.stream().map(ToolExecutionRequest::id).toList());
            assertEquals("{\"path\":\"a.txt\"}", calls.get(0).arguments());

            messages.add(first.aiMessage());
            messages.add(ToolExecutionResultMessage.from(calls.get(1), "A.java"));
            messages.add(ToolExecutionResultMessage.from(calls.get(0), "contents of a.txt"));
            assertEquals("done", model.chat(withTools(messages)).aiMessage().text());

            JsonNode followUp = stub.requests().get(1).get("messages");
            JsonNode assistant = followUp.get(2);
            assertEquals("assistant", assistant.get("role").asText());
            assertEquals(stub.callIds().get(0), assistant.get("tool_calls").get(0).get("id").asText());
            assertEquals(stub.callIds().get(1), assistant.get("tool_calls").get(1).get("id").asText());
            assertEquals("read_file", assistant.get("tool_calls").get(0).get("function").get("name").asText());
            assertEquals("tool", followUp.get(3).get("role").asText());
            assertEquals(stub.callIds().get(1), followUp.get(3).get("tool_call_id").asText());
            assertEquals("A.java", followUp.get(3).get("content").asText());
            assertEquals(stub.callIds().get(0), followUp.get(4).get("tool_call_id").asText());
            assertEquals("contents of a.txt", followUp.get(4).get("content").asText());
        }
    }

    @Test
    void aRequestWithoutToolsDoesNotAskForParallelToolCalls() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("plain"), OpenAiStub.text("plain"))) {
            provider().chatModel(settings(Optional.of(stub.baseUrl()))).chat("hi");
            StreamedChat.chat(provider().streamingChatModel(settings(Optional.of(stub.baseUrl()))),
                    ChatRequest.builder().messages(UserMessage.from("hi")).build());
            for (JsonNode request : stub.requests()) {
                assertFalse(request.has("tools"), request.toString());
                assertFalse(request.has("parallel_tool_calls"), request.toString());
            }
        }
    }

    @Test
    void streamedTextArrivesInPiecesAndCompletesWithUsage() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("Hello from a streamed answer."))) {
            StreamingChatModel model = provider().streamingChatModel(settings(Optional.of(stub.baseUrl())));
            StreamedChat streamed = StreamedChat.chat(model, ChatRequest.builder().messages(UserMessage.from("hi")).build());
            assertNull(streamed.error);
            assertTrue(streamed.pieces.size() > 1, streamed.pieces.toString());
            assertEquals("Hello from a streamed answer.", streamed.text());
            assertEquals("Hello from a streamed answer.", streamed.response.aiMessage().text());
            assertEquals(10, streamed.response.tokenUsage().inputTokenCount());
            assertEquals(5, streamed.response.tokenUsage().outputTokenCount());
            JsonNode sent = stub.requests().get(0);
            assertTrue(sent.get("stream").asBoolean());
            assertTrue(sent.get("stream_options").get("include_usage").asBoolean());
            assertEquals("Bearer sk-quiver-test-key", stub.authorizations().get(0));
        }
    }

    @Test
    void streamedToolCallDeltasAreReassembledInParallel() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.calls(
                OpenAiStub.call("read_file", "{\"path\":\"src/Main.java\",\"limit\":40}"),
                OpenAiStub.call("glob", "{\"pattern\":\"**/*.md\"}")))) {
            StreamingChatModel model = provider().streamingChatModel(settings(Optional.of(stub.baseUrl())));
            StreamedChat streamed = StreamedChat.chat(model, withTools(List.of(UserMessage.from("look"))));
            assertNull(streamed.error);
            List<ToolExecutionRequest> calls = streamed.response.aiMessage().toolExecutionRequests();
            assertEquals(2, calls.size());
            assertEquals(stub.callIds(), calls.stream().map(ToolExecutionRequest::id).toList());
            assertEquals("read_file", calls.get(0).name());
            assertEquals("{\"path\":\"src/Main.java\",\"limit\":40}", calls.get(0).arguments());
            assertEquals("glob", calls.get(1).name());
            assertEquals("{\"pattern\":\"**/*.md\"}", calls.get(1).arguments());
            assertTrue(stub.requests().get(0).get("parallel_tool_calls").asBoolean());
            assertEquals("read_file", stub.requests().get(0).get("tools").get(0).get("function").get("name").asText());
        }
    }

    @Test
    void a429WithRetryAfterIsRetriedAfterTheWaitItAsks() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.failure(429, "Rate limit reached", Map.of("Retry-After", "1")), OpenAiStub.text("sync"),
                OpenAiStub.failure(429, "Rate limit reached", Map.of("Retry-After", "1")), OpenAiStub.text("streamed"))) {
            assertEquals("sync", provider().chatModel(settings(Optional.of(stub.baseUrl()))).chat("hi"));
            StreamedChat streamed = StreamedChat.chat(provider().streamingChatModel(settings(Optional.of(stub.baseUrl()))),
                    ChatRequest.builder().messages(UserMessage.from("hi")).build());
            assertEquals("streamed", streamed.text());
            List<Long> arrivals = stub.arrivals();
            assertEquals(4, arrivals.size());
            assertTrue(TimeUnit.NANOSECONDS.toMillis(arrivals.get(1) - arrivals.get(0)) >= 950);
            assertTrue(TimeUnit.NANOSECONDS.toMillis(arrivals.get(3) - arrivals.get(2)) >= 950);
        }
    }

    @Test
    void theModelTimeoutBoundsEachAttemptOfBothModels() throws Exception {
        // LangChain4j's builders copy timeouts into the HTTP client builder: the setting must survive that
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.delayed(Duration.ofSeconds(3), OpenAiStub.text("too late")), OpenAiStub.text("sync"),
                OpenAiStub.delayed(Duration.ofSeconds(3), OpenAiStub.text("too late")), OpenAiStub.text("streamed"))) {
            ModelSettings quick = new ModelSettings("test-model", Optional.of(stub.baseUrl()), Duration.ofMillis(500));
            assertEquals("sync", provider().chatModel(quick).chat("hi"));
            assertEquals("streamed", StreamedChat.chat(provider().streamingChatModel(quick),
                    ChatRequest.builder().messages(UserMessage.from("hi")).build()).text());
            assertEquals(4, stub.requests().size());
        }
    }

    @Test
    void aStreamThatKeepsSendingOutlastsTheModelTimeoutManyTimesOver() throws Exception {
        String answer = "A slow model that keeps sending small pieces of its answer.";
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.paced(OpenAiStub.text(answer), Duration.ofMillis(150)))) {
            ModelSettings quick = new ModelSettings("test-model", Optional.of(stub.baseUrl()), Duration.ofMillis(500));
            StreamedChat streamed = StreamedChat.chat(provider().streamingChatModel(quick),
                    ChatRequest.builder().messages(UserMessage.from("hi")).build());
            assertNull(streamed.error);
            assertEquals(answer, streamed.text());
            assertEquals(1, stub.requests().size());
        }
    }

    @Test
    void aServerFailingWith500IsTriedFiveTimesAndTheMessageNamesStatusServerBodyAndAttempts() throws Exception {
        RetryPolicy five = new RetryPolicy(RetryPolicy.DEFAULT.maxAttempts(), Duration.ofMillis(20), Duration.ofMillis(50),
                Duration.ofSeconds(30));
        try (OpenAiStub stub = OpenAiStub.start()) { // every request: 500 "the test script has no more replies"
            StreamedChat streamed = StreamedChat.chat(
                    new OpenAiModelProvider(Map.of("OPENAI_API_KEY", "sk-quiver-test-key")::get, five)
                            .streamingChatModel(settings(Optional.of(stub.baseUrl()))),
                    ChatRequest.builder().messages(UserMessage.from("hi")).build());
            ModelException error = assertInstanceOf(ModelException.class, streamed.error);
            assertEquals(Kind.SERVER, error.kind());
            assertEquals(5, stub.requests().size());
            assertTrue(error.getMessage().startsWith("The OpenAI-compatible server failed (HTTP 500 from "
                    + stub.baseUrl() + "/chat/completions): the test script has no more replies. Gave up after 5 attempts in "),
                    error.getMessage());
        }
    }

    @Test
    void a401IsOneLineNamingTheKeyVariableAndIsNotRetried() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.failure(401, "Incorrect API key provided: sk-quiver-test-key."),
                OpenAiStub.failure(401, "Incorrect API key provided"))) {
            ModelException error = assertThrows(ModelException.class,
                    () -> provider().chatModel(settings(Optional.of(stub.baseUrl()))).chat("hi"));
            assertEquals(Kind.AUTHENTICATION, error.kind());
            assertEquals("The OpenAI-compatible server refused the API key (HTTP 401 from " + stub.baseUrl()
                    + "/chat/completions): Incorrect API key provided: [redacted]. Check OPENAI_API_KEY.", error.getMessage());
            StreamedChat streamed = StreamedChat.chat(provider().streamingChatModel(settings(Optional.of(stub.baseUrl()))),
                    ChatRequest.builder().messages(UserMessage.from("hi")).build());
            assertEquals(Kind.AUTHENTICATION, assertInstanceOf(ModelException.class, streamed.error).kind());
            assertEquals(2, stub.requests().size());
        }
    }

    @Test
    void a404NamesTheModelAndIsNotRetried() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.failure(404, "The model `test-model` does not exist or you do not have access to it."))) {
            ModelException error = assertThrows(ModelException.class,
                    () -> provider().chatModel(settings(Optional.of(stub.baseUrl()))).chat("hi"));
            assertEquals(Kind.NOT_FOUND, error.kind());
            assertTrue(error.getMessage().startsWith("Model 'test-model' was not found (HTTP 404 from "),
                    error.getMessage());
            assertEquals(1, stub.requests().size());
        }
    }

    @Test
    void a400IsNotRetried() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.failure(400, "Invalid 'messages[1].content'"),
                OpenAiStub.text("never"))) {
            ModelException error = assertThrows(ModelException.class,
                    () -> provider().chatModel(settings(Optional.of(stub.baseUrl()))).chat("hi"));
            assertEquals(Kind.BAD_REQUEST, error.kind());
            assertEquals(1, stub.requests().size());
        }
    }

    @Test
    void anUnreachableServerIsOneLineNamingTheUrl() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        String baseUrl = "http://127.0.0.1:" + port + "/v1";
        ModelException error = assertThrows(ModelException.class,
                () -> provider().chatModel(settings(Optional.of(baseUrl))).chat("hi"));
        assertEquals("Cannot connect to the OpenAI-compatible server at http://127.0.0.1:" + port
                + ": connection refused. Is the server running, and is the base URL right?", error.getMessage());
        StreamedChat streamed = StreamedChat.chat(provider().streamingChatModel(settings(Optional.of(baseUrl))),
                ChatRequest.builder().messages(UserMessage.from("hi")).build());
        assertEquals(error.getMessage(), streamed.error.getMessage());
    }

    @Test
    void aStreamCutMidwayIsAClearErrorAfterThePartialText() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.cut(OpenAiStub.text("This answer will break off."), 3),
                OpenAiStub.text("must not be requested"))) {
            StreamedChat streamed = StreamedChat.chat(provider().streamingChatModel(settings(Optional.of(stub.baseUrl()))),
                    ChatRequest.builder().messages(UserMessage.from("hi")).build());
            ModelException error = assertInstanceOf(ModelException.class, streamed.error);
            assertEquals(Kind.BAD_RESPONSE, error.kind());
            assertTrue(error.getMessage().startsWith("The stream from the OpenAI-compatible server was cut after 3 events"),
                    error.getMessage());
            assertEquals("This answer ", streamed.text()); // two content deltas of six characters
            assertNull(streamed.response);
            assertEquals(1, stub.requests().size());
        }
    }

    @Test
    void aStreamThatStopsBeforeDoneIsNotAnswerEnough() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.truncated(OpenAiStub.text("Cut short without DONE."), 3))) {
            StreamedChat streamed = StreamedChat.chat(provider().streamingChatModel(settings(Optional.of(stub.baseUrl()))),
                    ChatRequest.builder().messages(UserMessage.from("hi")).build());
            ModelException error = assertInstanceOf(ModelException.class, streamed.error);
            assertTrue(error.getMessage().contains("ended before the answer was complete"), error.getMessage());
            assertNull(streamed.response);
        }
    }
}
