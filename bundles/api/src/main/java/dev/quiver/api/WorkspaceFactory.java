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
}
