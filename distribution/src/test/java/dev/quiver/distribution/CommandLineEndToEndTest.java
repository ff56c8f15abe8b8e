package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.distribution.QuiverProcess.Run;
import dev.quiver.testing.OpenAiStub;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The built distribution, driven as a new user and as a script would drive it. */
class CommandLineEndToEndTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;

    private Path workspace() throws Exception {
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        Files.writeString(workspace.resolve("README.md"), "# Demo\nsecond line\n");
        return workspace;
    }

    @Test
    void versionPrintsTheProjectVersion() throws Exception {
        Run run = QuiverProcess.run(workspace(), "--version");
        assertEquals(0, run.exitCode(), run.stderr());
        assertTrue(run.stdout().matches("quiver \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\\s*"), run.stdout());
    }

    @Test
    void toolsJsonListsTheSixCoreToolsAndNothingElseOnStdout() throws Exception {
        Run run = QuiverProcess.run(workspace(), "tools", "--json");
        assertEquals(0, run.exitCode(), run.stderr());
        JsonNode tools = JSON.readTree(run.stdout());
        List<String> names = new ArrayList<>();
        for (JsonNode tool : tools) {
            names.add(tool.get("name").asText());
            assertEquals("core", tool.get("set").asText());
            assertEquals("dev.quiver.tools.core", tool.get("bundle").asText());
            assertTrue(tool.get("schema_bytes").asInt() > 50, tool.toString());
            assertTrue(List.of("allow", "ask").contains(tool.get("decision").asText()));
        }
        assertEquals(List.of("bash", "edit_file", "glob", "grep", "read_file", "write_file"), names);
        assertTrue(run.stderr().contains("quiver ") && run.stderr().contains("tools core"), run.stderr());
    }

    @Test
    void callReadFilePrintsNumberedLines() throws Exception {
        Run run = QuiverProcess.run(workspace(), "call", "read_file", "{\"path\":\"README.md\"}");
        assertEquals(0, run.exitCode(), run.stderr());
        assertTrue(run.stdout().contains("1: # Demo\n2: second line\n"), run.stdout());
    }

    @Test
    void checkBashSaysAskAndCallingItHeadlessIsDeniedWithExitThree() throws Exception {
        Path workspace = workspace();
        Run check = QuiverProcess.run(workspace, "check", "bash", "{\"command\":\"ls\"}");
        assertEquals(0, check.exitCode(), check.stderr());
        JsonNode verdict = JSON.readTree(check.stdout());
        assertEquals("bash", verdict.get("tool").asText());
        assertEquals("ask", verdict.get("decision").asText());
        assertEquals("default", verdict.get("by").asText());

        Run call = QuiverProcess.run(workspace, "call", "bash", "{\"command\":\"touch ran.txt\"}");
        assertEquals(3, call.exitCode(), call.stderr());
        assertFalse(Files.exists(workspace.resolve("ran.txt")), "a denied call must not run");

        Run yolo = QuiverProcess.run(workspace, "call", "--yolo", "bash", "{\"command\":\"touch ran.txt\"}");
        assertEquals(0, yolo.exitCode(), yolo.stderr());
        assertTrue(Files.exists(workspace.resolve("ran.txt")));
    }

    @Test
    void batchModesAnswerEveryLineWithJsonOnly() throws Exception {
        String input = """
                {"tool":"read_file","args":{"path":"README.md"}}
                this is not json
                {"tool":"read_file","args":{"path":"../outside"}}
                {"tool":"bash","args":{"command":"ls"}}
                """;
        Run calls = QuiverProcess.run(workspace(), Map.of(), input, "call", "--batch", "-");
        assertEquals(0, calls.exitCode(), calls.stderr());
        List<JsonNode> lines = jsonLines(calls.stdout());
        assertEquals(4, lines.size(), calls.stdout());
        assertEquals("ok", lines.get(0).get("status").asText());
        assertTrue(lines.get(0).get("output").asText().contains("1: # Demo"));
        assertTrue(lines.get(0).has("elapsed_ms"));
        assertEquals("error", lines.get(1).get("status").asText());
        assertEquals("error", lines.get(2).get("status").asText());
        assertEquals("Path escapes workspace: ../outside", lines.get(2).get("output").asText());
        assertEquals("denied", lines.get(3).get("status").asText());

        Run checks = QuiverProcess.run(workspace(), Map.of(), input, "check", "--batch", "-");
        assertEquals(0, checks.exitCode(), checks.stderr());
        List<JsonNode> decisions = jsonLines(checks.stdout());
        assertEquals(4, decisions.size());
        assertEquals("allow", decisions.get(0).get("decision").asText());
        assertEquals("ask", decisions.get(3).get("decision").asText());
    }

    @Test
    void headlessPromptRunsAScriptedToolCallThenPrintsTheFinalText() throws Exception {
        Path workspace = workspace();
        try (OpenAiStub model = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("read_file", "{\"path\":\"README.md\"}")),
                OpenAiStub.text("The README is titled Demo."))) {
            Run run = QuiverProcess.run(workspace, Map.of("OPENAI_API_KEY", "sk-test-secret"), "",
                    "-p", "What is the README's title?", "--model", "openai/test", "--base-url", model.baseUrl());
            assertEquals(0, run.exitCode(), run.stderr());
            assertEquals("The README is titled Demo.", run.stdout().strip());

            List<JsonNode> requests = model.requests();
            assertEquals(2, requests.size());
            JsonNode first = requests.get(0);
            assertEquals("test", first.get("model").asText());
            List<String> offered = new ArrayList<>();
            first.get("tools").forEach(t -> offered.add(t.get("function").get("name").asText()));
            assertEquals(List.of("bash", "edit_file", "glob", "grep", "read_file", "write_file"), offered);
            assertEquals("system", first.get("messages").get(0).get("role").asText());
            assertTrue(first.get("messages").get(0).get("content").asText().contains("read_file"));

            JsonNode messages = requests.get(1).get("messages");
            JsonNode assistant = messages.get(messages.size() - 2);
            JsonNode result = messages.get(messages.size() - 1);
            assertEquals("tool", result.get("role").asText());
            assertEquals(assistant.get("tool_calls").get(0).get("id").asText(), result.get("tool_call_id").asText());
            assertTrue(result.get("content").asText().contains("1: # Demo"), result.toString());
            assertEquals("Bearer sk-test-secret", model.authorizations().get(0));
            assertFalse(run.stdout().contains("sk-test-secret") || run.stderr().contains("sk-test-secret"));
        }
    }

    @Test
    void headlessPromptWithoutAModelSaysWhichOptionsToUse() throws Exception {
        Run run = QuiverProcess.run(workspace(), "-p", "hello");
        assertEquals(1, run.exitCode());
        assertTrue(run.stderr().contains("--model openai/NAME") && run.stderr().contains("--base-url"), run.stderr());
        assertFalse(run.stderr().contains("Exception"), run.stderr());
    }

    private static List<JsonNode> jsonLines(String text) throws Exception {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (!line.isBlank()) {
                lines.add(JSON.readTree(line));
            }
        }
        return lines;
    }
}
