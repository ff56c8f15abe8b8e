package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.distribution.QuiverProcess.Run;
import dev.quiver.testing.OpenAiStub;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The permission engine seen from outside: the assembled {@code bin/quiver} against the real
 * OpenAI stub, with real files. Secrets never leave the workspace, read-only mode hides what it
 * withholds, the prompt says what the guard refuses, and invalid UTF-8 on a batch never allows.
 */
class PermissionEndToEndTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;

    private Path workspace() throws IOException {
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        Files.writeString(workspace.resolve("README.md"), "# Demo\nsecond line\n");
        return workspace;
    }

    // ---------------------------------------------------------------- (a) secrets

    @Test
    void aPlantedSecretNeverReachesTheModelTheSessionFileOrTheAuditLogAndEachRouteIsRefused() throws Exception {
        Path workspace = workspace();
        String prefix = "s3cr3t-";
        String secret = prefix + UUID.randomUUID().toString().replace("-", "");
        Files.writeString(workspace.resolve(".env"), "API_TOKEN=" + secret + "\n");
        Path data = Files.createDirectories(temp.resolve("data"));

        try (OpenAiStub model = OpenAiStub.start(
                OpenAiStub.calls(
                        OpenAiStub.call("read_file", "{\"path\":\".env\"}"),
                        OpenAiStub.call("read_many_files", "{\"files\":[{\"path\":\".env\"},{\"path\":\"README.md\"}]}"),
                        OpenAiStub.call("grep", "{\"pattern\":\"" + prefix + "\"}"),
                        OpenAiStub.call("bash", "{\"command\":\"cat .env\"}")),
                OpenAiStub.text("I could not read the token."))) {
            Run run = QuiverProcess.run(workspace, Map.of("XDG_DATA_HOME", data.toString()), "",
                    "-p", "What is API_TOKEN?", "--yolo", "--model", "openai/test", "--base-url", model.baseUrl(),
                    "--output-format", "json");
            assertEquals(3, run.exitCode(), "calls were refused, so the task ran into a refusal: " + run.stderr());
            JsonNode result = JSON.readTree(run.stdout());
            assertEquals("I could not read the token.", result.get("answer").asText(), run.stdout());
            Map<String, String> statuses = new LinkedHashMap<>();
            result.get("calls").forEach(c -> statuses.put(c.get("tool").asText(), c.get("status").asText() + "/"
                    + c.path("by").asText()));
            assertEquals("denied/secret", statuses.get("read_file"), run.stdout());
            assertEquals("denied/secret", statuses.get("bash"), "--yolo does not unlock a secret: " + run.stdout());
            assertFalse(run.stdout().contains(secret) || run.stderr().contains(secret), "nothing printed it");

            // the wire: nothing the model received holds the value
            List<JsonNode> requests = model.requests();
            assertEquals(2, requests.size(), requests.toString());
            for (JsonNode request : requests) {
                assertFalse(request.toString().contains(secret), "the secret reached the model: " + request);
            }

            // the model was told, for each call, that the secret was refused
            Map<String, String> results = toolResults(requests.get(1));
            assertEquals(4, results.size(), results.toString());
            String readFile = results.get("read_file");
            assertTrue(readFile.startsWith("Refused (secret)") && readFile.contains(".env holds secrets"), readFile);
            String readMany = results.get("read_many_files");
            assertTrue(readMany.contains("refused: .env holds secrets by its name"), readMany);
            assertTrue(readMany.contains("1: # Demo"), "the other file is still read: " + readMany);
            String grep = results.get("grep");
            assertTrue(grep.contains("[skipped 1 file that holds secrets by name]"), grep);
            String bash = results.get("bash");
            assertTrue(bash.startsWith("Refused (secret)") && bash.contains(".env"), bash);

            // the session file(s) under this process's XDG_DATA_HOME
            Path sessions = data.resolve("quiver").resolve("sessions");
            List<Path> stored = files(sessions).stream().filter(p -> p.toString().endsWith(".jsonl"))
                    .filter(p -> !p.getFileName().toString().equals("audit.jsonl")).toList();
            assertFalse(stored.isEmpty(), "a session was stored under " + sessions);
            for (Path file : stored) {
                String text = Files.readString(file);
                assertTrue(text.contains("read_many_files"), "the session holds the calls: " + file);
                assertFalse(text.contains(secret), "the secret reached the session file " + file);
            }

            // the audit log, in the workspace's state folder: every decision recorded, no value in it
            Path audit = files(sessions).stream().filter(p -> p.getFileName().toString().equals("audit.jsonl"))
                    .findFirst().orElseThrow(() -> new AssertionError("the decisions are audited under " + sessions));
            assertFalse(Files.exists(workspace.resolve(".quiver")), "nothing is written into the working tree");
            String auditText = Files.readString(audit);
            assertFalse(auditText.contains(secret), "the secret reached the audit log: " + auditText);
            List<JsonNode> entries = jsonLines(auditText);
            assertTrue(entries.stream().anyMatch(e -> e.get("tool").asText().equals("read_file")
                    && e.get("decision").asText().equals("deny") && e.get("by").asText().equals("secret")), auditText);
            assertTrue(entries.stream().anyMatch(e -> e.get("tool").asText().equals("bash")
                    && e.get("decision").asText().equals("deny") && e.get("by").asText().equals("secret")), auditText);

            // and no other file the run wrote holds it either
            for (Path file : files(temp)) {
                if (!file.equals(workspace.resolve(".env"))) {
                    assertFalse(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1).contains(secret),
                            "the secret was written to " + file);
                }
            }
        }
    }

    // ---------------------------------------------------------------- (b) read-only

    @Test
    void aDenyRuleOnAPathInsideAFolderHoldsForARecursiveDeleteOfTheFolder() throws Exception {
        Path workspace = workspace();
        Files.createDirectories(workspace.resolve("victim/keep"));
        Files.writeString(workspace.resolve("victim/keep/precious.txt"), "keep me\n");
        Files.writeString(workspace.resolve("victim/other.txt"), "other\n");
        QuiverProcess.userConfig(workspace, "{\"permission\":{\"delete_file\":{\"victim/keep/**\":\"deny\"}}}");
        Run check = QuiverProcess.run(workspace, "check", "--yolo", "delete_file",
                "{\"path\":\"victim\",\"recursive\":true}");
        assertEquals("deny", JSON.readTree(check.stdout()).get("decision").asText(), check.stdout() + check.stderr());
        Run call = QuiverProcess.run(workspace, "call", "--yolo", "delete_file", "{\"path\":\"victim\",\"recursive\":true}");
        assertEquals("keep me\n", Files.readString(workspace.resolve("victim/keep/precious.txt")), call.stdout());
        Run other = QuiverProcess.run(workspace, "check", "--yolo", "delete_file", "{\"path\":\"victim/other.txt\"}");
        assertEquals("allow", JSON.readTree(other.stdout()).get("decision").asText(), other.stdout());
    }

    @Test
    void readOnlyOffersOnlyReadAndStateToolsOnTheWireAndInThePrompt() throws Exception {
        Path workspace = workspace();
        Run tools = QuiverProcess.run(workspace, "tools", "--json");
        assertEquals(0, tools.exitCode(), tools.stderr());
        Map<String, String> access = new HashMap<>();
        JSON.readTree(tools.stdout()).forEach(t -> access.put(t.get("name").asText(), t.get("access").asText()));
        assertEquals("write", access.get("write_file"));
        assertEquals("execute", access.get("bash"));

        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.text("Read-only it is."))) {
            Run run = QuiverProcess.run(workspace, Map.of("XDG_DATA_HOME", temp.resolve("data").toString()), "",
                    "-p", "Look around", "--read-only", "--model", "openai/test", "--base-url", model.baseUrl());
            assertEquals(0, run.exitCode(), run.stderr());
            assertEquals("Read-only it is.", run.stdout().strip());

            JsonNode request = model.requests().get(0);
            List<String> offered = new ArrayList<>();
            request.path("tools").forEach(t -> offered.add(t.get("function").get("name").asText()));
            assertTrue(offered.containsAll(List.of("read_file", "read_many_files", "grep", "glob")), offered.toString());
            for (String name : offered) {
                assertTrue(List.of("read", "state").contains(access.get(name)),
                        name + " (" + access.get(name) + ") must not be offered read-only: " + offered);
            }
            for (String withheld : List.of("write_file", "edit_file", "bash", "bash_stop")) {
                assertFalse(offered.contains(withheld), withheld + " is on the wire: " + offered);
            }

            String prompt = systemPrompt(request);
            for (Map.Entry<String, String> tool : access.entrySet()) {
                if (!List.of("read", "state").contains(tool.getValue())) {
                    assertFalse(namesWord(prompt, tool.getKey()),
                            "the prompt names the withheld " + tool.getKey() + ":\n" + prompt);
                }
            }
            assertFalse(namesWord(prompt, "write_file") || namesWord(prompt, "bash"), prompt);
        }
    }

    // ---------------------------------------------------------------- (c) the guard in the prompt

    @Test
    void theSystemPromptTellsTheModelWhatTheGuardRefuses() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.text("Noted."))) {
            Run run = QuiverProcess.run(workspace(), Map.of("XDG_DATA_HOME", temp.resolve("data").toString()), "",
                    "-p", "hello", "--model", "openai/test", "--base-url", model.baseUrl());
            assertEquals(0, run.exitCode(), run.stderr());
            String prompt = systemPrompt(model.requests().get(0));
            for (String refused : List.of("The guard refuses, whatever the approvals",
                    "recursive or forced deletion (except of build output git ignores)", "git reset --hard",
                    "git clean -f", "git checkout/restore of everything", "force pushes", "git branch -D",
                    "git stash drop/clear", "DROP TABLE/DATABASE and TRUNCATE", "mkfs", "dd or redirection onto disks",
                    "chmod 777", "shutdown and reboot", "fork bombs", "downloads piped into a shell",
                    "ask the user to run it")) {
                assertTrue(prompt.contains(refused), "\"" + refused + "\" missing from the system prompt:\n" + prompt);
            }
            assertTrue(prompt.contains("Files holding secrets (.env, keys, .netrc) cannot be read"), prompt);
        }
    }

    // ---------------------------------------------------------------- (d) invalid UTF-8 on a batch

    /** Three lines with invalid UTF-8 inside a bash command, one line of raw bytes, one well-formed call. */
    private static byte[] invalidUtf8Batch() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.writeBytes(ascii("{\"tool\":\"bash\",\"args\":{\"command\":\"echo "));
        bytes.writeBytes(new byte[] {(byte) 0xC3, 0x28, ' ', (byte) 0xFF});
        bytes.writeBytes(ascii("\"}}\n"));
        bytes.writeBytes(ascii("{\"tool\":\"bash\",\"args\":{\"command\":\"touch made"));
        bytes.writeBytes(new byte[] {(byte) 0xFF});
        bytes.writeBytes(ascii(".txt\"}}\n"));
        bytes.writeBytes(ascii("{\"tool\":\"bash\",\"args\":{\"command\":\"touch made2.txt "));
        bytes.writeBytes(new byte[] {(byte) 0xC3, 0x28, (byte) 0xFE, (byte) 0x80});
        bytes.writeBytes(ascii("\"}}\n"));
        bytes.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xFE, 0x7B, (byte) 0xC3, 0x28, '\n'});
        bytes.writeBytes(ascii("{\"tool\":\"read_file\",\"args\":{\"path\":\"README.md\"}}\n"));
        return bytes.toByteArray();
    }

    private static final int BATCH_LINES = 5;
    private static final int MALFORMED_COMMANDS = 3;

    @Test
    void invalidUtf8OnCheckAndCallBatchesIsAnsweredLineByLineWithJsonAndNeverAllowed() throws Exception {
        Path workspace = workspace();
        byte[] input = invalidUtf8Batch();

        Run checks = runWithBytes(workspace, input, "check", "--batch", "-");
        assertEquals(0, checks.exitCode(), "batch mode exits 0 when every line was answered: " + checks.stderr());
        assertNoCrash(checks);
        List<JsonNode> decisions = jsonLines(checks.stdout());
        assertEquals(BATCH_LINES, decisions.size(), checks.stdout());
        for (int i = 0; i < MALFORMED_COMMANDS; i++) {
            assertEquals("bash", decisions.get(i).get("tool").asText(), decisions.get(i).toString());
            assertNotEquals("allow", decisions.get(i).get("decision").asText(), decisions.get(i).toString());
        }
        assertTrue(decisions.get(3).get("tool").isNull(), decisions.get(3).toString());
        assertEquals("deny", decisions.get(3).get("decision").asText(), decisions.get(3).toString());
        assertTrue(decisions.get(3).get("reason").asText().contains("line 4"), decisions.get(3).toString());
        assertEquals("allow", decisions.get(4).get("decision").asText(), "a good line after bad ones still works");

        Run calls = runWithBytes(workspace, input, "call", "--batch", "-");
        assertEquals(0, calls.exitCode(), "batch mode exits 0 when every line was answered: " + calls.stderr());
        assertNoCrash(calls);
        List<JsonNode> outcomes = jsonLines(calls.stdout());
        assertEquals(BATCH_LINES, outcomes.size(), calls.stdout());
        for (int i = 0; i < MALFORMED_COMMANDS; i++) {
            assertEquals("denied", outcomes.get(i).get("status").asText(), outcomes.get(i).toString());
        }
        assertEquals("error", outcomes.get(3).get("status").asText(), outcomes.get(3).toString());
        assertEquals("ok", outcomes.get(4).get("status").asText(), outcomes.get(4).toString());
        assertTrue(outcomes.get(4).get("output").asText().contains("1: # Demo"));
        assertNoFileMade(workspace);
    }

    /**
     * The issue: "invalid UTF-8 — no crash, no allow". A rule that allows the command word must not
     * let a command whose bytes were not valid UTF-8 through: what the shell would receive is not
     * what was matched.
     */
    @Test
    void invalidUtf8InACommandIsNotAllowedEvenWhereARuleAllowsTheCommandWord() throws Exception {
        Path workspace = workspace();
        QuiverProcess.userConfig(workspace, "{\"permission\":{\"bash\":{\"echo *\":\"allow\",\"touch *\":\"allow\"}}}");
        byte[] input = invalidUtf8Batch();

        Run checks = runWithBytes(workspace, input, "check", "--batch", "-");
        assertEquals(0, checks.exitCode(), checks.stderr());
        assertNoCrash(checks);
        List<JsonNode> decisions = jsonLines(checks.stdout());
        assertEquals(BATCH_LINES, decisions.size(), checks.stdout());

        Run calls = runWithBytes(workspace, input, "call", "--batch", "-");
        assertEquals(0, calls.exitCode(), calls.stderr());
        assertNoCrash(calls);
        List<JsonNode> outcomes = jsonLines(calls.stdout());
        assertEquals(BATCH_LINES, outcomes.size(), calls.stdout());

        List<String> allowed = new ArrayList<>();
        for (int i = 0; i < MALFORMED_COMMANDS; i++) {
            if ("allow".equals(decisions.get(i).get("decision").asText())) {
                allowed.add("check line " + (i + 1) + ": " + decisions.get(i));
            }
            if (!"denied".equals(outcomes.get(i).get("status").asText())) {
                allowed.add("call line " + (i + 1) + ": " + outcomes.get(i));
            }
        }
        List<String> made;
        try (Stream<Path> listing = Files.list(workspace)) {
            made = listing.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("made")).toList();
        }
        assertTrue(allowed.isEmpty() && made.isEmpty(),
                "malformed commands were allowed: " + allowed + "; files the shell made: " + made);
    }

    // ---------------------------------------------------------------- helpers

    private static void assertNoCrash(Run run) {
        assertFalse(run.stderr().contains("Exception") || run.stderr().contains("\tat "), run.stderr());
    }

    private static void assertNoFileMade(Path workspace) throws IOException {
        try (Stream<Path> listing = Files.list(workspace)) {
            List<String> made = listing.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("made")).toList();
            assertEquals(List.of(), made, "a refused command ran");
        }
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /** The system message of a chat completions request. */
    private static String systemPrompt(JsonNode request) {
        JsonNode first = request.get("messages").get(0);
        assertEquals("system", first.get("role").asText(), request.toString());
        return first.get("content").asText();
    }

    /** Whether a text names a tool as a word of its own ({@code bash} is not named by {@code bash_status}). */
    private static boolean namesWord(String text, String word) {
        return Pattern.compile("(?<![A-Za-z0-9_])" + Pattern.quote(word) + "(?![A-Za-z0-9_])").matcher(text).find();
    }

    /** The tool results in a request, by the name of the tool the assistant called for each. */
    private static Map<String, String> toolResults(JsonNode request) {
        Map<String, String> names = new HashMap<>();
        Map<String, String> results = new LinkedHashMap<>();
        for (JsonNode message : request.get("messages")) {
            for (JsonNode call : message.path("tool_calls")) {
                names.put(call.get("id").asText(), call.get("function").get("name").asText());
            }
            if ("tool".equals(message.path("role").asText())) {
                results.put(names.get(message.get("tool_call_id").asText()), message.path("content").asText());
            }
        }
        return results;
    }

    private static List<Path> files(Path root) throws IOException {
        if (!Files.exists(root)) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile).toList();
        }
    }

    private static List<JsonNode> jsonLines(String text) throws IOException {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (!line.isBlank()) {
                lines.add(JSON.readTree(line));
            }
        }
        return lines;
    }

    /**
     * {@link QuiverProcess#run} with raw bytes on standard input (which a {@code String} cannot
     * carry when they are not valid UTF-8), in the same private HOME and state folders.
     */
    private Run runWithBytes(Path workspace, byte[] stdin, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(QuiverProcess.distribution().resolve("bin").resolve("quiver").toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(workspace.toFile());
        Path home = Files.createDirectories(workspace.resolveSibling(workspace.getFileName() + "-home"));
        builder.environment().put("HOME", home.toString());
        builder.environment().put("XDG_CONFIG_HOME", home.resolve(".config").toString());
        builder.environment().put("XDG_STATE_HOME", home.resolve(".state").toString());
        builder.environment().put("XDG_DATA_HOME", home.resolve(".data").toString());
        builder.environment().remove("OPENAI_API_KEY");
        builder.environment().remove("OPENAI_BASE_URL");
        Path in = Files.write(temp.resolve("stdin-" + UUID.randomUUID() + ".bin"), stdin);
        Path out = temp.resolve("stdout-" + UUID.randomUUID() + ".txt");
        Path err = temp.resolve("stderr-" + UUID.randomUUID() + ".txt");
        builder.redirectInput(in.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile());
        Process process = builder.start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("quiver " + String.join(" ", args) + " did not finish within 60 s");
        }
        Run run = new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
        Files.delete(in);
        Files.delete(out);
        Files.delete(err);
        return run;
    }
}
