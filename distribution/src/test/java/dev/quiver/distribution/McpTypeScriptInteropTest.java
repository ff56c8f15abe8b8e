package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code quiver mcp} driven by a client nobody here wrote: the official TypeScript SDK
 * ({@code @modelcontextprotocol/sdk} from npm, installed into this test's own temporary folder).
 * Over stdio it lists the tools, reads a file, gets an {@code isError} refusal for a guarded bash
 * command and an error result for arguments that break the schema, approves an asking call through
 * elicitation, and sees {@code notifications/tools/list_changed} when a tool bundle is removed from
 * (and put back into) the FileInstall-watched {@code deploy/} folder of a private distribution.
 * Over HTTP it is refused without the bearer token and served with it.
 */
class McpTypeScriptInteropTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static Path sdk;

    @TempDir
    static Path shared;

    @TempDir
    Path temp;

    @BeforeAll
    static void installTheTypeScriptSdk() throws Exception {
        sdk = McpSupport.installTypeScriptSdk(shared.resolve("node"));
    }

    private Path workspace() throws Exception {
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        Files.writeString(workspace.resolve("README.md"), "# Interop\nserved by quiver\n");
        Files.createDirectories(workspace.resolve("src"));
        Files.writeString(workspace.resolve("src/keep.txt"), "keep\n");
        return workspace;
    }

    @Test
    void theTypeScriptClientUsesQuiverOverStdioAndSeesToolsComeAndGo() throws Exception {
        Path workspace = workspace();
        Path dist = temp.resolve("dist");
        Path deployed = McpSupport.privateDistribution(dist);
        Path stashed = temp.resolve(deployed.getFileName());
        Path script = McpSupport.resource("interop.mjs", sdk);
        Map<String, String> env = new HashMap<>(McpSupport.privateHome(temp.resolve("home")));
        McpSupport.Result run = McpSupport.run(sdk, env, 150, List.of(McpSupport.node(), script.toString(), "stdio",
                dist.resolve("bin/quiver").toString(), workspace.toString(), deployed.toString(), stashed.toString()));
        assertEquals(0, run.exitCode(), run.stdout() + run.stderr());
        JsonNode report = JSON.readTree(run.stdout());

        assertEquals("quiver", report.path("server").path("name").asText(), report.toString());
        List<String> tools = strings(report.get("tools"));
        assertTrue(tools.containsAll(List.of("bash", "read_file", "write_file", "apply_patch")), tools.toString());

        assertFalse(report.path("read").path("isError").asBoolean(), report.toString());
        assertTrue(report.path("read").path("text").asText().contains("1: # Interop"), report.toString());

        assertTrue(report.path("guarded").path("isError").asBoolean(), report.toString());
        assertTrue(report.path("guarded").path("text").asText().contains("Refused by the guard"), report.toString());
        assertTrue(Files.exists(workspace.resolve("src/keep.txt")), "the guarded command did not run");

        assertTrue(report.path("invalid").path("isError").asBoolean(), report.toString());
        assertTrue(report.path("invalid").path("text").asText().contains("'path' must be a string"), report.toString());

        assertFalse(report.path("approved").path("isError").asBoolean(), report.toString());
        assertTrue(Files.exists(workspace.resolve("approved-stdio.txt")), "the approved call ran");
        assertEquals(1, report.path("elicitations").size(), "only the asking call was put to the user: " + report);
        assertTrue(report.path("elicitations").get(0).asText().contains("touch approved-stdio.txt"), report.toString());

        assertTrue(report.path("sawListChanged").asBoolean(), "notifications/tools/list_changed after removal: " + report);
        List<String> after = strings(report.get("toolsAfterRemoval"));
        assertFalse(after.contains("apply_patch"), after.toString());
        assertTrue(after.contains("read_file"), after.toString());
        assertTrue(report.path("sawListChangedAgain").asBoolean(), report.toString());
        assertTrue(strings(report.get("toolsAfterReturn")).contains("apply_patch"), report.toString());
    }

    @Test
    void theTypeScriptClientUsesQuiverOverStreamableHttpWithTheBearerToken() throws Exception {
        Path workspace = workspace();
        ProcessBuilder builder = new ProcessBuilder(McpSupport.quiver(QuiverProcess.distribution(), "mcp", "--http", "0",
                "--workspace", workspace.toString())).directory(workspace.toFile());
        builder.environment().putAll(McpSupport.privateHome(temp.resolve("home")));
        builder.redirectOutput(temp.resolve("http-stdout.txt").toFile());
        Process quiver = builder.start();
        try {
            BufferedReader err = McpSupport.stderr(quiver);
            List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
            String serving = McpSupport.lineStartingWith(err, "quiver mcp ", seen);
            String url = serving.substring(serving.indexOf("http://"));
            String token = McpSupport.lineStartingWith(err, "token: ", seen).substring("token: ".length());
            assertTrue(url.startsWith("http://127.0.0.1:") && url.endsWith("/mcp"), url);
            Thread drain = new Thread(() -> {
                try {
                    err.lines().forEach(seen::add);
                } catch (java.io.UncheckedIOException closed) {
                    // the process ended
                }
            });
            drain.setDaemon(true);
            drain.start();

            Path script = McpSupport.resource("interop.mjs", sdk);
            McpSupport.Result run = McpSupport.run(sdk, Map.of(), 120, List.of(McpSupport.node(), script.toString(),
                    "http", url, token));
            assertEquals(0, run.exitCode(), run.stdout() + run.stderr() + seen);
            JsonNode report = JSON.readTree(run.stdout());
            assertEquals(401, report.path("unauthorized").asInt(), report.toString());
            assertTrue(strings(report.get("tools")).contains("read_file"), report.toString());
            assertTrue(report.path("read").path("text").asText().contains("served by quiver"), report.toString());
            assertTrue(report.path("guarded").path("isError").asBoolean(), report.toString());
            assertTrue(report.path("invalid").path("isError").asBoolean(), report.toString());
            assertFalse(report.path("approved").path("isError").asBoolean(), report.toString());
            assertTrue(Files.exists(workspace.resolve("approved-http.txt")), "approved through elicitation over HTTP");
            assertEquals(1, report.path("elicitations").size(), report.toString());
            assertEquals("", Files.readString(temp.resolve("http-stdout.txt")), "nothing on stdout in HTTP mode");
        } finally {
            quiver.destroy();
            if (!quiver.waitFor(10, TimeUnit.SECONDS)) {
                quiver.destroyForcibly();
            }
        }
    }

    private static List<String> strings(JsonNode array) {
        List<String> list = new ArrayList<>();
        if (array != null) {
            array.forEach(node -> list.add(node.asText()));
        }
        return list;
    }
}
