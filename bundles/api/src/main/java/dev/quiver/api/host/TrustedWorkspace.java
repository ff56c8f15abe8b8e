package dev.quiver.api.host;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;

/**
 * A workspace the user trusts ({@link Kernel#trustedWorkspaces()}).
 *
 * @param root the workspace's real path
 * @param since when it was trusted
 * @param current whether its config files are still as they were then; a changed config is untrusted
 *     until trusted again
 */
public record TrustedWorkspace(Path root, Instant since, boolean current) {

    public TrustedWorkspace {
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(since, "since");
    }
}
