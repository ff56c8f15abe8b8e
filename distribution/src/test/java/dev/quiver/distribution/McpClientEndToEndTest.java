package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.quiver.distribution.QuiverProcess.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Quiver as an MCP client in the built distribution: the servers of the workspace's {@code "mcp"}
 * config become {@code mcp__server__tool} tools that ask by default and obey rules; a server that
 * fails to start or dies mid-call is reported and does not affect the others. The server is a
 * small stdio server written for these tests ({@code mcp/tiny-server.mjs}, no SDK).
 */
class McpClientEndToEndTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;

    private Path workspace(String permission) throws Exception {
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        Path server = McpSupport.resource("tiny-server.mjs", Files.createDirectories(temp.resolve("servers")));
        ObjectNode config = JSON.createObjectNode();
        ObjectNode mcp = config.putObject("mcp");
        ObjectNode tiny = mcp.putObject("tiny");
        tiny.put("command", McpSupport.node());
        tiny.putArray("args").add(server.toString());
        ObjectNode broken = mcp.putObject("broken");
        broken.put("command", McpSupport.node());
        broken.putArray("args").add(server.toString()).add("broken");
        if (permission != null) {
            config.set("permission", JSON.readTree(permission));
        }
        QuiverProcess.userConfig(workspace, config.toString());
        return workspace;
    }

    @Test
    void theServersToolsAreListedWithWhatTheyCostAndABrokenServerIsReported() throws Exception {
        Path workspace = workspace(null);
        Run text = QuiverProcess.run(workspace, "tools", "--with-mcp");
        assertEquals(0, text.exitCode(), text.stderr());
        assertTrue(text.stdout().contains("mcp__tiny__echo") && text.stdout().contains("mcp__tiny__crash"), text.stdout());
        assertTrue(text.stdout().matches("(?s).*mcp server tiny: 2 tools, [0-9,]+ schema bytes.*"), text.stdout());
        assertTrue(text.stderr().contains("mcp server broken failed to start") && text.stderr().contains("exited with code 4")
                && text.stderr().contains("no such database"), text.stderr());

        Run json = QuiverProcess.run(workspace, "tools", "--json", "--with-mcp");
        assertEquals(0, json.exitCode(), json.stderr());
        JsonNode echo = null;
        for (JsonNode tool : JSON.readTree(json.stdout())) {
            if (tool.path("name").asText().equals("mcp__tiny__echo")) {
                echo = tool;
            }
            assertTrue(!tool.path("name").asText().startsWith("mcp__broken__"), tool.toString());
        }
        assertTrue(echo != null, json.stdout());
        assertEquals("dev.quiver.mcp", echo.path("bundle").asText());
        assertTrue(echo.path("set").isNull(), echo.toString());
        assertEquals("execute", echo.path("access").asText());
        assertEquals("ask", echo.path("decision").asText());
        assertTrue(echo.path("schema_bytes").asInt() > 50, echo.toString());
    }

    @Test
    void mcpToolsAskByDefaultRunWithYoloAndADeadServerIsAClearError() throws Exception {
        Path workspace = workspace(null);
        Run denied = QuiverProcess.run(workspace, "call", "mcp__tiny__echo", "{\"text\":\"hi\"}");
        assertEquals(3, denied.exitCode(), denied.stderr());
        assertTrue(denied.stderr().contains("MCP server"), denied.stderr());

        Run yolo = QuiverProcess.run(workspace, "call", "--yolo", "mcp__tiny__echo", "{\"text\":\"hi\"}");
        assertEquals(0, yolo.exitCode(), yolo.stderr());
        assertEquals("echo: hi", yolo.stdout().strip());

        Run crash = QuiverProcess.run(workspace, "call", "--yolo", "mcp__tiny__crash", "{}");
        assertEquals(1, crash.exitCode(), crash.stderr());
        assertTrue(crash.stderr().contains("exited with code 5") && crash.stderr().contains("crashing on purpose")
                && crash.stderr().contains("effects are unknown"), crash.stderr());
    }

    @Test
    void permissionRulesMatchMcpToolsByNameAndByTheirArguments() throws Exception {
        Path workspace = workspace("{\"mcp__tiny__echo\": {\"*\": \"deny\", \"text=ok *\": \"allow\"}, \"mcp__tiny__*\": \"allow\"}");
        Run allowed = QuiverProcess.run(workspace, "call", "mcp__tiny__echo", "{\"text\":\"ok go\"}");
        assertEquals(0, allowed.exitCode(), allowed.stderr());
        assertEquals("echo: ok go", allowed.stdout().strip());
        Run denied = QuiverProcess.run(workspace, "call", "mcp__tiny__echo", "{\"text\":\"bad\"}");
        assertEquals(3, denied.exitCode(), denied.stderr());
        Run unstarted = QuiverProcess.run(workspace, "check", "mcp__tiny__crash", "{}");
        assertTrue(unstarted.stdout().contains("not a registered tool"), "check alone starts no server: " + unstarted.stdout());
        Run check = QuiverProcess.run(workspace, "check", "--with-mcp", "mcp__tiny__crash", "{}");
        assertEquals("allow", JSON.readTree(check.stdout()).path("decision").asText(), check.stdout());
        assertEquals("rule", JSON.readTree(check.stdout()).path("by").asText(), check.stdout());
    }
}
