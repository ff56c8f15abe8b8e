package dev.quiver.tools.core;

import dev.quiver.workspace.ToolTestContext;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.Shell;
import dev.quiver.api.Subject;
import dev.quiver.api.ToolException;
import dev.quiver.shell.ProcessShell;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BashToolTest {

    @TempDir
    Path root;

    ToolTestContext context;
    final Shell shell = new ProcessShell();
    final BashTool tool = new BashTool(shell);

    @BeforeEach
    void open() throws IOException {
        context = new ToolTestContext(root);
        // the exact output of these tests is the output of the commands: no login profile's complaint
        // about a read-only home (pyenv's "cannot rehash") may join it; the sandbox has its own tests below
        context.config.put("shell", Map.of("sandbox", "off"));
    }

    @AfterEach
    void stopBackgroundCommands() throws ToolException {
        for (Shell.Job job : shell.jobs()) {
            if (job.state() == Shell.Job.State.RUNNING) {
                shell.stop(job.handle());
            }
        }
    }

    private String bash(Map<String, ?> arguments) throws ToolException {
        return tool.call(Arguments.of(arguments), context).text();
    }

    @Test
    void exitCodeLineThenStdout() throws Exception {
        assertEquals("Exit code 0.\nstdout:\nhello\n", bash(Map.of("command", "echo hello")));
    }

    @Test
    void stdoutAndStderrGetTheirOwnSections() throws Exception {
        assertEquals("Exit code 2.\nstdout:\nout\nstderr:\nerr\n",
                bash(Map.of("command", "echo out; echo err >&2; exit 2")));
    }

    @Test
    void stderrSectionStartsOnItsOwnLineAfterUnterminatedStdout() throws Exception {
        assertEquals("Exit code 0.\nstdout:\nno newline\nstderr:\nerr\n",
                bash(Map.of("command", "printf 'no newline'; echo err >&2")));
    }

    @Test
    void onlyStderrHasNoStdoutSection() throws Exception {
        assertEquals("Exit code 1.\nstderr:\nbad\n", bash(Map.of("command", "echo bad >&2; exit 1")));
    }

    @Test
    void commandWithoutOutputSaysSo() throws Exception {
        assertEquals("Exit code 0. No output.", bash(Map.of("command", "true")));
    }

    @Test
    void commandRunsInTheWorkspaceRoot() throws Exception {
        Files.writeString(root.resolve("here.txt"), "x");
        assertEquals("Exit code 0.\nstdout:\nhere.txt\n", bash(Map.of("command", "ls")));
    }

    @Test
    void timeoutRaisesAnErrorSayingEffectsAreUnknownWithWhatWasPrintedFirst() throws Exception {
        ToolException error = assertThrows(ToolException.class,
                () -> bash(Map.of("command", "echo partial-progress; sleep 100", "timeout", 2500)));
        String message = error.getMessage();
        assertTrue(message.startsWith("The command timed out after 2500 ms and was killed with every process it "
                + "started. It did not finish, so its effects are unknown."), message);
        assertTrue(message.endsWith("\nstdout:\npartial-progress\n"), message);
    }

    @Test
    void cancellationRaisesAnErrorSayingItWasInterrupted() throws Exception {
        CompletableFuture<String> running = CompletableFuture.supplyAsync(() -> {
            try {
                return bash(Map.of("command", "echo begun; sleep 100"));
            } catch (ToolException e) {
                throw new IllegalStateException(e);
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!context.streamedText().contains("begun") && System.nanoTime() - deadline < 0) {
            Thread.sleep(10);
        }
        context.cancelled.set(true);
        ExecutionException failed = assertThrows(ExecutionException.class, () -> running.get(30, TimeUnit.SECONDS));
        String message = failed.getCause().getCause().getMessage();
        assertTrue(message.startsWith("The command was interrupted and killed with every process it started. "
                + "It did not finish, so its effects are unknown."), message);
        assertTrue(message.contains("begun"), message);
    }

    @Test
    void shellKillingItselfWithSigkillGetsASignalNote() throws Exception {
        assertEquals("Exit code 137 (ended by signal 9, SIGKILL). No output.", bash(Map.of("command", "kill -9 $$")));
    }

    @Test
    void childEndedBySigtermGetsASignalNote() throws Exception {
        assertEquals("Exit code 143 (ended by signal 15, SIGTERM). No output.",
                bash(Map.of("command", "sh -c 'kill -TERM $$'")));
    }

    @Test
    void signalNoteCoversOnlyCodesAbove128() {
        assertEquals("", BashTool.signalNote(0));
        assertEquals("", BashTool.signalNote(128));
        assertEquals("ended by signal 11, SIGSEGV", BashTool.signalNote(139));
        assertEquals("ended by signal 10, signal 10", BashTool.signalNote(138));
        assertEquals("", BashTool.signalNote(255));
    }

    @Test
    void outputIsStreamedToTheContext() throws Exception {
        bash(Map.of("command", "echo streamed-line"));
        assertEquals("streamed-line\n", context.streamedText());
    }

    @Test
    void blankCommandAndOutOfRangeTimeoutAreRefused() {
        assertEquals("command is empty. Give the shell command to run.",
                assertThrows(ToolException.class, () -> bash(Map.of("command", "  "))).getMessage());
        assertEquals("Argument 'timeout' must be between 1 and 600000, got 0.",
                assertThrows(ToolException.class, () -> bash(Map.of("command", "true", "timeout", 0))).getMessage());
        assertEquals("Argument 'timeout' must be between 1 and 600000, got 600001.",
                assertThrows(ToolException.class, () -> bash(Map.of("command", "true", "timeout", 600_001))).getMessage());
    }

    @Test
    void subjectIsTheCommandLine() throws ToolException {
        assertEquals(List.of(Subject.command("git status && rm -rf build")),
                tool.subjects(Arguments.of(Map.of("command", "git status && rm -rf build"))));
    }

    /**
     * Waits until the latest background command printed "ready": stopping one while bash -lc still
     * runs the login profile can leave the profile's lock files behind (pyenv's stall later shells).
     */
    private void awaitReady() throws Exception {
        String handle = shell.jobs().get(shell.jobs().size() - 1).handle();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        StringBuilder seen = new StringBuilder();
        while (!seen.toString().contains("ready") && System.nanoTime() - deadline < 0) {
            seen.append(shell.poll(handle).stdout());
            Thread.sleep(20);
        }
        assertTrue(seen.toString().contains("ready"), seen.toString());
    }

    @Test
    void backgroundCommandReturnsAHandleAtOnce() throws Exception {
        long started = System.nanoTime();
        String text = bash(Map.of("command", "echo ready; sleep 100", "background", true, "name", "sleeper"));
        assertTrue(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started) < 30, "returned at once");
        awaitReady();
        assertTrue(text.matches("Started in the background as bg\\d+ \\(\"sleeper\"\\), not sandboxed\\. It runs until it "
                + "ends or bash_stop stops it, and is killed when Quiver exits\\. Read its output with bash_status\\."),
                text);
        assertEquals(Shell.Job.State.RUNNING, shell.jobs().get(shell.jobs().size() - 1).state());
    }

    @Test
    void backgroundCommandSaysTheTimeoutDoesNotApply() throws Exception {
        String text = bash(Map.of("command", "echo ready; sleep 100", "background", true, "timeout", 1000));
        awaitReady();
        assertTrue(text.endsWith(" The timeout does not apply to background commands."), text);
    }

    @Test
    void badShellConfigurationIsReportedNotIgnored() {
        context.config.put("shell", Map.of("sandbox", "maybe"));
        ToolException error = assertThrows(ToolException.class, () -> bash(Map.of("command", "touch ran")));
        assertTrue(error.getMessage().startsWith("The shell configuration is invalid, so no command runs: "
                + "\"shell\".\"sandbox\" must be \"auto\", \"required\" or \"off\", got \"maybe\"."), error.getMessage());
        assertTrue(Files.notExists(root.resolve("ran")));
    }

    @Test
    void sandboxedCommandCannotWriteOutsideTheWorkspaceNorReadSecrets() throws Exception {
        context.config.remove("shell");
        Files.writeString(root.resolve(".env"), "KEY=top-secret\n");
        String text = bash(Map.of("command", "cat .env; echo \"[$QUIVER_SANDBOX]\"; touch /etc/quiver-probe && echo wrote "
                + "|| echo refused; echo inside > inside.txt"));
        assertTrue(text.startsWith("Exit code 0.\nstdout:\n[bubblewrap]\nrefused\n"), text);
        assertEquals("inside\n", Files.readString(root.resolve("inside.txt")));
        assertTrue(Files.notExists(Path.of("/etc/quiver-probe")));
    }

    @Test
    void schemaOffersBackgroundAndName() {
        String schema = tool.spec().parameters();
        assertTrue(schema.contains("\"background\":{\"type\":\"boolean\"}"), schema);
        assertTrue(schema.contains("\"name\":"), schema);
    }

    @Test
    void schemasStayWithinTheirBudgets() throws Exception {
        // counted as quiver tools --json counts schema_bytes; bash is held to 0.8 of shiro-neko's 466 bytes,
        // bash_status and bash_stop to 0.8 of its smallest tool (write_file, 289)
        assertTrue(schemaBytes(tool.spec()) <= 466 * 8 / 10, "bash: " + schemaBytes(tool.spec()));
        assertTrue(schemaBytes(new BashStatusTool(shell).spec()) <= 289 * 8 / 10);
        assertTrue(schemaBytes(new BashStopTool(shell).spec()) <= 289 * 8 / 10);
    }

    private static int schemaBytes(dev.quiver.api.ToolSpec spec) throws Exception {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        String compact = json.writeValueAsString(json.readTree(spec.parameters()));
        return (spec.name() + spec.description() + compact).getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    }
}
