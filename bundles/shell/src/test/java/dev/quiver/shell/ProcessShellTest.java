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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The process machinery without the sandbox ({@code "sandbox": "off"}), where the pids a command
 * prints are the pids seen from outside. {@link SandboxTest} covers the same ground inside bubblewrap.
 */
class ProcessShellTest {

    /** Long enough that no test waits for it: only a command that hangs would reach it. */
    private static final Duration GENEROUS = Duration.ofSeconds(60);

    /*
     * TIMEOUTS_OUTLAST_THE_PROFILE: no test kills a command while bash -lc still runs the login profile
     * (timeouts of 2 s or more; interrupts only after the command printed). A profile killed half-way
     * can leave its own lock files behind: pyenv's rehash then stalls every later login shell of the
     * machine for 60 s. Quiver sends SIGTERM before SIGKILL, which lets most such scripts clean up.
     */

    @TempDir
    Path dir;

    @TempDir
    Path state;

    private ProcessShell shell;

    @BeforeEach
    void open() {
        shell = new ProcessShell(state, System.getenv("PATH"));
    }

    private Result run(String line, Duration timeout, TestContext context) throws ToolException {
        return shell.run(new Command(line, timeout), context.unsandboxed());
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
        Result result = run("sleep " + seconds + " & echo $! > pids; sleep " + seconds, Duration.ofMillis(2000),
                TestContext.in(dir));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertEquals(Result.End.TIMED_OUT, result.end());
        assertEquals(-1, result.exitCode());
        assertTrue(tookMillis < 30_000, "returned after " + tookMillis + " ms");
        assertTrue(result.elapsed().toMillis() >= 2000, "elapsed " + result.elapsed());
        Processes.assertAllGoneWithin(5000, Processes.pids(dir.resolve("pids")));
        Processes.assertAllGoneWithin(5000, Processes.withMarker("sleep " + seconds));
    }

    @Test
    void descendantThatMovedToItsOwnSessionIsKilledOnTimeout() throws Exception {
        Result result = run("setsid sleep 100 & echo $! > pids; sleep 100", Duration.ofSeconds(2), TestContext.in(dir));
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
        // "ready" comes just before the second sleep starts
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (Processes.withMarker("sleep " + seconds).size() < 2 && System.nanoTime() - deadline < 0) {
            Thread.sleep(10);
        }
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
                return inner.config(key);
            }

            @Override
            public java.util.Map<String, String> environment() {
                return inner.environment();
            }

            @Override
            public boolean isCancelled() {
                return false;
            }
        };
        inner.unsandboxed();
        Result result = shell.run(new Command("echo still-here; exit 4", GENEROUS), failing);
        assertEquals(4, result.exitCode());
        assertEquals("still-here\n", result.stdout());
    }

    @Test
    void sleepWithAGrandchildIsGoneWithinASecondOfTheTimeout() throws Exception {
        String marker = "quiver-grandchild-" + UUID.randomUUID();
        // longer than a slow login profile takes (see TIMEOUTS_OUTLAST_THE_PROFILE)
        long timeoutMillis = 2000;
        Path pidFile = dir.resolve("pids");
        // watched from outside, through the pids' /proc entries, while the call runs
        GoneWatch watch = new GoneWatch(pidFile, 2);
        Thread watcher = new Thread(watch, "gone-watch");
        watcher.setDaemon(true);
        watcher.setPriority(Thread.MAX_PRIORITY);
        watcher.start();
        // opening the workspace is the test's setup, not the call: under load it alone can take most of a second
        TestContext context = TestContext.in(dir);
        long started = System.nanoTime();
        // bash starts a child shell that starts a grandchild; then bash itself sleeps in the foreground
        Result result = run("bash -c '(exec -a " + marker + " sleep 100) & echo $! >> pids; wait' & echo $! >> pids; "
                + "exec -a " + marker + " sleep 100", Duration.ofMillis(timeoutMillis), context);
        assertEquals(Result.End.TIMED_OUT, result.end());
        watcher.join(10_000);
        assertFalse(watcher.isAlive(), "the watcher saw the processes end");
        List<Long> pids = Processes.pids(pidFile);
        assertEquals(2, pids.size(), "the child and the grandchild recorded their pids: " + pids);
        assertEquals(List.of(), pids.stream().filter(Processes::running).toList());
        assertEquals(List.of(), Processes.withMarker(marker));

        long limit = started + TimeUnit.MILLISECONDS.toNanos(timeoutMillis + 1000);
        long timedOut = started + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        assertTrue(watch.seenAllRunning, "both processes were seen running before the timeout: " + pids);
        String when = "last seen running " + millisAfter(timedOut, watch.lastSeenRunning) + " ms after the timeout, "
                + "first seen gone " + millisAfter(timedOut, watch.firstSeenGone) + " ms after it";
        // seen running more than a second after the timeout: certainly too late
        assertTrue(watch.lastSeenRunning - limit < 0, when);
        // first seen gone after that second: too late too, unless the watcher itself was not scheduled
        // in between (a loaded machine), when all that is known is that they were gone by then
        long gap = watch.firstSeenGone - watch.lastSeenRunning;
        assertTrue(watch.firstSeenGone - limit < 0 || gap > TimeUnit.MILLISECONDS.toNanos(GoneWatch.TRUSTED_GAP_MILLIS),
                when);
    }

    private static long millisAfter(long from, long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos - from);
    }

    /**
     * Polls the /proc entries of the pids a command writes to a file, from outside the shell: when
     * each was last seen running and when all were first seen gone ({@link Processes#running}; a
     * zombie is gone).
     */
    private static final class GoneWatch implements Runnable {
        /** A gap between two looks longer than this says the watcher was not scheduled, not when they went. */
        static final long TRUSTED_GAP_MILLIS = 100;
        private static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(60);

        private final Path pidFile;
        private final int expected;
        volatile boolean seenAllRunning;
        volatile long lastSeenRunning;
        volatile long firstSeenGone;

        GoneWatch(Path pidFile, int expected) {
            this.pidFile = pidFile;
            this.expected = expected;
        }

        @Override
        public void run() {
            long begun = System.nanoTime();
            List<Long> pids = List.of();
            while (System.nanoTime() - begun < GIVE_UP_NANOS) {
                long now = System.nanoTime();
                if (pids.size() < expected) {
                    try {
                        pids = Processes.pids(pidFile);
                    } catch (IOException | NumberFormatException notYet) {
                        pids = List.of();
                    }
                }
                if (pids.size() >= expected) {
                    long running = pids.stream().filter(Processes::running).count();
                    if (running == pids.size()) {
                        seenAllRunning = true;
                    }
                    if (running > 0) {
                        lastSeenRunning = now;
                    } else if (seenAllRunning) {
                        firstSeenGone = now;
                        return;
                    }
                }
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    @Test
    void commandThatClosesStdoutEarlyRunsToItsEnd() throws Exception {
        Result result = run("echo before; exec 1>&-; sleep 0.3; echo after-close >&2; exit 3");
        assertEquals(Result.End.EXITED, result.end());
        assertEquals(3, result.exitCode());
        assertEquals("before\n", result.stdout());
        assertEquals("after-close\n", result.stderr());
    }

    @Test
    void commandWhoseReaderStopsEarlyEndsWithoutHanging() throws Exception {
        // yes would print forever; head closing the pipe ends it with SIGPIPE
        Result result = run("yes | head -c 6; echo \" pipe=${PIPESTATUS[0]}\"");
        assertEquals(Result.End.EXITED, result.end());
        assertEquals("y\ny\ny\n pipe=141\n", result.stdout());
    }

    @Test
    void interruptWhileTheCommandPrintsKillsItPromptly() throws Exception {
        TestContext context = TestContext.in(dir);
        CompletableFuture<Result> running = CompletableFuture.supplyAsync(() -> {
            try {
                return run("echo $$ > pid; exec yes printing-fast", GENEROUS, context);
            } catch (ToolException e) {
                throw new IllegalStateException(e);
            }
        });
        waitForStreamed(context, "printing-fast\nprinting-fast\n");
        context.cancelled.set(true);
        Result result = running.get(30, TimeUnit.SECONDS);
        assertEquals(Result.End.CANCELLED, result.end());
        assertEquals(-1, result.exitCode());
        assertTrue(result.stdout().startsWith("printing-fast\nprinting-fast\n"), result.stdout().substring(0, 40));
        Processes.assertAllGoneWithin(5000, Processes.pids(dir.resolve("pid")));
    }

    @Test
    void daemonThatLeftTheSessionAndItsParentIsKilledAtTheEnd() throws Exception {
        String marker = "quiver-daemon-" + UUID.randomUUID();
        // double fork out of the session: re-parented away, in no group of ours, found by its environment
        Result result = run("(setsid bash -c 'exec -a " + marker + " sleep 100' &); sleep 0.2; echo forked");
        assertEquals(Result.End.EXITED, result.end());
        assertEquals("forked\n", result.stdout());
        assertEquals(List.of(), Processes.withMarker(marker));
    }

    @Test
    void everyCommandCarriesTheMarkerOfThisProcess() throws Exception {
        Result result = run("echo \"$QUIVER_SHELL_RUN\"");
        long pid = ProcessHandle.current().pid();
        assertTrue(result.stdout().startsWith(pid + "."), result.stdout());
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
