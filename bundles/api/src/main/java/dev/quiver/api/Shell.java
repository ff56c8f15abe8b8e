package dev.quiver.api;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Runs shell commands for tools, registered as a service by the shell bundle.
 *
 * <p>A command runs in the workspace root through {@code bash -lc}, in its own process group. Both
 * output streams are drained concurrently; very long output keeps its head and tail. A timeout or a
 * cancellation kills the whole process tree and waits until it is gone, and nothing a command
 * started outlives it.
 *
 * <p>Where bubblewrap is installed, commands run in an operating-system sandbox that shows a minimal
 * view: the system folders and the toolchains on {@code PATH} read-only, the workspace read-write
 * with {@code .git} and {@code .quiver} read-only, an empty home, a private {@code /tmp}, the folders
 * the configuration lists, and nothing else — never the user's credential folders ({@code ~/.ssh},
 * {@code ~/.aws}, ...) or Quiver's own data. There is no network, and every untracked secret file of
 * the workspace ({@link Workspace#isSecret(java.nio.file.Path)}) reads as empty; a tracked one is left
 * as it is, so git never sees it changed. Every process gets {@link ToolContext#environment()}. The
 * {@code "shell"} configuration key ({@link ToolContext#config(String)}) chooses:
 * {@code {"sandbox": "auto" | "required" | "off", "network": false, "readable": [...], "writable":
 * [...]}}. {@code auto} (the default) sandboxes when it can; {@code required} refuses to run commands
 * without the sandbox; a bad value refuses every command until it is fixed, and is never read as
 * {@code off}.
 *
 * <p>Background commands run detached from the call that started them, until they end, are
 * stopped, or the service stops (Quiver exits). Ones left by a run that crashed are killed when the
 * service starts again.
 */
@ProviderType
public interface Shell {

    /**
     * Runs a command to its end, its timeout, or the call's cancellation, streaming its output to
     * {@link ToolContext#stream(String)} while it runs.
     *
     * @param command what to run
     * @param context the call's workspace (the working directory), configuration, output stream and
     *     cancellation
     * @throws ToolException when the command could not be started: bash is missing, the
     *     configuration is bad, or the sandbox is required but unavailable or could not start
     */
    Result run(Command command, ToolContext context) throws ToolException;

    /**
     * Starts a command in the background and returns at once. It runs in the workspace root, in its
     * own process group and in the sandbox like {@link #run}, without a timeout, until it ends,
     * {@link #stop} kills it, or the service stops. Its output is kept for {@link #poll}.
     *
     * @param line the command line, run through {@code bash -lc}
     * @param name a label for people, shown in {@link #jobs()} and usable as the handle; {@code null}
     *     or blank for none
     * @param context the workspace and configuration (its output stream is not used)
     * @return the job, running
     * @throws ToolException when the command could not be started, as for {@link #run}
     */
    Job start(String line, String name, ToolContext context) throws ToolException;

    /**
     * Reports a background command: running or how it ended, and only the output it produced since
     * the previous poll (head and tail kept when that is long).
     *
     * @param handle the job's handle, or its name (the most recent job of that name)
     * @throws ToolException when no job has that handle or name
     */
    Poll poll(String handle) throws ToolException;

    /**
     * Kills a background command with its whole process tree and waits until it is gone. A job that
     * already ended is reported as it ended.
     *
     * @param handle the job's handle, or its name (the most recent job of that name)
     * @return the job as it ended, with the output not yet polled
     * @throws ToolException when no job has that handle or name
     */
    Poll stop(String handle) throws ToolException;

    /** The background commands: running ones and the most recent ended ones, oldest first. */
    List<Job> jobs();

    /**
     * One line saying whether commands run sandboxed under this configuration, for the start-up
     * header: {@code "sandboxed (bubblewrap)"}, {@code "NOT sandboxed: bubblewrap (bwrap) is not
     * installed"}, or why every command is refused.
     *
     * @param shellConfig the value of the {@code "shell"} configuration key, empty when unset
     */
    String status(Optional<Object> shellConfig);

    /**
     * A command line and how long it may run.
     *
     * @param line the command line, run through {@code bash -lc}
     * @param timeout the limit after which the process tree is killed
     */
    record Command(String line, Duration timeout) {

        /** Checks that neither part is null. */
        public Command {
            Objects.requireNonNull(line, "line");
            Objects.requireNonNull(timeout, "timeout");
        }
    }

    /**
     * How a command ended and what it printed.
     *
     * @param end why it stopped
     * @param exitCode the exit code, or -1 when it did not exit by itself
     * @param stdout standard output, possibly with a note of what was dropped from its middle
     * @param stderr standard error, likewise
     * @param elapsed how long it ran
     */
    record Result(End end, int exitCode, String stdout, String stderr, Duration elapsed) {

        /** Why a command stopped. */
        public enum End {
            /** It exited by itself (with any exit code, or killed by a signal it did not get from us). */
            EXITED,
            /** It ran past its timeout and was killed with its whole process tree. */
            TIMED_OUT,
            /** The call was cancelled (the user interrupted it) and the process tree was killed. */
            CANCELLED
        }
    }

    /**
     * A background command.
     *
     * @param handle how tools refer to it: {@code bg1}, {@code bg2}, ... unique while the service runs
     * @param name the label it was started with, empty for none
     * @param line the command line
     * @param state running, or how it ended
     * @param exitCode the exit code when {@link State#EXITED}, otherwise -1
     * @param elapsed how long it has run, or ran
     * @param sandboxed whether it runs in the sandbox
     */
    record Job(String handle, String name, String line, State state, int exitCode, Duration elapsed,
            boolean sandboxed) {

        /** Whether a background command runs, and how it ended. */
        public enum State {
            /** It is still running. */
            RUNNING,
            /** It exited by itself, with {@link Job#exitCode()}. */
            EXITED,
            /** It was killed with its process tree by {@link Shell#stop} or when the service stopped. */
            STOPPED
        }
    }

    /**
     * A background command as of now and what it printed since the previous poll.
     *
     * @param job the job
     * @param stdout standard output since the previous poll, with a note when its middle was dropped
     * @param stderr standard error, likewise
     */
    record Poll(Job job, String stdout, String stderr) {
    }
}
