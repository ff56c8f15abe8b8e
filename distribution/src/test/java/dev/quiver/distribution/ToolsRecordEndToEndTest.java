package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code quiver tools --json} answered from the output of the last run with the same inputs, with the
 * built distribution in real processes: the second run answers from the record with the same bytes
 * and exit code, and every change of an input the list depends on (a bundle dropped into or removed
 * from {@code deploy/}, a deny rule in the user's or the workspace's config, {@code --disallowedTools},
 * an environment variable, the workspace's trust, a change journal a killed process left) or a corrupt
 * record makes the next run list the truth. Runs a record cannot stand for are never answered from one:
 * an {@code @FILE} argument, an empty {@code HOME}, a shell command journal a crashed run left; and a
 * replay reaches stdout when stderr cannot be written. The trace ({@code -Dquiver.startup.trace=true}, the same in
 * every run: system properties are inputs too) says which runs answered from the record.
 */
class ToolsRecordEndToEndTest {

    private static final String FROM_RECORD = "quiver startup: answered from the record";
    private static final Map<String, String> TRACE = Map.of("QUIVER_JAVA_OPTS", "-Dquiver.startup.trace=true");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;

    private Path dist;
    private Path stashed;
    private Path deploy;
    private Path workspace;

    @BeforeEach
    void installation() throws Exception {
        Path movable = McpSupport.privateDistribution(temp.resolve("dist"));
        dist = temp.resolve("dist");
        deploy = movable.getParent();
        // deploy/ starts empty: the edit-plus bundle waits outside, to be dropped in
        stashed = Files.move(movable, temp.resolve(movable.getFileName()));
        workspace = Files.createDirectories(temp.resolve("ws"));
        Files.writeString(workspace.resolve("README.md"), "# Recorded\n");
    }

    /** One run: exit code, stdout, stderr without the trace, and whether it answered from the record. */
    private record Result(int code, String stdout, String stderr, boolean fromRecord) {
        JsonNode tool(String name) throws Exception {
            for (JsonNode tool : JSON.readTree(stdout)) {
                if (tool.path("name").asText().equals(name)) {
                    return tool;
                }
            }
            return JSON.missingNode();
        }

        boolean lists(String bundle) throws Exception {
            for (JsonNode tool : JSON.readTree(stdout)) {
                if (tool.path("bundle").asText().equals(bundle)) {
                    return true;
                }
            }
            return false;
        }
    }

    private Result tools(Map<String, String> environment, String... args) throws Exception {
        Map<String, String> all = new HashMap<>(TRACE);
        all.putAll(environment);
        QuiverProcess.Run run = QuiverProcess.run(dist, workspace, all, "",
                Stream.concat(Stream.of("tools", "--json"), Stream.of(args)).toArray(String[]::new));
        String stderr = run.stderr().lines().filter(line -> !line.startsWith("quiver startup: "))
                .map(line -> line + "\n").collect(Collectors.joining());
        return new Result(run.exitCode(), run.stdout(), stderr, run.stderr().contains(FROM_RECORD));
    }

    private Result tools(String... args) throws Exception {
        return tools(Map.of(), args);
    }

    /** Runs until the record answers (the first run records), checking it gives what the live run gave. */
    private Result recorded(String... args) throws Exception {
        Result live = tools(args);
        Result again = tools(args);
        assertTrue(again.fromRecord(), "the run after " + live + " answered live: " + again);
        assertEquals(live.code(), again.code());
        assertEquals(live.stdout(), again.stdout());
        assertEquals(live.stderr(), again.stderr());
        return again;
    }

    private Path recordFile() throws Exception {
        try (Stream<Path> records = Files.list(QuiverProcess.home(workspace).resolve(".state/quiver/tools-json"))) {
            return records.filter(p -> p.toString().endsWith(".record")).findFirst().orElseThrow();
        }
    }

    @Test
    void theSecondRunAnswersFromTheRecordWithTheSameBytesAndExitCode() throws Exception {
        Result live = tools();
        assertFalse(live.fromRecord(), live.toString());
        assertEquals(0, live.code(), live.toString());
        assertTrue(live.stderr().startsWith("quiver "), live.stderr());
        assertEquals("allow", live.tool("read_file").path("decision").asText(), live.stdout());

        Result again = tools();
        assertTrue(again.fromRecord(), again.toString());
        assertEquals(live, new Result(again.code(), again.stdout(), again.stderr(), false));

        Path record = recordFile();
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(record)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(record.getParent())));
        // without --json the command stays live
        QuiverProcess.Run table = QuiverProcess.run(dist, workspace, TRACE, "", "tools");
        assertFalse(table.stderr().contains(FROM_RECORD), table.stderr());
    }

    @Test
    void aBundleDroppedIntoDeployOrRemovedIsListed() throws Exception {
        Result before = recorded();
        assertFalse(before.lists(McpSupport.MOVABLE), before.stdout());

        Path dropped = Files.copy(stashed, deploy.resolve(stashed.getFileName()));
        Result withPlugin = tools();
        assertFalse(withPlugin.fromRecord());
        assertTrue(withPlugin.lists(McpSupport.MOVABLE), withPlugin.stdout());
        Result stillLive = tools();
        assertFalse(stillLive.fromRecord(), "a run with a jar in deploy/ is never recorded");
        assertTrue(stillLive.lists(McpSupport.MOVABLE), stillLive.stdout());

        Files.delete(dropped);
        Result removed = tools();
        assertFalse(removed.lists(McpSupport.MOVABLE), removed.stdout());
        assertEquals(before.stdout(), removed.stdout());
    }

    @Test
    void aDenyRuleInTheUsersOrTheWorkspacesConfigIsListed() throws Exception {
        Result before = recorded();
        assertEquals("allow", before.tool("read_file").path("decision").asText());

        QuiverProcess.userConfig(workspace, "{\"permission\": {\"read_file\": \"deny\"}}\n");
        Result user = tools();
        assertFalse(user.fromRecord(), user.toString());
        assertEquals("deny", user.tool("read_file").path("decision").asText(), user.stdout());
        assertEquals("deny", recorded().tool("read_file").path("decision").asText());

        Files.writeString(Files.createDirectories(workspace.resolve(".quiver")).resolve("config.json"),
                "{\"permission\": {\"glob\": \"deny\"}}\n");
        Result project = tools();
        assertFalse(project.fromRecord(), project.toString());
        assertEquals("deny", project.tool("glob").path("decision").asText(), project.stdout());
    }

    @Test
    void otherOptionsOrAnotherEnvironmentAreListedLive() throws Exception {
        Result before = recorded();
        assertNotEquals("deny", before.tool("grep").path("decision").asText());

        Result disallowed = tools("--disallowedTools", "grep");
        assertFalse(disallowed.fromRecord(), disallowed.toString());
        assertEquals("deny", disallowed.tool("grep").path("decision").asText(), disallowed.stdout());
        Result otherRule = tools("--disallowedTools", "glob");
        assertFalse(otherRule.fromRecord(), otherRule.toString());
        assertEquals("deny", otherRule.tool("glob").path("decision").asText(), otherRule.stdout());
        assertNotEquals("deny", otherRule.tool("grep").path("decision").asText(), otherRule.stdout());

        // a run that warns is never recorded: a record must not hide a warning, nor print one that is gone
        Result yolo = tools("--yolo");
        assertTrue(yolo.stderr().contains("warning: --yolo"), yolo.stderr());
        Result yoloAgain = tools("--yolo");
        assertFalse(yoloAgain.fromRecord(), yoloAgain.toString());
        assertTrue(yoloAgain.stderr().contains("warning: --yolo"), yoloAgain.stderr());

        Result otherEnvironment = tools(Map.of("QUIVER_TOOLS_RECORD_TEST", "1"));
        assertFalse(otherEnvironment.fromRecord(), otherEnvironment.toString());
        assertEquals(before.stdout(), otherEnvironment.stdout());
    }

    @Test
    void aBwrapThatAppearsOnThePathIsSeenLive() throws Exception {
        Path tools = Files.createDirectories(temp.resolve("path"));
        Map<String, String> path = Map.of("PATH", tools + ":" + System.getenv("PATH"));
        Result before = tools(path);
        assertTrue(tools(path).fromRecord(), "recorded with the sandbox working: " + before);

        // a bwrap that cannot make a sandbox, found first: the header must say so, not the record
        Path bwrap = Files.writeString(tools.resolve("bwrap"), "#!/bin/sh\necho 'no namespaces here' >&2\nexit 1\n");
        Files.setPosixFilePermissions(bwrap, PosixFilePermissions.fromString("rwx------"));
        Result broken = tools(path);
        assertFalse(broken.fromRecord(), broken.toString());
        assertTrue(broken.stderr().contains("bubblewrap cannot create a sandbox here (no namespaces here)"),
                broken.stderr());
        assertEquals(before.stdout(), broken.stdout());
        assertFalse(tools(path).fromRecord(), "a header that warns is never recorded");
    }

    @Test
    void revokedTrustIsListed() throws Exception {
        Files.writeString(Files.createDirectories(workspace.resolve(".quiver")).resolve("config.json"),
                "{\"permission\": {\"write_file\": \"allow\"}}\n");
        QuiverProcess.Run trust = QuiverProcess.run(dist, workspace, TRACE, "", "trust");
        assertEquals(0, trust.exitCode(), trust.toString());
        Result trusted = recorded();
        assertEquals("allow", trusted.tool("write_file").path("decision").asText(), trusted.stdout());

        QuiverProcess.Run revoke = QuiverProcess.run(dist, workspace, TRACE, "", "trust", "--revoke");
        assertEquals(0, revoke.exitCode(), revoke.toString());
        Result untrusted = tools();
        assertFalse(untrusted.fromRecord(), untrusted.toString());
        assertNotEquals("allow", untrusted.tool("write_file").path("decision").asText(), untrusted.stdout());
    }

    @Test
    void aCorruptRecordIsIgnoredAndWrittenAgain() throws Exception {
        Result before = recorded();
        Path record = recordFile();
        List<String> lines = Files.readAllLines(record);
        Files.writeString(record, String.join("\n", lines.subList(0, lines.size() - 1)) + "\n");
        Result truncated = tools();
        assertFalse(truncated.fromRecord(), "a record without its stderr line");
        assertEquals(before.stdout(), truncated.stdout());
        assertTrue(tools().fromRecord(), "recorded again");

        lines = Files.readAllLines(recordFile());
        lines.set(2, "stdout !!not base64!!");
        Files.writeString(recordFile(), String.join("\n", lines) + "\n");
        Result garbled = tools();
        assertFalse(garbled.fromRecord());
        assertEquals(before.stdout(), garbled.stdout());
    }

    @Test
    void aChangeJournalAKilledProcessLeftIsSeenLive() throws Exception {
        // a change made by a call makes the kernel's folder for this workspace's change journals
        QuiverProcess.Run call = QuiverProcess.run(dist, workspace, TRACE, "", "call", "--yolo", "write_file",
                "{\"path\":\"a.txt\",\"content\":\"x\\n\"}");
        assertEquals(0, call.exitCode(), call.toString());
        recorded();
        Path sessions = QuiverProcess.home(workspace).resolve(".local/share/quiver/sessions");
        Path folder;
        try (Stream<Path> folders = Files.list(sessions)) {
            folder = folders.filter(p -> p.getFileName().toString().startsWith("ws-")).findFirst().orElseThrow();
        }
        Files.writeString(Files.createDirectories(folder.resolve("state/changes")).resolve("left-behind"), "x");
        Result after = tools();
        assertFalse(after.fromRecord(), after.toString());
    }

    @Test
    void anArgumentFileIsReadByEveryRun() throws Exception {
        Path opts = Files.writeString(workspace.resolve("opts"), "--disallowedTools\nbash\n");
        Result denied = tools("@opts");
        assertEquals("deny", denied.tool("bash").path("decision").asText(), denied.stdout());
        Result again = tools("@opts");
        assertFalse(again.fromRecord(), "the command line does not say what @opts holds: " + again);
        Files.writeString(opts, "");
        Result emptied = tools("@opts");
        assertFalse(emptied.fromRecord(), emptied.toString());
        assertNotEquals("deny", emptied.tool("bash").path("decision").asText(), emptied.stdout());

        // a workspace named in the file: the record would have keyed this folder's config, not that one's
        Path other = Files.createDirectories(temp.resolve("ws2/.quiver"));
        Files.writeString(other.resolve("config.json"), "{\"permission\": {\"glob\": \"deny\"}}\n");
        Files.writeString(opts, "--workspace\n../ws2\n");
        Result there = tools("@opts");
        assertEquals("deny", there.tool("glob").path("decision").asText(), there.stdout());
        Files.writeString(other.resolve("config.json"), "{\"permission\": {\"grep\": \"deny\"}}\n");
        Result changed = tools("@opts");
        assertFalse(changed.fromRecord(), changed.toString());
        assertNotEquals("deny", changed.tool("glob").path("decision").asText(), changed.stdout());
        assertEquals("deny", changed.tool("grep").path("decision").asText(), changed.stdout());
    }

    @Test
    void withoutHomeNoRunIsRecorded() throws Exception {
        // the kernel's change journals would then lie relative to the working folder
        Map<String, String> noHome = Map.of("HOME", "");
        Result first = tools(noHome);
        assertEquals(0, first.code(), first.toString());
        Result again = tools(noHome);
        assertFalse(again.fromRecord(), again.toString());
        assertEquals(first.stdout(), again.stdout());
    }

    /**
     * A run whose stdout or stderr could not be written gave the user less than it printed: it is not
     * recorded, or every later run would answer with the empty output (review).
     */
    @Test
    void aRunWhoseOutputCouldNotBeWrittenIsNotRecorded() throws Exception {
        Path where = Files.writeString(temp.resolve("output-goes"), "open");
        Path wrapper = Files.createDirectories(temp.resolve("unwritable/bin")).resolve("quiver");
        String quiver = "\"" + dist.resolve("bin/quiver") + "\" \"$@\"";
        Files.writeString(wrapper, "#!/bin/sh\ncase \"$(cat '" + where + "')\" in\n"
                + "  stdout) exec " + quiver + " >/dev/full ;;\n  stderr) exec " + quiver + " 2>/dev/full ;;\nesac\nexec "
                + quiver + "\n");
        Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwx------"));
        Path wrapped = temp.resolve("unwritable");
        for (String unwritable : List.of("stdout", "stderr")) {
            Files.writeString(where, unwritable);
            QuiverProcess.run(wrapped, workspace, TRACE, "", "tools", "--json");
            Files.writeString(where, "open");
            QuiverProcess.Run next = QuiverProcess.run(wrapped, workspace, TRACE, "", "tools", "--json");
            assertFalse(next.stderr().contains(FROM_RECORD), unwritable + " unwritable was recorded: " + next);
            assertTrue(next.stdout().startsWith("[{\"name\""), next.toString());
            QuiverProcess.Run recorded = QuiverProcess.run(wrapped, workspace, TRACE, "", "tools", "--json");
            assertTrue(recorded.stderr().contains(FROM_RECORD), "the run with both streams open is recorded: " + recorded);
            Files.delete(recordFile());
        }
    }

    @Test
    void theAnswerReachesStdoutWhenStderrCannotBeWritten() throws Exception {
        // the same wrapper for every run (a shell may add to the environment), told by a file where stderr goes
        Path where = Files.writeString(temp.resolve("stderr-goes"), "open");
        Path wrapper = Files.createDirectories(temp.resolve("wrapped/bin")).resolve("quiver");
        String quiver = "\"" + dist.resolve("bin/quiver") + "\" \"$@\"";
        Files.writeString(wrapper, "#!/bin/sh\ncase \"$(cat '" + where + "')\" in\n"
                + "  closed) exec " + quiver + " 2>&- ;;\n  full) exec " + quiver + " 2>/dev/full ;;\nesac\nexec " + quiver + "\n");
        Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwx------"));
        Path wrapped = temp.resolve("wrapped");
        QuiverProcess.Run live = QuiverProcess.run(wrapped, workspace, TRACE, "", "tools", "--json");
        assertEquals(0, live.exitCode(), live.toString());
        QuiverProcess.Run again = QuiverProcess.run(wrapped, workspace, TRACE, "", "tools", "--json");
        assertTrue(again.stderr().contains(FROM_RECORD), again.toString());

        // marks the record's stdout, so that what follows is told from a live run
        Path record = recordFile();
        List<String> lines = Files.readAllLines(record);
        String marked = "[{\"name\":\"from the record\"}]\n";
        assertTrue(lines.get(3).startsWith("stdout "), lines.get(3));
        lines.set(3, "stdout " + java.util.Base64.getEncoder().encodeToString(marked.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        Files.writeString(record, String.join("\n", lines) + "\n");
        for (String stderr : List.of("closed", "full")) {
            Files.writeString(where, stderr);
            QuiverProcess.Run run = QuiverProcess.run(wrapped, workspace, TRACE, "", "tools", "--json");
            assertEquals(0, run.exitCode(), stderr + ": " + run);
            assertEquals(marked, run.stdout(), stderr);
        }
    }

    @Test
    void commandsACrashedRunLeftAreKilledByALiveStart() throws Exception {
        recorded();
        // what the shell's Journal leaves when its process is killed: the journal and its lock, nobody holding it
        Process finished = new ProcessBuilder("true").start();
        finished.waitFor();
        Path shell = Files.createDirectories(QuiverProcess.home(workspace).resolve(".state/quiver/shell"));
        String run = "commands-" + finished.pid() + "-12345";
        Path journal = Files.writeString(shell.resolve(run + ".txt"), "# Quiver shell journal of process "
                + finished.pid() + " 12345 (pid, start ticks). Background commands: handle pid start-ticks\ntag 77\n");
        Path lock = Files.writeString(shell.resolve(run + ".lock"), "");
        Result after = tools();
        assertFalse(after.fromRecord(), after.toString());
        // the shell cleaned up the folder the record looked at: the two find it alike
        assertFalse(Files.exists(journal), "the shell's cleanup ran on " + shell);
        assertFalse(Files.exists(lock), "the shell's cleanup ran on " + shell);
        assertTrue(tools().fromRecord(), "nothing left: the record answers again");
    }
}
