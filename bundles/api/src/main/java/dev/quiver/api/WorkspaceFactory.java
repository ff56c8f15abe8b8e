package dev.quiver.api;

import java.io.IOException;
import java.nio.file.Path;
import org.osgi.annotation.versioning.ProviderType;

/** Opens workspaces; registered as a service by the workspace bundle and used by the kernel. */
@ProviderType
public interface WorkspaceFactory {

    /**
     * Opens the workspace rooted at a directory.
     *
     * @throws IOException when the directory does not exist or cannot be read
     */
    Workspace open(Path root) throws IOException;

    /**
     * Opens the workspace rooted at a directory, keeping the journals of its multi-file changes in
     * {@code stateFolder} (Quiver's folder for this workspace, outside the working tree). Finishes or
     * rolls back any change a killed process left half done there, and removes the temporary files it
     * registered, before returning; {@link Workspace#recovered()} says what was found.
     *
     * @throws IOException when the directory does not exist or cannot be read
     * @since 1.5
     */
    default Workspace open(Path root, Path stateFolder) throws IOException {
        return open(root);
    }
}
