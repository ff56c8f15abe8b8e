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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BashStatusToolTest {

    @TempDir
    Path root;

    ToolTestContext context;
    final Shell shell = new ProcessShell();
    final BashTool bash = new BashTool(shell);
    final BashStatusTool status = new BashStatusTool(shell);
    final BashStopTool stop = new BashStopTool(shell);

    @BeforeEach
    void open() throws Exception {
        context = new ToolTestContext(root);
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

    private String start(String command, String name) throws ToolException {
        String text = bash.call(Arguments.of(Map.of("command", command, "background", true, "name", name)), context)
                .text();
        return text.substring("Started in the background as ".length()).split(" ")[0];
    }

    private String status(Map<String, ?> arguments) throws ToolException {
        return status.call(Arguments.of(arguments), context).text();
    }

    private String statusUntil(String handle, Predicate<String> done) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        StringBuilder seen = new StringBuilder();
        while (true) {
            String text = status(Map.of("handle", handle));
            seen.append(text).append('\n');
            if (done.test(text)) {
                return text;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("never: " + seen);
            }
            Thread.sleep(20);
        }
    }

    @Test
    void reportsRunningThenOnlyNewOutputThenTheExitCode() throws Exception {
        String handle = start("echo first; while [ ! -e go ]; do sleep 0.02; done; echo second >&2; exit 4", "job");
        String first = statusUntil(handle, text -> text.contains("first"));
        assertTrue(first.matches(handle + " \\(\"job\"\\) is running \\(\\d+\\.\\d s so far\\)\\.\nstdout:\nfirst\n"), first);
        String quiet = status(Map.of("handle", "job"));
        assertTrue(quiet.endsWith("so far). No new output."), quiet);
        Files.writeString(root.resolve("go"), "");
        // polled until it ended: the output may come with the last running report or with the end
        StringBuilder seen = new StringBuilder();
        String ended = statusUntil(handle, text -> {
            seen.append(text);
            return !text.contains("is running");
        });
        assertTrue(ended.matches(handle + " \\(\"job\"\\) exited with code 4 after \\d+\\.\\d s\\.(\nstderr:\nsecond\n| No new output\\.)"),
                ended);
        assertTrue(seen.toString().contains("stderr:\nsecond\n"), seen.toString());
        assertTrue(status(Map.of("handle", handle)).endsWith(" No new output."));
    }

    @Test
    void exitBySignalGetsItsNote() throws Exception {
        String handle = start("kill -9 $$", "self-kill");
        String ended = statusUntil(handle, text -> !text.contains("is running"));
        assertTrue(ended.contains("exited with code 137 (ended by signal 9, SIGKILL) after"), ended);
    }

    @Test
    void withoutAHandleListsEveryBackgroundCommand() throws Exception {
        assertEquals("No background commands. Start one with bash and background: true.", status(Map.of()));
        String handle = start("echo ready; sleep 100", "sleeper");
        statusUntil(handle, text -> text.contains("ready"));
        String list = status(Map.of());
        assertTrue(list.matches(handle + " \\(\"sleeper\"\\) is running \\(\\d+\\.\\d s so far\\)\\. \\$ echo ready; sleep 100"),
                list);
    }

    @Test
    void unknownHandleIsAnError() {
        ToolException error = assertThrows(ToolException.class, () -> status(Map.of("handle", "nope")));
        assertTrue(error.getMessage().startsWith("No background command is called \"nope\"."), error.getMessage());
    }

    @Test
    void subjectIsTheHandle() throws ToolException {
        assertEquals(List.of(Subject.name("bg3")), status.subjects(Arguments.of(Map.of("handle", "bg3"))));
        assertEquals(List.of(), status.subjects(Arguments.empty()));
    }
}
