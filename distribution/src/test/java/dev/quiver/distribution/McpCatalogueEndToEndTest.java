package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code quiver mcp}'s recorded catalogue, driven by the official Java SDK's client over stdio: a
 * second start answers {@code initialize} and {@code tools/list} from the record and a call sent
 * right after them is served; a tool bundle removed from {@code deploy/} or a config that denies a
 * tool makes the next start list the truth instead of the record; a record whose list is not what
 * the live server has is followed by {@code notifications/tools/list_changed}.
 */
class McpCatalogueEndToEndTest {

    private static final String FROM_RECORD = "from the catalogue recorded at the last start";
    private static final String CONNECTED = " connected · workspace ";

    @TempDir
    Path temp;

    private final List<McpSyncClient> clients = new ArrayList<>();

    @AfterEach
    void close() {
        clients.forEach(McpSyncClient::closeGracefully);
    }

    /** One {@code quiver mcp} process and the SDK's client of it, initialized. */
    private record Server(McpSyncClient client, List<String> stderr, BlockingQueue<List<McpSchema.Tool>> changes) {
        /** Whether it answered from the record; waits until the live session has opened. */
        boolean answeredFromRecord() throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (stderr.stream().noneMatch(line -> line.contains(CONNECTED))) {
                assertTrue(System.nanoTime() < deadline, "the session did not open: " + stderr);
                Thread.sleep(20);
            }
            return stderr.stream().anyMatch(line -> line.contains(FROM_RECORD));
        }
    }

    private Server start(Path dist, Path workspace) {
        List<String> command = McpSupport.quiver(dist, "mcp", "--workspace", workspace.toString());
        ServerParameters parameters = ServerParameters.builder(command.get(0)).args(command.subList(1, command.size()))
                .env(McpSupport.privateHome(temp.resolve("home"))).build();
        StdioClientTransport transport = new StdioClientTransport(parameters, new JacksonMcpJsonMapper(new ObjectMapper()));
        List<String> stderr = new CopyOnWriteArrayList<>();
        transport.setStdErrorHandler(stderr::add);
        BlockingQueue<List<McpSchema.Tool>> changes = new LinkedBlockingQueue<>();
        McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(60))
                .initializationTimeout(Duration.ofSeconds(60))
                .jsonSchemaValidator((schema, content) -> JsonSchemaValidator.ValidationResponse.asValid(null))
                .toolsChangeConsumer(changes::add).build();
        clients.add(client);
        client.initialize();
        return new Server(client, stderr, changes);
    }

    private Path workspace() throws Exception {
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        Files.writeString(workspace.resolve("README.md"), "# Recorded\nread early\n");
        return workspace;
    }

    private static List<String> names(McpSchema.ListToolsResult list) {
        return list.tools().stream().map(McpSchema.Tool::name).toList();
    }

    private static String decision(McpSchema.ListToolsResult list, String tool) {
        return list.tools().stream().filter(t -> t.name().equals(tool)).findFirst()
                .map(t -> String.valueOf(t.meta().get("quiver/decision"))).orElse("not listed");
    }

    @Test
    void theSecondStartAnswersFromTheRecordAndACallSentRightAfterIsServed() throws Exception {
        Path workspace = workspace();
        Server first = start(QuiverProcess.distribution(), workspace);
        McpSchema.ListToolsResult live = first.client().listTools();
        assertFalse(first.answeredFromRecord(), "nothing was recorded before the first start: " + first.stderr());
        first.client().closeGracefully();

        Path folder = temp.resolve("home/.state/quiver/mcp-tools");
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(folder)));
        try (Stream<Path> records = Files.list(folder)) {
            Path record = records.filter(p -> p.toString().endsWith(".record")).findFirst().orElseThrow();
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(record)));
        }

        Server second = start(QuiverProcess.distribution(), workspace);
        McpSchema.ListToolsResult recorded = second.client().listTools();
        // sent before the framework has started: the call waits for the live session
        McpSchema.CallToolResult read = second.client().callTool(new McpSchema.CallToolRequest("read_file",
                Map.of("path", "README.md")));
        assertTrue(second.answeredFromRecord(), second.stderr().toString());
        assertEquals(live.tools(), recorded.tools());
        assertFalse(Boolean.TRUE.equals(read.isError()), read.toString());
        assertTrue(((McpSchema.TextContent) read.content().get(0)).text().contains("read early"), read.toString());
    }

    /**
     * The live server records its list once it has answered it, so a start right after the answer may
     * come before the record: wait for it, bounded.
     */
    private void awaitRecord() throws Exception {
        Path folder = temp.resolve("home/.state/quiver/mcp-tools");
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < end) {
            if (Files.isDirectory(folder)) {
                try (Stream<Path> records = Files.list(folder)) {
                    if (records.anyMatch(p -> p.toString().endsWith(".record"))) {
                        return;
                    }
                }
            }
            Thread.sleep(20);
        }
    }

    @Test
    void aRemovedToolBundleOrADenyingConfigIsListedAsItIsNotAsRecorded() throws Exception {
        Path workspace = workspace();
        Path dist = temp.resolve("dist");
        Path deployed = McpSupport.privateDistribution(dist);
        McpSchema.ListToolsResult before = start(dist, workspace).client().listTools();
        List<String> movable = before.tools().stream()
                .filter(tool -> McpSupport.MOVABLE.equals(tool.meta().get("quiver/bundle"))).map(McpSchema.Tool::name)
                .toList();
        assertFalse(movable.isEmpty(), names(before).toString());
        awaitRecord();
        Server again = start(dist, workspace);
        assertEquals(names(before), names(again.client().listTools()));
        assertTrue(again.answeredFromRecord(), again.stderr().toString());

        Files.delete(deployed);
        Server withoutBundle = start(dist, workspace);
        List<String> listed = names(withoutBundle.client().listTools());
        assertFalse(withoutBundle.answeredFromRecord(), withoutBundle.stderr().toString());
        assertTrue(listed.stream().noneMatch(movable::contains), listed + " still lists " + movable);

        String allowed = decision(before, "read_file");
        Path config = Files.createDirectories(temp.resolve("home/.config/quiver")).resolve("config.json");
        Files.writeString(config, "{\"permission\": {\"read_file\": \"deny\"}}\n");
        Server denying = start(dist, workspace);
        McpSchema.ListToolsResult denied = denying.client().listTools();
        assertFalse(denying.answeredFromRecord(), denying.stderr().toString());
        assertEquals("deny", decision(denied, "read_file"));
        assertNotEquals(allowed, decision(denied, "read_file"));
    }

    @Test
    void aRecordThatListsOtherToolsThanTheLiveServerIsFollowedByListChanged() throws Exception {
        Path workspace = workspace();
        McpSchema.ListToolsResult live = start(QuiverProcess.distribution(), workspace).client().listTools();
        Path record;
        try (Stream<Path> records = Files.list(temp.resolve("home/.state/quiver/mcp-tools"))) {
            record = records.filter(p -> p.toString().endsWith(".record")).findFirst().orElseThrow();
        }
        // the owner's own record, well formed, its inputs unchanged, but one tool short of the truth
        List<String> lines = new ArrayList<>(Files.readAllLines(record));
        int tools = lines.size() - 1;
        assertTrue(lines.get(tools).startsWith("tools {\"tools\":[{"), lines.get(tools));
        ObjectMapper json = new ObjectMapper();
        var list = json.readTree(lines.get(tools).substring("tools ".length()));
        String dropped = list.path("tools").get(0).path("name").asText();
        ((com.fasterxml.jackson.databind.node.ArrayNode) list.path("tools")).remove(0);
        lines.set(tools, "tools " + json.writeValueAsString(list));
        Files.writeString(record, String.join("\n", lines) + "\n");

        Server server = start(QuiverProcess.distribution(), workspace);
        assertFalse(names(server.client().listTools()).contains(dropped), "served from the record");
        List<McpSchema.Tool> changed = server.changes().poll(60, TimeUnit.SECONDS);
        assertTrue(changed != null && changed.stream().anyMatch(tool -> tool.name().equals(dropped)),
                "tools/list_changed, then the live list: " + changed + "; " + server.stderr());
        assertEquals(names(live), changed.stream().map(McpSchema.Tool::name).toList());
        assertTrue(server.stderr().stream().anyMatch(line -> line.contains("differs from the recorded one")),
                server.stderr().toString());
    }
}
