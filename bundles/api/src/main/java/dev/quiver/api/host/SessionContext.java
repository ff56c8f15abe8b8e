package dev.quiver.api.host;

import java.nio.file.Path;
import java.util.Optional;
import org.osgi.annotation.versioning.ProviderType;

/** What a {@link SessionListener} learns about an open session. */
@ProviderType
public interface SessionContext {

    /** The session's id. */
    String id();

    /** The workspace root. */
    Path workspace();

    /**
     * A top-level key of the session's configuration (the {@code --config} file, the workspace's,
     * the user's), parsed from JSON into maps, lists, strings, numbers and booleans; read afresh,
     * so an edited config file is seen.
     */
    Optional<Object> config(String key);

    /**
     * The environment for a process the session starts on a listener's behalf, such as an MCP
     * server: the same scrubbed map tools get ({@link dev.quiver.api.ToolContext#environment()}).
     */
    java.util.Map<String, String> environment();

    /**
     * Whether the session only lists tools and checks calls ({@code quiver tools}, {@code check}):
     * a listener then starts nothing (no process, no connection) for it, but may still take part
     * in decisions, as the catalogue's trust policy does.
     */
    default boolean inspectOnly() {
        return false;
    }

    /**
     * Calls the listener when one of the session's config files changes. Close the handle to stop.
     */
    AutoCloseable onConfigChange(Runnable listener);
}
