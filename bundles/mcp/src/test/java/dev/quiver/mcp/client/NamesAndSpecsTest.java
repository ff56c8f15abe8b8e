package dev.quiver.mcp.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** How server and tool names become registry names, and how the "mcp" config is read. */
class NamesAndSpecsTest {

    @Test
    void namesAreLowerCaseSnakeCaseWithDoubleUnderscoresOnlyBetweenTheParts() {
        assertEquals("mcp__github__create_issue", ToolNames.tool("github", "create_issue", Set.of()));
        assertEquals("mcp__my_server__get_file", ToolNames.tool("My Server", "Get-File", Set.of()));
        assertEquals("mcp__a_b__c_d", ToolNames.tool("__a__b__", "c...d", Set.of()));
        assertEquals("mcp__x__x", ToolNames.tool("---", "???", Set.of()));
        assertEquals("mcp__fs__2fa", ToolNames.tool("fs", "2FA", Set.of()));
        assertEquals("mcp__averyveryverylon__t", ToolNames.tool("averyveryverylongservername", "t", Set.of()),
                "the server part is cut to 16 characters");
    }

    @Test
    void longAndCollidingNamesGetAHashOfTheOriginalAndStayValid() {
        String tool = "x".repeat(100);
        String name = ToolNames.tool("srv", tool, Set.of());
        assertEquals(64, name.length());
        assertTrue(name.matches("mcp__srv__x+_[0-9a-f]{8}"), name);
        Set<String> taken = new HashSet<>();
        String first = ToolNames.tool("srv", "get-file", taken);
        taken.add(first);
        String second = ToolNames.tool("srv", "get_file", taken);
        assertEquals("mcp__srv__get_file", first);
        assertNotEquals(first, second);
        assertTrue(second.matches("mcp__srv__get_file_[0-9a-f]{8}"), second);
        for (String odd : List.of("日本語", "a".repeat(300), "with space", "UPPER", "émoji🎉")) {
            String mapped = ToolNames.tool("Server.Name!", odd, Set.of());
            assertTrue(mapped.matches("[a-z][a-z0-9_]{0,63}"), mapped);
        }
    }

    @Test
    void specsAreReadWithDefaultsAndVariablesAndBadEntriesAreReportedNotStarted() {
        List<String> problems = new ArrayList<>();
        Map<String, Object> config = new java.util.LinkedHashMap<>();
        config.put("fs", Map.of("command", "npx", "args", List.of("-y", "server"), "env", Map.of("TOKEN", "${SECRET}-x")));
        config.put("web", Map.of("url", "https://example.test/mcp", "headers", Map.of("Authorization", "Bearer ${SECRET}"),
                "timeout", 30));
        config.put("both", Map.of("command", "a", "url", "http://b"));
        config.put("neither", Map.of("args", List.of()));
        config.put("ftp", Map.of("url", "ftp://host/x"));
        config.put("off", Map.of("command", "x", "enabled", false));
        config.put("typo", Map.of("command", "x", "comand", "y"));
        Map<String, ServerSpec> specs = ServerSpec.parse(Optional.of(config), Map.of("SECRET", "s3"), problems);
        assertEquals(List.of("fs", "web", "typo"), List.copyOf(specs.keySet()));
        assertEquals("s3-x", specs.get("fs").env().get("TOKEN"));
        assertEquals(Duration.ofSeconds(10), specs.get("fs").startupTimeout());
        assertEquals(Duration.ofSeconds(600), specs.get("fs").callTimeout());
        assertEquals("Bearer s3", specs.get("web").headers().get("Authorization"));
        assertEquals(Duration.ofSeconds(30), specs.get("web").callTimeout());
        assertTrue(problems.stream().anyMatch(p -> p.contains("\"both\"") && p.contains("not both")), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.contains("\"neither\"")), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.contains("\"ftp\"") && p.contains("http://")), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.contains("unknown key \"comand\"")), problems.toString());

        List<String> more = new ArrayList<>();
        assertTrue(ServerSpec.parse(Optional.of(List.of()), Map.of(), more).isEmpty());
        assertTrue(more.get(0).contains("must be an object"), more.toString());
        assertTrue(ServerSpec.parse(Optional.empty(), Map.of(), more).isEmpty());
    }

    @Test
    void claudeCodesAndOpencodesShapesAreReadAsTheSameSpecs() {
        List<String> problems = new ArrayList<>();
        Map<String, Object> config = new java.util.LinkedHashMap<>();
        config.put("claude-stdio", Map.of("type", "stdio", "command", "npx", "args", List.of("-y", "srv"),
                "env", Map.of("A", "${HOME_DIR:-/tmp}")));
        config.put("claude-sse", Map.of("type", "sse", "url", "https://example.test/sse", "headers",
                Map.of("X-Key", "${SECRET}")));
        config.put("claude-http", Map.of("type", "http", "url", "https://example.test/mcp"));
        config.put("oc-local", Map.of("type", "local", "command", List.of("bun", "x", "srv"), "environment",
                Map.of("B", "{env:SECRET}"), "enabled", true, "timeout", 2500));
        config.put("oc-remote", Map.of("type", "remote", "url", "https://example.test/mcp", "enabled", true));
        config.put("oc-off", Map.of("type", "local", "command", List.of("srv"), "enabled", false));
        Map<String, ServerSpec> specs = ServerSpec.parse(Optional.of(config), Map.of("SECRET", "s3"), problems);
        assertEquals(List.of("claude-stdio", "claude-sse", "claude-http", "oc-local", "oc-remote"), List.copyOf(specs.keySet()));
        assertEquals(List.of(), problems);
        assertEquals(ServerSpec.Transport.STDIO, specs.get("claude-stdio").transport());
        assertEquals("/tmp", specs.get("claude-stdio").env().get("A"), "${NAME:-default} falls back when unset");
        assertEquals(ServerSpec.Transport.SSE, specs.get("claude-sse").transport());
        assertEquals("s3", specs.get("claude-sse").headers().get("X-Key"));
        assertEquals(ServerSpec.Transport.HTTP, specs.get("claude-http").transport());
        ServerSpec local = specs.get("oc-local");
        assertEquals(ServerSpec.Transport.STDIO, local.transport());
        assertEquals("bun", local.command());
        assertEquals(List.of("x", "srv"), local.args());
        assertEquals("s3", local.env().get("B"), "opencode's {env:NAME}");
        assertEquals(Duration.ofMillis(2500), local.startupTimeout(), "opencode's timeout is milliseconds for the start");
        assertEquals(Duration.ofSeconds(600), local.callTimeout());
        assertEquals(ServerSpec.Transport.HTTP, specs.get("oc-remote").transport());
    }

    @Test
    void hostileOrBrokenEntriesAreRefusedWithWhatIsWrongAndNothingStarts() {
        List<String> problems = new ArrayList<>();
        Map<String, Object> config = new java.util.LinkedHashMap<>();
        config.put("empty-program", Map.of("type", "local", "command", List.of("", "-c", "id")));
        config.put("no-program", Map.of("type", "local", "command", List.of()));
        config.put("not-strings", Map.of("command", List.of("sh", 1)));
        config.put("file-url", Map.of("type", "sse", "url", "file:///etc/passwd"));
        config.put("script-url", Map.of("type", "remote", "url", "javascript:alert(1)"));
        config.put("local-with-url", Map.of("type", "local", "url", "http://x.test/mcp"));
        config.put("sse-with-command", Map.of("type", "sse", "command", "srv"));
        config.put("websocket", Map.of("type", "ws", "url", "ws://x.test"));
        config.put("both-envs", Map.of("command", "srv", "env", Map.of(), "environment", Map.of()));
        config.put("enabled-text", Map.of("command", "srv", "enabled", "no"));
        config.put("github", Map.of("command", "srv"));
        config.put("GitHub", Map.of("command", "other"));
        config.put("read_file", Map.of("command", "srv"));
        Map<String, ServerSpec> specs = ServerSpec.parse(Optional.of(config), Map.of(), problems);
        assertEquals(List.of("github", "read_file"), List.copyOf(specs.keySet()), problems.toString());
        for (String[] expected : new String[][] {{"empty-program", "first element is empty"},
                {"no-program", "first element is missing"}, {"not-strings", "array of strings"},
                {"file-url", "http:// or https://"}, {"script-url", "http:// or https://"},
                {"local-with-url", "needs \"command\""}, {"sse-with-command", "needs \"url\""},
                {"websocket", "is not one Quiver knows"}, {"both-envs", "not both"}, {"enabled-text", "true or false"},
                {"GitHub", "mcp__github__*, as the tools of the server \"github\""}}) {
            assertTrue(problems.stream().anyMatch(p -> p.startsWith("mcp server \"" + expected[0] + "\":")
                    && p.contains(expected[1]) && p.endsWith("It is not started.")), expected[0] + ": " + problems);
        }
        assertEquals("mcp__read_file__x", ToolNames.tool("read_file", "x", Set.of()),
                "a server named like a built-in tool only ever gets prefixed names");
    }
}
