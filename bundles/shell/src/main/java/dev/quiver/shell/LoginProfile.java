package dev.quiver.shell;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * The environment the user's login profile makes, taken once per environment the kernel hands over
 * and reused by every unsandboxed command, as Claude Code's shell snapshot is: a login shell per
 * command paid the profile each time (pyenv's init alone is about 0.3 s), and a profile that hangs
 * (a stale lock of pyenv's rehash waits 60 s) hung every command. Now a profile that does not finish
 * within {@link #TIMEOUT} is killed once, with everything it started, and commands run with the
 * kernel's environment; the first command says so.
 *
 * <p>The profile runs in the user's home, never in the workspace: a repository cannot steer what it
 * does through the files of the folder it starts in (a profile that sources {@code ./.env} or a
 * virtualenv it finds). Only exported variables (and exported functions, which bash passes as
 * variables) are kept; aliases and plain shell functions are not, as with any non-interactive shell.
 */
final class LoginProfile {

    private static final Logger LOG = Logger.getLogger(LoginProfile.class.getName());
    /** How long a login profile may take before commands run without it. */
    static final Duration TIMEOUT = Duration.ofSeconds(10);
    /** The most output a profile's environment may have; a larger one is not used. */
    static final int MAX_BYTES = 1 << 20;
    /** Set by bash for the shell it is, never worth passing on. */
    private static final Set<String> SHELL_OWN = Set.of("PWD", "OLDPWD", "SHLVL", "_");
    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * What the profile made.
     *
     * @param environment what commands run with
     * @param problem why it is the kernel's environment unchanged, shown with the first command; empty when the profile ran
     */
    record Snapshot(Map<String, String> environment, Optional<String> problem) {
    }

    /** The raw run of a login shell: what it printed on stdout, or why it did not finish. */
    interface Runner {
        /**
         * Runs {@code bash -lc script} in {@code directory} with {@code environment}, killing everything
         * it started at its end or after {@code timeout}.
         *
         * @return stdout when the shell exited with status 0, no bytes for another status, empty when
         *     it was killed at the timeout
         */
        Optional<byte[]> run(String script, Path directory, Map<String, String> environment, Duration timeout);
    }

    private final Runner runner;
    private final Duration timeout;
    private final Map<Map<String, String>, CompletableFuture<Snapshot>> taken = new ConcurrentHashMap<>();

    LoginProfile(Runner runner, Duration timeout) {
        this.runner = runner;
        this.timeout = timeout;
    }

    /**
     * The snapshot for {@code environment}, taken at its first use; concurrent first uses wait for
     * the one that takes it. Only the call that took it carries its problem, so it is said once.
     */
    Snapshot environment(Map<String, String> environment) {
        Map<String, String> key = Map.copyOf(environment);
        CompletableFuture<Snapshot> mine = new CompletableFuture<>();
        CompletableFuture<Snapshot> existing = taken.putIfAbsent(key, mine);
        if (existing != null) {
            Snapshot known = existing.join();
            return new Snapshot(known.environment(), Optional.empty());
        }
        Snapshot snapshot;
        try {
            snapshot = take(key);
        } catch (RuntimeException | Error e) {
            snapshot = new Snapshot(key, Optional.of("reading it failed: " + e));
        }
        mine.complete(snapshot);
        return snapshot;
    }

    private Snapshot take(Map<String, String> environment) {
        String marker = "quiver-profile-" + HexFormat.of().formatHex(RANDOM.generateSeed(8));
        // a profile may print; what follows the marker is env's own output. exec skips a function named env
        String script = "printf '%s\\0' " + marker + "; exec env -0";
        Optional<byte[]> printed = runner.run(script, home(environment), environment, timeout);
        if (printed.isEmpty()) {
            return unused(environment, "it (bash -l) did not finish within " + timeout.toSeconds()
                    + " s and was stopped");
        }
        if (printed.get().length >= MAX_BYTES) {
            return unused(environment, "the environment it made is over " + MAX_BYTES + " bytes");
        }
        String text = new String(printed.get(), StandardCharsets.UTF_8);
        int at = text.indexOf(marker + "\0");
        if (at < 0) {
            return unused(environment, "it (bash -l) ended before it printed its environment");
        }
        Map<String, String> made = new HashMap<>();
        for (String entry : text.substring(at + marker.length() + 1).split("\0")) {
            int equals = entry.indexOf('=');
            if (equals > 0 && !SHELL_OWN.contains(entry.substring(0, equals))) {
                made.put(entry.substring(0, equals), entry.substring(equals + 1));
            }
        }
        made.remove(ProcessGroups.MARKER);
        return new Snapshot(Map.copyOf(made), Optional.empty());
    }

    private static Snapshot unused(Map<String, String> environment, String problem) {
        LOG.warning("Commands run without the login profile: " + problem);
        return new Snapshot(environment, Optional.of(problem));
    }

    /** The user's home when it is a folder, else the root folder: the profile runs there. */
    private static Path home(Map<String, String> environment) {
        return SandboxView.userHome(environment).filter(Files::isDirectory).orElse(Path.of("/"));
    }
}
