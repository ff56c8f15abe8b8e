package dev.quiver.api.host;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Whether a workspace is trusted, and what trusting it would change ({@link Kernel#workspaceTrust}).
 *
 * @param root the workspace's real path
 * @param trusted whether its configuration counts in full
 * @param held what its configuration and files ask for that is ignored while it is untrusted, in words
 *     for the user ({@code "model"}, {@code "allow rules for bash"}, {@code ".quiver/notes.md in the
 *     prompt"}); empty when trusted or when it asks for nothing more
 */
public record WorkspaceTrust(Path root, boolean trusted, List<String> held) {

    public WorkspaceTrust {
        Objects.requireNonNull(root, "root");
        held = List.copyOf(held);
    }
}
