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
    private static final List<String> CORE = List.of("bash", "bash_status", "bash_stop", "edit_file", "glob", "grep",
            "read_file", "read_many_files", "write_file");

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
    void toolsJsonListsTheSixCoreToolsWithTheirFieldsAndNothingElseOnStdout() throws Exception {
        Run run = QuiverProcess.run(workspace(), "tools", "--json");
        assertEquals(0, run.exitCode(), run.stderr());
        JsonNode tools = JSON.readTree(run.stdout());
        List<String> core = new ArrayList<>();
        List<String> all = new ArrayList<>();
        java.util.Set<String> sets = new java.util.TreeSet<>();
        java.util.Map<String, String> extra = new java.util.TreeMap<>();
        for (JsonNode tool : tools) {
            all.add(tool.get("name").asText());
            if ("extra".equals(tool.get("set").asText())) {
                extra.put(tool.get("name").asText(), tool.get("decision").asText());
            }
            sets.add(tool.get("set").asText());
            assertTrue(tool.get("schema_bytes").asInt() > 50, tool.toString());
            assertTrue(List.of("allow", "ask").contains(tool.get("decision").asText()));
            assertTrue(tool.has("access") && tool.has("bundle") && tool.has("set"), tool.toString());
            if ("core".equals(tool.get("set").asText())) {
                core.add(tool.get("name").asText());
                assertTrue(tool.get("bundle").asText().equals("dev.quiver.tools.core"), tool.toString());
            }
        }
        assertTrue(core.containsAll(CORE), core.toString());
        // every tool set the distribution ships (features/full) registers its tools; net is opt in
        assertTrue(sets.containsAll(List.of("agent", "core", "edit-plus", "extra", "git", "nav")), sets.toString());
        List<String> nav = new ArrayList<>();
        for (JsonNode tool : tools) {
            if ("nav".equals(tool.get("set").asText())) {
                nav.add(tool.get("name").asText());
                assertEquals("dev.quiver.tools.nav", tool.get("bundle").asText(), tool.toString());
                assertEquals("allow", tool.get("decision").asText(), "the nav tools only read: " + tool);
            }
        }
        assertEquals(List.of("find_symbol", "outline", "read_symbol"), nav);
        // the agent set: memory, skills, subagents and the todo list, all allowed (they read or change only the agent's state)
        List<String> agent = new ArrayList<>();
        for (JsonNode tool : tools) {
            if ("agent".equals(tool.get("set").asText())) {
                agent.add(tool.get("name").asText());
                assertEquals("dev.quiver.tools.agent", tool.get("bundle").asText(), tool.toString());
                assertEquals("allow", tool.get("decision").asText(), tool.toString());
            }
        }
        // ask is listed as an interactive session offers it; -p and batches withhold it
        assertEquals(List.of("ask", "forget", "recall", "remember", "skill", "spawn_subagent", "task", "todo_write"),
                agent.stream().sorted().toList());
        // the git set: everything reads and is allowed, except git_commit, which writes and asks
        java.util.Map<String, String> git = new java.util.TreeMap<>();
        for (JsonNode tool : tools) {
            if ("git".equals(tool.get("set").asText())) {
                git.put(tool.get("name").asText(), tool.get("decision").asText());
                assertEquals("dev.quiver.tools.git", tool.get("bundle").asText(), tool.toString());
            }
        }
        java.util.Map<String, String> expectedGit = new java.util.TreeMap<>();
        for (String read : List.of("git_status", "git_diff", "git_log", "git_show", "git_blame", "git_branch",
                "git_current_branch", "git_log_file", "git_diff_commits", "git_show_file", "git_changed_in_ref", "git_commit_message")) {
            expectedGit.put(read, "allow");
        }
        expectedGit.put("git_commit", "ask");
        assertEquals(expectedGit, git);
        assertFalse(sets.contains("net"), sets.toString());
        // issue 21's extra tools: line edits ask, like every write; the rest read and are allowed
        for (String edit : List.of("insert_lines", "delete_lines", "replace_lines", "append_file", "prepend_file")) {
            assertEquals("ask", extra.get(edit), edit + " in set extra: " + extra);
        }
        for (String read : List.of("count_lines", "tree", "file_info", "find_files", "recent_files", "changed_files",
                "json_query", "env_info", "count_tokens", "current_time")) {
            assertEquals("allow", extra.get(read), read + " in set extra: " + extra);
        }
        // before any toolSets config: the table names what /tools in the terminal also shows: installed but not offered
        Run table = QuiverProcess.run(workspace(), "tools");
        assertEquals(0, table.exitCode(), table.stderr());
        assertTrue(table.stdout().contains("2 more installed, not offered (see toolSets): web_fetch (net), web_search (net)"),
                table.stdout());
        Path optIn = workspace();
        QuiverProcess.userConfig(optIn, "{\"toolSets\": [\"net\"]}");
        Run net = QuiverProcess.run(optIn, "tools", "--json");
        assertEquals(0, net.exitCode(), net.stderr());
        List<String> netTools = new ArrayList<>();
        for (JsonNode tool : JSON.readTree(net.stdout())) {
            if (tool.get("set").asText().equals("net") && tool.get("decision").asText().equals("ask")) {
                netTools.add(tool.get("name").asText());
            }
        }
        assertEquals(List.of("web_fetch", "web_search"), netTools, "toolSets [net] offers both, which ask: " + net.stdout());
        assertEquals(all.stream().sorted().toList(), all, "sorted by name");
        assertTrue(run.stderr().contains("quiver ") && run.stderr().contains("core"), run.stderr());
    }

    @Test
    void theStartupTraceGoesToStderrAndTheFrameworkCacheIsGoneAfterExit() throws Exception {
        Path cache = Files.createDirectories(temp.resolve("cache"));
        Run run = QuiverProcess.run(workspace(),
                Map.of("QUIVER_JAVA_OPTS", "-Dquiver.cache.dir=" + cache + " -Dquiver.startup.trace=true"), "", "tools",
                "--json");
        assertEquals(0, run.exitCode(), run.stderr());
        assertTrue(JSON.readTree(run.stdout()).isArray(), "stdout carries only the JSON: " + run.stdout());
        for (String phase : List.of("framework init", "install ", "resolve", "start", "command line service", "command",
                "stop")) {
            assertTrue(run.stderr().contains("quiver startup: " + phase), phase + " missing from:\n" + run.stderr());
        }
        try (var left = Files.list(cache)) {
            assertEquals(List.of(), left.toList(), "the per-process cache is removed at exit");
        }
    }

    @Test
    void aStartSweepsTheCachesOfDeadProcessesAndNothingElse() throws Exception {
        Path cache = Files.createDirectories(temp.resolve("sweep-cache"));
        Process finished = new ProcessBuilder("true").start();
        finished.waitFor();
        long dead = finished.pid();
        Path stale = Files.createDirectories(cache.resolve("quiver-felix-" + dead + "-0/bundle3/version0.0"));
        Files.write(stale.resolve("bundle.jar"), new byte[4096]);
        Path live = Files.createDirectories(cache.resolve("quiver-felix-" + ProcessHandle.current().pid() + "-0"));
        // a dead pid whose cache lock is held: a process in another pid namespace sharing the folder
        Path lockedByOther = Files.createDirectories(cache.resolve("quiver-felix-" + dead + "-1"));
        Path outside = Files.createDirectories(temp.resolve("not-a-cache"));
        Files.writeString(outside.resolve("keep.txt"), "mine");
        Files.createSymbolicLink(cache.resolve("quiver-felix-" + dead + "-2"), outside);
        Path unrelated = Files.createDirectories(cache.resolve("quiver-felix-notes"));
        try (var channel = java.nio.channels.FileChannel.open(lockedByOther.resolve("cache.lock"),
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE);
                var held = channel.lock()) {
            Run run = QuiverProcess.run(workspace(), Map.of("QUIVER_JAVA_OPTS", "-Dquiver.cache.dir=" + cache), "",
                    "tools", "--json");
            assertEquals(0, run.exitCode(), run.stderr());
        }
        assertFalse(Files.exists(cache.resolve("quiver-felix-" + dead + "-0")), "a dead process's cache is swept");
        assertTrue(Files.isDirectory(live), "a live process's cache is kept");
        assertTrue(Files.isDirectory(lockedByOther), "a cache whose lock another process holds is kept");
        assertEquals("mine", Files.readString(outside.resolve("keep.txt")), "a link is never followed");
        assertTrue(Files.isDirectory(unrelated), "only names the launcher makes are swept");
    }

    @Test
    void nonAsciiFileNamesAreFoundUnderTheCLocale() throws Exception {
        Path workspace = workspace();
        Files.createDirectories(workspace.resolve("sub"));
        Files.writeString(workspace.resolve("sub/naïve.txt"), "needle one\n");
        Files.writeString(workspace.resolve("café.txt"), "needle two\n");
        // a name that is not UTF-8 at all: listed escaped, and read back by that escaped name
        Process raw = new ProcessBuilder("sh", "-c", "printf 'needle three\\n' > \"$(printf 'bad\\377name.txt')\"")
                .directory(workspace.toFile()).start();
        assertEquals(0, raw.waitFor());
        // the last: a UTF-8 locale by its name that is not installed, as in many containers
        for (Map<String, String> locale : List.of(Map.of("LC_ALL", "C", "LANG", ""), Map.of("LANG", "", "LC_ALL", ""),
                Map.of("LC_ALL", "", "LANG", "xx_XX.UTF-8"))) {
            Run glob = QuiverProcess.run(workspace, locale, "", "call", "glob", "{\"pattern\":\"**/*.txt\"}");
            assertEquals(0, glob.exitCode(), locale + ": " + glob.stderr());
            assertTrue(glob.stdout().contains("sub/naïve.txt") && glob.stdout().contains("café.txt"),
                    locale + ": " + glob.stdout());
            Run grep = QuiverProcess.run(workspace, locale, "", "call", "grep", "{\"pattern\":\"needle\"}");
            assertEquals(0, grep.exitCode(), locale + ": " + grep.stderr());
            assertTrue(grep.stdout().contains("naïve.txt") && grep.stdout().contains("café.txt"), grep.stdout());
            assertTrue(glob.stdout().contains("bad\\xFFname.txt") && grep.stdout().contains("bad\\xFFname.txt:1: needle three"),
                    locale + ": " + glob.stdout() + grep.stdout());
            Run read = QuiverProcess.run(workspace, locale, "", "call", "read_file", "{\"path\":\"bad\\\\xFFname.txt\"}");
            assertTrue(read.stdout().contains("1: needle three"), locale + ": " + read.stdout() + read.stderr());
        }
    }

    /**
     * Where no UTF-8 locale is installed (a {@code locale} program that finds none stands in for such a
     * system), the launcher leaves LC_ALL=C alone rather than name a locale that is not there, and Quiver
     * says at start, in one line, what that costs and how to fix it; where one is, it starts silently.
     */
    @Test
    void withoutAnInstalledUtf8LocaleQuiverWarnsOnceAtStart() throws Exception {
        Path workspace = workspace();
        Path bin = Files.createDirectories(workspace.resolveSibling(workspace.getFileName() + "-bin"));
        Path locale = bin.resolve("locale");
        Files.writeString(locale, "#!/bin/sh\ncase \"$1\" in charmap) echo ANSI_X3.4-1968 ;; -a) echo C; echo POSIX ;; esac\n");
        locale.toFile().setExecutable(true);
        Run none = QuiverProcess.run(workspace, Map.of("LC_ALL", "C", "PATH", bin + ":" + System.getenv("PATH")), "",
                "call", "glob", "{\"pattern\":\"*.md\"}");
        assertEquals(0, none.exitCode(), none.stderr());
        assertTrue(none.stdout().contains("README.md"), none.stdout());
        List<String> warnings = none.stderr().lines().filter(line -> line.startsWith("quiver: warning: Java reads file "
                + "names as ANSI_X3.4-1968, not UTF-8 (the locale C, and no UTF-8 locale is installed)")).toList();
        assertEquals(1, warnings.size(), none.stderr());
        assertTrue(warnings.get(0).endsWith("and set LC_ALL to it."), warnings.get(0));

        Run installed = QuiverProcess.run(workspace, Map.of("LC_ALL", "C"), "", "call", "glob", "{\"pattern\":\"*.md\"}");
        assertEquals(0, installed.exitCode(), installed.stderr());
        assertTrue(!installed.stderr().contains("quiver: warning: Java reads file names"), installed.stderr());
    }

    @Test
    void readOnlyCallsWriteNothingInTheWorkingTree() throws Exception {
        Path workspace = workspace();
        Files.writeString(Files.createDirectories(workspace.resolve("src")).resolve("App.java"), "class App {}\n");
        for (String[] call : new String[][] {{"glob", "{\"pattern\":\"**/*\"}"}, {"read_file", "{\"path\":\"README.md\"}"},
                {"grep", "{\"pattern\":\"App\"}"}}) {
            Run run = QuiverProcess.run(workspace, "call", call[0], call[1]);
            assertEquals(0, run.exitCode(), call[0] + ": " + run.stderr());
        }
        List<String> present = new ArrayList<>();
        try (var walk = Files.walk(workspace)) {
            walk.filter(path -> !path.equals(workspace)).forEach(path -> present.add(workspace.relativize(path).toString()));
        }
        present.sort(null);
        assertEquals(List.of("README.md", "src", "src/App.java"), present, "no .quiver/ or any other file appeared");
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

    /**
     * dev.quiver.bash and dev.quiver.tools.nav both embed tree-sitter's binding, whose natives the JVM
     * gives to one class loader per file: both must parse in one process, in either order.
     */
    @Test
    void theNavToolsParseInTheProcessWhereTheBashParserDoes() throws Exception {
        Path workspace = workspace();
        Files.createDirectories(workspace.resolve("src"));
        Files.writeString(workspace.resolve("src/Greeter.java"), """
                class Greeter {
                    String greet(String name) {
                        return "hi " + name;
                    }
                }
                """);
        String input = """
                {"tool":"bash","args":{"command":"echo $(printf x) | cat"}}
                {"tool":"find_symbol","args":{"name":"greet"}}
                {"tool":"outline","args":{"path":"src/Greeter.java"}}
                {"tool":"read_symbol","args":{"name":"Greeter.greet"}}
                {"tool":"bash","args":{"command":"for f in $(ls); do echo \\"$f\\"; done"}}
                """;
        Run calls = QuiverProcess.run(workspace, Map.of(), input, "call", "--yolo", "--batch", "-");
        assertEquals(0, calls.exitCode(), calls.stderr());
        List<JsonNode> lines = jsonLines(calls.stdout());
        assertEquals(5, lines.size(), calls.stdout());
        assertEquals("ok", lines.get(0).get("status").asText(), calls.stdout());
        assertEquals("src/Greeter.java:2: method Greeter.greet — String greet(String name) {",
                lines.get(1).get("output").asText(), calls.stdout());
        assertTrue(lines.get(2).get("output").asText().endsWith("class Greeter 1-5\n  method greet 2-4"), calls.stdout());
        assertTrue(lines.get(3).get("output").asText().startsWith("[src/Greeter.java:2-4: method Greeter.greet]"),
                calls.stdout());
        assertEquals("ok", lines.get(4).get("status").asText(), calls.stdout());
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
        assertEquals(5, lines.size(), "one answer a line, the blank one too: " + calls.stdout());
        assertEquals("ok", lines.get(0).get("status").asText());
        assertTrue(lines.get(0).get("output").asText().contains("1: # Demo"));
        assertTrue(lines.get(0).has("elapsed_ms"));
        assertEquals("error", lines.get(1).get("status").asText());
        assertEquals("error", lines.get(2).get("status").asText());
        assertTrue(lines.get(2).get("output").asText().startsWith("line 3 is empty"), calls.stdout());
        assertEquals("error", lines.get(3).get("status").asText());
        assertEquals("Path escapes workspace: ../outside", lines.get(3).get("output").asText());
        assertEquals("denied", lines.get(4).get("status").asText());

        Run checks = QuiverProcess.run(workspace(), Map.of(), input, "check", "--batch", "-");
        assertEquals(0, checks.exitCode(), checks.stderr());
        List<JsonNode> decisions = jsonLines(checks.stdout());
        assertEquals(5, decisions.size());
        assertEquals("allow", decisions.get(0).get("decision").asText());
        assertEquals("deny", decisions.get(2).get("decision").asText());
        assertEquals("ask", decisions.get(4).get("decision").asText());
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
            assertTrue(offered.containsAll(CORE), offered.toString());
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

    /** A base URL copied with the endpoint on it is refused naming the root, before any request reaches the server. */
    @Test
    void aBaseUrlEndingInTheEndpointIsRefusedNamingTheRootToUse() throws Exception {
        try (dev.quiver.testing.OllamaStub ollama = dev.quiver.testing.OllamaStub.start(
                dev.quiver.testing.OllamaStub.text("never"))) {
            String given = ollama.baseUrl() + "/api/chat";
            Run run = QuiverProcess.run(workspace(), "-p", "hello", "--model", "ollama/llama3.2", "--base-url", given);
            assertEquals(1, run.exitCode(), run.stderr());
            assertTrue(run.stderr().contains("Base URL must be the API's root, without the endpoint: Quiver adds /api/chat "
                    + "itself. Use " + ollama.baseUrl() + " instead of " + given + "."), run.stderr());
            assertEquals(List.of(), ollama.paths(), "nothing was sent to the doubled path");
        }
    }

    @Test
    void checkFollowsTheWorkspaceRulesTheGuardAndTheSecretsAndNamesWhatDecided() throws Exception {
        Path workspace = workspace();
        Files.createDirectories(workspace.resolve(".quiver"));
        // the guard judges paths on disk: deleting a src/ that is not there would delete nothing
        Files.createDirectories(workspace.resolve("src"));
        Files.writeString(workspace.resolve("src/Main.java"), "class Main {}\n");
        Path config = Files.writeString(workspace.resolve(".quiver/config.json"),
                "{\"permission\":{\"bash\":{\"*\":\"ask\",\"git *\":\"allow\",\"make *\":\"nope\"}}}");
        String input = """
                {"tool":"bash","args":{"command":"git status --porcelain"}}
                {"tool":"bash","args":{"command":"git status && rm -rf src"}}
                {"tool":"bash","args":{"command":"git log | sh -c 'cat .env'"}}
                {"tool":"bash","args":{"command":"git status && make"}}
                {"tool":"read_file","args":{"path":"deploy/.env"}}
                """;
        Run run = QuiverProcess.run(workspace, Map.of(), input, "check", "--trust-workspace", "--batch", "-");
        assertEquals(0, run.exitCode(), run.stderr());
        List<JsonNode> lines = jsonLines(run.stdout());
        assertEquals("allow", lines.get(0).get("decision").asText());
        assertEquals("rule", lines.get(0).get("by").asText());
        assertTrue(lines.get(0).get("reason").asText().contains("\"git *\"")
                && lines.get(0).get("reason").asText().contains(config.toRealPath().toString()), lines.get(0).toString());
        assertEquals("deny", lines.get(1).get("decision").asText());
        assertEquals("guard", lines.get(1).get("by").asText());
        assertEquals("deny", lines.get(2).get("decision").asText());
        assertEquals("secret", lines.get(2).get("by").asText());
        assertEquals("ask", lines.get(3).get("decision").asText());
        assertEquals("secret", lines.get(4).get("by").asText());
        assertTrue(run.stderr().contains("unknown decision \"nope\""), "the bad rule is reported: " + run.stderr());
    }

    @Test
    void aMalformedConfigIsReportedAndQuiverStillStartsWithTheDefaults() throws Exception {
        Path workspace = workspace();
        Files.createDirectories(workspace.resolve(".quiver"));
        Files.writeString(workspace.resolve(".quiver/config.json"), "{\"permission\": {\"bash\": ");
        Run run = QuiverProcess.run(workspace, "check", "read_file", "{\"path\":\"README.md\"}");
        assertEquals(0, run.exitCode(), run.stderr());
        assertEquals("allow", JSON.readTree(run.stdout()).get("decision").asText());
        assertTrue(run.stderr().contains(".quiver/config.json") && run.stderr().contains("not valid JSON"), run.stderr());
    }

    @Test
    void aHeadlessSessionIsStoredListedAndContinuedAndJsonOutputCarriesCallsAndUsage() throws Exception {
        Path workspace = workspace();
        try (OpenAiStub model = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("read_file", "{\"path\":\"README.md\"}"),
                        OpenAiStub.call("bash", "{\"command\":\"touch x\"}")),
                OpenAiStub.text("Read it; bash needs approval."),
                OpenAiStub.text("You asked about the README before."))) {
            Run first = QuiverProcess.run(workspace, Map.of(), "", "-p", "Read the README", "--model", "openai/test",
                    "--base-url", model.baseUrl(), "--output-format", "json");
            assertEquals(3, first.exitCode(), "a refusal the task ran into: " + first.stderr());
            JsonNode json = JSON.readTree(first.stdout());
            assertEquals("done", json.get("status").asText());
            assertEquals("Read it; bash needs approval.", json.get("answer").asText());
            assertEquals(3, json.get("exit").asInt());
            assertEquals("read_file", json.get("calls").get(0).get("tool").asText());
            assertEquals("ok", json.get("calls").get(0).get("status").asText());
            assertEquals("bash", json.get("calls").get(1).get("tool").asText());
            assertEquals("denied", json.get("calls").get(1).get("status").asText());
            assertEquals("mode", json.get("calls").get(1).get("by").asText());
            assertEquals(20, json.get("usage").get("input_tokens").asInt(), "the stub reports 10 per request");
            assertFalse(Files.exists(workspace.resolve("x")));

            Run sessions = QuiverProcess.run(workspace, "sessions");
            assertEquals(0, sessions.exitCode(), sessions.stderr());
            assertTrue(sessions.stdout().contains("Read the README"), sessions.stdout());

            Run second = QuiverProcess.run(workspace, Map.of(), "", "-p", "What did I ask?", "--continue",
                    "--model", "openai/test", "--base-url", model.baseUrl());
            assertEquals(0, second.exitCode(), second.stderr());
            JsonNode messages = model.requests().get(2).get("messages");
            List<String> texts = new ArrayList<>();
            messages.forEach(m -> texts.add(m.get("role").asText() + ":" + m.path("content").asText("")));
            assertTrue(texts.contains("user:Read the README"), texts.toString());
            assertTrue(texts.contains("user:What did I ask?"), texts.toString());
        }
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
