package dev.quiver.mcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.host.SessionOptions;
import dev.quiver.mcp.Json;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tool's question ({@code TurnListener.ask}) put to an MCP client's user: the official SDK's client over
 * Quiver's HTTP transport, declaring elicitation and answering the form it is sent.
 */
class ElicitedQuestionTest {

    @TempDir
    Path workspace;

    private final FileToolsKernel kernel = new FileToolsKernel();
    private final ExecutorService workers = CallQueue.workers("test-call", 4);
    private final List<McpSchema.ElicitFormRequest> forms = new CopyOnWriteArrayList<>();
    private HttpServer server;
    private McpSyncClient client;

    @BeforeEach
    void start() throws Exception {
        server = new HttpServer(() -> new ToolService(kernel, SessionOptions.headless(workspace),
                new PrintStream(new ByteArrayOutputStream(), true), "test", Duration.ofSeconds(30), workers), 0,
                Duration.ofSeconds(30));
    }

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.closeGracefully();
        }
        server.close();
        workers.shutdownNow();
    }

    private McpSyncClient connect(Function<McpSchema.ElicitFormRequest, McpSchema.ElicitResult> user) {
        URI url = URI.create(server.url());
        HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport
                .builder("http://" + url.getHost() + ":" + url.getPort()).endpoint(url.getPath())
                .requestBuilder(HttpRequest.newBuilder().header("Authorization", "Bearer " + server.token()))
                .build();
        client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(60)).jsonSchemaValidator(Json.LENIENT)
                .capabilities(McpSchema.ClientCapabilities.builder().elicitation().build())
                .elicitation(request -> {
                    forms.add(request);
                    return user.apply(request);
                }).build();
        client.initialize();
        return client;
    }

    private static String text(McpSchema.CallToolResult result) {
        return ((McpSchema.TextContent) result.content().get(0)).text();
    }

    @Test
    void aQuestionWithOptionsIsAChoiceFormRecommendationFirstAndTheChosenLabelIsTheAnswer() {
        McpSyncClient mcp = connect(form -> new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT,
                Map.of(ElicitingFrontEnd.CHOICE, "sqlite-3")));
        String answer = text(mcp.callTool(new McpSchema.CallToolRequest("ask", Map.of("question", "Which db?",
                "options", List.of("pg-17", "sqlite-3")))));
        assertEquals("answer [sqlite-3]", answer);
        McpSchema.ElicitFormRequest form = forms.get(0);
        assertEquals("Which db?", form.message());
        @SuppressWarnings("unchecked")
        Map<String, Object> choice = (Map<String, Object>) ((Map<String, Object>) form.requestedSchema()
                .get("properties")).get(ElicitingFrontEnd.CHOICE);
        assertEquals(List.of("pg-17", "sqlite-3"), choice.get("enum"));
        assertEquals(List.of("pg-17 (recommended) — about pg-17", "sqlite-3 — about sqlite-3"), choice.get("enumNames"));
    }

    @Test
    void severalMayBeChosenAsCheckboxesAndAFreeQuestionIsATextField() {
        McpSyncClient mcp = connect(form -> {
            Map<?, ?> properties = (Map<?, ?>) form.requestedSchema().get("properties");
            return new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, properties.containsKey(
                    ElicitingFrontEnd.ANSWER) ? Map.of(ElicitingFrontEnd.ANSWER, " name it q-9 ")
                            : Map.of("option1", true, "option2", false, "option3", true));
        });
        assertEquals("answer [a, c]", text(mcp.callTool(new McpSchema.CallToolRequest("ask", Map.of("question",
                "Which checks?", "options", List.of("a", "b", "c"), "multiple", true)))));
        assertEquals("answer [name it q-9]", text(mcp.callTool(new McpSchema.CallToolRequest("ask",
                Map.of("question", "Name?")))));
    }

    @Test
    void declinedCancelledOrInventedAnswersDismissTheQuestion() {
        List<McpSchema.ElicitResult> replies = new CopyOnWriteArrayList<>(List.of(
                new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.DECLINE, null),
                new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.CANCEL, null),
                new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, Map.of(ElicitingFrontEnd.CHOICE,
                        "rm -rf /"))));
        McpSyncClient mcp = connect(form -> replies.remove(0));
        for (int i = 0; i < 3; i++) {
            McpSchema.CallToolResult result = mcp.callTool(new McpSchema.CallToolRequest("ask", Map.of("question",
                    "Which?", "options", List.of("x", "y"))));
            assertEquals("dismissed", text(result));
            assertFalse(Boolean.TRUE.equals(result.isError()));
        }
        assertTrue(replies.isEmpty());
    }

    @Test
    void whatACallStreamsReachesAClientThatAskedForProgressAndNoOtherAsNotifications() throws Exception {
        List<McpSchema.ProgressNotification> received = new CopyOnWriteArrayList<>();
        URI url = URI.create(server.url());
        client = McpClient.sync(HttpClientStreamableHttpTransport
                .builder("http://" + url.getHost() + ":" + url.getPort()).endpoint(url.getPath())
                .requestBuilder(HttpRequest.newBuilder().header("Authorization", "Bearer " + server.token())).build())
                .requestTimeout(Duration.ofSeconds(60)).jsonSchemaValidator(Json.LENIENT)
                .progressConsumer(received::add).build();
        client.initialize();
        McpSchema.CallToolResult result = client.callTool(McpSchema.CallToolRequest.builder().name("progress")
                .arguments(Map.of("lines", List.of("[explore] read_file {\"path\":\"a\"}", "[explore] read_file: ok in 3 ms",
                        "\u001b[2Jwiped")))
                .progressToken("call-7").build());
        assertEquals("progressed", text(result));
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (received.size() < 3 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(List.of("[explore] read_file {\"path\":\"a\"}", "[explore] read_file: ok in 3 ms",
                "\\x1B[2Jwiped"), received.stream().map(McpSchema.ProgressNotification::message).toList(),
                "in order, an escape sequence shown, not sent");
        assertEquals(List.of("call-7", "call-7", "call-7"),
                received.stream().map(McpSchema.ProgressNotification::progressToken).toList());
        assertEquals(List.of(1.0, 2.0, 3.0), received.stream().map(McpSchema.ProgressNotification::progress).toList(),
                "progress only grows");
        // without a token nothing is sent
        client.callTool(new McpSchema.CallToolRequest("progress", Map.of("lines", List.of("quiet"))));
        Thread.sleep(300);
        assertEquals(3, received.size());
    }
}
