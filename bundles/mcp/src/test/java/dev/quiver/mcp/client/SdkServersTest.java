package dev.quiver.mcp.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.mcp.client.TestSupport.Call;
import dev.quiver.mcp.client.TestSupport.Context;
import dev.quiver.mcp.client.TestSupport.Registry;
import dev.quiver.mcp.testserver.SdkServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client against servers made with the official MCP Java SDK ({@link SdkServer}), in each shape
 * of entry users bring: Claude Code's ({@code command} and {@code args}; {@code "type": "sse"} and
 * {@code "http"} with {@code url} and {@code headers}) and opencode's ({@code "type": "local"} with the
 * command line as an array and {@code environment}; {@code "type": "remote"}), over stdio, HTTP+SSE
 * and streamable HTTP.
 */
class SdkServersTest {

    @TempDir
    Path temp;

    private final Registry registry = new Registry();
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable each : closing) {
            each.close();
        }
    }

    private void open(String name, Map<String, Object> entry, Map<String, String> environment) {
        Servers servers = new Servers(registry, "test", environment);
        closing.add(0, servers::stopAll);
        Map<String, Object> config = new LinkedHashMap<>();
        config.put(name, entry);
        servers.opened(new Context(temp, config));
    }

    private String call(String tool, String argument, String value) throws Exception {
        return registry.tool(tool).call(Arguments.of(Map.of(argument, value)), new Call()).text();
    }

    /** The command line of the SDK's stdio server in a JVM of its own, on this test's class path. */
    private static List<String> stdioServer() {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), SdkServer.class.getName());
    }

    private SdkServer served(SdkServer server) {
        closing.add(server);
        return server;
    }

    @Test
    void claudeCodesStdioEntryStartsTheSdkServerWithItsEnvExpanded() throws Exception {
        List<String> command = stdioServer();
        open("sdk", Map.of("type", "stdio", "command", command.get(0), "args", command.subList(1, command.size()),
                "env", Map.of("GREETING", "${QUIVER_TEST_GREETING}", "FALLBACK", "${QUIVER_TEST_UNSET:-plan b}")),
                Map.of("QUIVER_TEST_GREETING", "hello from the user"));
        assertEquals(List.of("mcp__sdk__echo", "mcp__sdk__env"), registry.names());
        assertEquals("execute", registry.services.get(0).properties().get(Tool.ACCESS));
        assertEquals("stdio echo: hi", call("mcp__sdk__echo", "text", "hi"));
        assertEquals("hello from the user", call("mcp__sdk__env", "name", "GREETING"));
        assertEquals("plan b", call("mcp__sdk__env", "name", "FALLBACK"));
    }

    @Test
    void opencodesLocalEntryTakesTheCommandLineAsAnArrayAndItsEnvironment() throws Exception {
        open("oc", Map.of("type", "local", "command", stdioServer(), "environment", Map.of("MODE", "{env:QUIVER_TEST_MODE}"),
                "enabled", true, "timeout", 20_000), Map.of("QUIVER_TEST_MODE", "opencode"));
        assertEquals(List.of("mcp__oc__echo", "mcp__oc__env"), registry.names());
        assertEquals("opencode", call("mcp__oc__env", "name", "MODE"));
        assertEquals("stdio echo: array", call("mcp__oc__echo", "text", "array"));
    }

    @Test
    void anSseServerIsReachedOverTheSdksSseTransportWithItsHeadersOnEveryRequest() throws Exception {
        SdkServer server = served(SdkServer.sse(temp.resolve("tomcat")));
        open("events", Map.of("type", "sse", "url", server.url(), "headers",
                Map.of("Authorization", "Bearer ${QUIVER_TEST_TOKEN}")), Map.of("QUIVER_TEST_TOKEN", "t0ken"));
        assertEquals(List.of("mcp__events__echo", "mcp__events__env"), registry.names());
        assertEquals("network", registry.services.get(0).properties().get(Tool.ACCESS));
        assertEquals("sse echo: over sse", call("mcp__events__echo", "text", "over sse"));
        assertTrue(server.requests.stream().anyMatch(r -> r.startsWith("GET /sse Bearer t0ken")), server.requests.toString());
        assertTrue(server.requests.stream().anyMatch(r -> r.startsWith("POST /messages Bearer t0ken")),
                server.requests.toString());
        assertTrue(server.requests.stream().allMatch(r -> r.endsWith("Bearer t0ken")), server.requests.toString());
    }

    @Test
    void claudeCodesHttpEntryAndOpencodesRemoteEntryUseStreamableHttp() throws Exception {
        SdkServer claude = served(SdkServer.streamable(temp.resolve("tomcat-a")));
        open("claude", Map.of("type", "http", "url", claude.url(), "headers", Map.of("Authorization", "Bearer a")), Map.of());
        assertEquals("http echo: claude", call("mcp__claude__echo", "text", "claude"));
        assertTrue(claude.requests.stream().anyMatch(r -> r.startsWith("POST /mcp Bearer a")), claude.requests.toString());

        SdkServer opencode = served(SdkServer.streamable(temp.resolve("tomcat-b")));
        open("oc", Map.of("type", "remote", "url", opencode.url(), "enabled", true), Map.of());
        assertEquals("http echo: opencode", call("mcp__oc__echo", "text", "opencode"));
        assertTrue(registry.names().containsAll(List.of("mcp__claude__env", "mcp__oc__env")), registry.names().toString());
    }

    @Test
    void aStreamableHttpUrlConfiguredAsSseFailsToStartWithAMessageAndRegistersNothing() throws Exception {
        SdkServer server = served(SdkServer.streamable(temp.resolve("tomcat")));
        Servers servers = new Servers(registry, "test", Map.of());
        closing.add(0, servers::stopAll);
        servers.opened(new Context(temp, Map.of("wrong", Map.of("type", "sse", "url", server.url(),
                "startupTimeout", 5))));
        ServerHandle handle = servers.handle("wrong");
        assertEquals(ServerHandle.State.FAILED, handle.state());
        assertTrue(handle.problem().startsWith("failed to start"), handle.problem());
        assertEquals(List.of(), registry.names());
    }
}
