package dev.quiver.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Shell.Command;
import dev.quiver.api.Shell.Job;
import dev.quiver.api.Shell.Result;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Processes that try to outlive their command: they leave its session ({@code setsid}), its
 * environment ({@code env -i}) and its parent (a double fork), with the sandbox off and on. None
 * outlives the command, the background job or the shell that started it, nor a crash of the host.
 */
class EscapeTest {

    private static final Duration GENEROUS = Duration.ofSeconds(60);

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

    /**
     * Command lines that leave a {@code sleep 300} behind, each in its own way; the sleep writes its
     * pid to {@code PIDFILE} first, and the line waits for that, so it surely ran.
     */
    private static List<String> escapes() {
        String escapee = "sh -c 'echo $$ > PIDFILE; exec sleep 300'";
        return List.of(
                "( env -i setsid " + escapee + " & )",
                "( ( " + escapee + " & ) & )",
                "( ( env -i " + escapee + " & ) & )",
                "setsid -f " + escapee,
                "setsid -f env -i " + escapee,
                // last: not an orphan
                "nohup " + escapee + " > /dev/null 2>&1 &");
    }

    /** The line, its pid file filled in, then (on a line of its own) a wait for the file and an "escaped". */
    private String escaping(String escape, Path pidFile) {
        return escape.replace("PIDFILE", pidFile.toString()) + "\nwhile [ ! -s " + pidFile
                + " ]; do sleep 0.01; done; echo escaped";
    }

    @Test
    void everyEscapeIsKilledWhenItsCommandEnds() throws Exception {
        TestContext context = TestContext.in(dir).unsandboxed();
        List<String> escapes = escapes();
        for (int i = 0; i < escapes.size(); i++) {
            Path pidFile = dir.resolve("escape-" + i + ".pid");
            Result result = shell.run(new Command(escaping(escapes.get(i), pidFile), GENEROUS), context);
            assertEquals("escaped\n", result.stdout(), escapes.get(i));
            long pid = Processes.pids(pidFile).get(0);
            assertFalse(Processes.running(pid), escapes.get(i) + ": the escapee " + pid + " is gone when the call returns");
            assertNotAZombieOfOurs(pid);
        }
    }

    @Test
    void escapesOfASandboxedCommandDieWithIt() throws Exception {
        Assumptions.assumeTrue(new Sandbox(System.getenv("PATH")).availability().usable(),
                "bubblewrap cannot make a sandbox here: " + new Sandbox(System.getenv("PATH")).availability().problem());
        TestContext context = TestContext.in(dir).shellConfig(Map.of("sandbox", "auto"));
        String marker = "quiver-sandboxed-escape-" + UUID.randomUUID();
        List<String> escapes = escapes();
        for (int i = 0; i < escapes.size(); i++) {
            // the pid the escapee writes is the sandbox's own; it is found from outside by its command line
            String escape = escapes.get(i).replace("exec sleep 300", "exec -a " + marker + "-" + i + " sleep 300")
                    .replace("sh -c", "bash -c");
            Path pidFile = dir.resolve("sandboxed-" + i + ".pid");
            Result result = shell.run(new Command(escaping(escape, pidFile), GENEROUS), context);
            assertEquals("escaped\n", result.stdout(), escape + "; stderr: " + result.stderr());
            assertEquals(List.of(), Processes.withMarker(marker + "-" + i + " 300"), escape);
        }
    }

    @Test
    void escapesOfABackgroundJobLiveWithItAndDieWhenItIsStopped() throws Exception {
        TestContext context = TestContext.in(dir).unsandboxed();
        List<String> escapes = escapes();
        StringBuilder line = new StringBuilder();
        List<Path> pidFiles = new ArrayList<>();
        for (int i = 0; i < escapes.size(); i++) {
            Path pidFile = dir.resolve("job-" + i + ".pid");
            pidFiles.add(pidFile);
            line.append(escaping(escapes.get(i), pidFile)).append('\n');
        }
        // the job prints on after its escapes are out, so its output is seen to keep arriving
        line.append("for tick in 1 2 3; do echo tick $tick; sleep 0.1; done; sleep 300");
        Job job = shell.start(line.toString(), "escaper", context);
        String output = pollUntil(job.handle(), "tick 3");
        assertEquals(escapes.size(), output.split("escaped", -1).length - 1, output);
        List<Long> pids = new ArrayList<>();
        for (Path pidFile : pidFiles) {
            pids.add(Processes.pids(pidFile).get(0));
        }

        // a foreground command that ends meanwhile takes nothing of the job's with it
        assertEquals(0, shell.run(new Command("true", GENEROUS), context).exitCode());
        assertEquals(Job.State.RUNNING, shell.poll(job.handle()).job().state());
        assertTrue(pids.stream().allMatch(Processes::running), "the job's escapees run while the job runs");
        if (Reaper.active()) {
            long self = ProcessHandle.current().pid();
            // all but the last (nohup ... &, whose parent, the job's bash, still runs) are orphans
            for (long pid : pids.subList(0, pids.size() - 1)) {
                assertEquals(self, Procs.stat(pid).orElseThrow().ppid(), "an orphan is re-parented to Quiver, not init");
            }
        }

        assertEquals(Job.State.STOPPED, shell.stop(job.handle()).job().state());
        for (long pid : pids) {
            assertFalse(Processes.running(pid), "escapee " + pid + " is gone when bash_stop returns");
            assertNotAZombieOfOurs(pid);
        }
    }

    @Test
    void escapesOfAJobThatEndsByItselfAreKilledAtItsEnd() throws Exception {
        Path pidFile = dir.resolve("ended.pid");
        Job job = shell.start(escaping(escapes().get(0), pidFile), null, TestContext.in(dir).unsandboxed());
        Job ended = awaitEnd(job.handle());
        assertEquals(0, ended.exitCode());
        long pid = Processes.pids(pidFile).get(0);
        assertFalse(Processes.running(pid));
        assertNotAZombieOfOurs(pid);
    }

    @Test
    void escapesOfRunningJobsAreKilledWhenTheShellStops() throws Exception {
        List<Long> pids = new ArrayList<>();
        for (String sandbox : List.of("off", "auto")) {
            Path pidFile = dir.resolve("shutdown-" + sandbox + ".pid");
            Job job = shell.start(escaping(escapes().get(0), pidFile) + "; sleep 300", null,
                    TestContext.in(dir).shellConfig(Map.of("sandbox", sandbox)));
            pollUntil(job.handle(), "escaped");
            if (sandbox.equals("off")) {
                pids.add(Processes.pids(pidFile).get(0));
            }
        }
        assertTrue(Processes.running(pids.get(0)));
        shell.deactivate();
        assertFalse(Processes.running(pids.get(0)), "the shell's end killed the escapee");
    }

    @Test
    void anOrphanThatEndsByItselfIsReapedNotLeftAZombie() throws Exception {
        Assumptions.assumeTrue(Reaper.active(), "JNA cannot make this JVM a subreaper here");
        Path pidFile = dir.resolve("short.pid");
        Path go = dir.resolve("go");
        // the orphan waits for a file, then ends while its job still runs: a zombie of this JVM then
        Job job = shell.start("( env -i setsid sh -c 'echo $$ > " + pidFile + "; while [ ! -e " + go
                + " ]; do sleep 0.01; done' & ); while [ ! -s " + pidFile + " ]; do sleep 0.01; done; echo escaped; "
                + "sleep 300", null, TestContext.in(dir).unsandboxed());
        pollUntil(job.handle(), "escaped");
        long pid = Processes.pids(pidFile).get(0);
        Files.writeString(go, "");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (Processes.running(pid) && System.nanoTime() - deadline < 0) {
            Thread.sleep(10);
        }
        assertFalse(Processes.running(pid));
        // a poll sweeps
        assertEquals(Job.State.RUNNING, shell.poll(job.handle()).job().state());
        assertNotAZombieOfOurs(pid);
    }

    @Test
    void orphansThatKeepEndingAreReapedWithoutAnyoneAskingForTheJob() throws Exception {
        Assumptions.assumeTrue(Reaper.active(), "JNA cannot make this JVM a subreaper here");
        Path done = dir.resolve("done");
        // 600 orphans of 5 ms each, then a file says they all ran; the job is never polled meanwhile
        Job job = shell.start("for i in $(seq 600); do ( (sleep 0.005) & ); sleep 0.01; done; touch " + done
                + "; sleep 300", null, TestContext.in(dir).unsandboxed());
        long self = ProcessHandle.current().pid();
        long most = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!Files.exists(done)) {
            most = Math.max(most, Procs.orphans(self).stream().filter(child -> !child.running()).count());
            assertTrue(System.nanoTime() - deadline < 0, "the job never made its orphans");
            Thread.sleep(20);
        }
        most = Math.max(most, Procs.orphans(self).stream().filter(child -> !child.running()).count());
        assertTrue(most < 200, "at most " + most + " of the 600 ended orphans were zombies of this JVM at once");
        shell.stop(job.handle());
    }

    @Test
    void aProcessThatResetsItsTagAndLeavesItsSessionIsKilledButNotABackgroundJobsTaggedOne() throws Exception {
        Assumptions.assumeTrue(Marks.tagsAvailable() && Reaper.active(), "prlimit or a subreaper is not available");
        TestContext context = TestContext.in(dir).unsandboxed();
        Path jobPid = dir.resolve("job.pid");
        Job job = shell.start(escaping(escapes().get(0), jobPid) + "; sleep 300", null, context);
        pollUntil(job.handle(), "escaped");
        long taggedEscapee = Processes.pids(jobPid).get(0);

        List<String> resets = new ArrayList<>(List.of("prlimit --pid $$ --rttime=1000:1000; "
                + "( env -i setsid sh -c 'echo $$ > PIDFILE; exec sleep 3004' & )"));
        if (Sandbox.onPath("python3", System.getenv("PATH")).isPresent()) {
            Path script = dir.resolve("escape.py");
            Files.writeString(script, String.join("\n", "import os, resource, sys",
                    "resource.setrlimit(resource.RLIMIT_RTTIME, (1000, 1000))",
                    "if os.fork() == 0:",
                    "    os.setsid()",
                    "    os.execve('/bin/sh', ['sh', '-c', 'echo $$ > ' + sys.argv[1] + '; exec sleep 3005'], {})",
                    ""));
            resets.add("python3 " + script + " PIDFILE");
        }
        for (int i = 0; i < resets.size(); i++) {
            Path pidFile = dir.resolve("reset-" + i + ".pid");
            Result result = shell.run(new Command(escaping(resets.get(i), pidFile), GENEROUS), context);
            assertEquals("escaped\n", result.stdout(), resets.get(i) + "; stderr: " + result.stderr());
            Processes.assertAllGoneWithin(30_000, Processes.pids(pidFile));
        }

        Reaper.sweep();
        assertTrue(Processes.running(taggedEscapee), "the job's escapee keeps its tag, so it lives with its job");
        assertEquals(Job.State.RUNNING, shell.poll(job.handle()).job().state());
    }

    @Test
    void aDaemonThatAProcessOfTheJvmForksOffIsNotTakenForAnEscapee() throws Exception {
        Assumptions.assumeTrue(Reaper.active(), "JNA cannot make this JVM a subreaper here");
        // as a git commit run by another bundle may start a gpg-agent: own session, no tag, orphaned to us
        Path pidFile = dir.resolve("daemon.pid");
        Process helper = new ProcessBuilder("sh", "-c", "setsid -f sh -c 'echo $$ > " + pidFile + "; exec sleep 300'")
                .start();
        assertEquals(0, helper.waitFor());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.exists(pidFile) || Files.size(pidFile) == 0) {
            assertTrue(System.nanoTime() - deadline < 0, "the daemon never started");
            Thread.sleep(10);
        }
        long daemon = Processes.pids(pidFile).get(0);
        try {
            assertEquals(ProcessHandle.current().pid(), Procs.stat(daemon).orElseThrow().ppid(), "an orphan of ours");
            Reaper.sweep();
            assertTrue(Processes.running(daemon), "it carries this JVM's own limit, so no command started it");
        } finally {
            ProcessHandle.of(daemon).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    @Test
    void exitCodesOfCommandsSurviveSweepsRunningBesideThem() throws Exception {
        TestContext context = TestContext.in(dir).unsandboxed();
        // orphans that end all the time, so sweeps run and find zombies while the commands end
        Job churn = shell.start("while true; do ( env -i setsid sh -c 'exit 0' & ); sleep 0.005; done", null, context);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> codes = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                int code = i % 100 + 1;
                codes.add(pool.submit(() -> {
                    shell.poll(churn.handle());
                    return shell.run(new Command("exit " + code, GENEROUS), context).exitCode();
                }));
            }
            for (int i = 0; i < codes.size(); i++) {
                assertEquals(i % 100 + 1, codes.get(i).get(60, TimeUnit.SECONDS), "command " + i);
            }
        } finally {
            pool.shutdownNow();
            shell.stop(churn.handle());
        }
    }

    @Test
    void escapesOfACrashedRunAreKilledAtTheNextStart() throws Exception {
        Path pidFile = dir.resolve("crash.pid");
        String marker = "quiver-crash-escape-" + UUID.randomUUID();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process quiver = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                CrashDriver.class.getName(), state.toString(), dir.toString(), "off", marker,
                escaping(escapes().get(0), pidFile) + "; sleep 300")
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        long pid;
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(quiver.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("started bg1", out.readLine());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!Files.exists(pidFile) || Files.size(pidFile) == 0) {
                assertTrue(System.nanoTime() - deadline < 0, "the escapee never started");
                Thread.sleep(10);
            }
            pid = Processes.pids(pidFile).get(0);
        } finally {
            // a crash: SIGKILL, nothing stopped
            quiver.destroyForcibly().waitFor();
        }
        assertTrue(Processes.running(pid), "the escapee survived the crash");
        assertEquals(1, journals().size());

        ProcessShell next = new ProcessShell(state, System.getenv("PATH"));
        next.activate();
        next.deactivate();
        if (Marks.tagsAvailable()) {
            assertFalse(Processes.running(pid), "the next start found the escapee by its tag and killed it");
        } else {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
        assertEquals(List.of(), journals());
    }

    @Test
    void startUpCleanupKillsOnlyWhatCarriesTheDeadRunsTag() throws Exception {
        Assumptions.assumeTrue(Marks.tagsAvailable(), "prlimit is not installed");
        long deadOwner = Marks.newOwner();
        long otherOwner = deadOwner == 1 ? 2 : deadOwner - 1;
        Process left = tagged(Marks.tag(deadOwner, 7));
        Process bystander = tagged(Marks.tag(otherOwner, 7));
        try {
            Process dead = new ProcessBuilder("true").start();
            dead.waitFor();
            Files.writeString(state.resolve("commands-" + dead.pid() + "-1.txt"), "# journal\ntag " + deadOwner + "\n");

            ProcessShell next = new ProcessShell(state, System.getenv("PATH"));
            next.activate();
            next.deactivate();
            assertTrue(left.waitFor(30, TimeUnit.SECONDS), "a process with the dead run's tag is killed");
            assertTrue(bystander.isAlive(), "a process with another run's tag is not");
        } finally {
            left.destroyForcibly();
            bystander.destroyForcibly();
        }
    }

    @Test
    void aJournalLockedByALiveProcessElsewhereIsLeftAloneAndCleanedOnceFree() throws Exception {
        Assumptions.assumeTrue(Marks.tagsAvailable(), "prlimit is not installed");
        long owner = Marks.newOwner();
        Process command = tagged(Marks.tag(owner, 3));
        // a pid no process has here: how a Quiver in another pid namespace sharing the folder looks
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path journal = state.resolve("commands-" + gone.pid() + "-1.txt");
        Files.writeString(journal, "# journal\ntag " + owner + "\n");
        Process holder = lockHolder(state.resolve("commands-" + gone.pid() + "-1.lock"));
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("locked", out.readLine());

            assertEquals(0, Journal.cleanUp(state));
            assertTrue(command.isAlive(), "the command of a run whose lock is held is not killed");
            assertTrue(Files.exists(journal), "nor is its journal removed");

            // the kernel drops the lock of a process that dies, as it would a crashed Quiver's
            holder.destroyForcibly().waitFor();
            assertEquals(1, Journal.cleanUp(state));
            assertTrue(command.waitFor(30, TimeUnit.SECONDS), "once the lock is free, the run's command is killed");
            assertEquals(List.of(), journals());
            try (Stream<Path> files = Files.list(state)) {
                assertEquals(List.of(), files.toList(), "the journal and its lock file are removed");
            }
        } finally {
            holder.destroyForcibly();
            command.destroyForcibly();
        }
    }

    @Test
    void aRunningShellLocksItsJournalAndRemovesBothWhenItStops() throws Exception {
        assertEquals(0, shell.run(new Command("true", GENEROUS), TestContext.in(dir).unsandboxed()).exitCode());
        long self = ProcessHandle.current().pid();
        Path lock = state.resolve("commands-" + self + "-" + Procs.startTicks(self).orElseThrow() + ".lock");
        Process other = lockHolder(lock, "try");
        assertEquals("held", new String(other.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip(),
                "another process cannot take the lock while the shell runs");
        shell.deactivate();
        try (Stream<Path> files = Files.list(state)) {
            assertEquals(List.of(), files.toList());
        }
    }

    @Test
    void tagsNameTheirOwnerAndNothingElseLooksLikeOne() {
        long owner = Marks.newOwner();
        assertEquals(owner, Marks.owner(Marks.tag(owner, 1)));
        assertEquals(owner, Marks.owner(Marks.tag(owner, (1L << 28) + 5)), "a command number past 28 bits wraps");
        assertEquals(-1, Marks.owner(0));
        assertEquals(-1, Marks.owner(Long.MAX_VALUE));
        assertTrue(Marks.limit(ProcessHandle.current().pid()).isEmpty(), "this JVM's real-time limit is unlimited");
    }

    /** A JVM of its own running {@link LockHolder}. */
    private static Process lockHolder(Path lock, String... mode) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), LockHolder.class.getName(), lock.toString()));
        command.addAll(List.of(mode));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    private static Process tagged(long tag) throws IOException {
        return new ProcessBuilder("prlimit", "--rttime=" + tag + ":" + tag, "sleep", "300").start();
    }

    /** A process this JVM orphaned and killed is reaped: no zombie child of ours keeps its pid. */
    private static void assertNotAZombieOfOurs(long pid) {
        long self = ProcessHandle.current().pid();
        Procs.stat(pid).ifPresent(stat -> assertFalse(stat.ppid() == self && !stat.running(),
                "pid " + pid + " is left a zombie of this JVM"));
    }

    private String pollUntil(String handle, String text) throws Exception {
        StringBuilder seen = new StringBuilder();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!seen.toString().contains(text)) {
            var poll = shell.poll(handle);
            seen.append(poll.stdout()).append(poll.stderr());
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("never saw " + text + "; output so far: " + seen + "; job " + poll.job());
            }
            Thread.sleep(20);
        }
        return seen.toString();
    }

    private Job awaitEnd(String handle) throws Exception {
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

    private List<Path> journals() throws IOException {
        try (Stream<Path> files = Files.list(state)) {
            return files.filter(file -> file.getFileName().toString().endsWith(".txt")).sorted().toList();
        }
    }
}
