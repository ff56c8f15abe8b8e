package dev.quiver.tools.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BashToolTest {

    @TempDir
    Path root;

    TestContext context;
    final BashTool tool = new BashTool(new ProcessShell());

    @BeforeEach
    void open() throws IOException {
        context = new TestContext(root);
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
                () -> bash(Map.of("command", "echo partial-progress; sleep 100", "timeout", 1000)));
        String message = error.getMessage();
        assertTrue(message.startsWith("The command timed out after 1000 ms and was killed with every process it "
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
}
