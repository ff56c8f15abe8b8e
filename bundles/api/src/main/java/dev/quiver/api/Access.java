package dev.quiver.api;

import java.util.Locale;
import java.util.Optional;

/** What a tool can do to the world. It picks the call's default decision. */
public enum Access {
    /** Reads the workspace and nothing else. Allowed by default. */
    READ,
    /** Changes only the agent's own state (todo list, notes). Allowed by default. */
    STATE,
    /** Changes files. Asks by default. */
    WRITE,
    /** Runs programs. Asks by default. */
    EXECUTE,
    /** Reaches the network. Asks by default. */
    NETWORK;

    /** The name as written in the {@value Tool#ACCESS} service property. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a service property value; empty when it names no access class. */
    public static Optional<Access> parse(Object value) {
        if (value == null) {
            return Optional.empty();
        }
        for (Access access : values()) {
            if (access.id().equals(value.toString().trim().toLowerCase(Locale.ROOT))) {
                return Optional.of(access);
            }
        }
        return Optional.empty();
    }
}
