package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code quiver mcp} as a raw JSON-RPC peer sees it: bad input of every kind gets a clear error and
 * the server stays up; calls go through the whole permission chain; the HTTP transport wants its
 * token; a tool bundle dropped into or deleted from deploy/ sends tools/list_changed and changes the
 * list; and without the MCP bundle the command says so.
 */
class McpServerEndToEndTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\",\"params\":{"
            + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";
    private static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";

    @TempDir
    Path temp;

    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        for (Process process : processes) {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    private Path workspace() throws IOException {
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        Files.writeString(workspace.resolve("README.md"), "# Raw\n");
        Files.writeString(workspace.resolve("prod.env"), "KEY=secret\n");
        Files.createDirectories(workspace.resolve("src"));
        return workspace;
    }

    /** A quiver mcp process spoken to line by line. */
    private final class Peer {
        final Process process;
        final OutputStream in;
        final BlockingQueue<JsonNode> out = new LinkedBlockingQueue<>();
        final List<String> stderr = new CopyOnWriteArrayList<>();

        Peer(Path workspace, String... extra) throws IOException {
            this(workspace, java.util.Map.of(), extra);
        }

        Peer(Path workspace, java.util.Map<String, String> environment, String... extra) throws IOException {
            List<String> command = McpSupport.quiver(QuiverProcess.distribution(), "mcp", "--workspace",
                    workspace.toString());
            command.addAll(List.of(extra));
            ProcessBuilder builder = new ProcessBuilder(command).directory(workspace.toFile());
            builder.environment().putAll(McpSupport.privateHome(temp.resolve("home")));
            builder.environment().putAll(environment);
            process = builder.start();
            processes.add(process);
            in = process.getOutputStream();
            Thread reader = new Thread(() -> {
                try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = lines.readLine()) != null) {
                        try {
                            out.add(JSON.readTree(line));
                        } catch (IOException notJson) {
                            out.add(JSON.createObjectNode().put("NOT_JSON_ON_STDOUT", line));
                        }
                    }
                } catch (IOException ended) {
                    // the process ended
                }
            });
            reader.setDaemon(true);
            reader.start();
            Thread errors = new Thread(() -> McpSupport.stderr(process).lines().forEach(stderr::add));
            errors.setDaemon(true);
            errors.start();
        }

        void send(String line) throws IOException {
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        }

        JsonNode next() throws InterruptedException {
            JsonNode message = out.poll(60, TimeUnit.SECONDS);
            assertNotNull(message, "no answer within 60 s; stderr: " + stderr);
            assertFalse(message.has("NOT_JSON_ON_STDOUT"), "stdout carries only JSON-RPC: " + message);
            return message;
        }

        JsonNode send(String line, Object id) throws Exception {
            send(line);
            while (true) {
                JsonNode message = next();
                if (message.has("id") && JSON.valueToTree(id).equals(message.get("id"))) {
                    return message;
                }
            }
        }

        JsonNode call(int id, String tool, String arguments) throws Exception {
            return send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
                    + "\",\"arguments\":" + arguments + "}}", id).get("result");
        }

        /** Waits for the next notifications/tools/list_changed, passing over anything else. */
        void awaitListChanged(long deadline) throws InterruptedException {
            while (true) {
                JsonNode message = out.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                assertNotNull(message, "no notifications/tools/list_changed in time; stderr: " + stderr);
                assertFalse(message.has("NOT_JSON_ON_STDOUT"), "stdout carries only JSON-RPC: " + message);
                if ("notifications/tools/list_changed".equals(message.path("method").asText())) {
                    return;
                }
            }
        }

        List<String> toolNames(int id) throws Exception {
            List<String> names = new ArrayList<>();
            send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/list\"}", id).path("result")
                    .path("tools").forEach(tool -> names.add(tool.path("name").asText()));
            return names;
        }

        void initialize() throws Exception {
            JsonNode init = send(INIT, "init");
            assertEquals("quiver", init.path("result").path("serverInfo").path("name").asText(), init.toString());
            assertTrue(init.path("result").path("capabilities").path("tools").path("listChanged").asBoolean());
            send(INITIALIZED);
        }
    }

    private static String text(JsonNode result) {
        return result.path("content").path(0).path("text").asText();
    }

    private static void assertError(JsonNode answer, Object id, int code, String words) {
        assertEquals(code, answer.path("error").path("code").asInt(), answer.toString());
        assertTrue(answer.path("error").path("message").asText().contains(words), answer.toString());
        if (id == null) {
            assertTrue(answer.get("id").isNull(), answer.toString());
        } else {
            assertEquals(JSON.valueToTree(id), answer.get("id"), answer.toString());
        }
    }

    @Test
    void badInputGetsClearErrorsAndTheServerStaysUp() throws Exception {
        Peer peer = new Peer(workspace());
        peer.initialize();

        peer.send("this is not json");
        assertError(peer.next(), null, -32700, "not valid JSON");
        peer.send("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]");
        assertError(peer.next(), null, -32600, "batches are not supported");
        peer.send("42");
        assertError(peer.next(), null, -32600, "JSON object");
        assertError(peer.send("{\"jsonrpc\":\"1.0\",\"id\":5,\"method\":\"ping\"}", 5), 5, -32600, "\"2.0\"");
        assertError(peer.send("{\"jsonrpc\":\"2.0\",\"id\":6}", 6), 6, -32600, "needs \"method\"");
        assertError(peer.send("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"no/such/method\"}", 7), 7, -32601,
                "Method not found: no/such/method");
        assertError(peer.send("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":\"read_file\"}", 8), 8,
                -32602, "must be an object");
        assertError(peer.send("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{}}", 9), 9, -32602,
                "tool name");

        String huge = "x".repeat(5 * 1024 * 1024);
        JsonNode oversized = peer.send("{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":{\"name\":"
                + "\"read_file\",\"arguments\":{\"path\":\"" + huge + "\"}}}", 10);
        assertError(oversized, 10, -32600, "larger than 4 MiB");

        JsonNode wrongType = peer.call(11, "read_file", "{\"path\":42}");
        assertTrue(wrongType.path("isError").asBoolean(), wrongType.toString());
        assertTrue(text(wrongType).contains("Invalid arguments for read_file: 'path' must be a string"), wrongType.toString());
        JsonNode missing = peer.call(12, "read_file", "{}");
        assertTrue(missing.path("isError").asBoolean() && text(missing).contains("'path' is required"), missing.toString());
        JsonNode notAnObject = peer.call(13, "read_file", "\"README.md\"");
        assertTrue(notAnObject.path("isError").asBoolean() && text(notAnObject).contains("must be a JSON object"),
                notAnObject.toString());
        JsonNode unknown = peer.call(14, "no_such_tool", "{}");
        assertTrue(unknown.path("isError").asBoolean() && text(unknown).contains("No tool named 'no_such_tool'"),
                unknown.toString());

        JsonNode ping = peer.send("{\"jsonrpc\":\"2.0\",\"id\":\"still-up\",\"method\":\"ping\"}", "still-up");
        assertTrue(ping.has("result"), "the server is still up: " + ping);
        JsonNode read = peer.call(15, "read_file", "{\"path\":\"README.md\"}");
        assertFalse(read.path("isError").asBoolean(), read.toString());
        assertTrue(text(read).contains("1: # Raw"), read.toString());
    }

    @Test
    void requestsBeforeInitializeAreRefusedAndThenTheSessionWorks() throws Exception {
        Peer peer = new Peer(workspace());
        JsonNode early = peer.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", 1);
        assertTrue(early.has("error"), early.toString());
        peer.initialize();
        JsonNode list = peer.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}", 2);
        List<String> names = new ArrayList<>();
        list.path("result").path("tools").forEach(t -> names.add(t.path("name").asText()));
        assertTrue(names.containsAll(List.of("bash", "read_file", "write_file")), names.toString());
        JsonNode again = peer.send(INIT.replace("\"init\"", "\"again\""), "again");
        assertError(again, "again", -32600, "already initialized");
    }

    @Test
    void callsRunThePermissionChainAndRefusalsAreErrorResults() throws Exception {
        Path workspace = workspace();
        Files.createDirectories(workspace.resolve(".quiver"));
        Files.writeString(workspace.resolve(".quiver/config.json"),
                "{\"permission\":{\"bash\":{\"*\":\"ask\",\"echo *\":\"allow\"}}}");
        Peer peer = new Peer(workspace, "--trust-workspace");
        peer.initialize();

        JsonNode asks = peer.call(1, "bash", "{\"command\":\"touch asked.txt\"}");
        assertTrue(asks.path("isError").asBoolean(), asks.toString());
        assertTrue(text(asks).contains("needs the user's approval"), asks.toString());
        assertEquals("mode", asks.path("_meta").path("quiver/by").asText(), asks.toString());
        assertFalse(Files.exists(workspace.resolve("asked.txt")), "an ask without a person is a refusal");

        JsonNode allowed = peer.call(2, "bash", "{\"command\":\"echo from-a-rule\"}");
        assertFalse(allowed.path("isError").asBoolean(), allowed.toString());
        assertTrue(text(allowed).contains("from-a-rule"), allowed.toString());

        JsonNode guarded = peer.call(3, "bash", "{\"command\":\"echo ok && rm -rf src\"}");
        assertTrue(guarded.path("isError").asBoolean() && text(guarded).contains("Refused by the guard"), guarded.toString());
        assertTrue(Files.isDirectory(workspace.resolve("src")));

        JsonNode secret = peer.call(4, "read_file", "{\"path\":\"prod.env\"}");
        assertTrue(secret.path("isError").asBoolean() && text(secret).contains("holds secrets"), secret.toString());
    }

    @Test
    void yoloTurnsAsksIntoAllowsButTheGuardStillRefuses() throws Exception {
        Path workspace = workspace();
        Peer peer = new Peer(workspace, "--yolo");
        peer.initialize();
        JsonNode ran = peer.call(1, "bash", "{\"command\":\"touch yolo.txt\"}");
        assertFalse(ran.path("isError").asBoolean(), ran.toString());
        assertTrue(Files.exists(workspace.resolve("yolo.txt")));
        JsonNode guarded = peer.call(2, "bash", "{\"command\":\"rm -rf src\"}");
        assertTrue(guarded.path("isError").asBoolean() && text(guarded).contains("guard"), guarded.toString());
    }

    @Test
    void theCommandLinesToolRulesHoldForTheServersCalls() throws Exception {
        Path workspace = workspace();
        Peer peer = new Peer(workspace, "--yolo", "--disallowedTools", "bash(touch *)");
        peer.initialize();
        JsonNode denied = peer.call(1, "bash", "{\"command\":\"touch denied.txt\"}");
        assertTrue(denied.path("isError").asBoolean() && text(denied).contains("--disallowedTools"), denied.toString());
        assertFalse(Files.exists(workspace.resolve("denied.txt")), "a --disallowedTools rule was dropped by quiver mcp");
    }

    @Test
    void theHttpTransportWantsItsTokenAndAnswersBadInputClearly() throws Exception {
        Path workspace = workspace();
        Path dist = temp.resolve("dist");
        Path deployed = McpSupport.privateDistribution(dist);
        ProcessBuilder builder = new ProcessBuilder(McpSupport.quiver(dist, "mcp", "--http", "0",
                "--workspace", workspace.toString())).directory(workspace.toFile());
        builder.environment().putAll(McpSupport.privateHome(temp.resolve("home")));
        Process quiver = builder.start();
        processes.add(quiver);
        BufferedReader err = McpSupport.stderr(quiver);
        List<String> seen = new ArrayList<>();
        String serving = McpSupport.lineStartingWith(err, "quiver mcp ", seen);
        URI url = URI.create(serving.substring(serving.indexOf("http://")));
        String token = McpSupport.lineStartingWith(err, "token: ", seen).substring("token: ".length());
        assertEquals("127.0.0.1", url.getHost());
        assertTrue(token.length() >= 40, token);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

        assertEquals(401, post(http, url, null, null, INIT).statusCode());
        HttpResponse<String> wrong = post(http, url, "Bearer not-the-token", null, INIT);
        assertEquals(401, wrong.statusCode());
        assertTrue(wrong.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Bearer"));
        String bearer = "Bearer " + token;
        HttpResponse<String> fromPage = http.send(HttpRequest.newBuilder(url).header("Authorization", bearer)
                .header("Origin", "http://evil.example").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(INIT)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(403, fromPage.statusCode());

        HttpResponse<String> init = post(http, url, bearer, null, INIT);
        assertEquals(200, init.statusCode(), init.body());
        String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
        assertEquals("quiver", JSON.readTree(init.body()).path("result").path("serverInfo").path("name").asText());
        assertEquals(202, post(http, url, bearer, session, INITIALIZED).statusCode());

        HttpResponse<String> list = post(http, url, bearer, session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
        assertEquals(200, list.statusCode(), list.body());
        assertTrue(list.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream"));
        JsonNode tools = JSON.readTree(data(list.body()));
        assertEquals(2, tools.path("id").asInt(), tools.toString());
        assertTrue(tools.path("result").path("tools").size() > 5, tools.toString());

        // the listening stream carries tools/list_changed when a tool bundle goes
        BlockingQueue<String> events = new LinkedBlockingQueue<>();
        http.sendAsync(HttpRequest.newBuilder(url).header("Authorization", bearer).header("Mcp-Session-Id", session)
                .header("Accept", "text/event-stream").GET().build(), HttpResponse.BodyHandlers.ofLines())
                .thenAccept(response -> response.body().forEach(events::add));
        Thread.sleep(500);
        Files.move(deployed, temp.resolve(deployed.getFileName()));
        String event;
        do {
            event = events.poll(30, TimeUnit.SECONDS);
            assertNotNull(event, "no tools/list_changed on the listening stream");
        } while (!event.contains("notifications/tools/list_changed"));

        HttpResponse<String> call = post(http, url, bearer, session, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"bash\",\"arguments\":{\"command\":\"rm -rf src\"}}}");
        JsonNode refused = JSON.readTree(data(call.body()));
        assertTrue(refused.path("result").path("isError").asBoolean(), refused.toString());

        HttpResponse<String> malformed = post(http, url, bearer, session, "{not json");
        assertEquals(400, malformed.statusCode());
        assertEquals(-32700, JSON.readTree(malformed.body()).path("error").path("code").asInt(), malformed.body());
        HttpResponse<String> huge = post(http, url, bearer, session, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\","
                + "\"params\":{\"pad\":\"" + "x".repeat(5 * 1024 * 1024) + "\"}}");
        assertEquals(413, huge.statusCode());
        HttpResponse<String> unknown = post(http, url, bearer, session, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"nope\"}");
        assertEquals(-32601, JSON.readTree(data(unknown.body())).path("error").path("code").asInt(), unknown.body());
        HttpResponse<String> noSession = post(http, url, bearer, null, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}");
        assertEquals(400, noSession.statusCode());
        HttpResponse<String> ping = post(http, url, bearer, session, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}");
        assertEquals(200, ping.statusCode(), "still up after bad input");

        HttpResponse<String> delete = http.send(HttpRequest.newBuilder(url).header("Authorization", bearer)
                .header("Mcp-Session-Id", session).DELETE().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, delete.statusCode());
        assertEquals(404, post(http, url, bearer, session, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}").statusCode());
    }

    @Test
    void droppingTheExampleIntoDeployAndDeletingItSendsListChangedAndChangesTheList() throws Exception {
        Path workspace = workspace();
        Path deploy = Files.createDirectories(temp.resolve("deploy"));
        Path plugins = Files.createDirectories(temp.resolve("plugins"));
        // a private deploy/ and plugins/; the distribution's own stay untouched
        Peer peer = new Peer(workspace, java.util.Map.of("QUIVER_JAVA_OPTS", "-Dfelix.fileinstall.dir=" + deploy
                + " -Dquiver.plugins.dir=" + plugins));
        peer.initialize();
        int id = 10;
        List<String> before = peer.toolNames(id++);
        assertTrue(before.contains("read_file") && !before.contains("hello"), before.toString());

        Path jar = Files.copy(PluginEndToEndTest.exampleJar(), deploy.resolve("hello-tool-1.0.0.jar"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<String> added;
        do {
            peer.awaitListChanged(deadline);
            added = peer.toolNames(id++);
        } while (!added.contains("hello"));
        assertTrue(added.containsAll(before), added.toString());

        Files.delete(jar);
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<String> removed;
        do {
            peer.awaitListChanged(deadline);
            removed = peer.toolNames(id++);
        } while (removed.contains("hello"));
        assertEquals(before, removed);
        JsonNode gone = peer.call(id, "hello", "{}");
        assertTrue(gone.path("isError").asBoolean() && text(gone).contains("hello was unloaded"), gone.toString());
    }

    @Test
    void withoutTheMcpBundleTheCommandSaysItIsNotInstalledAndTheRestWorks() throws Exception {
        Path dist = temp.resolve("dist");
        McpSupport.privateDistribution(dist);
        try (var jars = Files.list(dist.resolve("bundle"))) {
            for (Path jar : jars.toList()) {
                if (jar.getFileName().toString().startsWith("dev.quiver.mcp-")) {
                    Files.delete(jar);
                }
            }
        }
        Path workspace = workspace();
        McpSupport.Result mcp = McpSupport.run(workspace, McpSupport.privateHome(temp.resolve("home")), 60,
                McpSupport.quiver(dist, "mcp"));
        assertEquals(1, mcp.exitCode(), mcp.stderr());
        assertTrue(mcp.stderr().contains("the MCP bundle (dev.quiver.mcp) is not installed"), mcp.stderr());
        assertEquals("", mcp.stdout());
        McpSupport.Result tools = McpSupport.run(workspace, McpSupport.privateHome(temp.resolve("home")), 60,
                McpSupport.quiver(dist, "tools"));
        assertEquals(0, tools.exitCode(), tools.stderr());
        assertTrue(tools.stdout().contains("read_file"), tools.stdout());
    }

    private static HttpResponse<String> post(HttpClient http, URI url, String authorization, String session, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        if (session != null) {
            request.header("Mcp-Session-Id", session);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The data of the first message event of a server-sent event stream. */
    private static String data(String events) {
        for (String line : events.split("\n")) {
            if (line.startsWith("data:")) {
                return line.substring(5).strip();
            }
        }
        throw new AssertionError("no data in " + events);
    }
}
