package dev.quiver.api;

import java.time.Duration;
import java.util.Objects;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Runs shell commands for tools, registered as a service by the shell bundle.
 *
 * <p>A command runs in the workspace root through {@code bash -lc}, in its own process group. Both
 * output streams are drained concurrently and streamed to {@link ToolContext#stream(String)};
 * very long output keeps its head and tail. A timeout or a cancellation kills the whole process
 * tree and waits until it is gone.
 */
@ProviderType
public interface Shell {

    /**
     * Runs a command to its end, its timeout, or the call's cancellation.
     *
     * @param command what to run
     * @param context the call's workspace (the working directory), output stream and cancellation
     * @throws ToolException when the command could not be started at all
     */
    Result run(Command command, ToolContext context) throws ToolException;

    /**
     * A command line and how long it may run.
     *
     * @param line the command line, run through {@code bash -lc}
     * @param timeout the limit after which the process tree is killed
     */
    record Command(String line, Duration timeout) {

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
}
