package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.quiver.distribution.QuiverProcess.Run;
import dev.quiver.testing.AnthropicStub;
import dev.quiver.testing.OpenAiStub;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --agent} and {@code --think} through {@code bin/quiver -p} and the real providers: what each
 * request carried on the wire, the header, a bad name's usage error, and the config's subagentModel.
 */
class AgentVariantEndToEndTest {

    @TempDir
    Path temp;

    private Path workspace() throws Exception {
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        Files.writeString(workspace.resolve("README.md"), "# Demo\n");
        return workspace;
    }

    private static List<String> toolNames(JsonNode request, String field) {
        List<String> names = new ArrayList<>();
        request.path("tools").forEach(tool -> names.add(field.isEmpty() ? tool.path("name").asText()
                : tool.path(field).path("name").asText()));
        return names;
    }

    @Test
    void thinkHighIsReasoningEffortInTheOpenAiRequest() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.text("Demo."))) {
            Run run = QuiverProcess.run(workspace(), Map.of(), "", "-p", "Title?", "--think", "high", "--model",
                    "openai/o4-mini", "--base-url", model.baseUrl());
            assertEquals(0, run.exitCode(), run.stderr());
            assertEquals("high", model.requests().get(0).path("reasoning_effort").asText(),
                    model.requests().get(0).toString());
        }
    }

    @Test
    void anAnthropicRequestCarriesTheLevelsThinkingBudget() throws Exception {
        try (AnthropicStub model = AnthropicStub.start(AnthropicStub.text("Demo."))) {
            Run run = QuiverProcess.run(workspace(), Map.of(), "", "-p", "Title?", "--think", "low", "--model",
                    "anthropic/claude-sonnet-4-5", "--base-url", model.baseUrl());
            assertEquals(0, run.exitCode(), run.stderr());
            assertEquals("Demo.", run.stdout().strip(), "the thinking block is not part of the answer");
            JsonNode thinking = model.requests().get(0).path("thinking");
            assertEquals("enabled", thinking.path("type").asText(), model.requests().get(0).toString());
            assertEquals(2048, thinking.path("budget_tokens").asInt());
        }
    }

    @Test
    void planOffersNoToolThatWritesOrRunsEvenWithYoloAndTheHeaderNamesIt() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.text("Plan: edit README.md."))) {
            Run run = QuiverProcess.run(workspace(), Map.of(), "", "-p", "Plan it", "--agent", "plan", "--yolo",
                    "--model", "openai/test", "--base-url", model.baseUrl());
            assertEquals(0, run.exitCode(), run.stderr());
            assertTrue(run.stderr().contains(" · agent plan (thinking high) · "), run.stderr());
            JsonNode request = model.requests().get(0);
            List<String> offered = toolNames(request, "function");
            assertTrue(offered.contains("read_file") && offered.contains("grep"), offered.toString());
            String prompt = request.path("messages").get(0).path("content").asText();
            String toolLine = prompt.lines().filter(line -> line.startsWith("Tools in this step:")).findFirst()
                    .orElseThrow();
            for (String withheld : List.of("write_file", "edit_file", "bash", "multi_edit", "apply_patch")) {
                assertFalse(offered.contains(withheld), withheld + " offered: " + offered);
                assertFalse(toolLine.contains(" " + withheld + ",") || toolLine.contains(" " + withheld + "."),
                        withheld + " in the prompt: " + toolLine);
            }
            assertTrue(prompt.contains("Agent variant: plan."), prompt);
        }
    }

    @Test
    void agentAndThinkTypedInTheTerminalChangeTheNextRequest() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.text("One."), OpenAiStub.text("Two."),
                OpenAiStub.text("Three."))) {
            // stdin is no terminal: the line front end reads the lines as typed
            Run run = QuiverProcess.run(workspace(), Map.of(), "first\n/agent plan\nsecond\n/think low\nthird\n/exit\n",
                    "--model", "openai/o4-mini", "--base-url", model.baseUrl());
            assertEquals(0, run.exitCode(), run.stderr());
            List<JsonNode> requests = model.requests();
            assertEquals(3, requests.size(), run.stdout());
            assertEquals("medium", requests.get(0).path("reasoning_effort").asText());
            assertTrue(toolNames(requests.get(0), "function").contains("write_file"));
            assertEquals("high", requests.get(1).path("reasoning_effort").asText());
            assertFalse(toolNames(requests.get(1), "function").contains("write_file"), requests.get(1).toString());
            assertEquals("low", requests.get(2).path("reasoning_effort").asText());
            assertFalse(toolNames(requests.get(2), "function").contains("bash"));
        }
    }

    @Test
    void anUnknownAgentOrLevelIsAUsageErrorListingTheNames() throws Exception {
        Run agent = QuiverProcess.run(workspace(), Map.of(), "", "-p", "hi", "--agent", "turbo", "--model", "openai/test");
        assertEquals(2, agent.exitCode(), agent.stderr());
        assertTrue(agent.stderr().contains("Unknown agent \"turbo\". Available: default, quick, deep, plan, review"),
                agent.stderr());
        Run level = QuiverProcess.run(workspace(), Map.of(), "", "-p", "hi", "--think", "lots", "--model", "openai/test");
        assertEquals(2, level.exitCode(), level.stderr());
        assertTrue(level.stderr().contains("off, low, medium, high, max"), level.stderr());
    }

    @Test
    void anExploreChildAsksTheSubagentModel() throws Exception {
        Path workspace = workspace();
        QuiverProcess.userConfig(workspace, "{\"subagentModel\": \"openai/cheap-mini\"}");
        try (OpenAiStub model = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("task", "{\"description\":\"find the title\",\"kind\":\"explore\","
                        + "\"prompt\":\"What is the title in README.md?\"}")),
                OpenAiStub.text("The title is Demo."),
                OpenAiStub.text("Demo."))) {
            Run run = QuiverProcess.run(workspace, Map.of(), "", "-p", "Title?", "--model", "openai/test",
                    "--base-url", model.baseUrl());
            assertEquals(0, run.exitCode(), run.stderr());
            List<String> models = new ArrayList<>();
            model.requests().forEach(request -> models.add(request.path("model").asText()));
            assertEquals(List.of("test", "cheap-mini", "test"), models);
        }
    }
}
