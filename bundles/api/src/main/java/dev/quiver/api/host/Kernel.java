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

    /**
     * Whether a workspace is trusted, and what its configuration asks for that is ignored until it is.
     * Reads files only; starts nothing.
     *
     * @throws HostException when the workspace cannot be opened
     */
    WorkspaceTrust workspaceTrust(java.nio.file.Path workspace);

    /**
     * Trusts a workspace as its config files are now, in the user's state. A later change to them
     * makes it untrusted again.
     *
     * @return the workspace's real path
     * @throws HostException when the workspace cannot be opened or the trust cannot be recorded
     */
    java.nio.file.Path trust(java.nio.file.Path workspace);

    /**
     * Forgets a workspace's trust.
     *
     * @return whether it was trusted
     * @throws HostException when the trust cannot be recorded
     */
    boolean revokeTrust(java.nio.file.Path workspace);

    /** The workspaces the user trusts. */
    java.util.List<TrustedWorkspace> trustedWorkspaces();

    /**
     * The workspace's turns whose changes can be undone, newest first, of every session. Starts no
     * model and reads no configuration.
     *
     * @throws HostException when the workspace cannot be opened or its checkpoints are damaged
     * @since 1.2
     */
    java.util.List<Checkpoint> checkpoints(java.nio.file.Path workspace);

    /**
     * Undoes the workspace's newest {@code turns} turns (those numbered 1 to {@code turns} by
     * {@link #checkpoints}), as {@link Session#undo} does, without a session: no conversation is
     * rewound, and the report says which stored sessions still hold those turns.
     *
     * @throws HostException when there are fewer turns, or the checkpoints are missing or damaged
     * @since 1.2
     */
    UndoReport undo(java.nio.file.Path workspace, int turns, boolean force);
}
