package dev.quiver.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Shell.Job;
import dev.quiver.api.Shell.Poll;
import dev.quiver.api.ToolException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Background commands: started, polled, stopped, killed when the shell stops, and cleaned up after a crash. */
class BackgroundTest {

    @TempDir
    Path dir;

    @TempDir
    Path state;

    private ProcessShell shell;

    @BeforeEach
    void open() {
        shell = new ProcessShell(state, System.getenv("PATH"));
        shell.activate();
    }

    @AfterEach
    void close() {
        shell.deactivate();
    }

    /** Polls until the accumulated output satisfies the test, failing after a generous limit. */
    private static String pollUntil(ProcessShell shell, String handle, Predicate<String> done) throws Exception {
        StringBuilder seen = new StringBuilder();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Poll poll = shell.poll(handle);
            seen.append(poll.stdout()).append(poll.stderr());
            if (done.test(seen.toString())) {
                return seen.toString();
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("never got there; output so far: " + seen + "; job " + poll.job());
            }
            Thread.sleep(20);
        }
    }

    /**
     * Polls until standard output and standard error are exactly as given. The two are drained by
     * threads of their own, so which a poll sees first is not fixed: they are compared apart.
     */
    private static void pollStreamsUntil(ProcessShell shell, String handle, String stdout, String stderr) throws Exception {
        StringBuilder out = new StringBuilder();
        StringBuilder err = new StringBuilder();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Poll poll = shell.poll(handle);
            out.append(poll.stdout());
            err.append(poll.stderr());
            if (out.toString().equals(stdout) && err.toString().equals(stderr)) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("never got there; stdout so far: " + out + "; stderr so far: " + err
                        + "; job " + poll.job());
            }
            Thread.sleep(20);
        }
    }

    /**
     * Starts a command that says "ready" once the login profile is behind it, and waits for that: a
     * profile killed half-way can leave lock files behind (pyenv's stall every later login shell).
     */
    private Job startReady(String line, String name, TestContext context) throws Exception {
        Job job = shell.start("echo ready; " + line, name, context);
        pollUntil(shell, job.handle(), out -> out.contains("ready"));
        return job;
    }

    private static Job awaitEnd(ProcessShell shell, String handle) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Job job = shell.jobs().stream().filter(j -> j.handle().equals(handle)).findFirst().orElseThrow();
            if (job.state() != Job.State.RUNNING) {
                return job;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("still running: " + job);
            }
            Thread.sleep(20);
        }
    }

    @Test
    void httpServerIsStartedPolledAndStopped() throws Exception {
        Files.writeString(dir.resolve("hello.txt"), "hello from the workspace\n");
        // sandboxed, with the network allowed so that this test can reach the server from outside
        TestContext context = TestContext.in(dir).shellConfig(Map.of("network", true));
        String server = "http.server 0 --bind 127.0.0.1 --directory " + dir;
        Job job = shell.start("python3 -u -m " + server, "web", context);
        assertEquals("bg1", job.handle());
        assertEquals("web", job.name());
        assertEquals(Job.State.RUNNING, job.state());
        assertTrue(job.sandboxed());

        String banner = pollUntil(shell, "bg1", out -> out.contains("Serving HTTP on 127.0.0.1 port"));
        Matcher port = Pattern.compile("port (\\d+)").matcher(banner);
        assertTrue(port.find(), banner);
        URI uri = URI.create("http://127.0.0.1:" + port.group(1) + "/hello.txt");
        HttpURLConnection connection = (HttpURLConnection) uri.toURL().openConnection();
        assertEquals(200, connection.getResponseCode());
        assertEquals("hello from the workspace\n", new String(connection.getInputStream().readAllBytes(),
                StandardCharsets.UTF_8));

        // the name works as the handle; only what came since the previous poll is returned
        String log = pollUntil(shell, "web", out -> out.contains("\"GET /hello.txt HTTP/1.1\" 200"));
        assertFalse(log.contains("Serving HTTP"), "the banner was already returned: " + log);
        Poll quiet = shell.poll("bg1");
        assertEquals("", quiet.stdout() + quiet.stderr());
        assertEquals(Job.State.RUNNING, quiet.job().state());

        assertFalse(Processes.withMarker(server).isEmpty(), "the server is seen running from outside");
        Poll stopped = shell.stop("bg1");
        assertEquals(Job.State.STOPPED, stopped.job().state());
        assertEquals(-1, stopped.job().exitCode());
        assertEquals(List.of(), Processes.withMarker(server), "nothing of it runs when stop returns");
        assertThrows(ConnectException.class, () -> ((HttpURLConnection) uri.toURL().openConnection()).getResponseCode());
    }

    @Test
    void pollReturnsOnlyWhatArrivedSinceThePreviousPollAndThenHowItEnded() throws Exception {
        TestContext context = TestContext.in(dir).unsandboxed();
        shell.start("echo one; echo err-one >&2; while [ ! -e go ]; do sleep 0.02; done; echo two; exit 3", null, context);
        pollStreamsUntil(shell, "bg1", "one\n", "err-one\n");
        Files.writeString(dir.resolve("go"), "");
        Job ended = awaitEnd(shell, "bg1");
        assertEquals(Job.State.EXITED, ended.state());
        assertEquals(3, ended.exitCode());
        Poll last = shell.poll("bg1");
        assertEquals("two\n", last.stdout());
        assertEquals("", last.stderr());
        Poll again = shell.poll("bg1");
        assertEquals("", again.stdout());
        assertEquals(3, again.job().exitCode());
        // stopping one that ended reports it as it ended
        assertEquals(Job.State.EXITED, shell.stop("bg1").job().state());
    }

    @Test
    void stopKillsTheWholeTreeAndWaitsUntilItIsGone() throws Exception {
        for (String sandbox : List.of("off", "auto")) {
            String marker = "quiver-bg-stop-" + UUID.randomUUID();
            TestContext context = TestContext.in(dir).shellConfig(Map.of("sandbox", sandbox));
            Job job = shell.start("bash -c '(exec -a " + marker + " sleep 100) & wait' & (setsid bash -c 'exec -a "
                    + marker + " sleep 100' &); echo up; exec -a " + marker + " sleep 100", "tree", context);
            pollUntil(shell, job.handle(), out -> out.contains("up"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            // three sleeps, and the processes whose command lines hold the marker: bash -c, bwrap
            while (Processes.withMarker(marker + " 100").size() < 3 && System.nanoTime() - deadline < 0) {
                Thread.sleep(20);
            }
            assertEquals(3, Processes.withMarker(marker + " 100").size(), sandbox + ": all three sleeps run");
            Poll stopped = shell.stop("tree");
            assertEquals(Job.State.STOPPED, stopped.job().state());
            assertEquals(List.of(), Processes.withMarker(marker), sandbox + ": nothing runs when stop returns");
        }
    }

    @Test
    void backgroundCommandThatExitsLeavesNothingBehind() throws Exception {
        String marker = "quiver-bg-left-" + UUID.randomUUID();
        shell.start("(exec -a " + marker + " sleep 100) & echo started", null, TestContext.in(dir).unsandboxed());
        Job ended = awaitEnd(shell, "bg1");
        assertEquals(0, ended.exitCode());
        assertEquals(List.of(), Processes.withMarker(marker));
    }

    @Test
    void unknownHandleNamesTheKnownOnes() throws Exception {
        assertEquals("No background command is called \"bg7\". None was started.",
                assertThrows(ToolException.class, () -> shell.poll("bg7")).getMessage());
        startReady("sleep 100", "sleeper", TestContext.in(dir).unsandboxed());
        assertEquals("No background command is called \"bg7\". Known: bg1 (sleeper).",
                assertThrows(ToolException.class, () -> shell.stop("bg7")).getMessage());
    }

    @Test
    void jobsListsRunningAndEndedCommandsOldestFirst() throws Exception {
        TestContext context = TestContext.in(dir).unsandboxed();
        shell.start("exit 0", "quick", context);
        awaitEnd(shell, "bg1");
        startReady("sleep 100", null, context);
        List<Job> jobs = shell.jobs();
        assertEquals(List.of("bg1", "bg2"), jobs.stream().map(Job::handle).toList());
        assertEquals(List.of(Job.State.EXITED, Job.State.RUNNING), jobs.stream().map(Job::state).toList());
        assertEquals("echo ready; sleep 100", jobs.get(1).line());
        assertFalse(jobs.get(1).sandboxed());
    }

    @Test
    void stoppingTheShellKillsEveryBackgroundCommandAndRemovesItsJournal() throws Exception {
        String marker = "quiver-bg-exit-" + UUID.randomUUID();
        startReady("exec -a " + marker + " sleep 100", null, TestContext.in(dir).unsandboxed());
        startReady("exec -a " + marker + " sleep 100", null, TestContext.in(dir));
        assertEquals(1, journals().size(), "the journal exists while commands run");
        shell.deactivate();
        assertEquals(List.of(), Processes.withMarker(marker));
        assertEquals(List.of(), journals());
        assertEquals(List.of(Job.State.STOPPED, Job.State.STOPPED), shell.jobs().stream().map(Job::state).toList());
        assertThrows(ToolException.class, () -> shell.start("true", null, TestContext.in(dir)));
    }

    @Test
    void commandsLeftByACrashedRunAreKilledAtTheNextStart() throws Exception {
        String marker = "quiver-crash-" + UUID.randomUUID();
        Process quiver = crashDriver(marker, "off");
        // a crash: SIGKILL, no deactivation
        quiver.destroyForcibly().waitFor();
        Processes.assertAllGoneWithin(5000, List.of(quiver.pid()));
        assertEquals(1, journals().size(), "the crashed run left its journal");
        assertEquals(2, sleeps(marker).size(), "its background and foreground commands survived it");

        new ProcessShell(state, System.getenv("PATH")).activate();
        assertEquals(List.of(), Processes.withMarker(marker), "the next start killed them");
        assertEquals(List.of(), journals());
    }

    @Test
    void aJvmEndedBySigtermKillsItsCommandsOnItsWayOut() throws Exception {
        String marker = "quiver-sigterm-" + UUID.randomUUID();
        Process quiver = crashDriver(marker, "off");
        // SIGTERM: the JVM runs its shutdown hooks, but no framework is stopped and nothing is deactivated
        quiver.destroy();
        quiver.waitFor(30, TimeUnit.SECONDS);
        assertEquals(List.of(), sleeps(marker), "the shell's exit hook killed both commands");
        assertEquals(List.of(), journals(), "and removed its journal");
    }

    @Test
    void sandboxedCommandsDieWithACrashedRunAtOnce() throws Exception {
        String marker = "quiver-crash-sandboxed-" + UUID.randomUUID();
        Process quiver = crashDriver(marker, "auto");
        quiver.destroyForcibly().waitFor();
        // bubblewrap's --die-with-parent: no need to wait for the next start
        Processes.assertAllGoneWithin(5000, Processes.withMarker(marker));
        new ProcessShell(state, System.getenv("PATH")).activate();
        assertEquals(List.of(), journals());
    }

    @Test
    void startUpCleanupNeverKillsAReusedPidNorTouchesARunningQuiver() throws Exception {
        Process bystander = new ProcessBuilder("sleep", "100").start();
        try {
            long realStart = Procs.startTicks(bystander.pid()).orElseThrow();
            // a crashed run whose background command's pid now belongs to someone else (another start time)
            Process dead = new ProcessBuilder("true").start();
            dead.waitFor();
            Files.writeString(state.resolve("commands-" + dead.pid() + "-1.txt"),
                    "# journal\nbg1 " + bystander.pid() + " " + (realStart + 1) + "\n");
            // a Quiver that still runs (this JVM) whose journal names the bystander correctly
            long self = ProcessHandle.current().pid();
            Path alive = state.resolve("commands-" + self + "-" + Procs.startTicks(self).orElseThrow() + ".txt");
            Files.writeString(alive, "# journal\nbg1 " + bystander.pid() + " " + realStart + "\n");

            new ProcessShell(state, System.getenv("PATH")).activate();
            assertTrue(bystander.isAlive(), "a pid whose start time differs is someone else's");
            assertEquals(List.of(alive), journals(), "the dead run's journal is gone, the live one's is kept");
        } finally {
            bystander.destroyForcibly();
        }
    }

    /** The sleeps of the crash driver's commands (not the shells and sandboxes whose command lines name them). */
    private static List<Long> sleeps(String marker) throws IOException {
        List<Long> found = new java.util.ArrayList<>(Processes.withMarker(marker + "-background 100"));
        found.addAll(Processes.withMarker(marker + "-foreground 100"));
        return found;
    }

    private List<Path> journals() throws IOException {
        try (Stream<Path> files = Files.list(state)) {
            return files.filter(file -> file.getFileName().toString().endsWith(".txt")).sorted().toList();
        }
    }

    /** Starts the driver and waits until its commands run. */
    private Process crashDriver(String marker, String sandbox) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process quiver = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                CrashDriver.class.getName(), state.toString(), dir.toString(), sandbox, marker)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        BufferedReader out = new BufferedReader(new InputStreamReader(quiver.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        try {
            assertEquals("started bg1", line);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (sleeps(marker).size() < 2 && System.nanoTime() - deadline < 0) {
                Thread.sleep(20);
            }
            assertEquals(2, sleeps(marker).size(), "both commands run");
        } catch (AssertionError | RuntimeException e) {
            quiver.destroyForcibly();
            throw e;
        }
        return quiver;
    }
}
