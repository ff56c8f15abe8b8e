package dev.quiver.bash;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The place a command line runs in, as the judges of {@link CommandModel} and {@link CommandGuard}
 * need it: the folder the line starts in, what {@code ~} means, which paths git ignores, and the
 * repository whose configuration (aliases) git reads. The kernel implements it from its workspace;
 * this bundle imports nothing of Quiver. Paths are resolved here, on the real file system: symbolic
 * links followed, {@code ..} taken after them, globs listed.
 */
public interface ShellWorkspace {

    /** The workspace root as a real path: the folder every command of a line starts in. */
    Path root();

    /** The home folder {@code ~} stands for; empty when unknown (then {@code ~} leads nowhere judgeable). */
    Optional<Path> home();

    /**
     * Whether git ignores this path: a real path inside {@link #root()}, never the root itself and
     * never inside a {@code .git} folder (those are protected before this is asked).
     */
    boolean isIgnored(Path path);

    /**
     * Whether a file holds secrets by its name (the workspace's one rule for that; the command model asks
     * it for every place a read word may lead: the word as written, and each file its globs and braces
     * expand to). Without a rule, nothing is a secret.
     */
    default boolean isSecret(Path path) {
        return false;
    }

    /** The repository's git folder, whose {@code config} may define aliases; empty outside one. */
    default Optional<Path> gitDir() {
        return Optional.empty();
    }
}
