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

/**
 * The headless JSON object's per-step usage and cost, the start-up header's report of an unknown tool
 * set, and the {@code remember} tool's notes reaching the prompt of a later run, all through the built
 * distribution.
 */
class StepUsageAndToolSetsEndToEndTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;

    private Path workspace() throws Exception {
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        Files.writeString(workspace.resolve("README.md"), "# Demo\nsecond line\n");
        return workspace;
    }

    @Test
    void jsonOutputCarriesTheUsageOfEachStepAndACostForAPricedModel() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("read_file", "{\"path\":\"README.md\"}")),
                OpenAiStub.text("The title is Demo."))) {
            Run run = QuiverProcess.run(workspace(), Map.of(), "", "-p", "Title?", "--model", "openai/gpt-4o-mini",
                    "--base-url", model.baseUrl(), "--output-format", "json");
            assertEquals(0, run.exitCode(), run.stderr());
            JsonNode json = JSON.readTree(run.stdout());
            // the existing fields are all still there
            for (String field : List.of("status", "answer", "steps", "calls", "usage", "exit")) {
                assertTrue(json.has(field), field + " in " + json);
            }
            assertEquals(2, json.get("steps").asInt());
            JsonNode steps = json.get("step_usage");
            assertEquals(2, steps.size(), json.toString());
            for (JsonNode step : steps) {
                assertEquals(10, step.get("input_tokens").asInt(), "the stub reports 10 in, 5 out per request");
                assertEquals(5, step.get("output_tokens").asInt());
                // gpt-4o-mini: $0.15 in, $0.60 out per million tokens
                assertEquals((10 * 0.15 + 5 * 0.60) / 1e6, step.get("cost_usd").asDouble(), 1e-12);
            }
            JsonNode usage = json.get("usage");
            assertEquals(20, usage.get("input_tokens").asInt());
            assertEquals(10, usage.get("output_tokens").asInt());
            assertTrue(usage.get("cost_usd").isNumber(), "a priced model has a cost: " + usage);
            assertEquals(2 * (10 * 0.15 + 5 * 0.60) / 1e6, usage.get("cost_usd").asDouble(), 1e-12);
        }
    }

    @Test
    void anUnpricedModelHasStepUsageButANullCost() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.text("hello"))) {
            Run run = QuiverProcess.run(workspace(), Map.of(), "", "-p", "hi", "--model", "openai/some-local-model",
                    "--base-url", model.baseUrl(), "--output-format", "json");
            assertEquals(0, run.exitCode(), run.stderr());
            JsonNode json = JSON.readTree(run.stdout());
            assertEquals(1, json.get("step_usage").size());
            assertEquals(10, json.get("step_usage").get(0).get("input_tokens").asInt());
            assertTrue(json.get("step_usage").get(0).get("cost_usd").isNull(), json.toString());
            assertTrue(json.get("usage").has("cost_usd") && json.get("usage").get("cost_usd").isNull(), json.toString());
        }
    }

    @Test
    void anUnknownToolSetIsReportedInTheStartUpHeaderOfTools() throws Exception {
        Path workspace = workspace();
        QuiverProcess.userConfig(workspace, "{\"toolSets\": [\"edit-plus\", \"gti\"]}");
        Run run = QuiverProcess.run(workspace, "tools", "--json");
        assertEquals(0, run.exitCode(), run.stderr());
        assertTrue(run.stderr().contains("Unknown tool sets") && run.stderr().contains("gti"), run.stderr());
        List<String> sets = new ArrayList<>();
        JSON.readTree(run.stdout()).forEach(tool -> sets.add(tool.path("set").asText("-")));
        assertTrue(sets.contains("edit-plus") && sets.contains("core"), sets.toString());
        assertFalse(run.stdout().contains("gti"), "stdout stays machine-readable: " + run.stdout());
    }

    @Test
    void aNoteRememberedInOneRunIsInTheSystemPromptOfTheNext() throws Exception {
        Path workspace = workspace();
        try (OpenAiStub model = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("remember", "{\"note\":\"The build is make check\"}")),
                OpenAiStub.text("Noted."), OpenAiStub.text("Hello."))) {
            Run first = QuiverProcess.run(workspace, Map.of(), "", "-p", "Remember the build", "--model", "openai/test",
                    "--base-url", model.baseUrl());
            assertEquals(0, first.exitCode(), first.stderr());
            assertFalse(Files.exists(workspace.resolve(".quiver/notes.md")), "notes are Quiver's state, not the repository's");
            Path notes;
            try (java.util.stream.Stream<Path> files = Files.walk(QuiverProcess.home(workspace))) {
                notes = files.filter(file -> file.endsWith("state/notes.md")).findFirst().orElseThrow();
            }
            assertEquals("- (fact) The build is make check\n", Files.readString(notes));
            Run second = QuiverProcess.run(workspace, Map.of(), "", "-p", "Hi", "--model", "openai/test",
                    "--base-url", model.baseUrl());
            assertEquals(0, second.exitCode(), second.stderr());
            String prompt = model.requests().get(2).get("messages").get(0).get("content").asText();
            assertTrue(prompt.contains("- (fact) The build is make check\n"), prompt);
        }
    }

    @Test
    void textPipedOnStdinIsAddedToThePromptOrIsThePrompt() throws Exception {
        String diff = "diff --git a/x b/x\n+an added line\n";
        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.text("Looks fine."), OpenAiStub.text("Done."))) {
            Run both = QuiverProcess.run(workspace(), Map.of(), diff, "-p", "review this", "--model", "openai/test",
                    "--base-url", model.baseUrl());
            assertEquals(0, both.exitCode(), both.stderr());
            assertEquals("review this\n\n" + diff, lastUserMessage(model.requests().get(0)));
            Run alone = QuiverProcess.run(workspace(), Map.of(), "summarise the repository", "-p", "", "--model",
                    "openai/test", "--base-url", model.baseUrl());
            assertEquals(0, alone.exitCode(), alone.stderr());
            assertEquals("summarise the repository", lastUserMessage(model.requests().get(1)));
        }
    }

    @Test
    void moreOnStdinThanAPromptCanHoldIsAnErrorBeforeAnyRequest() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.text("never asked"))) {
            Run run = QuiverProcess.run(workspace(), Map.of(), "x".repeat(1024 * 1024 + 1), "-p", "review",
                    "--model", "openai/test", "--base-url", model.baseUrl());
            assertEquals(1, run.exitCode(), run.stderr());
            assertTrue(run.stderr().contains("stdin holds more than 1048576 characters"), run.stderr());
            assertEquals(0, model.requests().size());
        }
    }

    /** The request's last user message: what the model was asked. */
    static String lastUserMessage(JsonNode request) {
        JsonNode messages = request.get("messages");
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i).path("role").asText().equals("user")) {
                return messages.get(i).path("content").asText();
            }
        }
        throw new AssertionError("no user message in " + request);
    }
}
