package dev.quiver.model.anthropic;

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
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.quiver.langchain4j.ModelException;
import dev.quiver.langchain4j.ModelException.Kind;
import dev.quiver.langchain4j.ModelSettings;
import dev.quiver.langchain4j.RetryPolicy;
import dev.quiver.langchain4j.Thinking;
import dev.quiver.testing.AnthropicStub;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The Anthropic provider against AnthropicStub: the Messages API wire format, streaming, retries, errors. */
class AnthropicModelProviderTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = "sk-ant-quiver-test-key";
    private static final RetryPolicy FAST = new RetryPolicy(3, Duration.ofMillis(20), Duration.ofMillis(50),
            Duration.ofSeconds(30));

    private static final ToolSpecification READ_FILE = ToolSpecification.builder()
            .name("read_file")
            .description("Reads a file of the workspace.")
            .parameters(JsonObjectSchema.builder()
                    .addStringProperty("path", "the file, relative to the workspace")
                    .addIntegerProperty("limit")
                    .required("path")
                    .build())
            .build();
    private static final ToolSpecification GLOB = ToolSpecification.builder()
            .name("glob")
            .description("Lists files matching a pattern.")
            .parameters(JsonObjectSchema.builder().addStringProperty("pattern").required("pattern").build())
            .build();

    private static AnthropicModelProvider provider() {
        return new AnthropicModelProvider(Map.of("ANTHROPIC_API_KEY", KEY)::get, FAST);
    }

    private static ModelSettings settings(String baseUrl) {
        return new ModelSettings("claude-test", Optional.ofNullable(baseUrl), Duration.ofSeconds(10));
    }

    private static ChatRequest plain(String text) {
        return ChatRequest.builder().messages(UserMessage.from(text)).build();
    }

    private static ChatRequest withTools(List<ChatMessage> messages) {
        return ChatRequest.builder().messages(messages).toolSpecifications(READ_FILE, GLOB).build();
    }

    private static ModelSettings thinking(String name, String baseUrl, Thinking level) {
        return new ModelSettings(name, Optional.of(baseUrl), Duration.ofSeconds(10), List.of(), retry -> { }, level);
    }

    @Test
    void aThinkingLevelIsAnEnabledBudgetBelowMaxTokensOnBothModels() throws Exception {
        try (AnthropicStub stub = AnthropicStub.start(AnthropicStub.text("a"), AnthropicStub.text("b"),
                AnthropicStub.text("c"), AnthropicStub.text("d"))) {
            provider().chatModel(thinking("claude-sonnet-4-5", stub.baseUrl(), Thinking.HIGH)).chat(plain("hi"));
            StreamedChat.chat(provider().streamingChatModel(thinking("claude-sonnet-4-5", stub.baseUrl(), Thinking.LOW)),
                    plain("hi"));
            provider().chatModel(thinking("claude-opus-4-1", stub.baseUrl(), Thinking.MAX)).chat(plain("hi"));
            provider().chatModel(thinking("claude-sonnet-4-5", stub.baseUrl(), Thinking.OFF)).chat(plain("hi"));
            int[] budgets = {16_384, 2_048, 32_768};
            for (int i = 0; i < budgets.length; i++) {
                JsonNode sent = stub.requests().get(i);
                assertEquals("enabled", sent.path("thinking").path("type").asText(), sent.toString());
                assertEquals(budgets[i], sent.path("thinking").path("budget_tokens").asInt());
                // the Messages API refuses a budget that is not below max_tokens
                assertEquals(budgets[i] + AnthropicModelProvider.MAX_TOKENS, sent.get("max_tokens").asInt());
            }
            JsonNode off = stub.requests().get(3);
            assertFalse(off.has("thinking"), off.toString());
            assertEquals(AnthropicModelProvider.MAX_TOKENS, off.get("max_tokens").asInt());
        }
    }

    @Test
    void withThinkingTheSignedThinkingBlockGoesBackBeforeTheToolUseItPreceded() throws Exception {
        // the Messages API refuses tool results after an assistant turn that lost its thinking block
        try (AnthropicStub stub = AnthropicStub.start(
                AnthropicStub.toolUse(AnthropicStub.call("read_file", "{\"path\":\"a.txt\"}")),
                AnthropicStub.text("done"))) {
            StreamingChatModel model = provider().streamingChatModel(thinking("claude-sonnet-4-5", stub.baseUrl(),
                    Thinking.MEDIUM));
            List<ChatMessage> messages = new ArrayList<>(List.of(UserMessage.from("look")));
            StreamedChat first = StreamedChat.chat(model, withTools(messages));
            assertNull(first.error);
            messages.add(first.response.aiMessage());
            messages.add(ToolExecutionResultMessage.from(first.response.aiMessage().toolExecutionRequests().get(0),
                    "contents"));
            StreamedChat second = StreamedChat.chat(model, withTools(messages));
            assertNull(second.error);
            assertEquals("done", second.text());

            JsonNode assistant = stub.requests().get(1).get("messages").get(1);
            JsonNode thought = assistant.get("content").get(0);
            assertEquals("thinking", thought.get("type").asText(), assistant.toString());
            assertEquals(AnthropicStub.THOUGHT, thought.get("thinking").asText());
            assertTrue(thought.get("signature").asText().startsWith("sig_msg_"), thought.toString());
            assertEquals("tool_use", assistant.get("content").get(1).get("type").asText());
        }
    }

    @Test
    void aClaudeOlderThanExtendedThinkingIsNotAskedForIt() throws Exception {
        try (AnthropicStub stub = AnthropicStub.start(AnthropicStub.text("a"))) {
            assertFalse(provider().thinks("claude-3-5-sonnet-20241022"));
            assertTrue(provider().thinks("claude-3-7-sonnet-latest"));
            provider().chatModel(thinking("claude-3-5-haiku-latest", stub.baseUrl(), Thinking.HIGH)).chat(plain("hi"));
            assertFalse(stub.requests().get(0).has("thinking"), stub.requests().get(0).toString());
        }
    }

    @Test
    void theRootBaseUrlGetsV1MessagesAndTheKeyGoesInXApiKey() throws Exception {
        try (AnthropicStub stub = AnthropicStub.start(AnthropicStub.text("hello"), AnthropicStub.text("again"),
                AnthropicStub.text("and again"), AnthropicStub.text("whole"), AnthropicStub.text("whole/"))) {
            assertEquals("hello", provider().chatModel(settings(stub.baseUrl())).chat("hi"));
            assertEquals("again", provider().chatModel(settings(stub.baseUrl() + "/")).chat("hi"));
            assertEquals("and again", provider().chatModel(settings(stub.baseUrl() + "/v1")).chat("hi"));
            // the endpoint's whole URL, as Anthropic's documentation shows it, is taken as the root it names
            assertEquals("whole", provider().chatModel(settings(stub.baseUrl() + "/v1/messages")).chat("hi"));
            assertEquals("whole/", provider().chatModel(settings(stub.baseUrl() + "/v1/messages/")).chat("hi"));
            assertEquals(List.of("/v1/messages", "/v1/messages", "/v1/messages", "/v1/messages", "/v1/messages"),
                    stub.paths(), "never a doubled path");
            Map<String, String> headers = stub.headers().get(0);
            assertEquals(KEY, headers.get("x-api-key"));
            assertEquals("2023-06-01", headers.get("anthropic-version"));
            assertFalse(headers.containsKey("authorization"));
            JsonNode sent = stub.requests().get(0);
            assertEquals("claude-test", sent.get("model").asText());
            assertEquals(AnthropicModelProvider.MAX_TOKENS, sent.get("max_tokens").asInt());
        }
    }

    @Test
    void theBaseUrlComesFromTheEnvironmentAndApiAnthropicComNeedsAKey() throws Exception {
        try (AnthropicStub stub = AnthropicStub.start(AnthropicStub.text("from env"))) {
            AnthropicModelProvider provider = new AnthropicModelProvider(
                    Map.of("ANTHROPIC_BASE_URL", stub.baseUrl())::get, FAST);
            assertEquals("from env", provider.chatModel(settings(null)).chat("hi"));
            assertEquals("none", stub.apiKeys().get(0));
        }
        AnthropicModelProvider keyless = new AnthropicModelProvider(Map.<String, String>of()::get, FAST);
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> keyless.streamingChatModel(settings(null)));
        assertTrue(error.getMessage().startsWith("ANTHROPIC_API_KEY is not set"), error.getMessage());
        assertThrows(IllegalArgumentException.class, () -> provider().chatModel(settings("api.anthropic.com")));
    }

    @Test
    void apiUrlAddsTheVersionPathToTheRootOnly() {
        assertEquals("https://api.anthropic.com/v1/", AnthropicModelProvider.apiUrl("https://api.anthropic.com"));
        assertEquals("https://api.anthropic.com/v1/", AnthropicModelProvider.apiUrl("https://api.anthropic.com/"));
        assertEquals("https://proxy.example/anthropic/v1/", AnthropicModelProvider.apiUrl("https://proxy.example/anthropic"));
        assertEquals("http://h:1/v1/", AnthropicModelProvider.apiUrl("http://h:1/v1"));
        assertEquals("http://h:1/v1/", AnthropicModelProvider.apiUrl("http://h:1/v1/messages"));
    }

    @Test
    void theSystemPromptGoesInTheTopLevelSystemFieldNotInMessages() throws Exception {
        try (AnthropicStub stub = AnthropicStub.start(AnthropicStub.text("ok"), AnthropicStub.text("streamed ok"))) {
            ChatRequest request = ChatRequest.builder()
                    .messages(SystemMessage.from("You are Quiver. Workspace: /tmp/w."), UserMessage.from("hi"))
                    .build();
            provider().chatModel(settings(stub.baseUrl())).chat(request);
            StreamedChat.chat(provider().streamingChatModel(settings(stub.baseUrl())), request);
            for (JsonNode sent : stub.requests()) {
                assertEquals("You are Quiver. Workspace: /tmp/w.", systemText(sent), sent.toString());
                JsonNode messages = sent.get("messages");
                assertEquals(1, messages.size(), messages.toString());
                assertEquals("user", messages.get(0).get("role").asText());
                for (JsonNode message : messages) {
                    assertFalse("system".equals(message.get("role").asText()));
                }
            }
            assertTrue(stub.requests().get(1).get("stream").asBoolean());
        }
    }

    @Test
    void toolSchemasGoOutAsInputSchemaAndToolUseIdsPairWithToolResults() throws Exception {
        try (AnthropicStub stub = AnthropicStub.start(
                AnthropicStub.toolUse("Let me look.", AnthropicStub.call("read_file", "{\"path\":\"a.txt\"}"),
                        AnthropicStub.call("glob", "{\"pattern\":\"*.java\"}")),
                AnthropicStub.text("done"))) {
            ChatModel model = provider().chatModel(settings(stub.baseUrl()));
            List<ChatMessage> messages = new ArrayList<>(List.of(UserMessage.from("look around")));
            ChatResponse first = model.chat(withTools(messages));

            JsonNode tool = stub.requests().get(0).get("tools").get(0);
            assertEquals("read_file", tool.get("name").asText());
            assertEquals("Reads a file of the workspace.", tool.get("description").asText());
            assertEquals("object", tool.get("input_schema").get("type").asText());
            assertEquals("string", tool.get("input_schema").get("properties").get("path").get("type").asText());
            assertEquals("path", tool.get("input_schema").get("required").get(0).asText());
            assertEquals("glob", stub.requests().get(0).get("tools").get(1).get("name").asText());

            List<ToolExecutionRequest> calls = first.aiMessage().toolExecutionRequests();
            assertEquals(stub.toolUseIds(), calls.stream().map(ToolExecutionRequest::id).toList());
            assertEquals(JSON.readTree("{\"path\":\"a.txt\"}"), JSON.readTree(calls.get(0).arguments()));
            assertEquals("Let me look.", first.aiMessage().text());
            assertEquals(10, first.tokenUsage().inputTokenCount());

            messages.add(first.aiMessage());
            messages.add(ToolExecutionResultMessage.from(calls.get(0), "contents of a.txt"));
            messages.add(ToolExecutionResultMessage.from(calls.get(1), "A.java"));
            assertEquals("done", model.chat(withTools(messages)).aiMessage().text());

            JsonNode followUp = stub.requests().get(1).get("messages");
            JsonNode assistant = followUp.get(1);
            assertEquals("assistant", assistant.get("role").asText());
            List<JsonNode> toolUses = blocks(assistant, "tool_use");
            assertEquals(stub.toolUseIds(), toolUses.stream().map(b -> b.get("id").asText()).toList());
            assertEquals("read_file", toolUses.get(0).get("name").asText());
            assertEquals(JSON.readTree("{\"path\":\"a.txt\"}"), toolUses.get(0).get("input"));
            JsonNode results = followUp.get(2);
            assertEquals("user", results.get("role").asText());
            List<JsonNode> toolResults = blocks(results, "tool_result");
            assertEquals(stub.toolUseIds(), toolResults.stream().map(b -> b.get("tool_use_id").asText()).toList());
            assertEquals("contents of a.txt", resultText(toolResults.get(0)));
            assertEquals("A.java", resultText(toolResults.get(1)));
            assertEquals(3, followUp.size(), "both results in one user message: " + followUp);
        }
    }

    @Test
    void streamedTextArrivesInPiecesWithUsage() throws Exception {
        try (AnthropicStub stub = AnthropicStub.start(AnthropicStub.text("Hello from a streamed Claude."))) {
            StreamedChat streamed = StreamedChat.chat(provider().streamingChatModel(settings(stub.baseUrl())), plain("hi"));
            assertNull(streamed.error);
            assertTrue(streamed.pieces.size() > 1, streamed.pieces.toString());
            assertEquals("Hello from a streamed Claude.", streamed.text());
            assertEquals("Hello from a streamed Claude.", streamed.response.aiMessage().text());
            assertEquals(10, streamed.response.tokenUsage().inputTokenCount());
            assertEquals(5, streamed.response.tokenUsage().outputTokenCount());
        }
    }

    @Test
    void streamedToolUseInputJsonDeltasAreReassembled() throws Exception {
        try (AnthropicStub stub = AnthropicStub.start(AnthropicStub.toolUse("Reading.",
                AnthropicStub.call("read_file", "{\"path\":\"src/Main.java\",\"limit\":40}"),
                AnthropicStub.call("glob", "{\"pattern\":\"**/*.md\"}")))) {
            StreamedChat streamed = StreamedChat.chat(provider().streamingChatModel(settings(stub.baseUrl())),
                    withTools(List.of(UserMessage.from("look"))));
            assertNull(streamed.error);
            assertEquals("Reading.", streamed.text());
            List<ToolExecutionRequest> calls = streamed.response.aiMessage().toolExecutionRequests();
            assertEquals(stub.toolUseIds(), calls.stream().map(ToolExecutionRequest::id).toList());
            assertEquals("read_file", calls.get(0).name());
            assertEquals(JSON.readTree("{\"path\":\"src/Main.java\",\"limit\":40}"), JSON.readTree(calls.get(0).arguments()));
            assertEquals(JSON.readTree("{\"pattern\":\"**/*.md\"}"), JSON.readTree(calls.get(1).arguments()));
            assertEquals("read_file", stub.requests().get(0).get("tools").get(0).get("name").asText());
        }
    }

    @Test
    void a429WithRetryAfterIsRetriedAfterTheWaitAndOverloadToo() throws Exception {
        try (AnthropicStub stub = AnthropicStub.start(
                AnthropicStub.failure(429, "Number of request tokens has exceeded your per-minute rate limit",
                        Map.of("retry-after", "1")),
                AnthropicStub.failure(529, "Overloaded"), AnthropicStub.text("sync"),
                AnthropicStub.failure(429, "rate limited", Map.of("retry-after", "1")), AnthropicStub.text("streamed"))) {
            assertEquals("sync", provider().chatModel(settings(stub.baseUrl())).chat("hi"));
            StreamedChat streamed = StreamedChat.chat(provider().streamingChatModel(settings(stub.baseUrl())), plain("hi"));
            assertEquals("streamed", streamed.text());
            List<Long> arrivals = stub.arrivals();
            assertEquals(5, arrivals.size());
            assertTrue(TimeUnit.NANOSECONDS.toMillis(arrivals.get(1) - arrivals.get(0)) >= 950);
            assertTrue(TimeUnit.NANOSECONDS.toMillis(arrivals.get(4) - arrivals.get(3)) >= 950);
        }
    }

    @Test
    void theModelTimeoutBoundsEachAttemptOfBothModels() throws Exception {
        try (AnthropicStub stub = AnthropicStub.start(
                AnthropicStub.delayed(Duration.ofSeconds(3), AnthropicStub.text("too late")), AnthropicStub.text("sync"),
                AnthropicStub.delayed(Duration.ofSeconds(3), AnthropicStub.text("too late")),
                AnthropicStub.text("streamed"))) {
            ModelSettings quick = new ModelSettings("claude-test", Optional.of(stub.baseUrl()), Duration.ofMillis(500));
            assertEquals("sync", provider().chatModel(quick).chat("hi"));
            assertEquals("streamed", StreamedChat.chat(provider().streamingChatModel(quick), plain("hi")).text());
            assertEquals(4, stub.requests().size());
        }
    }

    @Test
    void aStreamThatKeepsSendingOutlastsTheModelTimeoutManyTimesOver() throws Exception {
        String answer = "A slow model that keeps sending small pieces of its answer.";
        try (AnthropicStub stub = AnthropicStub.start(AnthropicStub.paced(AnthropicStub.text(answer), Duration.ofMillis(150)))) {
            ModelSettings quick = new ModelSettings("claude-test", Optional.of(stub.baseUrl()), Duration.ofMillis(500));
            StreamedChat streamed = StreamedChat.chat(provider().streamingChatModel(quick), plain("hi"));
            assertNull(streamed.error);
            assertEquals(answer, streamed.text());
            assertEquals(1, stub.requests().size());
        }
    }

    @Test
    void a401IsOneLineNamingTheKeyVariableAndIsNotRetried() throws Exception {
        try (AnthropicStub stub = AnthropicStub.start(AnthropicStub.failure(401, "invalid x-api-key"),
                AnthropicStub.failure(401, "invalid x-api-key"))) {
            ModelException error = assertThrows(ModelException.class,
                    () -> provider().chatModel(settings(stub.baseUrl())).chat("hi"));
            assertEquals("The Anthropic-compatible server refused the API key (HTTP 401 from " + stub.baseUrl()
                    + "/v1/messages): invalid x-api-key. Check ANTHROPIC_API_KEY.", error.getMessage());
            StreamedChat streamed = StreamedChat.chat(provider().streamingChatModel(settings(stub.baseUrl())), plain("hi"));
            assertEquals(error.getMessage(), assertInstanceOf(ModelException.class, streamed.error).getMessage());
            assertEquals(2, stub.requests().size());
        }
    }

    @Test
    void a404NamesTheModelAndA400IsNotRetried() throws Exception {
        try (AnthropicStub stub = AnthropicStub.start(AnthropicStub.failure(404, "model: claude-test"),
                AnthropicStub.failure(400, "messages: text content blocks must be non-empty"), AnthropicStub.text("never"))) {
            ModelException notFound = assertThrows(ModelException.class,
                    () -> provider().chatModel(settings(stub.baseUrl())).chat("hi"));
            assertEquals(Kind.NOT_FOUND, notFound.kind());
            assertEquals("Model 'claude-test' was not found (HTTP 404 from " + stub.baseUrl()
                    + "/v1/messages): model: claude-test. Check the model name and the base URL.", notFound.getMessage());
            ModelException badRequest = assertThrows(ModelException.class,
                    () -> provider().chatModel(settings(stub.baseUrl())).chat("hi"));
            assertEquals(Kind.BAD_REQUEST, badRequest.kind());
            assertEquals(2, stub.requests().size());
        }
    }

    @Test
    void anUnreachableServerIsOneLineNamingTheUrl() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        String root = "http://127.0.0.1:" + port;
        ModelException error = assertThrows(ModelException.class, () -> provider().chatModel(settings(root)).chat("hi"));
        assertEquals(Kind.UNREACHABLE, error.kind());
        assertTrue(error.getMessage().startsWith("Cannot connect to the Anthropic-compatible server at " + root
                + ": connection refused."), error.getMessage());
        StreamedChat streamed = StreamedChat.chat(provider().streamingChatModel(settings(root)), plain("hi"));
        assertEquals(error.getMessage(), streamed.error.getMessage());
    }

    @Test
    void aStreamCutMidwayIsAClearErrorAndNotAHang() throws Exception {
        try (AnthropicStub stub = AnthropicStub.start(AnthropicStub.cut(AnthropicStub.text("An answer that breaks."), 5),
                AnthropicStub.truncated(AnthropicStub.text("An answer that stops."), 5))) {
            StreamedChat cut = StreamedChat.chat(provider().streamingChatModel(settings(stub.baseUrl())), plain("hi"));
            ModelException error = assertInstanceOf(ModelException.class, cut.error);
            assertEquals(Kind.BAD_RESPONSE, error.kind());
            assertTrue(error.getMessage().startsWith("The stream from the Anthropic-compatible server was cut after 5 events"),
                    error.getMessage());
            assertEquals("An answer th", cut.text()); // two text deltas of six characters
            // LangChain4j's Anthropic listener ignores the end of the body: without message_stop it would wait forever
            StreamedChat stopped = StreamedChat.chat(provider().streamingChatModel(settings(stub.baseUrl())), plain("hi"));
            assertTrue(assertInstanceOf(ModelException.class, stopped.error).getMessage()
                    .contains("ended before the answer was complete, after 5 events"), stopped.error.getMessage());
            assertEquals(2, stub.requests().size());
        }
    }

    @Test
    void anErrorEventMidStreamIsReportedInOneLine() throws Exception {
        try (AnthropicStub stub = AnthropicStub.start(
                AnthropicStub.streamError(AnthropicStub.text("Half an answer"), 4, "overloaded_error", "Overloaded"))) {
            StreamedChat streamed = StreamedChat.chat(provider().streamingChatModel(settings(stub.baseUrl())), plain("hi"));
            ModelException error = assertInstanceOf(ModelException.class, streamed.error);
            assertEquals(Kind.SERVER, error.kind());
            assertEquals("The Anthropic-compatible server reported overloaded_error in the stream: Overloaded",
                    error.getMessage());
            assertEquals(1, stub.requests().size());
        }
    }

    private static String systemText(JsonNode request) {
        JsonNode system = request.get("system");
        if (system == null) {
            return null;
        }
        if (system.isTextual()) {
            return system.asText();
        }
        StringBuilder text = new StringBuilder();
        for (JsonNode block : system) {
            assertEquals("text", block.get("type").asText());
            text.append(block.get("text").asText());
        }
        return text.toString();
    }

    private static List<JsonNode> blocks(JsonNode message, String type) {
        List<JsonNode> blocks = new ArrayList<>();
        for (JsonNode block : message.get("content")) {
            if (type.equals(block.path("type").asText())) {
                blocks.add(block);
            }
        }
        return blocks;
    }

    private static String resultText(JsonNode toolResult) {
        JsonNode content = toolResult.get("content");
        if (content.isTextual()) {
            return content.asText();
        }
        StringBuilder text = new StringBuilder();
        for (JsonNode block : content) {
            text.append(block.path("text").asText());
        }
        return text.toString();
    }
}
