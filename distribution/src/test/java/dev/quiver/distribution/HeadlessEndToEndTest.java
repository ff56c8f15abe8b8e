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
 * Headless runs as a script written for Claude Code's {@code -p} drives them, through the built
 * distribution against the loopback OpenAI server: stream-json's events in order, json's added fields,
 * resuming by the printed session id, the step cap, the run's allow and deny rules, text added to the
 * system prompt, and {@code quiver "prompt"}.
 */
class HeadlessEndToEndTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;

    private Path workspace() throws Exception {
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        Files.writeString(workspace.resolve("README.md"), "# Demo\nsecond line\n");
        return workspace;
    }

    private static Run quiver(Path workspace, OpenAiStub model, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--model", "openai/test", "--base-url", model.baseUrl()));
        return QuiverProcess.run(workspace, Map.of(), "", all.toArray(String[]::new));
    }

    /** Every line of stdout as JSON: stream-json's stdout holds nothing else. */
    private static List<JsonNode> events(Run run) throws Exception {
        List<JsonNode> events = new ArrayList<>();
        for (String line : run.stdout().split("\n")) {
            events.add(JSON.readTree(line));
        }
        return events;
    }

    @Test
    void streamJsonWritesInitEachMessageEachCallWithItsDecisionAndResultThenTheResult() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("read_file", "{\"path\":\"README.md\"}")),
                OpenAiStub.text("The title is Demo."))) {
            Path workspace = workspace();
            Run run = quiver(workspace, model, "-p", "Title?", "--output-format", "stream-json");
            assertEquals(0, run.exitCode(), run.stderr());
            List<JsonNode> events = events(run);
            List<String> kinds = events.stream().map(e -> e.get("type").asText() + "/" + e.path("subtype").asText(
                    e.path("message").path("content").path(0).path("type").asText())).toList();
            assertEquals(List.of("system/init", "assistant/tool_use", "system/permission", "user/tool_result",
                    "assistant/text", "result/success"), kinds);

            JsonNode init = events.get(0);
            String session = init.get("session_id").asText();
            assertFalse(session.isBlank());
            assertEquals(workspace.toRealPath().toString(), init.get("cwd").asText());
            assertEquals("openai/test", init.get("model").asText());
            assertFalse(init.get("quiver_version").asText().isBlank());
            List<String> tools = new ArrayList<>();
            init.get("tools").forEach(tool -> tools.add(tool.asText()));
            assertTrue(tools.contains("read_file") && tools.contains("bash"), tools.toString());
            for (JsonNode event : events) {
                assertEquals(session, event.get("session_id").asText(), "every event names the session: " + event);
            }

            JsonNode use = events.get(1).get("message").get("content").get(0);
            String id = model.callIds().get(0);
            assertEquals(id, use.get("id").asText(), "the model's own call id");
            assertEquals("read_file", use.get("name").asText());
            assertEquals("README.md", use.get("input").get("path").asText());
            JsonNode permission = events.get(2);
            assertEquals(id, permission.get("tool_use_id").asText());
            assertEquals("allow", permission.get("decision").asText());
            assertEquals("default", permission.get("by").asText());
            JsonNode result = events.get(3).get("message").get("content").get(0);
            assertEquals(id, result.get("tool_use_id").asText());
            assertTrue(result.get("content").asText().contains("# Demo"), result.toString());
            assertFalse(result.get("is_error").asBoolean());
            assertEquals("ok", result.get("status").asText());
            assertEquals("allow", result.get("decision").asText());
            assertTrue(result.get("elapsed_ms").isNumber());
            assertEquals("The title is Demo.", events.get(4).get("message").get("content").get(0).get("text").asText());

            JsonNode last = events.get(5);
            assertEquals("The title is Demo.", last.get("result").asText());
            assertEquals("The title is Demo.", last.get("answer").asText(), "the json object's fields are all there");
            assertEquals(2, last.get("num_turns").asInt());
            assertFalse(last.get("is_error").asBoolean());
            assertEquals(0, last.get("exit").asInt());
            assertEquals(20, last.get("usage").get("input_tokens").asInt());
            assertEquals(10, last.get("usage").get("output_tokens").asInt());
            assertTrue(last.get("total_cost_usd").isNull(), "an unpriced model: " + last);
            assertFalse(run.stderr().contains("{"), "stderr has no events: " + run.stderr());
        }
    }

    @Test
    void aSubagentsCallsStreamAsProgressEventsOfTheTaskCallBeforeItsResult() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("task",
                        "{\"description\":\"find title\",\"kind\":\"explore\",\"prompt\":\"Title of README.md?\"}")),
                OpenAiStub.calls(OpenAiStub.call("read_file", "{\"path\":\"README.md\"}")),
                OpenAiStub.text("It is Demo."),
                OpenAiStub.text("The title is Demo."))) {
            Run run = quiver(workspace(), model, "-p", "Title?", "--output-format", "stream-json");
            assertEquals(0, run.exitCode(), run.stderr());
            List<JsonNode> events = events(run);
            String taskId = model.callIds().get(0);
            List<String> progress = events.stream().filter(e -> e.path("subtype").asText().equals("tool_progress"))
                    .map(e -> e.get("tool").asText() + " " + e.get("tool_use_id").asText() + " " + e.get("text").asText())
                    .toList();
            assertEquals(2, progress.size(), events.toString());
            assertTrue(progress.get(0).startsWith("task " + taskId + " [find title] read_file"), progress.toString());
            assertTrue(progress.get(1).startsWith("task " + taskId + " [find title] read_file: ok"), progress.toString());
            int lastProgress = -1;
            int result = -1;
            for (int i = 0; i < events.size(); i++) {
                JsonNode event = events.get(i);
                if (event.path("subtype").asText().equals("tool_progress")) {
                    lastProgress = i;
                } else if (event.path("type").asText().equals("user") && result < 0) {
                    result = i;
                }
            }
            assertTrue(lastProgress >= 0 && lastProgress < result, "progress before the task's result: " + events);
        }
    }

    @Test
    void aHeadlessRunWithholdsAskFromTheWireAndItsPromptSaysToDecide() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.text("Decided: SQLite."))) {
            Run run = quiver(workspace(), model, "-p", "Set up storage");
            assertEquals(0, run.exitCode(), run.stderr());
            JsonNode request = model.requests().get(0);
            List<String> offered = new ArrayList<>();
            request.path("tools").forEach(tool -> offered.add(tool.path("function").path("name").asText()));
            assertTrue(offered.contains("todo_write") && !offered.contains("ask"), offered.toString());
            String system = request.path("messages").get(0).path("content").asText();
            assertTrue(system.contains("Do not ask questions; decide, and state your assumption."), system);
        }
    }

    @Test
    void aFileToolsResultCarriesTheDiffOfWhatItWrote() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("write_file", "{\"path\":\"NOTES.md\",\"content\":\"one\\ntwo\\n\"}")),
                OpenAiStub.text("Wrote the notes."))) {
            Path workspace = workspace();
            Run run = quiver(workspace, model, "-p", "Write notes", "--output-format", "stream-json",
                    "--allowedTools", "write_file");
            assertEquals(0, run.exitCode(), run.stderr());
            assertEquals("one\ntwo\n", Files.readString(workspace.resolve("NOTES.md")));
            JsonNode result = events(run).stream().filter(e -> e.get("type").asText().equals("user")).findFirst()
                    .orElseThrow().get("message").get("content").get(0);
            assertEquals("write_file", result.get("tool").asText());
            assertEquals("--- /dev/null\n+++ b/NOTES.md\n@@ -0,0 +1,2 @@\n+one\n+two\n", result.get("diff").asText(),
                    result.toString());
            assertTrue(events(run).stream().anyMatch(e -> e.path("message").asText().equals("changed NOTES.md (new) +2 \u22120")),
                    run.stdout());
        }
    }

    @Test
    void eachEventReachesAReaderWhenItHappensNotWhenTheRunEnds() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("read_file", "{\"path\":\"README.md\"}")),
                OpenAiStub.delayed(java.time.Duration.ofSeconds(3), OpenAiStub.text("Slowly: Demo.")))) {
            Process quiver = QuiverProcess.start(workspace(), "-p", "Title?", "--output-format", "stream-json",
                    "--model", "openai/test", "--base-url", model.baseUrl());
            Map<String, Long> seen = new java.util.HashMap<>();
            try (java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(
                    quiver.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    JsonNode event = JSON.readTree(line);
                    seen.putIfAbsent(event.get("type").asText(), System.nanoTime());
                }
            }
            assertTrue(quiver.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals(0, quiver.exitValue());
            long gap = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(seen.get("result") - seen.get("user"));
            assertTrue(gap >= 2000, "the tool's result was read " + gap + " ms before the end, while the model "
                    + "still took 3 s to answer");
        }
    }

    @Test
    void aFailedRunEndsItsStreamWithAnErrorResultAndKeepsItsExitCode() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.failure(400, "context too long"))) {
            Run run = quiver(workspace(), model, "-p", "hi", "--output-format", "stream-json");
            assertEquals(1, run.exitCode(), run.stderr());
            List<JsonNode> events = events(run);
            assertEquals("init", events.get(0).get("subtype").asText());
            JsonNode last = events.get(events.size() - 1);
            assertEquals("result", last.get("type").asText());
            assertEquals("error_during_execution", last.get("subtype").asText());
            assertTrue(last.get("is_error").asBoolean());
            assertEquals(1, last.get("exit").asInt());
            assertTrue(last.get("error").asText().contains("context too long"), last.toString());
            assertFalse(last.has("result"), "no answer to mistake the error for");
            assertEquals(events.get(0).get("session_id"), last.get("session_id"));
        }
    }

    @Test
    void jsonCarriesTheSessionIdThatResumeContinuesWithTheEarlierMessages() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.text("The secret word is plum."), OpenAiStub.text("plum"),
                OpenAiStub.text("plum, again"))) {
            Path workspace = workspace();
            Run first = quiver(workspace, model, "-p", "Pick a secret word.", "--output-format", "json");
            assertEquals(0, first.exitCode(), first.stderr());
            JsonNode json = JSON.readTree(first.stdout());
            for (String field : List.of("status", "answer", "steps", "calls", "usage", "exit", "step_usage")) {
                assertTrue(json.has(field), "kept: " + field);
            }
            String session = json.get("session_id").asText();
            assertEquals(1, json.get("num_turns").asInt());
            assertFalse(json.get("is_error").asBoolean());
            assertTrue(json.has("total_cost_usd") && json.get("total_cost_usd").isNull(), json.toString());
            assertEquals("success", json.get("subtype").asText());

            Run second = quiver(workspace, model, "-p", "Which word?", "--resume", session, "--output-format", "stream-json");
            assertEquals(0, second.exitCode(), second.stderr());
            List<JsonNode> events = events(second);
            assertEquals(session, events.get(0).get("session_id").asText(), "the resumed session keeps its id");
            assertEquals(session, events.get(events.size() - 1).get("session_id").asText());
            String sent = model.requests().get(1).get("messages").toString();
            assertTrue(sent.contains("Pick a secret word.") && sent.contains("The secret word is plum.")
                    && sent.contains("Which word?"), "the server sees the earlier turn: " + sent);

            Run third = quiver(workspace, model, "-p", "And again?", "--continue", "--output-format", "json");
            assertEquals(0, third.exitCode(), third.stderr());
            assertEquals(session, JSON.readTree(third.stdout()).get("session_id").asText(), "--continue: the newest");
            assertTrue(model.requests().get(2).get("messages").toString().contains("Which word?"));
        }
    }

    /**
     * A listed model's turn is priced: gpt-4.1 at $2.00 in and $8.00 out per million tokens, two requests of
     * 10 in and 5 out each (the stub's usage), is (20 × 2.00 + 10 × 8.00) / 1e6 = $0.00012, in json's
     * {@code total_cost_usd} and {@code usage.cost_usd} alike and in stream-json's result event.
     */
    @Test
    void aPricedModelsRunCarriesItsCostInJsonAndInTheStreamsResult() throws Exception {
        double expected = (20 * 2.00 + 10 * 8.00) / 1_000_000.0;
        try (OpenAiStub model = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("read_file", "{\"path\":\"README.md\"}")), OpenAiStub.text("Demo."),
                OpenAiStub.calls(OpenAiStub.call("read_file", "{\"path\":\"README.md\"}")), OpenAiStub.text("Demo."))) {
            Path workspace = workspace();
            String[] priced = {"--model", "openai/gpt-4.1", "--base-url", model.baseUrl()};
            Run json = QuiverProcess.run(workspace, Map.of(), "", concat(priced, "-p", "Title?", "--output-format", "json"));
            assertEquals(0, json.exitCode(), json.stderr());
            JsonNode object = JSON.readTree(json.stdout());
            assertEquals(2, object.get("num_turns").asInt(), object.toString());
            assertTrue(object.get("total_cost_usd").isNumber(), "a priced model: " + object);
            assertEquals(expected, object.get("total_cost_usd").asDouble(), 1e-12, object.toString());
            assertEquals(expected, object.get("usage").get("cost_usd").asDouble(), 1e-12, object.toString());

            Run stream = QuiverProcess.run(workspace, Map.of(), "",
                    concat(priced, "-p", "Title?", "--output-format", "stream-json"));
            assertEquals(0, stream.exitCode(), stream.stderr());
            List<JsonNode> events = events(stream);
            JsonNode last = events.get(events.size() - 1);
            assertEquals("result", last.get("type").asText(), last.toString());
            assertTrue(last.get("total_cost_usd").isNumber(), "a priced model: " + last);
            assertEquals(expected, last.get("total_cost_usd").asDouble(), 1e-12, last.toString());
        }
    }

    private static String[] concat(String[] first, String... rest) {
        List<String> all = new ArrayList<>(List.of(first));
        all.addAll(List.of(rest));
        return all.toArray(String[]::new);
    }

    @Test
    void aModelRetryIsAnEventBeforeTheAnswer() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.failure(429, "Slow down", Map.of("retry-after-ms", "200")),
                OpenAiStub.text("made it"))) {
            Run run = quiver(workspace(), model, "-p", "hi", "--output-format", "stream-json");
            assertEquals(0, run.exitCode(), run.stderr());
            List<JsonNode> events = events(run);
            assertEquals("api_retry", events.get(1).get("subtype").asText(), events.toString());
            assertTrue(events.get(1).get("message").asText().contains("HTTP 429; retrying in 0.2 s (attempt 2 of 5)"),
                    events.get(1).toString());
            assertEquals("made it", events.get(events.size() - 1).get("result").asText());
        }
    }

    @Test
    void maxTurnsOfOneStopsWithExitCodeFour() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("read_file", "{\"path\":\"README.md\"}")),
                OpenAiStub.text("never asked for"))) {
            Run run = quiver(workspace(), model, "-p", "Title?", "--max-turns", "1", "--output-format", "json");
            assertEquals(4, run.exitCode(), run.stderr());
            JsonNode json = JSON.readTree(run.stdout());
            assertEquals("step_limit", json.get("status").asText());
            assertEquals("error_max_turns", json.get("subtype").asText());
            assertTrue(json.get("is_error").asBoolean());
            assertEquals(1, json.get("num_turns").asInt());
            assertEquals(1, model.requests().size());
        }
    }

    @Test
    void aDisallowedCallThatTheDefaultAllowsIsDenied() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("read_file", "{\"path\":\"README.md\"}")),
                OpenAiStub.text("I may not read it."))) {
            Run run = quiver(workspace(), model, "-p", "Title?", "--disallowedTools", "Read(README.md)",
                    "--output-format", "stream-json");
            assertEquals(3, run.exitCode(), "the task stopped on a refusal: " + run.stderr());
            List<JsonNode> events = events(run);
            JsonNode permission = events.get(2);
            assertEquals("permission", permission.get("subtype").asText());
            assertEquals("deny", permission.get("decision").asText());
            assertEquals("rule", permission.get("by").asText());
            assertTrue(permission.get("reason").asText().contains("--disallowedTools"), permission.toString());
            JsonNode result = events.get(3).get("message").get("content").get(0);
            assertEquals("denied", result.get("status").asText());
            assertTrue(result.get("is_error").asBoolean());
            assertTrue(events.get(events.size() - 1).get("is_error").asBoolean());
        }
    }

    @Test
    void checkShowsTheDecisionARunWithTheSameRulesWouldGet() throws Exception {
        Run run = QuiverProcess.run(workspace(), "check", "--disallowedTools", "bash(git push *)", "bash",
                "{\"command\":\"git push origin main\"}");
        assertEquals(0, run.exitCode(), run.stderr());
        JsonNode verdict = JSON.readTree(run.stdout());
        assertEquals("deny", verdict.get("decision").asText());
        assertTrue(verdict.get("reason").asText().contains("--disallowedTools"), verdict.toString());
    }

    @Test
    void anAllowedCommandRunsHeadlessButNeverPastADenyRuleOrTheGuard() throws Exception {
        Path workspace = workspace();
        QuiverProcess.userConfig(workspace, "{\"permission\": {\"bash\": {\"echo secret*\": \"deny\"}}}");
        try (OpenAiStub model = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("bash", "{\"command\":\"echo hello\"}")),
                OpenAiStub.calls(OpenAiStub.call("bash", "{\"command\":\"echo secret\"}")),
                OpenAiStub.calls(OpenAiStub.call("bash", "{\"command\":\"git reset --hard\"}")),
                OpenAiStub.text("done"))) {
            Run run = quiver(workspace, model, "-p", "go", "--allowedTools", "Bash(echo:*)", "--allowedTools", "Bash(git reset:*)",
                    "--output-format", "json");
            JsonNode calls = JSON.readTree(run.stdout()).get("calls");
            assertEquals("ok", calls.get(0).get("status").asText(), "asks by default, allowed by the flag: " + calls);
            assertEquals("allow", calls.get(0).get("decision").asText());
            assertEquals("rule", calls.get(0).get("by").asText());
            assertEquals("deny", calls.get(1).get("decision").asText(), "the user's deny rule holds: " + calls);
            assertEquals("rule", calls.get(1).get("by").asText());
            assertEquals("deny", calls.get(2).get("decision").asText(), "the guard holds: " + calls);
            assertEquals("guard", calls.get(2).get("by").asText());
            assertEquals(3, run.exitCode(), run.stderr());
        }
    }

    @Test
    void appendedSystemPromptTextReachesTheRequestBody() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.text("Bonjour."))) {
            Run run = quiver(workspace(), model, "-p", "hi", "--append-system-prompt", "Always answer in French.");
            assertEquals(0, run.exitCode(), run.stderr());
            String system = model.requests().get(0).get("messages").get(0).get("content").asText();
            assertTrue(system.endsWith("\nAlways answer in French.\n"), system);
        }
    }

    @Test
    void aPromptArgumentStartsTheAgentWithItAndPWithoutAValueTakesItToo() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.text("Hello there."), OpenAiStub.text("Headless hello."))) {
            Path workspace = workspace();
            Run interactive = quiver(workspace, model, "Say hello");
            assertEquals(0, interactive.exitCode(), interactive.stderr());
            assertTrue(interactive.stdout().contains("> Say hello\n"), interactive.stdout());
            assertTrue(interactive.stdout().contains("Hello there."), interactive.stdout());
            assertEquals("Say hello", StepUsageAndToolSetsEndToEndTest.lastUserMessage(model.requests().get(0)));

            Run claudeStyle = quiver(workspace, model, "-p", "--output-format", "json", "Say hello headless");
            assertEquals(0, claudeStyle.exitCode(), claudeStyle.stderr());
            assertEquals("Headless hello.", JSON.readTree(claudeStyle.stdout()).get("result").asText());
            assertEquals("Say hello headless", StepUsageAndToolSetsEndToEndTest.lastUserMessage(model.requests().get(1)));
        }
        Run typo = QuiverProcess.run(workspace(), "tool");
        assertEquals(2, typo.exitCode());
        assertTrue(typo.stderr().contains("Did you mean: quiver tools?"), typo.stderr());
    }
}
