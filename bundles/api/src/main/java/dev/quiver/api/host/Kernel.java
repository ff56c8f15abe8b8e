package dev.quiver.api.host;

import org.osgi.annotation.versioning.ProviderType;

/** The kernel as a service: the one entry point of every front end. */
@ProviderType
public interface Kernel {

    /**
     * Opens a session on a workspace: reads its configuration and prepares the permission chain.
     *
     * @throws HostException when the workspace cannot be opened
     */
    Session open(SessionOptions options);

    /** The stored sessions of a workspace, newest first. */
    java.util.List<SessionSummary> sessions(java.nio.file.Path workspace);
}
