package dev.quiver.cli.terminal;

import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.SessionOptions;
import java.io.BufferedReader;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything the interactive terminal starts from.
 *
 * @param kernel the kernel
 * @param version Quiver's version, for the header
 * @param options the session to open (interactive)
 * @param services the other services
 * @param in standard input, read in line mode
 * @param out standard output, written in line mode
 * @param err standard error
 * @param environment the process environment, for the history file's location
 * @param history where the prompt history is kept; null for the default ({@link HistoryPath})
 * @param systemTerminal whether the streams are the process's own, so the system terminal may be
 *     used when they are a TTY; false for streams of a test or another caller
 * @param firstPrompt a prompt to send as soon as the session is open, as if typed
 *     ({@code quiver "fix the build"}); empty for none
 */
public record Launch(Kernel kernel, String version, SessionOptions options, Services services, BufferedReader in,
        PrintStream out, PrintStream err, Map<String, String> environment, Path history, boolean systemTerminal,
        Optional<String> firstPrompt) {

    public Launch {
        Objects.requireNonNull(kernel, "kernel");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(services, "services");
        Objects.requireNonNull(environment, "environment");
        Objects.requireNonNull(firstPrompt, "firstPrompt");
    }

    /** A launch that waits for the first prompt to be typed. */
    public Launch(Kernel kernel, String version, SessionOptions options, Services services, BufferedReader in,
            PrintStream out, PrintStream err, Map<String, String> environment, Path history, boolean systemTerminal) {
        this(kernel, version, options, services, in, out, err, environment, history, systemTerminal, Optional.empty());
    }

    /** The history file: the one given, or the workspace's under the state folder. */
    public Path historyFile(Path workspace) {
        return history != null ? history : HistoryPath.of(environment, workspace);
    }
}
