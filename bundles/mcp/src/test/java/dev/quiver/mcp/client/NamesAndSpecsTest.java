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
}
