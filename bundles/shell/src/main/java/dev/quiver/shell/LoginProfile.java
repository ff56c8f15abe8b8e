package dev.quiver.shell;

import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.logging.Logger;
import java.util.stream.Stream;

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
    /** How the JVM decodes and encodes process environments. */
    private static final Charset ENVIRONMENT_CHARSET = environmentCharset();
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
         * @throws CancellationException when {@code cancelled} said so, the thread was interrupted or
         *     bash could not start
         */
        Optional<byte[]> run(String script, Path directory, Map<String, String> environment, Duration timeout,
                BooleanSupplier cancelled);
    }

    private final Runner runner;
    private final Duration timeout;
    private final Map<Map<String, String>, Taking> taken = new ConcurrentHashMap<>();

    /** A snapshot taken, or being taken, of the profile files as {@code fingerprint} describes them. */
    private record Taking(String fingerprint, CompletableFuture<Snapshot> snapshot) {
    }

    LoginProfile(Runner runner, Duration timeout) {
        this.runner = runner;
        this.timeout = timeout;
    }

    /**
     * The snapshot for {@code environment}, taken at its first use and again once a profile file
     * changed (an installer adding itself to {@code ~/.profile}); concurrent uses wait for the one
     * that takes it. Only the call that took it carries its problem, so it is said once. A take that
     * was cancelled, or whose shell could not start, is not kept: the next command tries again.
     */
    Snapshot environment(Map<String, String> environment, BooleanSupplier cancelled) {
        Map<String, String> key = Map.copyOf(environment);
        Taking mine = new Taking(fingerprint(home(key)), new CompletableFuture<>());
        Taking current = taken.compute(key,
                (same, known) -> known != null && known.fingerprint().equals(mine.fingerprint()) ? known : mine);
        if (current != mine) {
            return new Snapshot(current.snapshot().join().environment(), Optional.empty());
        }
        Snapshot snapshot;
        try {
            snapshot = take(key, cancelled);
        } catch (CancellationException e) {
            taken.remove(key, mine);
            snapshot = new Snapshot(key, Optional.empty());
        } catch (RuntimeException | Error e) {
            snapshot = new Snapshot(key, Optional.of("reading it failed: " + e));
        }
        mine.snapshot().complete(snapshot);
        return snapshot;
    }

    private Snapshot take(Map<String, String> environment, BooleanSupplier cancelled) {
        byte[] random = new byte[8];
        RANDOM.nextBytes(random);
        String marker = "quiver-profile-" + HexFormat.of().formatHex(random);
        // a profile may print, and may define functions named printf or exec: what follows the marker
        // is env's own output
        String script = "builtin printf '%s\\0' " + marker + "; builtin exec env -0";
        Optional<byte[]> printed = runner.run(script, home(environment), environment, timeout, cancelled);
        if (printed.isEmpty()) {
            return unused(environment, "it (bash -l) did not finish within " + timeout.toSeconds()
                    + " s and was stopped");
        }
        if (printed.get().length >= MAX_BYTES) {
            return unused(environment, "it printed over " + MAX_BYTES + " bytes");
        }
        // decoded as the JVM decodes its own environment, so each value goes to the command as it came
        String text = new String(printed.get(), ENVIRONMENT_CHARSET);
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
        // the level the old `bash -lc` started from, never below 1: Debian's bash runs ~/.bashrc for a
        // `bash -c` under ssh whose inherited level is 0 (and exec lowered the profile shell's to 0)
        made.put("SHLVL", shellLevel(environment.get("SHLVL")));
        if (!made.containsKey("PATH")) {
            return unused(environment, "the environment it printed has no PATH");
        }
        return new Snapshot(Map.copyOf(made), Optional.empty());
    }

    /**
     * The modification time and size of each file a login bash reads, so a changed profile is run
     * again; a file the profile sources from elsewhere is not looked at.
     */
    static String fingerprint(Path home) {
        List<Path> files = new ArrayList<>(List.of(Path.of("/etc/profile"), Path.of("/etc/bash.bashrc"),
                home.resolve(".bash_profile"), home.resolve(".bash_login"), home.resolve(".profile"),
                home.resolve(".bashrc")));
        try (Stream<Path> parts = Files.list(Path.of("/etc/profile.d"))) {
            parts.sorted().forEach(files::add);
        } catch (IOException | RuntimeException absent) {
            // no such folder: nothing of it to look at
        }
        StringBuilder fingerprint = new StringBuilder();
        for (Path file : files) {
            fingerprint.append(file).append('=');
            try {
                BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
                fingerprint.append(attributes.lastModifiedTime().toMillis()).append('/').append(attributes.size());
            } catch (IOException | RuntimeException absent) {
                fingerprint.append('-');
            }
            fingerprint.append('\n');
        }
        return fingerprint.toString();
    }

    private static Snapshot unused(Map<String, String> environment, String problem) {
        LOG.warning("Commands run without the login profile: " + problem);
        return new Snapshot(environment, Optional.of(problem));
    }

    private static String shellLevel(String kernels) {
        try {
            return Integer.parseInt(kernels == null ? "" : kernels.strip()) >= 1 ? kernels.strip() : "1";
        } catch (NumberFormatException none) {
            return "1";
        }
    }

    private static Charset environmentCharset() {
        try {
            return Charset.forName(System.getProperty("sun.jnu.encoding", "UTF-8"));
        } catch (RuntimeException unknown) {
            return StandardCharsets.UTF_8;
        }
    }

    /** The user's home when it is a folder, else the root folder: the profile runs there. */
    private static Path home(Map<String, String> environment) {
        return SandboxView.userHome(environment).filter(Files::isDirectory).orElse(Path.of("/"));
    }
}
