package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code quiver mcp} without {@code --yolo}, driven by the official Java SDK's client over stdio, a client that
 * declares elicitation: an {@code edit_file} call is put to the client's user with the unified diff of the
 * change in the message, the file untouched while the question is open; accepting makes the change,
 * declining leaves the file as it was.
 */
class McpElicitedDiffEndToEndTest {

    private static final String BEFORE = "alpha\nbeta\ngamma\n";

    @TempDir
    Path temp;

    private McpSyncClient client;

    @AfterEach
    void close() {
        if (client != null) {
            client.closeGracefully();
        }
    }

    /** What the client's user was shown, and the file's content at that moment. */
    private record Shown(String message, String fileWhileAsked) {
    }

    private McpSyncClient connect(Path workspace, List<Shown> shown, McpSchema.ElicitResult.Action action) {
        Path file = workspace.resolve("notes.txt");
        List<String> command = McpSupport.quiver(QuiverProcess.distribution(), "mcp", "--workspace", workspace.toString());
        ServerParameters parameters = ServerParameters.builder(command.get(0)).args(command.subList(1, command.size()))
                .env(McpSupport.privateHome(temp.resolve("home"))).build();
        StdioClientTransport transport = new StdioClientTransport(parameters, new JacksonMcpJsonMapper(new ObjectMapper()));
        transport.setStdErrorHandler(line -> { });
        client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(60))
                .initializationTimeout(Duration.ofSeconds(60))
                .jsonSchemaValidator((schema, content) -> JsonSchemaValidator.ValidationResponse.asValid(null))
                .capabilities(McpSchema.ClientCapabilities.builder().elicitation().build())
                .elicitation(request -> {
                    try {
                        shown.add(new Shown(request.message(), Files.readString(file)));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    return new McpSchema.ElicitResult(action,
                            action == McpSchema.ElicitResult.Action.ACCEPT ? Map.of("decision", "once") : null);
                }).build();
        client.initialize();
        return client;
    }

    private Path workspace() throws IOException {
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        Files.writeString(workspace.resolve("notes.txt"), BEFORE);
        return workspace;
    }

    /** Reads notes.txt (an edit wants the file read first, as a model would have), then edits it. */
    private static McpSchema.CallToolResult readThenEditBeta(McpSyncClient mcp) {
        McpSchema.CallToolResult read = mcp.callTool(new McpSchema.CallToolRequest("read_file",
                Map.of("path", "notes.txt")));
        assertFalse(Boolean.TRUE.equals(read.isError()), "read_file is allowed without a question: " + read);
        return mcp.callTool(new McpSchema.CallToolRequest("edit_file", Map.of("path", "notes.txt", "oldString",
                "beta", "newString", "BETA two")));
    }

    private static void assertCarriesTheDiff(Shown asked) {
        String message = asked.message();
        assertTrue(message.contains("edit_file") && message.contains("notes.txt"), message);
        assertTrue(message.contains("What it changes (unified diff):"), message);
        List<String> lines = message.lines().toList();
        assertTrue(lines.contains("-beta"), "the removed line: " + message);
        assertTrue(lines.contains("+BETA two"), "the added line: " + message);
        assertFalse(lines.contains("-alpha") || lines.contains("+alpha"), "an unchanged line is context: " + message);
        assertEquals(BEFORE, asked.fileWhileAsked(), "nothing is written while the question is open");
    }

    @Test
    void anAcceptedEditWasShownAsItsDiffAndThenMade() throws Exception {
        Path workspace = workspace();
        List<Shown> shown = new CopyOnWriteArrayList<>();
        McpSchema.CallToolResult result = readThenEditBeta(
                connect(workspace, shown, McpSchema.ElicitResult.Action.ACCEPT));
        assertFalse(Boolean.TRUE.equals(result.isError()), result.toString());
        assertEquals(1, shown.size(), shown.toString());
        assertCarriesTheDiff(shown.get(0));
        assertEquals("alpha\nBETA two\ngamma\n", Files.readString(workspace.resolve("notes.txt")));
    }

    @Test
    void aDeclinedEditWasShownAsItsDiffAndLeavesTheFile() throws Exception {
        Path workspace = workspace();
        List<Shown> shown = new CopyOnWriteArrayList<>();
        McpSchema.CallToolResult result = readThenEditBeta(
                connect(workspace, shown, McpSchema.ElicitResult.Action.DECLINE));
        assertEquals(1, shown.size(), shown.toString());
        assertCarriesTheDiff(shown.get(0));
        assertEquals("denied", String.valueOf(result.meta().get("quiver/status")), result.toString());
        assertEquals(BEFORE, Files.readString(workspace.resolve("notes.txt")));
    }
}
