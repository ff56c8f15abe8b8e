package dev.quiver.shell;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code "shell"} configuration key: {@code {"sandbox": "auto" | "required" | "off", "network": false,
 * "readable": ["~/.sdkman"], "writable": ["~/.m2"], "env": ["NPM_TOKEN"]}}. A value that cannot be read
 * is an error, never a default: a misspelt {@code "required"} must not quietly run commands outside the
 * sandbox. {@code env} is the kernel's (it decides every process's environment) and is only accepted
 * here.
 *
 * @param sandbox when commands run in the sandbox
 * @param network whether sandboxed commands may reach the network
 * @param readable extra folders sandboxed commands see read-only, as written ({@code ~} not expanded)
 * @param writable extra folders sandboxed commands may write, such as build caches
 */
record ShellConfig(Sandboxing sandbox, boolean network, List<String> readable, List<String> writable) {

    /** The configuration when the key is not set. */
    static final ShellConfig DEFAULT = new ShellConfig(Sandboxing.AUTO, false, List.of(), List.of());

    private static final String KEYS = "the keys are \"sandbox\", \"network\", \"readable\", \"writable\" and \"env\"";

    /** Copies the lists. */
    ShellConfig {
        readable = List.copyOf(readable);
        writable = List.copyOf(writable);
    }

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
        List<String> readable = List.of();
        List<String> writable = List.of();
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
                case "readable" -> readable = paths(key, setting);
                case "writable" -> writable = paths(key, setting);
                case "env" -> {
                    // the kernel reads it and reports a bad one
                }
                default -> throw new Invalid("\"shell\" has an unknown key \"" + key + "\"; " + KEYS + ".");
            }
        }
        return new ShellConfig(sandbox, network, readable, writable);
    }

    /** A list of absolute paths or paths under {@code ~}; anything else is an error naming it. */
    private static List<String> paths(String key, Object setting) throws Invalid {
        String expected = "\"shell\".\"" + key + "\" must be a list of absolute paths or paths starting with ~/, "
                + "such as [\"~/.m2\", \"/opt/tools\"], got ";
        if (!(setting instanceof List<?> list)) {
            throw new Invalid(expected + describe(setting) + ".");
        }
        List<String> paths = new ArrayList<>();
        for (Object entry : list) {
            if (!(entry instanceof String path) || !(path.startsWith("/") || path.equals("~") || path.startsWith("~/"))) {
                throw new Invalid(expected + describe(entry) + " in the list.");
            }
            paths.add(path);
        }
        return paths;
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
