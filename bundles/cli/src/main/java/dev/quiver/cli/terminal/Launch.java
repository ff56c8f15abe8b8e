package dev.quiver.cli.terminal;

import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.SessionOptions;
import java.io.BufferedReader;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

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
 */
public record Launch(Kernel kernel, String version, SessionOptions options, Services services, BufferedReader in,
        PrintStream out, PrintStream err, Map<String, String> environment, Path history, boolean systemTerminal) {

    public Launch {
        Objects.requireNonNull(kernel, "kernel");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(services, "services");
        Objects.requireNonNull(environment, "environment");
    }

    /** The history file: the one given, or the workspace's under the state folder. */
    public Path historyFile(Path workspace) {
        return history != null ? history : HistoryPath.of(environment, workspace);
    }
}
