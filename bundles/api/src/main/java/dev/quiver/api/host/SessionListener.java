package dev.quiver.api.host;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A bundle that takes part in sessions, registered as a service: the MCP client, for one, starts
 * the configured servers when a session opens and stops them when it closes. A listener that
 * arrives while sessions are open hears about them at once. Exceptions are logged and ignored.
 */
@ConsumerType
public interface SessionListener {

    /** A session opened. */
    void opened(SessionContext session);

    /** A session closed. */
    default void closed(SessionContext session) {
    }
}
