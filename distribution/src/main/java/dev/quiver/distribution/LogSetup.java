package dev.quiver.distribution;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Where the host's logs go: never the terminal, whose streams belong to the command's output,
 * but a file under the user's state folder ({@code $XDG_STATE_HOME/quiver/quiver.log}). Everything
 * logs through java.util.logging: the framework, FileInstall, and slf4j (JGit, LangChain4j, our
 * bundles) through slf4j's JUL provider. {@code QUIVER_LOG=debug} logs more.
 */
final class LogSetup {

    private LogSetup() {
    }

    private static volatile boolean configured;

    static void configure() {
        Logger root = Logger.getLogger("");
        for (Handler handler : root.getHandlers()) {
            root.removeHandler(handler);
        }
        boolean debug = "debug".equalsIgnoreCase(System.getenv("QUIVER_LOG"));
        Level level = debug ? Level.FINE : Level.WARNING;
        root.setLevel(level);
        Handler file = new AppendingFileHandler(logFile());
        file.setLevel(level);
        root.addHandler(file);
        configured = true;
    }

    static boolean configured() {
        return configured;
    }

    static Path logFile() {
        String state = System.getenv("XDG_STATE_HOME");
        String home = System.getenv().getOrDefault("HOME", System.getProperty("user.home"));
        Path dir = state != null && !state.isBlank() ? Path.of(state, "quiver") : Path.of(home, ".local", "state", "quiver");
        return dir.resolve("quiver.log");
    }

    /** Appends each record to the file, opening it only when there is something to write. */
    static final class AppendingFileHandler extends Handler {
        private final Path file;
        private final SimpleFormatter formatter = new SimpleFormatter();

        AppendingFileHandler(Path file) {
            this.file = file;
        }

        @Override
        public synchronized void publish(LogRecord record) {
            if (!isLoggable(record)) {
                return;
            }
            try {
                Files.createDirectories(file.getParent());
                Files.writeString(file, Instant.now() + " " + formatter.format(record), StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } catch (IOException | RuntimeException ignored) {
                // logging must never break the command
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }

    /** Felix's own log, which would otherwise print to stdout, sent to java.util.logging. */
    static final class FelixLogger extends org.apache.felix.framework.Logger {
        private static final Logger LOG = Logger.getLogger("org.apache.felix.framework");

        @Override
        protected void doLog(int level, String message, Throwable throwable) {
            Level julLevel = switch (level) {
                case LOG_ERROR -> Level.SEVERE;
                case LOG_WARNING -> Level.WARNING;
                case LOG_INFO -> Level.INFO;
                default -> Level.FINE;
            };
            LOG.log(julLevel, message, throwable);
        }
    }
}
