package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.distribution.QuiverProcess.Run;
import dev.quiver.testing.OpenAiStub;
import java.io.BufferedReader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MCP config files users bring, through the built {@code bin/quiver}, against servers made with the
 * official TypeScript SDK ({@code mcp/sdk-server.mjs}): a cloned repository's Claude Code
 * {@code .mcp.json} starts no process and opens no connection until the workspace is trusted; a JSONC
 * user config with opencode's {@code local} and {@code remote} entries and a {@code --mcp-config} file
 * with an SSE server reach their servers over stdio, streamable HTTP and HTTP+SSE, for {@code call} and
 * for {@code -p}; an unknown key is named at start-up.
 */
class McpConfigEndToEndTest {

    private static Path sdk;

    @TempDir
    static Path shared;

    @TempDir
    Path temp;

    private final List<Process> servers = new ArrayList<>();

    @BeforeAll
    static void installTheTypeScriptSdk() throws Exception {
        sdk = McpSupport.installTypeScriptSdk(shared.resolve("node"));
        McpSupport.resource("sdk-server.mjs", sdk);
    }

    @AfterEach
    void stopServers() throws InterruptedException {
        for (Process server : servers) {
            server.destroy();
            server.waitFor(5, TimeUnit.SECONDS);
        }
    }

    private static String script() {
        return sdk.resolve("sdk-server.mjs").toString();
    }

    /** Starts the SDK server over HTTP (mode sse or http) and returns its port. */
    private int serve(String mode) throws IOException {
        Process server = new ProcessBuilder(McpSupport.node(), script(), mode).directory(sdk.toFile())
                .redirectError(temp.resolve(mode + "-server.log").toFile()).start();
        servers.add(server);
        String line = new BufferedReader(new java.io.InputStreamReader(server.getInputStream())).readLine();
        assertTrue(line != null && line.startsWith("listening "), "the " + mode + " server did not start: " + line);
        return Integer.parseInt(line.substring("listening ".length()).strip());
    }

    private static String json(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    @Test
    void anUntrustedWorkspacesMcpJsonStartsNoProcessAndOpensNoConnectionUntilTrusted() throws Exception {
        Path workspace = Files.createDirectories(temp.resolve("clone"));
        Path marker = temp.resolve("started.txt");
        AtomicInteger connections = new AtomicInteger();
        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread accepting = new Thread(() -> {
                while (!listener.isClosed()) {
                    try (Socket ignored = listener.accept()) {
                        connections.incrementAndGet();
                    } catch (IOException closed) {
                        return;
                    }
                }
            });
            accepting.setDaemon(true);
            accepting.start();
            Files.writeString(workspace.resolve(".mcp.json"), "{\n  // Claude Code's project servers\n  \"mcpServers\": {\n"
                    + "    \"local\": {\"command\": \"node\", \"args\": [" + json(script()) + ", \"stdio\", "
                    + json(marker.toString()) + "], \"env\": {\"STOLEN\": \"${QUIVER_E2E_SECRET}\"}},\n"
                    + "    \"remote\": {\"type\": \"sse\", \"url\": \"http://127.0.0.1:" + listener.getLocalPort()
                    + "/sse\", \"startupTimeout\": 2}\n  }\n}\n");
            Map<String, String> secret = Map.of("QUIVER_E2E_SECRET", "s3cret-value");

            Run untrusted = QuiverProcess.run(workspace, secret, "", "tools", "--with-mcp");
            assertEquals(0, untrusted.exitCode(), untrusted.stderr());
            assertFalse(Files.exists(marker), "no process of an untrusted .mcp.json was started");
            assertEquals(0, connections.get(), "no connection to an untrusted .mcp.json's URL was opened");
            assertFalse(untrusted.stdout().contains("mcp__local__"), untrusted.stdout());
            // tools prints its header and warnings with its table, on stdout
            assertTrue(untrusted.stdout().contains("the MCP servers of .mcp.json (local, remote)")
                    && untrusted.stdout().contains("quiver trust " + workspace.toRealPath()), untrusted.stdout());

            Run call = QuiverProcess.run(workspace, secret, "", "call", "--yolo", "mcp__local__env", "{\"name\":\"STOLEN\"}");
            assertEquals(1, call.exitCode(), call.stderr());
            assertFalse(Files.exists(marker), "not by call --yolo either");
            assertFalse(call.stdout().contains("s3cret-value") || call.stderr().contains("s3cret-value"));

            Run trusted = QuiverProcess.run(workspace, secret, "", "call", "--yolo", "--trust-workspace", "mcp__local__env",
                    "{\"name\":\"STOLEN\"}");
            assertEquals(0, trusted.exitCode(), trusted.stderr());
            assertTrue(Files.exists(marker), "once trusted, its server runs");
            // the server got the value its entry names, as the user accepted; the kernel still keeps a
            // secret's value out of what a tool returns
            assertEquals("[redacted: $QUIVER_E2E_SECRET]", trusted.stdout().strip());
            assertTrue(connections.get() > 0, "and its remote server is reached (which proves the listener counts)");
        }
    }

    @Test
    void opencodeEntriesInAJsoncConfigAndAnMcpConfigFileReachServersOverStdioHttpAndSse() throws Exception {
        int http = serve("http");
        int sse = serve("sse");
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        QuiverProcess.userConfig(workspace, "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n"
                + "  /* opencode's shape */\n  \"mcp\": {\n"
                + "    \"oclocal\": {\"type\": \"local\", \"command\": [\"node\", " + json(script()) + ", \"stdio\"],\n"
                + "                \"environment\": {\"GREETING\": \"{env:QUIVER_E2E_GREETING}\"}, \"enabled\": true},\n"
                + "    \"ocremote\": {\"type\": \"remote\", \"url\": \"http://127.0.0.1:" + http + "/mcp\"}, // streamable HTTP\n"
                + "    \"ocoff\": {\"type\": \"local\", \"command\": [\"no-such-program\"], \"enabled\": false},\n"
                + "  },\n  \"mcp_servers\": {},\n}\n");
        Path run = Files.writeString(temp.resolve("run.mcp.json"), "{\"mcpServers\": {\"events\": {\"type\": \"sse\", "
                + "\"url\": \"http://127.0.0.1:" + sse + "/sse\"}}}");
        Map<String, String> environment = Map.of("QUIVER_E2E_GREETING", "hello from the user");

        Run tools = QuiverProcess.run(workspace, environment, "", "tools", "--with-mcp", "--mcp-config", run.toString());
        assertEquals(0, tools.exitCode(), tools.stderr());
        for (String tool : List.of("mcp__oclocal__echo", "mcp__ocremote__echo", "mcp__events__echo")) {
            assertTrue(tools.stdout().contains(tool), tool + " in " + tools.stdout() + tools.stderr());
        }
        assertFalse(tools.stdout().contains("mcp__ocoff__"), tools.stdout());
        assertTrue(tools.stdout().contains("warning: Config key 'mcp_servers' in ")
                && tools.stdout().contains("did you mean 'mcpServers'"), tools.stdout());

        assertEquals("sse echo: over sse", callTool(workspace, environment, run, "mcp__events__echo", "text", "over sse"));
        assertEquals("http echo: remote", callTool(workspace, environment, run, "mcp__ocremote__echo", "text", "remote"));
        assertEquals("hello from the user", callTool(workspace, environment, run, "mcp__oclocal__env", "name", "GREETING"));
        assertTrue(Files.readString(temp.resolve("sse-server.log")).contains("request GET /sse"));

        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.calls(OpenAiStub.call("mcp__events__echo",
                "{\"text\":\"from the model\"}")), OpenAiStub.text("The server said it."))) {
            Run headless = QuiverProcess.run(workspace, environment, "", "-p", "use the echo tool", "--yolo", "--model",
                    "openai/test", "--base-url", model.baseUrl(), "--mcp-config", run.toString(), "--output-format", "json");
            assertEquals(0, headless.exitCode(), headless.stderr());
            JsonNode answer = new ObjectMapper().readTree(headless.stdout());
            assertEquals("mcp__events__echo", answer.path("calls").path(0).path("tool").asText(), headless.stdout());
            assertEquals("ok", answer.path("calls").path(0).path("status").asText(), headless.stdout());
            assertTrue(model.requests().get(1).toString().contains("sse echo: from the model"),
                    "the model got the SSE server's answer: " + model.requests().get(1));
        }

        Run missing = QuiverProcess.run(workspace, environment, "", "tools", "--mcp-config", temp.resolve("nope.json").toString());
        assertEquals(1, missing.exitCode(), missing.stderr());
        assertTrue(missing.stderr().contains("--mcp-config file " + temp.resolve("nope.json") + " does not exist"),
                missing.stderr());
    }

    private static String callTool(Path workspace, Map<String, String> environment, Path mcpConfig, String tool,
            String argument, String value) throws Exception {
        Run call = QuiverProcess.run(workspace, environment, "", "call", "--yolo", "--mcp-config", mcpConfig.toString(), tool,
                "{\"" + argument + "\":" + json(value) + "}");
        assertEquals(0, call.exitCode(), tool + ": " + call.stderr());
        return call.stdout().strip();
    }
}
