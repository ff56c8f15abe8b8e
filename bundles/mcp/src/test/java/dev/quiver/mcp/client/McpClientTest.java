package dev.quiver.mcp.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolException;
import dev.quiver.mcp.client.TestSupport.Call;
import dev.quiver.mcp.client.TestSupport.Context;
import dev.quiver.mcp.client.TestSupport.Registry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MCP client against {@link dev.quiver.mcp.testserver.TinyMcpServer}, a server written for
 * these tests without the SDK, run as a real process over stdio and over HTTP.
 */
class McpClientTest {

    @TempDir
    Path workspace;

    private final Registry registry = new Registry();
    private final List<Servers> started = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void stop() {
        started.forEach(Servers::stopAll);
        processes.forEach(Process::destroyForcibly);
    }

    private Servers servers() {
        Servers servers = new Servers(registry, "test", System.getenv());
        started.add(servers);
        return servers;
    }

    private Context open(Servers servers, Map<String, Object> config) {
        Context context = new Context(workspace, config);
        servers.opened(context);
        return context;
    }

    private static Map<String, Object> config(Object... pairs) {
        Map<String, Object> config = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            config.put((String) pairs[i], pairs[i + 1]);
        }
        return config;
    }

    private static String call(Tool tool, Map<String, Object> arguments) throws ToolException {
        return tool.call(Arguments.of(arguments), new Call()).text();
    }

    @Test
    void aStdioServersToolsBecomeServicesNamedMcpServerToolWithoutASetAndWithExecuteAccess() {
        open(servers(), config("tiny", TestSupport.stdioEntry()));
        List<String> names = registry.names();
        assertTrue(names.containsAll(List.of("mcp__tiny__echo", "mcp__tiny__add", "mcp__tiny__crash",
                "mcp__tiny__odd_name_with_dashes")), names.toString());
        assertEquals(8, names.size(), names.toString());
        for (TestSupport.Registration registration : registry.services) {
            assertTrue(registration.name().matches("[a-z][a-z0-9_]{0,63}"), registration.name());
            assertEquals(registration.name(), registration.tool().spec().name());
            assertEquals("execute", registration.properties().get(Tool.ACCESS));
            assertNull(registration.properties().get(Tool.SET), "MCP tools are not gated by tool sets");
            assertEquals("tiny", registration.properties().get("quiver.mcp.server"));
        }
        String longName = names.stream().filter(n -> n.startsWith("mcp__tiny__a_tool")).findFirst().orElseThrow();
        assertEquals(64, longName.length(), longName);
        assertTrue(longName.matches("mcp__tiny__a_tool_whose_name_.*_[0-9a-f]{8}"), longName);
        assertTrue(registry.tool("mcp__tiny__echo").spec().parameters().contains("\"required\":[\"text\"]"));
    }

    @Test
    void callsReturnTheServersTextAndAnErrorResultBecomesAToolError() throws Exception {
        open(servers(), config("tiny", TestSupport.stdioEntry()));
        assertEquals("echo: hello", call(registry.tool("mcp__tiny__echo"), Map.of("text", "hello")));
        assertEquals("5.5", call(registry.tool("mcp__tiny__add"), Map.of("a", 2, "b", 3.5)));
        ToolException error = assertThrows(ToolException.class, () -> call(registry.tool("mcp__tiny__fail"), Map.of()));
        assertEquals("the fail tool failed, as it should", error.getMessage());
        assertEquals("called Odd.Name-With-Dashes", call(registry.tool("mcp__tiny__odd_name_with_dashes"), Map.of()),
                "the original name is what is sent to the server");
    }

    @Test
    void subjectsAreTheArgumentsAsNameEqualsValueSoRulesCanMatchThem() throws Exception {
        open(servers(), config("tiny", TestSupport.stdioEntry()));
        Map<String, Object> arguments = new LinkedHashMap<>();
        arguments.put("text", "src/a.txt");
        arguments.put("count", 3);
        arguments.put("tags", List.of("x"));
        List<Subject> subjects = registry.tool("mcp__tiny__echo").subjects(Arguments.of(arguments));
        assertEquals(List.of(Subject.name("text=src/a.txt"), Subject.name("count=3"), Subject.name("tags=[\"x\"]")),
                subjects);
    }

    @Test
    void aServerThatCrashesMidCallFailsThatCallAtOnceNamingTheExitAndLaterCallsSayItIsNotRunning() throws Exception {
        Servers servers = servers();
        open(servers, config("tiny", TestSupport.stdioEntry(), "other", TestSupport.stdioEntry()));
        long start = System.nanoTime();
        ToolException crash = assertThrows(ToolException.class, () -> call(registry.tool("mcp__tiny__crash"), Map.of()));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(8), "the call fails when the process dies, "
                + "not at its timeout");
        assertTrue(crash.getMessage().contains("exited with code 3"), crash.getMessage());
        assertTrue(crash.getMessage().contains("crashing on purpose"), "the last stderr lines: " + crash.getMessage());
        assertTrue(crash.getMessage().contains("effects are unknown"), crash.getMessage());
        ToolException next = assertThrows(ToolException.class,
                () -> call(registry.tool("mcp__tiny__echo"), Map.of("text", "again")));
        assertTrue(next.getMessage().contains("is not running") && next.getMessage().contains("exited with code 3"),
                next.getMessage());
        assertEquals("echo: fine", call(registry.tool("mcp__other__echo"), Map.of("text", "fine")),
                "the other server is not affected");
    }

    @Test
    void aServerThatCannotStartIsReportedAndTheOthersStillStart() throws Exception {
        Servers servers = servers();
        open(servers, config("broken", Map.of("command", "/nonexistent/mcp-server"), "tiny", TestSupport.stdioEntry()));
        ServerHandle broken = servers.handle("broken");
        assertEquals(ServerHandle.State.FAILED, broken.state());
        assertTrue(broken.problem().contains("failed to start") && broken.problem().contains("could not be started"),
                broken.problem());
        assertTrue(registry.names().stream().noneMatch(n -> n.startsWith("mcp__broken__")));
        assertEquals("echo: ok", call(registry.tool("mcp__tiny__echo"), Map.of("text", "ok")));
    }

    @Test
    void aServerThatExitsDuringStartUpIsReportedWithItsOutput() {
        Servers servers = servers();
        open(servers, config("quits", Map.of("command", "bash", "args", List.of("-c", "echo no config found >&2; exit 7"),
                "startupTimeout", 5)));
        ServerHandle quits = servers.handle("quits");
        assertEquals(ServerHandle.State.FAILED, quits.state());
        assertTrue(quits.problem().contains("failed to start") && quits.problem().contains("exited with code 7")
                && quits.problem().contains("no config found"), quits.problem());
        assertTrue(registry.names().isEmpty(), registry.names().toString());
    }

    @Test
    void cancellingACallStopsWaitingForTheServer() throws Exception {
        open(servers(), config("tiny", TestSupport.stdioEntry()));
        Call context = new Call();
        CompletableFuture<Object> running = CompletableFuture.supplyAsync(() -> {
            try {
                return registry.tool("mcp__tiny__slow").call(Arguments.of(Map.of("millis", 20_000)), context);
            } catch (ToolException e) {
                return e;
            }
        });
        Thread.sleep(300);
        context.cancelled.set(true);
        Object outcome = running.get(5, TimeUnit.SECONDS);
        assertTrue(outcome instanceof ToolException e && e.getMessage().contains("cancelled"), String.valueOf(outcome));
    }

    @Test
    void aToolsListChangedNotificationFromTheServerRegistersTheNewTool() throws Exception {
        open(servers(), config("tiny", TestSupport.stdioEntry()));
        assertFalse(registry.names().contains("mcp__tiny__extra"));
        call(registry.tool("mcp__tiny__grow"), Map.of());
        await(() -> registry.names().contains("mcp__tiny__extra"), "the new tool appears");
        assertEquals("called extra", call(registry.tool("mcp__tiny__extra"), Map.of()));
    }

    @Test
    void aChangedConfigAddsRestartsAndRemovesServersAndClosingTheSessionStopsThem() throws Exception {
        Servers servers = servers();
        Context context = open(servers, config("one", TestSupport.stdioEntry()));
        ServerHandle first = servers.handle("one");
        assertEquals(8, registry.names().size());

        context.change(config("one", TestSupport.stdioEntry(), "two", TestSupport.stdioEntry()));
        assertEquals(first, servers.handle("one"), "an unchanged server keeps running");
        assertEquals(16, registry.names().size(), registry.names().toString());

        Map<String, Object> changed = new LinkedHashMap<>(TestSupport.stdioEntry());
        changed.put("timeout", 30);
        context.change(config("one", changed, "two", TestSupport.stdioEntry()));
        assertTrue(first != servers.handle("one"), "a changed entry restarts its server");
        assertEquals(ServerHandle.State.STOPPED, first.state());
        assertEquals("echo: restarted", call(registry.tool("mcp__one__echo"), Map.of("text", "restarted")));

        context.change(config("two", TestSupport.stdioEntry()));
        assertNull(servers.handle("one"));
        assertTrue(registry.names().stream().allMatch(n -> n.startsWith("mcp__two__")), registry.names().toString());

        servers.closed(context);
        assertTrue(registry.names().isEmpty(), registry.names().toString());
        assertNull(servers.handle("two"));
    }

    @Test
    void savingTheConfigRestartsAServerThatDied() throws Exception {
        Servers servers = servers();
        Context context = open(servers, config("tiny", TestSupport.stdioEntry()));
        assertThrows(ToolException.class, () -> call(registry.tool("mcp__tiny__crash"), Map.of()));
        assertEquals(ServerHandle.State.FAILED, servers.handle("tiny").state());
        context.change(config("tiny", TestSupport.stdioEntry()));
        assertEquals(ServerHandle.State.RUNNING, servers.handle("tiny").state());
        assertEquals("echo: back", call(registry.tool("mcp__tiny__echo"), Map.of("text", "back")));
    }

    @Test
    void twoSessionsWithTheSameServerShareOneProcess() throws Exception {
        Servers servers = servers();
        Context first = open(servers, config("tiny", TestSupport.stdioEntry()));
        ServerHandle handle = servers.handle("tiny");
        Context second = open(servers, config("tiny", TestSupport.stdioEntry()));
        assertEquals(handle, servers.handle("tiny"));
        assertEquals(8, registry.names().size());
        servers.closed(first);
        assertEquals(ServerHandle.State.RUNNING, handle.state(), "still used by the second session");
        servers.closed(second);
        assertEquals(ServerHandle.State.STOPPED, handle.state());
    }

    @Test
    void anHttpServerIsReachedWithItsHeadersAndACrashMidCallFailsTheCall() throws Exception {
        Path portFile = workspace.resolve("port");
        ProcessBuilder builder = new ProcessBuilder(TestSupport.tinyServer("http", portFile.toString()));
        builder.environment().put("TINY_TOKEN", "sesame");
        builder.redirectErrorStream(true).redirectOutput(workspace.resolve("http.log").toFile());
        processes.add(builder.start());
        await(() -> Files.exists(portFile) && !read(portFile).isEmpty(), "the HTTP server is up");
        String url = "http://127.0.0.1:" + read(portFile) + "/mcp";

        Servers servers = servers();
        open(servers, config("web", Map.of("url", url, "headers", Map.of("X-Token", "${TINY_TEST_TOKEN}"), "startupTimeout", 5)));
        assertEquals(ServerHandle.State.FAILED, servers.handle("web").state(),
                "an unset variable expands to nothing, so the token is wrong");
        assertTrue(servers.handle("web").problem().contains("Authorization"), servers.handle("web").problem());

        Servers good = new Servers(registry, "test", Map.of("TINY_TEST_TOKEN", "sesame"));
        started.add(good);
        Context context = new Context(workspace, config("web", Map.of("url", url,
                "headers", Map.of("X-Token", "${TINY_TEST_TOKEN}"))));
        good.opened(context);
        assertEquals(ServerHandle.State.RUNNING, good.handle("web").state(), good.handle("web").problem());
        assertEquals("network", registry.services.get(0).properties().get(Tool.ACCESS));
        assertEquals("echo: over http", call(registry.tool("mcp__web__echo"), Map.of("text", "over http")));

        long start = System.nanoTime();
        ToolException crash = assertThrows(ToolException.class, () -> call(registry.tool("mcp__web__crash"), Map.of()));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(20), "fails without waiting for the timeout");
        assertTrue(crash.getMessage().contains("web") && crash.getMessage().contains("effects are unknown"),
                crash.getMessage());
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (java.io.IOException e) {
            return "";
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(50);
        }
    }
}
