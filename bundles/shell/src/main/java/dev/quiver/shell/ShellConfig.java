package dev.quiver.shell;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code "shell"} configuration key: {@code {"sandbox": "auto" | "required" | "off", "network": false}}.
 * A value that cannot be read is an error, never a default: a misspelt {@code "required"} must not
 * quietly run commands outside the sandbox.
 *
 * @param sandbox when commands run in the sandbox
 * @param network whether sandboxed commands may reach the network
 */
record ShellConfig(Sandboxing sandbox, boolean network) {

    /** The configuration when the key is not set. */
    static final ShellConfig DEFAULT = new ShellConfig(Sandboxing.AUTO, false);

    /** The values of {@code "sandbox"}. */
    enum Sandboxing {
        /** Sandboxed when bubblewrap works here, otherwise not (and the header says so). */
        AUTO,
        /** Sandboxed, or no command runs. */
        REQUIRED,
        /** Never sandboxed. */
        OFF;

        String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** A {@code "shell"} value that cannot be read; the message says what is wrong. */
    static final class Invalid extends Exception {

        private static final long serialVersionUID = 1L;

        Invalid(String message) {
            super(message);
        }
    }

    /**
     * Reads the key's value as parsed from JSON.
     *
     * @throws Invalid naming the offending key and value
     */
    static ShellConfig parse(Optional<Object> value) throws Invalid {
        if (value == null || value.isEmpty()) {
            return DEFAULT;
        }
        if (!(value.get() instanceof Map<?, ?> map)) {
            throw new Invalid("\"shell\" must be an object such as {\"sandbox\": \"auto\", \"network\": false}, got "
                    + describe(value.get()) + ".");
        }
        Sandboxing sandbox = Sandboxing.AUTO;
        boolean network = false;
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            String key = String.valueOf(entry.getKey());
            Object setting = entry.getValue();
            switch (key) {
                case "sandbox" -> sandbox = sandboxing(setting);
                case "network" -> {
                    if (!(setting instanceof Boolean allowed)) {
                        throw new Invalid("\"shell\".\"network\" must be true or false, got " + describe(setting) + ".");
                    }
                    network = allowed;
                }
                default -> throw new Invalid("\"shell\" has an unknown key \"" + key
                        + "\"; the keys are \"sandbox\" and \"network\".");
            }
        }
        return new ShellConfig(sandbox, network);
    }

    private static Sandboxing sandboxing(Object setting) throws Invalid {
        if (setting instanceof String text) {
            for (Sandboxing candidate : Sandboxing.values()) {
                if (candidate.id().equals(text)) {
                    return candidate;
                }
            }
        }
        throw new Invalid("\"shell\".\"sandbox\" must be \"auto\", \"required\" or \"off\", got " + describe(setting) + ".");
    }

    private static String describe(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof String text) {
            return "\"" + text + "\"";
        }
        return value.toString();
    }
}
