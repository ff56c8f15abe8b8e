package dev.quiver.shell;

import dev.quiver.api.Shell;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * The {@link Shell} service: {@code setsid bash -c COMMAND} in the workspace root with the
 * environment the user's login profile makes of the kernel's scrubbed one ({@link LoginProfile},
 * taken once), or {@code bash -lc COMMAND} inside bubblewrap, whose empty home has no profile of the
 * user's, when the sandbox is on; stdin closed, both pipes drained by their own threads, and
 * everything the command started killed on timeout, cancellation and at the end of every command, so nothing
 * outlives it: found by process group, session, descent and the command's {@link Marks}, which
 * survive {@code setsid}, {@code env -i} and double forks; while the service runs, the JVM is a
 * subreaper ({@link Reaper}), so orphans stay its children and are reaped. Background commands are
 * killed when the service stops; ones a crashed run left are killed when it starts ({@link Journal}).
 *
 * <p>The component is immediate: it lives as long as its bundle, not as long as its users, so the
 * background commands outlive a tool bundle being swapped, and leftovers of a crash are killed when
 * Quiver starts rather than at the first command.
 */
@Component(service = Shell.class, immediate = true)
public class ProcessShell implements Shell {

    /** Bytes kept from the start of each stream. */
    static final int HEAD_BYTES = 8 * 1024;
    /** Bytes kept from the end of each stream, where errors usually are. */
    static final int TAIL_BYTES = 6 * 1024;
    /** Ended background commands kept for {@link #poll} and {@link #jobs()}. */
    static final int ENDED_JOBS_KEPT = 20;

    private static final long POLL_MILLIS = 20;

    private final Path stateDir;
    private final Sandbox sandbox;
    private final Journal journal;
    private final AtomicLong runs = new AtomicLong();
    private final AtomicLong handles = new AtomicLong();
    private final Map<String, BackgroundJob> jobs = new LinkedHashMap<>();
    private final Set<Running> foreground = ConcurrentHashMap.newKeySet();
    private final Map<Path, Baseline> baselines = new ConcurrentHashMap<>();
    private final LoginProfile profile;
    private ExecutorService spawner;
    private boolean stopped;
    private volatile Thread shutdownHook;
    /** Whether this shell holds the JVM's subreaper role ({@link Reaper#acquire}). */
    private boolean reaping;

    /** A foreground command while it runs, so that stopping the service can kill it. */
    private record Running(Process process, Procs.Since since, Marks.Mark mark) {
    }

    /**
     * How a command is started: the command line, whether it is sandboxed, and the environment (the
     * kernel's scrubbed one, {@link ToolContext#environment()}, through the login profile when not
     * sandboxed).
     *
     * @param placeholders what to remove when the command ends ({@link SandboxView#placeholders()})
     * @param note said on stderr after the command's own output: why the login profile was left out
     */
    private record Launch(List<String> command, boolean sandboxed, Path root, Map<String, String> environment,
            List<Path> placeholders, Optional<String> note) {
    }

    /** Added to the output of a sandboxed command that git could not write from. */
    static final String GIT_COMMIT_HINT = "[quiver] .git is read-only in the sandbox, so git cannot change the "
            + "repository from bash: commit with the git_commit tool.";

    /** The service: its journal in {@code $XDG_STATE_HOME/quiver/shell}, bwrap looked for on {@code PATH}. */
    public ProcessShell() {
        this(defaultStateDir(), System.getenv("PATH"));
    }

    /**
     * A shell with its own state folder and its own search path for bwrap (tests simulate a machine
     * without bubblewrap with an empty one).
     */
    ProcessShell(Path stateDir, String bwrapSearchPath) {
        this(stateDir, bwrapSearchPath, LoginProfile.TIMEOUT);
    }

    /** A shell whose login profile may take {@code profileTimeout} (tests wait less than users). */
    ProcessShell(Path stateDir, String bwrapSearchPath, Duration profileTimeout) {
        this.stateDir = stateDir;
        this.profile = new LoginProfile(this::runProfile, profileTimeout);
        this.sandbox = new Sandbox(bwrapSearchPath);
        long self = ProcessHandle.current().pid();
        this.journal = new Journal(stateDir, self, Procs.startTicks(self).orElse(0));
    }

    /** {@code $XDG_STATE_HOME/quiver/shell}, by default {@code ~/.local/state/quiver/shell}. */
    static Path defaultStateDir() {
        String state = System.getenv("XDG_STATE_HOME");
        Path base = state != null && !state.isBlank() && Path.of(state).isAbsolute() ? Path.of(state)
                : Path.of(System.getProperty("user.home"), ".local", "state");
        return base.resolve("quiver").resolve("shell");
    }

    /**
     * Kills what a crashed run of Quiver left running, and makes sure that a JVM ending without
     * stopping the framework (a signal, {@code System.exit}) still kills this run's commands.
     */
    @Activate
    void activate() {
        // every start's header says whether commands run sandboxed, and finding out starts a process:
        // done on its own thread while the rest of the host starts
        sandbox.probeAhead();
        synchronized (this) {
            reaping = Reaper.acquire();
        }
        Journal.cleanUp(stateDir);
        Thread hook = new Thread(this::stopAll, "quiver-shell-exit");
        try {
            Runtime.getRuntime().addShutdownHook(hook);
            shutdownHook = hook;
        } catch (IllegalStateException shuttingDown) {
            // the JVM is already ending
        }
    }

    /** Kills every background command and every command still running, and waits until they are gone. */
    @Deactivate
    void deactivate() {
        Thread hook = shutdownHook;
        if (hook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs, or ran, by itself
            }
        }
        stopAll();
    }

    private void stopAll() {
        List<BackgroundJob> running;
        synchronized (jobs) {
            stopped = true;
            running = new ArrayList<>(jobs.values());
        }
        for (BackgroundJob job : running) {
            if (job.running()) {
                job.stop();
            }
        }
        for (Running command : foreground) {
            ProcessGroups.kill(command.process().toHandle(), command.since(), command.mark());
        }
        journal.close();
        synchronized (this) {
            if (spawner != null) {
                spawner.shutdownNow();
            }
            if (reaping) {
                reaping = false;
                Reaper.release();
            }
        }
    }

    @Override
    public Result run(Command command, ToolContext context) throws ToolException {
        synchronized (jobs) {
            if (stopped) {
                throw new ToolException("The shell is shutting down; no command can start.");
            }
        }
        Launch launch = prepare(command.line(), context);
        if (context.isCancelled()) {
            // cancelled while the login profile ran: the command never starts
            SandboxView.removePlaceholders(launch.placeholders());
            return new Result(Result.End.CANCELLED, -1, "", "", Duration.ZERO);
        }
        Marks.Mark mark = journal.mark("c" + runs.incrementAndGet());
        journal.open();
        Procs.Since since = Procs.Since.now();
        long started = System.nanoTime();
        Process process = start(launch, mark, false);
        Running running = new Running(process, since, mark);
        foreground.add(running);
        Result.End end;
        OutputCapture stdout = new OutputCapture(HEAD_BYTES, TAIL_BYTES, context::stream);
        OutputCapture stderr = new OutputCapture(HEAD_BYTES, TAIL_BYTES, context::stream);
        try {
            Thread outDrain = Drains.start(process.getInputStream(), stdout, "stdout");
            Thread errDrain = Drains.start(process.getErrorStream(), stderr, "stderr");
            end = waitFor(process, command.timeout(), context::isCancelled, started);
            ProcessGroups.kill(process.toHandle(), since, mark);
            Drains.join(outDrain, errDrain);
            Drains.close(process);
        } finally {
            foreground.remove(running);
            SandboxView.removePlaceholders(launch.placeholders());
        }
        int exitCode = end == Result.End.EXITED ? process.exitValue() : -1;
        String out = stdout.text();
        String err = stderr.text();
        if (launch.sandboxed() && end == Result.End.EXITED && exitCode == 1 && err.startsWith("bwrap: ")) {
            throw new ToolException("The sandbox (bubblewrap) could not start the command, so nothing ran: "
                    + err.lines().findFirst().orElse(err).strip());
        }
        if (launch.sandboxed()) {
            err = withGitHint(out, err);
        }
        if (launch.note().isPresent()) {
            err += (err.isEmpty() || err.endsWith("\n") ? "" : "\n") + "[quiver] Commands run without your login profile: "
                    + launch.note().get() + "; what it sets (PATH entries, variables) is missing.\n";
        }
        return new Result(end, exitCode, out, err, Duration.ofNanos(System.nanoTime() - started));
    }

    /** stderr with {@link #GIT_COMMIT_HINT} added when the output shows the read-only {@code .git} stopped git. */
    static String withGitHint(String out, String err) {
        if (!gitCouldNotWrite(err) && !gitCouldNotWrite(out)) {
            return err;
        }
        return err + (err.isEmpty() || err.endsWith("\n") ? "" : "\n") + GIT_COMMIT_HINT + "\n";
    }

    /** git's own words when the read-only {@code .git} stopped it: it could not take its lock, or write. */
    private static boolean gitCouldNotWrite(String output) {
        return output.contains("index.lock") || output.contains(".git/") && output.contains("Read-only file system");
    }

    @Override
    public Job start(String line, String name, ToolContext context) throws ToolException {
        String label = name == null ? "" : name.strip();
        Launch launch = prepare(line, context);
        String handle;
        synchronized (jobs) {
            if (stopped) {
                throw new ToolException("The shell is shutting down; no command can start.");
            }
            handle = "bg" + handles.incrementAndGet();
        }
        Marks.Mark mark = journal.mark(handle);
        // the journal names the commands' tags before any command can leave a process behind
        journal.open();
        Procs.Since since = Procs.Since.now();
        long started = System.nanoTime();
        // started from a thread that lives as long as the service: bwrap's --die-with-parent follows
        // the thread that started it, and a tool call's thread may end long before the command
        Process process = start(launch, mark, true);
        journal.add(handle, process.pid(), Procs.startTicks(process.pid()).orElse(0));
        BackgroundJob job = new BackgroundJob(handle, label, line, launch.sandboxed(), process, since, mark, started,
                () -> {
                    journal.remove(handle);
                    SandboxView.removePlaceholders(launch.placeholders());
                });
        boolean late;
        synchronized (jobs) {
            late = stopped;
            jobs.put(handle, job);
            forgetOldEndedJobs();
        }
        if (late) {
            job.stop();
            throw new ToolException("The shell is shutting down; the command was stopped as it started.");
        }
        return job.job();
    }

    @Override
    public Poll poll(String handle) throws ToolException {
        // orphans of a background command that ended by themselves are reaped while it runs on
        Reaper.sweep();
        return find(handle).poll();
    }

    @Override
    public Poll stop(String handle) throws ToolException {
        return find(handle).stop();
    }

    @Override
    public List<Job> jobs() {
        List<BackgroundJob> all;
        synchronized (jobs) {
            all = new ArrayList<>(jobs.values());
        }
        return all.stream().map(BackgroundJob::job).toList();
    }

    @Override
    public String status(Optional<Object> shellConfig) {
        ShellConfig config;
        try {
            config = ShellConfig.parse(shellConfig);
        } catch (ShellConfig.Invalid e) {
            return "shell refuses every command: bad config: " + e.getMessage();
        }
        if (config.sandbox() == ShellConfig.Sandboxing.OFF) {
            return "NOT sandboxed: \"shell\": {\"sandbox\": \"off\"} in the config";
        }
        Sandbox.Availability availability = sandbox.availability();
        if (availability.usable()) {
            return config.network() ? "sandboxed (bubblewrap), network allowed" : "sandboxed (bubblewrap)";
        }
        if (config.sandbox() == ShellConfig.Sandboxing.REQUIRED) {
            return "shell refuses every command: \"sandbox\" is \"required\" but " + availability.problem();
        }
        return "NOT sandboxed: " + availability.problem();
    }

    private BackgroundJob find(String handle) throws ToolException {
        String wanted = handle == null ? "" : handle.strip();
        synchronized (jobs) {
            BackgroundJob job = jobs.get(wanted);
            if (job == null && !wanted.isEmpty()) {
                for (BackgroundJob candidate : jobs.values()) {
                    if (candidate.name().equals(wanted)) {
                        job = candidate;
                    }
                }
            }
            if (job != null) {
                return job;
            }
            List<String> known = jobs.values().stream()
                    .map(j -> j.handle() + (j.name().isEmpty() ? "" : " (" + j.name() + ")")).toList();
            throw new ToolException("No background command " + (wanted.isEmpty() ? "was named" : "is called \"" + wanted
                    + "\"") + ". " + (known.isEmpty() ? "None was started." : "Known: " + String.join(", ", known) + "."));
        }
    }

    private void forgetOldEndedJobs() {
        long ended = jobs.values().stream().filter(job -> !job.running()).count();
        for (Iterator<BackgroundJob> it = jobs.values().iterator(); it.hasNext() && ended > ENDED_JOBS_KEPT;) {
            if (!it.next().running()) {
                it.remove();
                ended--;
            }
        }
    }

    /** Reads the configuration and decides how the command runs, or refuses it. */
    private Launch prepare(String line, ToolContext context) throws ToolException {
        ShellConfig config;
        try {
            config = ShellConfig.parse(context.config("shell"));
        } catch (ShellConfig.Invalid e) {
            throw new ToolException("The shell configuration is invalid, so no command runs: " + e.getMessage()
                    + " The user must fix it in the config file.");
        }
        Workspace workspace = context.workspace();
        Path root = workspace.root();
        Map<String, String> environment = context.environment();
        Baseline baseline;
        try {
            baseline = baseline(root, environment);
            // sandboxed or not: a .git or .quiver a command made is refused before anything reads it
            baseline.check(root);
        } catch (SandboxView.Refused e) {
            throw new ToolException(e.getMessage());
        } catch (IOException e) {
            throw new ToolException("Could not look at the workspace's .git and .quiver (" + e.getMessage()
                    + "), so the command did not run.", e);
        }
        if (config.sandbox() == ShellConfig.Sandboxing.OFF) {
            return plain(line, root, environment, context);
        }
        Sandbox.Availability availability = sandbox.availability();
        if (!availability.usable()) {
            if (config.sandbox() == ShellConfig.Sandboxing.REQUIRED) {
                throw new ToolException("The config says \"shell\": {\"sandbox\": \"required\"}, but "
                        + availability.problem() + ", so no command runs. The user must install bubblewrap "
                        + "(Debian and Ubuntu: apt-get install bubblewrap) or change the setting.");
            }
            return plain(line, root, environment, context);
        }
        List<Path> untrackedSecrets = new ArrayList<>();
        try {
            // a tracked secret stays as it is: an empty file in its place would be a change git commits
            for (Path secret : workspace.secretFiles()) {
                if (!workspace.isTracked(secret)) {
                    untrackedSecrets.add(secret);
                }
            }
        } catch (IOException e) {
            throw new ToolException("Could not look for the secret files the sandbox must hide (" + e.getMessage()
                    + "), so the command did not run.", e);
        }
        List<String> command = new ArrayList<>();
        command.add("setsid");
        List<Path> quiverFolders = new ArrayList<>(List.of(stateDir));
        context.stateFolder().ifPresent(quiverFolders::add);
        SandboxView view;
        try {
            view = SandboxView.of(root, untrackedSecrets, config, environment, quiverFolders, baseline);
            command.addAll(sandbox.wrap(availability.bwrap().get(), view, line));
        } catch (SandboxView.Refused e) {
            throw new ToolException(e.getMessage());
        } catch (IOException e) {
            throw new ToolException("Could not prepare the sandbox (" + e.getMessage() + "), so the command did not run.",
                    e);
        }
        return new Launch(command, true, root, environment, view.placeholders(), Optional.empty());
    }

    /** An unsandboxed command: {@code bash -c}, with the environment the login profile made. */
    private Launch plain(String line, Path root, Map<String, String> environment, ToolContext context) {
        LoginProfile.Snapshot snapshot = profile.environment(environment, context::isCancelled);
        return new Launch(List.of("setsid", "bash", "-c", line), false, root, snapshot.environment(), List.of(),
                snapshot.problem());
    }

    /**
     * A login shell run for {@link LoginProfile}: tagged and killed with all it started like a command,
     * and like one killed when the shell stops.
     */
    private Optional<byte[]> runProfile(String script, Path directory, Map<String, String> environment,
            Duration timeout, BooleanSupplier cancelled) {
        Launch launch = new Launch(List.of("setsid", "bash", "-lc", script), false, directory, environment, List.of(),
                Optional.empty());
        Marks.Mark mark = journal.mark("p" + runs.incrementAndGet());
        journal.open();
        Procs.Since since = Procs.Since.now();
        long started = System.nanoTime();
        Process process;
        try {
            process = start(launch, mark, false);
        } catch (ToolException e) {
            // the command itself fails to start the same way and says so
            throw new CancellationException(e.getMessage());
        }
        Running running = new Running(process, since, mark);
        foreground.add(running);
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        Result.End end;
        try {
            Thread outDrain = Drains.start(process.getInputStream(), (buffer, length) -> {
                synchronized (printed) {
                    printed.write(buffer, 0, Math.max(0, Math.min(length, LoginProfile.MAX_BYTES - printed.size())));
                }
            }, "profile-stdout");
            Thread errDrain = Drains.start(process.getErrorStream(), (buffer, length) -> { }, "profile-stderr");
            end = waitFor(process, timeout, cancelled, started);
            ProcessGroups.kill(process.toHandle(), since, mark);
            Drains.join(outDrain, errDrain);
            Drains.close(process);
        } finally {
            foreground.remove(running);
        }
        if (end == Result.End.CANCELLED) {
            throw new CancellationException("the command was cancelled while the profile ran");
        }
        if (end != Result.End.EXITED) {
            return Optional.empty();
        }
        // env exits 0 after its whole output: anything else was cut short, and half an environment is not used
        synchronized (printed) {
            return Optional.of(process.exitValue() == 0 ? printed.toByteArray() : new byte[0]);
        }
    }

    /**
     * The workspace's {@link Baseline}, taken at its first command: what the sandbox protects for the
     * rest of this shell's life, whatever commands write.
     */
    private Baseline baseline(Path root, Map<String, String> environment) throws IOException {
        Baseline known = baselines.get(root);
        if (known != null) {
            return known;
        }
        synchronized (baselines) {
            known = baselines.get(root);
            if (known == null) {
                known = Baseline.of(root, Baseline.homes(SandboxView.userHome(environment)));
                baselines.put(root, known);
            }
            return known;
        }
    }

    private Process start(Launch launch, Marks.Mark mark, boolean background) throws ToolException {
        List<String> command = new ArrayList<>(Marks.tagging(mark.tag()));
        command.addAll(launch.command());
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(launch.root().toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        Map<String, String> environment = builder.environment();
        // the kernel's scrubbed environment, never this process's own (which holds the providers' keys)
        environment.clear();
        environment.putAll(launch.environment());
        // pagers and editors would wait for a terminal that is not there
        environment.put("PAGER", "cat");
        environment.put("GIT_PAGER", "cat");
        environment.put("GIT_TERMINAL_PROMPT", "0");
        environment.putIfAbsent("TERM", "dumb");
        environment.put(ProcessGroups.MARKER, mark.environment());
        try {
            if (!background) {
                return Reaper.start(builder);
            }
            Future<Process> started = spawner().submit(() -> Reaper.start(builder));
            boolean interrupted = false;
            try {
                while (true) {
                    try {
                        return started.get();
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        } catch (IOException e) {
            throw cannotStart(e);
        } catch (ExecutionException e) {
            throw cannotStart(e.getCause() instanceof IOException io ? io : new IOException(e.getCause()));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw new ToolException("The shell is shutting down; no command can start.");
        }
    }

    private static ToolException cannotStart(IOException e) {
        return new ToolException("Could not start bash: " + e.getMessage()
                + ". bash and setsid must be installed and on PATH.", e);
    }

    private synchronized ExecutorService spawner() {
        if (spawner == null) {
            spawner = Executors.newSingleThreadExecutor(task -> {
                Thread thread = new Thread(task, "quiver-shell-spawner");
                thread.setDaemon(true);
                return thread;
            });
        }
        return spawner;
    }

    private static Result.End waitFor(Process process, Duration timeout, BooleanSupplier cancelled,
            long started) {
        long deadline = started + timeout.toNanos();
        try {
            while (true) {
                if (process.waitFor(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                    return Result.End.EXITED;
                }
                if (cancelled.getAsBoolean()) {
                    return Result.End.CANCELLED;
                }
                if (System.nanoTime() - deadline >= 0) {
                    return Result.End.TIMED_OUT;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Result.End.CANCELLED;
        }
    }

    /** For tests: the state folder. */
    Path stateDir() {
        return stateDir;
    }
}
