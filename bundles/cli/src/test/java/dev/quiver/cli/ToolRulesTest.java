package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code --allowedTools} and {@code --disallowedTools} values: Quiver's rule syntax and Claude Code's spellings. */
class ToolRulesTest {

    private static Map<String, List<String>> rules(String... values) {
        return ToolRules.merged(java.util.Arrays.stream(values).map(ToolRules::parse).toList());
    }

    @Test
    void entriesAreSeparatedByCommasOrSpacesOutsideTheirParentheses() {
        assertEquals(Map.of("bash", List.of("git diff *", "git log *"), "read_file", List.of("*"), "glob", List.of("*")),
                rules("bash(git diff *), read_file bash(git log *)", "glob"));
        assertEquals(Map.of("bash", List.of("echo (a, b)")), rules("bash(echo (a, b))"), "nested parentheses");
        assertEquals(Map.of("mcp__github__*", List.of("*")), rules("mcp__github__*"));
    }

    @Test
    void claudeCodesSpellingsAreReadWhereQuiverHasTheSameTool() {
        assertEquals(Map.of("bash", List.of("git diff *", "npm run test *")), rules("Bash(git diff:*),Bash(npm run test:*)"));
        assertEquals(Map.of("read_file", List.of("src/**"), "edit_file", List.of("*"), "web_fetch", List.of("*")),
                rules("Read(./src/**) Edit WebFetch"));
        assertEquals(Map.of("task", List.of("*")), rules("Task"), "Claude Code's subagent tool is task");
        assertEquals(Map.of("mcp__slack__*", List.of("*"), "mcp__jira__create", List.of("*")),
                rules("mcp__slack mcp__jira__create"), "a server's name alone is every tool of the server");
    }

    @Test
    void whatCannotBeReadIsRefusedNamingTheEntryAndTheForm() {
        IllegalArgumentException open = assertThrows(IllegalArgumentException.class, () -> ToolRules.parse("bash(git diff"));
        assertTrue(open.getMessage().startsWith("'bash(git diff' is missing its closing ')'. Write TOOL or TOOL(PATTERN)"),
                open.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ToolRules.parse("bash()")).getMessage()
                .contains("empty pattern"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ToolRules.parse("bash(x)y")).getMessage()
                .contains("text after its ')'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ToolRules.parse(" , ")).getMessage()
                .contains("no tool given"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ToolRules.parse("WebFetch(domain:example.com)"))
                .getMessage().contains("web_fetch(https://example.com/*)"), "a deny that matches nothing is a hole");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ToolRules.parse("bash\"x")).getMessage()
                .contains("is not a tool name"));
    }
}
