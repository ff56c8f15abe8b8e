package dev.quiver.tools.core;

import dev.quiver.workspace.ToolTestContext;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BashStopToolTest {

    @TempDir
    Path root;

    ToolTestContext context;
    final Shell shell = new ProcessShell();
    final BashTool bash = new BashTool(shell);
    final BashStopTool stop = new BashStopTool(shell);

    @BeforeEach
    void open() throws Exception {
        context = new ToolTestContext(root);
        context.config.put("shell", Map.of("sandbox", "off"));
    }

    private String start(String command, String name) throws ToolException {
        String text = bash.call(Arguments.of(Map.of("command", command, "background", true, "name", name)), context)
                .text();
        return text.substring("Started in the background as ".length()).split(" ")[0];
    }

    private String stop(String handle) throws ToolException {
        return stop.call(Arguments.of(Map.of("handle", handle)), context).text();
    }

    private static boolean running(long pid) throws Exception {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            char state = stat.substring(stat.lastIndexOf(')') + 2).charAt(0);
            return state != 'Z' && state != 'X';
        } catch (java.nio.file.NoSuchFileException gone) {
            return false;
        }
    }

    @Test
    void stopKillsTheCommandAndWhatItStartedAndReturnsItsLastOutput() throws Exception {
        String handle = start("sleep 100 & echo $! > child; echo $$ > leader; echo ready; wait", "pair");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!(Files.exists(root.resolve("leader")) && Files.exists(root.resolve("child"))
                && !Files.readString(root.resolve("leader")).isBlank()) && System.nanoTime() - deadline < 0) {
            Thread.sleep(20);
        }
        Thread.sleep(50);
        long leader = Long.parseLong(Files.readString(root.resolve("leader")).trim());
        long child = Long.parseLong(Files.readString(root.resolve("child")).trim());
        String text = stop("pair");
        assertTrue(text.matches("Stopped " + handle + " \\(\"pair\"\\) after \\d+\\.\\d s: killed with every process it "
                + "started\\.\nstdout:\nready\n"), text);
        // stop returns once they are gone, so nothing is waited for here
        assertEquals(List.of(), List.of(leader, child).stream().filter(pid -> {
            try {
                return running(pid);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }).toList());
    }

    @Test
    void stoppingACommandThatEndedSaysSo() throws Exception {
        String handle = start("exit 0", "quick");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (shell.jobs().stream().anyMatch(job -> job.state() == Shell.Job.State.RUNNING
                && job.handle().equals(handle)) && System.nanoTime() - deadline < 0) {
            Thread.sleep(20);
        }
        String text = stop(handle);
        assertTrue(text.matches("It had already ended: " + handle + " \\(\"quick\"\\) exited with code 0 after \\d+\\.\\d s\\."),
                text);
    }

    @Test
    void subjectIsTheHandle() throws ToolException {
        assertEquals(List.of(Subject.name("web")), stop.subjects(Arguments.of(Map.of("handle", "web"))));
    }
}
