package dev.quiver.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Shell.Command;
import dev.quiver.api.Shell.Result;
import dev.quiver.api.ToolException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessShellTest {

    /** Long enough that no test waits for it: only a command that hangs would reach it. */
    private static final Duration GENEROUS = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private final ProcessShell shell = new ProcessShell();

    private Result run(String line, Duration timeout, TestContext context) throws ToolException {
        return shell.run(new Command(line, timeout), context);
    }

    private Result run(String line) throws ToolException, IOException {
        return run(line, GENEROUS, TestContext.in(dir));
    }

    @Test
    void exitCodeAndBothStreamsAreReported() throws Exception {
        Result result = run("echo to-out; echo to-err >&2; exit 3");
        assertEquals(Result.End.EXITED, result.end());
        assertEquals(3, result.exitCode());
        assertEquals("to-out\n", result.stdout());
        assertEquals("to-err\n", result.stderr());
    }

    @Test
    void successfulCommandExitsWithZero() throws Exception {
        Result result = run("printf 'a\\nb'");
        assertEquals(Result.End.EXITED, result.end());
        assertEquals(0, result.exitCode());
        assertEquals("a\nb", result.stdout());
        assertEquals("", result.stderr());
    }

    @Test
    void commandRunsInTheWorkspaceRoot() throws Exception {
        Files.writeString(dir.resolve("marker.txt"), "here\n");
        Result result = run("pwd; cat marker.txt");
        assertEquals(dir.toRealPath() + "\nhere\n", result.stdout());
    }

    @Test
    void stdinIsClosedSoReadersSeeEndOfInputAtOnce() throws Exception {
        Result result = run("cat; read line; echo \"read=$?\"");
        assertEquals(Result.End.EXITED, result.end());
        assertEquals(0, result.exitCode());
        assertEquals("read=1\n", result.stdout());
    }

    @Test
    void pagersAndPromptsAreSwitchedOff() throws Exception {
        Result result = run("echo \"$PAGER|$GIT_PAGER|$GIT_TERMINAL_PROMPT\"");
        assertEquals("cat|cat|0\n", result.stdout());
    }

    @Test
    void commandRunsInItsOwnSession() throws Exception {
        Result result = run("ps -o sid= -p $$; echo $$");
        String[] lines = result.stdout().trim().split("\\s+");
        assertEquals(lines[1], lines[0], "bash leads its own session: " + result.stdout());
        assertFalse(lines[0].equals(Long.toString(ProcessHandle.current().pid())));
    }

    @Test
    void timeoutKillsTheCommandAndEveryGrandchild() throws Exception {
        String marker = "quiver-timeout-" + UUID.randomUUID();
        String line = "echo started; "
                + "(exec -a " + marker + " sleep 100) & echo $! >> pids; "
                + "bash -c '(exec -a " + marker + " sleep 100) & echo $! >> pids; exec -a " + marker
                + " sleep 100' & echo $! >> pids; "
                + "sleep 0.2; exec -a " + marker + " sleep 100";
        Result result = run(line, Duration.ofSeconds(2), TestContext.in(dir));
        assertEquals(Result.End.TIMED_OUT, result.end());
        assertEquals(-1, result.exitCode());
        assertEquals("started\n", result.stdout());
        List<Long> pids = Processes.pids(dir.resolve("pids"));
        assertEquals(3, pids.size(), "the command recorded its background pids: " + pids);
        Processes.assertAllGoneWithin(5000, pids);
        Processes.assertAllGoneWithin(5000, Processes.withMarker(marker));
    }

    @Test
    void timeoutOfABackgroundAndAForegroundSleepKillsBoth() throws Exception {
        // a fractional duration unique to this run marks both sleeps' command lines
        String seconds = "100." + Math.abs(UUID.randomUUID().getMostSignificantBits() % 1_000_000_000L);
        long started = System.nanoTime();
        Result result = run("sleep " + seconds + " & echo $! > pids; sleep " + seconds, Duration.ofMillis(500),
                TestContext.in(dir));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertEquals(Result.End.TIMED_OUT, result.end());
        assertEquals(-1, result.exitCode());
        assertTrue(tookMillis < 30_000, "returned after " + tookMillis + " ms");
        assertTrue(result.elapsed().toMillis() >= 500, "elapsed " + result.elapsed());
        Processes.assertAllGoneWithin(5000, Processes.pids(dir.resolve("pids")));
        Processes.assertAllGoneWithin(5000, Processes.withMarker("sleep " + seconds));
    }

    @Test
    void descendantThatMovedToItsOwnSessionIsKilledOnTimeout() throws Exception {
        Result result = run("setsid sleep 100 & echo $! > pids; sleep 100", Duration.ofSeconds(1), TestContext.in(dir));
        assertEquals(Result.End.TIMED_OUT, result.end());
        Processes.assertAllGoneWithin(5000, Processes.pids(dir.resolve("pids")));
    }

    @Test
    void backgroundChildLeftByACommandThatExitsIsKilledAtTheEnd() throws Exception {
        String marker = "quiver-left-behind-" + UUID.randomUUID();
        Result result = run("(exec -a " + marker + " sleep 100) & echo $!");
        assertEquals(Result.End.EXITED, result.end());
        assertEquals(0, result.exitCode());
        long pid = Long.parseLong(result.stdout().trim());
        Processes.assertAllGoneWithin(5000, List.of(pid));
        Processes.assertAllGoneWithin(5000, Processes.withMarker(marker));
    }

    @Test
    void cancellationThroughTheContextFlagKillsTheCommand() throws Exception {
        TestContext context = TestContext.in(dir);
        String seconds = "100." + Math.abs(UUID.randomUUID().getMostSignificantBits() % 1_000_000_000L);
        CompletableFuture<Result> running = CompletableFuture.supplyAsync(() -> {
            try {
                return run("sleep " + seconds + " & echo $! > pids; echo ready; sleep " + seconds, GENEROUS, context);
            } catch (ToolException e) {
                throw new IllegalStateException(e);
            }
        });
        waitForStreamed(context, "ready");
        assertEquals(2, Processes.withMarker("sleep " + seconds).size(), "both sleeps are seen running from outside");
        context.cancelled.set(true);
        Result result = running.get(30, TimeUnit.SECONDS);
        assertEquals(Result.End.CANCELLED, result.end());
        assertEquals(-1, result.exitCode());
        assertEquals("ready\n", result.stdout());
        Processes.assertAllGoneWithin(5000, Processes.pids(dir.resolve("pids")));
        Processes.assertAllGoneWithin(5000, Processes.withMarker("sleep " + seconds));
    }

    @Test
    void interruptingTheCallingThreadCancelsAndKillsTheCommand() throws Exception {
        TestContext context = TestContext.in(dir);
        Result[] holder = new Result[1];
        Thread caller = new Thread(() -> {
            try {
                holder[0] = run("sleep 100 & echo $! > pids; echo ready; sleep 100", GENEROUS, context);
            } catch (ToolException e) {
                throw new IllegalStateException(e);
            }
        });
        caller.start();
        waitForStreamed(context, "ready");
        caller.interrupt();
        caller.join(30_000);
        assertFalse(caller.isAlive(), "the call returned after the interrupt");
        assertEquals(Result.End.CANCELLED, holder[0].end());
        Processes.assertAllGoneWithin(5000, Processes.pids(dir.resolve("pids")));
    }

    @Test
    void hugeOutputReturnsBoundedTextThatSaysHowMuchWasDropped() throws Exception {
        TestContext context = TestContext.countingOnly(dir);
        long total = 100_000_000L;
        Result result = run("head -c " + total + " /dev/zero | tr '\\0' a", GENEROUS, context);
        assertEquals(Result.End.EXITED, result.end());
        assertEquals(0, result.exitCode());
        String out = result.stdout();
        long dropped = total - ProcessShell.HEAD_BYTES - ProcessShell.TAIL_BYTES;
        String note = "\n... [" + dropped + " bytes of output dropped from the middle; " + total + " bytes in all] ...\n";
        assertEquals("a".repeat(ProcessShell.HEAD_BYTES) + note + "a".repeat(ProcessShell.TAIL_BYTES), out);
        assertEquals(total, context.streamedChars(), "everything was streamed live");
    }

    @Test
    void outputKeepsItsHeadAndTailWhereErrorsUsuallyAre() throws Exception {
        Result result = run("echo FIRST-LINE; seq 1 100000; echo LAST-LINE >&1; echo only-error >&2");
        assertTrue(result.stdout().startsWith("FIRST-LINE\n1\n2\n"), result.stdout().substring(0, 40));
        assertTrue(result.stdout().endsWith("99999\n100000\nLAST-LINE\n"));
        assertTrue(result.stdout().contains("bytes of output dropped from the middle"));
        assertEquals("only-error\n", result.stderr());
    }

    @Test
    void contextStreamReceivesTheOutputOfBothStreams() throws Exception {
        TestContext context = TestContext.in(dir);
        Result result = run("echo from-stdout; echo from-stderr >&2", GENEROUS, context);
        assertEquals(Result.End.EXITED, result.end());
        String streamed = context.streamed();
        assertTrue(streamed.contains("from-stdout\n"), streamed);
        assertTrue(streamed.contains("from-stderr\n"), streamed);
        assertEquals("from-stdout\nfrom-stderr\n".length(), streamed.length(), streamed);
    }

    @Test
    void streamShowsOutputWhileTheCommandStillRuns() throws Exception {
        TestContext context = TestContext.in(dir);
        CompletableFuture<Result> running = CompletableFuture.supplyAsync(() -> {
            try {
                return run("echo early; while [ ! -e go ]; do sleep 0.05; done; echo late", GENEROUS, context);
            } catch (ToolException e) {
                throw new IllegalStateException(e);
            }
        });
        waitForStreamed(context, "early\n");
        assertFalse(running.isDone(), "the command waits for the go file");
        assertFalse(context.streamed().contains("late"));
        Files.writeString(dir.resolve("go"), "");
        Result result = running.get(30, TimeUnit.SECONDS);
        assertEquals("early\nlate\n", result.stdout());
        assertEquals("early\nlate\n", context.streamed());
    }

    @Test
    void multiByteCharacterSplitAcrossWritesIsStreamedWhole() throws Exception {
        TestContext context = TestContext.in(dir);
        // the two bytes of U+00E9 arrive in two reads
        Result result = run("printf '\\303'; sleep 0.5; printf '\\251\\n'", GENEROUS, context);
        assertEquals("\u00e9\n", result.stdout());
        assertEquals("\u00e9\n", context.streamed());
    }

    @Test
    void failingStreamConsumerDoesNotLoseTheResult() throws Exception {
        TestContext inner = TestContext.in(dir);
        dev.quiver.api.ToolContext failing = new dev.quiver.api.ToolContext() {
            @Override
            public dev.quiver.api.Workspace workspace() {
                return inner.workspace();
            }

            @Override
            public void stream(String text) {
                throw new IllegalStateException("front end gone");
            }

            @Override
            public java.util.Optional<Object> config(String key) {
                return java.util.Optional.empty();
            }

            @Override
            public boolean isCancelled() {
                return false;
            }
        };
        Result result = shell.run(new Command("echo still-here; exit 4", GENEROUS), failing);
        assertEquals(4, result.exitCode());
        assertEquals("still-here\n", result.stdout());
    }

    private static void waitForStreamed(TestContext context, String text) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!context.streamed().contains(text)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("never streamed " + text + "; got: " + context.streamed());
            }
            Thread.sleep(10);
        }
    }
}
